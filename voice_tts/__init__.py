"""voice-tts: streaming TTS for voice agents.

LLM tokens go in as they are generated; 24 kHz speech and word-level progress come out.
This package never imports torch, pipecat or livekit at import time.
"""

__version__ = "0.1.0"
