"""Entry points to the engines: `Engine.embedded()` and `Engine.from_pretrained()`.

Both return a `voice_tts.protocol.StreamingEngine` with the same stream contract, so callers
never branch on the backend.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


class Engine:
    @staticmethod
    def embedded(**options: Any):
        """The embedded eSpeak NG voice: CPU only, nothing to download.

        Options go to `EmbeddedEngine` (for example `capacity`)."""
        from engine.backends.espeak import EmbeddedEngine

        return EmbeddedEngine(**options)

    @staticmethod
    def from_pretrained(
        model_dir: str | Path,
        device: str | None = None,
        dtype: Any = None,
        max_streams: int = 64,
        memory_budget: int | None = None,
        revision: str | None = None,
        **options: Any,
    ):
        """The Qwen3-TTS engine on a checkpoint folder in the official layout, or on a Hugging Face
        Hub id such as "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice" at `revision` (a branch, tag or
        commit; None: main), taken from the Hub cache or downloaded into it (`HF_HUB_OFFLINE=1`:
        the cache only; `HF_TOKEN` for gated repositories).

        device: "cuda:0", "cpu", ... (None: the first GPU if there is one, else the CPU);
        dtype: None picks bfloat16 on CUDA and float32 on the CPU; max_streams caps the streams
        served at once, memory_budget (bytes) the KV cache that sizes that capacity. Other
        options are `EngineSettings` / `LoopSettings` fields (see `engine.runtime.qwen3_engine`)."""
        import torch

        from engine.runtime.qwen3_engine import Qwen3Engine

        if device is None:
            device = "cuda:0" if torch.cuda.is_available() else "cpu"
        return Qwen3Engine.from_pretrained(
            model_dir,
            device=device,
            dtype=dtype,
            max_streams=max_streams,
            memory_budget=memory_budget,
            revision=revision,
            **options,
        )
