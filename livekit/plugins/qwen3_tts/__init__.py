"""voice-tts for LiveKit Agents, under the plugin namespace: `from livekit.plugins import qwen3_tts`.

Import it at the top of the agent file: LiveKit registers plugins on the main thread only.
"""

from livekit.agents import Plugin

# The adapter's names, under the plugin namespace.
from voice_tts.livekit import *  # noqa: F403
from voice_tts.livekit import __all__, __version__
from voice_tts.livekit.tts import logger


class Qwen3TTSPlugin(Plugin):
    def __init__(self) -> None:
        super().__init__(__name__, __version__, __package__, logger)


Plugin.register_plugin(Qwen3TTSPlugin())
