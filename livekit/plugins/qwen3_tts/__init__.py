"""voice-tts for LiveKit Agents, under the plugin namespace: `from livekit.plugins import qwen3_tts`.

Import it at the top of the agent file: LiveKit registers plugins on the main thread only.
"""

from livekit.agents import Plugin

from voice_tts.livekit import (
    TTS,
    Qwen3StreamingTTS,
    SynthesizeStream,
    TTSLanguages,
    TTSVoices,
    __version__,
)
from voice_tts.livekit.tts import logger

__all__ = [
    "TTS",
    "Qwen3StreamingTTS",
    "SynthesizeStream",
    "TTSLanguages",
    "TTSVoices",
    "__version__",
]


class Qwen3TTSPlugin(Plugin):
    def __init__(self) -> None:
        super().__init__(__name__, __version__, __package__, logger)


Plugin.register_plugin(Qwen3TTSPlugin())
