"""LiveKit Agents adapter: `Qwen3StreamingTTS` (also exported as `TTS`, the plugin convention).

Importing this module does not register a LiveKit `Plugin`; `livekit.plugins.qwen3_tts` does.
"""

from .models import TTSLanguages, TTSVoices
from .tts import Qwen3StreamingTTS, SynthesizeStream, default_engine
from .version import __version__

TTS = Qwen3StreamingTTS

__all__ = [
    "TTS",
    "Qwen3StreamingTTS",
    "SynthesizeStream",
    "TTSLanguages",
    "TTSVoices",
    "__version__",
    "default_engine",
]
