"""Entry points to the engines: `Engine.embedded()` and `Engine.from_pretrained()`."""

from __future__ import annotations

from typing import Any


class Engine:
    @staticmethod
    def embedded(**options: Any):
        """The embedded eSpeak NG voice: CPU only, nothing to download.

        Options go to `EmbeddedEngine` (for example `capacity`)."""
        from engine.backends.espeak import EmbeddedEngine

        return EmbeddedEngine(**options)

    @staticmethod
    def from_pretrained(model_dir: Any, device: str | None = None, **options: Any):
        raise RuntimeError(
            "the Qwen3 runtime is not available yet in this build; "
            "use Engine.embedded() for the built-in eSpeak NG voice"
        )
