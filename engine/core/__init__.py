"""The engine core in its own process, after vLLM v1's EngineCoreProc / core_client split.

    channel      what crosses between the core and one API worker (commands in, one batched
                 message per loop iteration out) and how it is framed
    engine_core  the core process: the engine's step loop and the channels to the workers
    client       `CoreClient`: the core as an engine with the in-process stream contract

The core imports torch and owns the device; the workers import neither.
"""
