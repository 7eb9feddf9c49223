"""What one stream is asked to be: every setting of a turn, in one value.

A `StreamRequest` is built and checked once, where a turn's settings enter (a `/v1/ws` `start`,
a speech body, a Realtime session, `TTSSession`, an adapter's options), and travels unchanged
from there: to the engine's `open_stream`, through the engine core's `OpenStream` command to its
`admit`, and to the output pipeline (`voice_tts.stream_output`). A new setting is a new field
here, read where it acts, as vLLM's `EngineCoreRequest` carries a request from its API process
to its core.

What an engine can serve (its voices, sample rates, sampling) is the engine's to check: a value
it cannot serve becomes that stream's `Error`, never an exception. What no engine could serve
(a speed outside the range, a priority that is not an int) is refused here, at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:
    from voice_tts.markup import MarkupDialect
    from voice_tts.tn import Lexicon

__all__ = [
    "MAX_FIRST_CHUNK_FRAMES",
    "MAX_SPEED",
    "MIN_SPEED",
    "PRIORITY_NORMAL",
    "AudioFormat",
    "StreamRequest",
    "checked_first_chunk_frames",
    "TURN_SETTINGS",
    "checked_priority",
    "checked_setting",
    "checked_speed",
]

# s16le PCM, or G.711 µ-law or A-law (one byte a sample; voice_tts/audio.py encodes them).
AudioFormat = Literal["pcm16", "mulaw", "alaw"]
AUDIO_FORMATS: tuple[str, ...] = get_args(AudioFormat)
MARKUP_DIALECTS = ("expr", "cartesia")  # voice_tts.markup's, named here so a request imports nothing

# The speaking-rate range every door accepts (OpenAI's Realtime range; its speech API's wider
# 0.25-4.0 is refused past it). Outside it speech stops sounding like speech.
MIN_SPEED, MAX_SPEED = 0.5, 2.0

# The largest first chunk a stream may ask for, in codec frames (80 ms each): 2.56 s, above
# vLLM-Omni's own 25-frame chunks and within the frames the Qwen3 runtime holds undecoded
# (engine.runtime.vocoder.MAX_PENDING_FRAMES).
MAX_FIRST_CHUNK_FRAMES = 32
# What an app may change on an adapter's turns at any moment (its other settings are the
# service's own): voice, language and instruct from the next turn, speed from the next chunk.
TURN_SETTINGS = ("voice", "language", "instruct", "lexicon", "speed")

# A stream's priority, as vLLM's scheduler takes a request's: a lower value is served first.
# Engines order first audio by it (docs/protocol.md, "Priority").
PRIORITY_NORMAL = 0


def checked_speed(speed: object) -> float:
    """`speed` as a float in [MIN_SPEED, MAX_SPEED]; a clear error otherwise."""
    if isinstance(speed, bool) or not isinstance(speed, (int, float)) or not math.isfinite(speed):
        raise ValueError(f"speed must be a number from {MIN_SPEED} to {MAX_SPEED}, got {speed!r}")
    if not MIN_SPEED <= speed <= MAX_SPEED:
        raise ValueError(f"speed must be from {MIN_SPEED} to {MAX_SPEED}, got {speed}")
    return float(speed)


def checked_first_chunk_frames(frames: object) -> int | None:
    """`frames` if it is None (the engine's choice) or an int from 1 to MAX_FIRST_CHUNK_FRAMES;
    a clear error otherwise."""
    if frames is None:
        return None
    if isinstance(frames, bool) or not isinstance(frames, int) or not 1 <= frames <= MAX_FIRST_CHUNK_FRAMES:
        raise ValueError(f"the first chunk must be an integer from 1 to {MAX_FIRST_CHUNK_FRAMES} codec frames, got {frames!r}")
    return frames


def checked_priority(priority: object) -> int:
    """`priority` if it is an int; a caller's mistake otherwise (it never comes from a client)."""
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise TypeError(f"priority must be an int, got {priority!r}")
    return priority


@dataclass(frozen=True)
class StreamRequest:
    """One stream's settings. `normalize`: the turn's text is raw (LLM output) and is normalized
    on its way to the engine (by `TTSSession`, or by the server a remote engine talks to);
    without it the text is spoken form already, as an engine stream takes it;
    `lexicon` and `spell_acronyms` apply inside that normalization. `sampling` and
    `max_new_tokens` are the Qwen3 engine's (None: the checkpoint's), and so is
    `first_chunk_frames`, the size of the stream's first audio chunk in codec frames (None: the
    engine's choice; the embedded eSpeak voice has no codec frames and ignores it). `resumable`: a server turn
    that survives a dropped socket. `format` is the audio's encoding on the wire. `markup`: the
    raw text carries expressive tags in this dialect (`voice_tts.markup`: "expr" or "cartesia"),
    taken out where the text is normalized and acted on there; None: `<` is text."""

    voice: str | None = None
    language: str | None = None
    instruct: str | None = None
    sample_rate: int = 24000
    format: AudioFormat = "pcm16"
    speed: float = 1.0
    priority: int = PRIORITY_NORMAL
    normalize: bool = False
    lexicon: Lexicon | None = None
    spell_acronyms: bool = True
    sampling: Any = None
    max_new_tokens: int | None = None
    first_chunk_frames: int | None = None
    resumable: bool = False
    markup: MarkupDialect | None = None

    def __post_init__(self) -> None:
        for name in ("voice", "language", "instruct"):
            if (value := getattr(self, name)) is not None and not isinstance(value, str):
                raise ValueError(f"{name} is a string or None, not {value!r}")
        object.__setattr__(self, "speed", checked_speed(self.speed))
        checked_priority(self.priority)
        checked_first_chunk_frames(self.first_chunk_frames)
        if self.format not in AUDIO_FORMATS:
            raise ValueError(f"format must be one of {AUDIO_FORMATS}, got {self.format!r}")
        if self.markup is not None and self.markup not in MARKUP_DIALECTS:
            raise ValueError(f"markup must be one of {MARKUP_DIALECTS} or null, got {self.markup!r}")
        if self.lexicon is not None:
            from voice_tts.tn import Lexicon, LexiconError

            try:
                lexicon = Lexicon.of(self.lexicon)
            except ValueError as e:  # a LexiconError names the bad rule, and keeps its wire code
                raise type(e)(f"lexicon: {e}") from e
            if lexicon and not self.normalize:
                raise LexiconError("a lexicon applies inside normalization: it needs normalize=true")
            object.__setattr__(self, "lexicon", lexicon)

    @classmethod
    def of(cls, request: StreamRequest | None = None, /, **settings: Any) -> StreamRequest:
        """`request` with `settings` changed (no request: the defaults): what an engine's
        `open_stream(request, **settings)` serves. An unknown setting is a TypeError."""
        if request is None:
            return cls(**settings)
        return replace(request, **settings) if settings else request

    @property
    def bytes_per_sample(self) -> int:
        return 2 if self.format == "pcm16" else 1


def checked_setting(name: str, value: Any) -> Any:
    """`value` of the turn setting `name` as a `StreamRequest` holds it (a `Lexicon` for its
    rules, a float speed), checked by the request; ValueError naming the setting otherwise."""
    if name not in TURN_SETTINGS:
        raise ValueError(f"{name!r} is not an option (the options: {', '.join(TURN_SETTINGS)})")
    return getattr(StreamRequest(normalize=True, **{name: value}), name)
