"""The inference engine: Qwen3-TTS model code, the runtime, backends and the server.

`Engine` and `SamplingParams` resolve lazily so that importing `engine` (for the embedded
voice or the server) does not import torch.
"""

__all__ = ["Engine", "SamplingParams"]


def __getattr__(name: str):
    if name == "Engine":
        from engine.factory import Engine

        return Engine
    if name == "SamplingParams":
        from engine.model.sampling import SamplingParams

        return SamplingParams
    raise AttributeError(f"module 'engine' has no attribute {name!r}")
