"""Pipecat adapter: `Qwen3StreamingTTS`, a `TTSService` on a voice-tts engine.

Install with `pip install "voice-tts[pipecat]"`.
"""

from .tts import Qwen3StreamingTTS, Qwen3StreamingTTSSettings, default_engine

__all__ = ["Qwen3StreamingTTS", "Qwen3StreamingTTSSettings", "default_engine"]
