"""Engine backends behind the one stream contract of `voice_tts.protocol`.

`espeak` is the embedded default voice (eSpeak NG, CPU, nothing to download); its helpers are
`espeak_library` (the ctypes binding), `espeak_segments` (where text is cut for synthesis),
`espeak_voices` (voice and language names), `espeak_scheduler` (which stream synthesizes next)
and `espeak_output` (resampling, progress placement). The thread-to-asyncio hand-off
(`engine.event_channel`) and the GIL switch interval (`engine.gil`) serve the Qwen3 runtime as
well, and live beside both.
"""
