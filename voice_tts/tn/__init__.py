"""Streaming text normalization: raw LLM deltas in, append-only spoken commits out.

See `streaming.StreamingNormalizer` for the contract and `holdback` for what keeps text held.
"""

from voice_tts.tn.commit import Commit
from voice_tts.tn.lexicon import Lexicon, LexiconError, LexiconRule
from voice_tts.tn.offsets import OffsetMap
from voice_tts.tn.stall import StallPolicy
from voice_tts.tn.streaming import StreamingNormalizer, normalize
from voice_tts.tn.wetext_calls import warm_up

__all__ = [
    "Commit",
    "Lexicon",
    "LexiconError",
    "LexiconRule",
    "OffsetMap",
    "StallPolicy",
    "StreamingNormalizer",
    "normalize",
    "warm_up",
]
