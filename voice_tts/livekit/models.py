"""Voice and language names the engine understands (matching is case-insensitive)."""

from typing import Literal

# Preset speakers of the Qwen3-TTS CustomVoice checkpoints; other engines (the embedded
# eSpeak NG voice, cloned voices) accept their own names, so the option is `TTSVoices | str`.
TTSVoices = Literal[
    "vivian",
    "serena",
    "uncle_fu",
    "dylan",
    "eric",
    "ryan",
    "aiden",
    "ono_anna",
    "sohee",
]

TTSLanguages = Literal[
    "auto",
    "english",
    "chinese",
    "german",
    "spanish",
    "japanese",
    "french",
    "korean",
    "russian",
    "italian",
    "portuguese",
]
