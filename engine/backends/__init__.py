"""Engine backends behind the one stream contract of `voice_tts.protocol`.

`espeak` is the embedded default voice (eSpeak NG, CPU, nothing to download); its helpers are
`espeak_library` (the ctypes binding), `espeak_segments` (where text is cut for synthesis),
`espeak_voices` (voice and language names), `espeak_scheduler` (which stream synthesizes next),
and the backend-neutral `stream_output` (resampling, progress placement) and `event_channel`
(thread to asyncio hand-off).
"""
