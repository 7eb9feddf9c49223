"""Which engine an adapter talks to when the caller names none."""

from __future__ import annotations

import os

from voice_tts.protocol import StreamingEngine


def default_engine() -> StreamingEngine:
    """The server at `VOICE_TTS_URL` if that is set (one engine per GPU, shared by every bot
    and room on the host), else the embedded voice in this process."""
    if url := os.environ.get("VOICE_TTS_URL"):
        from voice_tts.client import RemoteEngine

        return RemoteEngine(url, api_key=os.environ.get("VOICE_TTS_API_KEY"))

    from engine import Engine

    return Engine.embedded()


# What metrics call the model of an engine that names none (an app's own engine wrapper, a
# remote engine before its server answered): dashboards group latency by model.
UNNAMED_MODEL = "qwen3-tts"


def model_name(engine: StreamingEngine | None) -> str:
    """The model `engine` serves, as its metrics should name it."""
    return getattr(engine, "model_name", None) or UNNAMED_MODEL
