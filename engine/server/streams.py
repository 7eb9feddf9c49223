"""Opening engine streams for the server's routes: a stream's priority, its output pipeline and
its text side.

The server serves engine streams directly. Each stream's events go through its output pipeline
(`voice_tts.stream_output`, the one place its audio, words, heard text and usage are computed),
whose text side normalizes the raw text only when the client asked the server to.

Priority (docs/protocol.md, "Priority"): a turn on a connection that has finished a turn before
(its `done` went out, its client kept up) is opened at `PRIORITY_ESTABLISHED`, ahead of turns on
new connections and HTTP requests (`PRIORITY_NORMAL`). Under a storm of new connections the
engine serves the conversations already under way first; a new connection's first turn waits
behind their first audio.
"""

from __future__ import annotations

from typing import Callable

from engine.server.state import ServerState
from voice_tts.turn_text import TurnText
from voice_tts.protocol import PRIORITY_NORMAL, EngineStream, LexiconEntry, StreamingEngine
from voice_tts.request import StreamRequest
from voice_tts.speed import StretchedStream
from voice_tts.stream_output import StreamOutput
from voice_tts.tn import Lexicon, LexiconError

PRIORITY_ESTABLISHED = PRIORITY_NORMAL - 1


def open_output_stream(
    state: ServerState, request: StreamRequest, meter: Callable[[float], None] | None = None
) -> tuple[EngineStream, StreamOutput]:
    """A route's stream for `request`: its output pipeline first (a bad setting is refused
    before an engine stream exists), with the server's lexicon after the request's own, then
    the engine stream. `meter` is told each piece of audio that goes out."""
    output = StreamOutput(request, default_lexicon=state.lexicon if request.normalize else None, meter=meter)
    return state.engine.open_stream(request), output


def open_text_stream(
    engine: StreamingEngine, *, lexicon: Lexicon | None = None, options: dict | None = None, **settings
) -> tuple[StretchedStream, TurnText]:
    """The speech endpoint's stream (`lexicon`: its own rules already before the server's;
    `options`: further settings, `max_new_tokens`): the engine stream heard through a speed
    stage, and its text side. Speech reads the stream's events itself; it moves to
    `open_output_stream` once it has a `StreamOutput` to read."""
    request = StreamRequest(**settings, **(options or {}))
    text = StreamOutput(request, default_lexicon=lexicon).text
    return StretchedStream(engine.open_stream(request), request.speed), text


def turn_lexicon(default: Lexicon, rules: list[LexiconEntry] | None, normalize: bool = True) -> Lexicon:
    """A request's rules (checked: LexiconError names the bad one) before the server's default."""
    if rules and not normalize:
        raise LexiconError("a lexicon applies inside normalization: it needs normalize=true")
    return Lexicon(rule.model_dump() for rule in rules or ()) + default


def speak_all(stream: EngineStream, text: TurnText, raw: str) -> None:
    """The whole input at once (HTTP speech, warm-up): push it, flush it, end the input."""
    for spoken in (text.push(raw), text.flush()):  # pushed as a turn's text and stop are
        if spoken:
            stream.push_text(spoken)
    stream.end_input()
