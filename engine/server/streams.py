"""Opening engine streams for the server's routes: capacity slots, a stream's priority, and its
text side.

The server serves engine streams directly. Each stream has a `TurnText` beside it (from
`voice_tts.progress`, the one place words and heard text are computed): it normalizes the raw
text only when the client asked the server to, and maps the engine's progress to raw words.

Priority (docs/protocol.md, "Priority"): a turn on a connection that has finished a turn before
(its `done` went out, its client kept up) is opened at `PRIORITY_ESTABLISHED`, ahead of turns on
new connections and HTTP requests (`PRIORITY_NORMAL`). Under a storm of new connections the
engine serves the conversations already under way first; a new connection's first turn waits
behind their first audio.
"""

from __future__ import annotations

from engine.server.metrics import ServerMetrics
from voice_tts.progress import TurnText
from voice_tts.protocol import PRIORITY_NORMAL, EngineStream, LexiconEntry, StreamingEngine
from voice_tts.speed import StretchedStream, checked_speed
from voice_tts.tn import Lexicon, LexiconError

PRIORITY_ESTABLISHED = PRIORITY_NORMAL - 1


class StreamSlots:
    """Counts streams against the server's capacity (WebSocket turns and HTTP requests)."""

    def __init__(self, capacity: int, metrics: ServerMetrics) -> None:
        self.capacity = capacity
        self.active = 0
        self._metrics = metrics

    def acquire(self) -> bool:
        if self.active >= self.capacity:
            return False
        self.active += 1
        self._metrics.active_streams.set(self.active)
        return True

    def release(self) -> None:
        self.active -= 1
        self._metrics.active_streams.set(self.active)


def open_text_stream(
    engine: StreamingEngine,
    *,
    voice: str | None,
    language: str | None,
    instruct: str | None,
    sample_rate: int,
    normalize: bool,
    lexicon: Lexicon | None = None,
    spell_acronyms: bool = True,
    priority: int = PRIORITY_NORMAL,
    speed: float = 1.0,
    options: dict | None = None,
) -> tuple[StretchedStream, TurnText]:
    """The text side first: a bad lexicon is refused before an engine stream exists. The
    stream is heard at `speed` (and its `set_speed`): its times are played time. `options`:
    further `open_stream` options the engine takes (`max_new_tokens`)."""
    text = TurnText(language=language, normalize=normalize, lexicon=lexicon, spell_acronyms=spell_acronyms)
    speed = checked_speed(speed)
    stream = engine.open_stream(
        voice=voice, language=language, instruct=instruct, sample_rate=sample_rate, priority=priority, **(options or {})
    )
    return StretchedStream(stream, speed), text


def turn_lexicon(default: Lexicon, rules: list[LexiconEntry] | None, normalize: bool = True) -> Lexicon:
    """A turn's rules (checked: LexiconError names the bad one) before the server's default."""
    if rules and not normalize:
        raise LexiconError("a lexicon applies inside normalization: it needs normalize=true")
    return Lexicon(rule.model_dump() for rule in rules or ()) + default


def speak_all(stream: EngineStream, text: TurnText, raw: str) -> None:
    """The whole input at once (HTTP speech, warm-up): push it, flush it, end the input."""
    for spoken in (text.push(raw), text.flush()):  # pushed as a turn's text and stop are
        if spoken:
            stream.push_text(spoken)
    stream.end_input()
