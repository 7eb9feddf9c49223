"""Opening a route's stream: its output pipeline and its engine stream, for a `StreamRequest`.

The server serves engine streams directly. Each stream's events go through its output pipeline
(`voice_tts.stream_output`, the one place its audio, words, heard text and usage are computed),
whose text side normalizes the raw text only when the client asked the server to. Every route
(`/v1/ws` and the vLLM-Omni socket through `turn.py`, speech, Realtime, the warm-up) opens its
stream here.
"""

from __future__ import annotations

from engine.server.state import ServerState
from engine.server.usage import StreamUsage
from voice_tts.protocol import EngineStream, ErrorCode, Usage
from voice_tts.request import StreamRequest
from voice_tts.stream_output import StreamOutput
from voice_tts.turn_text import TurnText


def open_output_stream(
    state: ServerState,
    request: StreamRequest,
    usage: StreamUsage | None = None,
    replay: EngineStream | None = None,
) -> tuple[EngineStream, StreamOutput]:
    """A route's stream for `request`: its output pipeline first (a bad setting is refused
    before an engine stream exists), with the server's lexicon after the request's own, then
    the engine stream, or `replay` (a cached phrase's, engine/server/phrase_cache.py: the
    usage is marked `cached`). `usage` is told each piece of audio that goes out; a stream
    that cannot open (the exception propagates: a ValueError is the request's fault) finishes
    it as an error that received, heard and made nothing."""
    try:
        output = StreamOutput(
            request,
            default_lexicon=state.lexicon if request.normalize else None,
            meter=usage.audio_sent if usage is not None else None,
        )
        if replay is not None:
            if usage is not None:
                usage.cached = True
            return replay, output
        return output.open_stream(state.engine), output
    except Exception as exc:
        if usage is not None:
            code = getattr(exc, "code", None) or (
                ErrorCode.INVALID_MESSAGE if isinstance(exc, ValueError) else ErrorCode.ENGINE_ERROR
            )
            usage.error(code, str(exc))
            usage.finish("error", Usage())
        raise


def speak_all(stream: EngineStream, text: TurnText, raw: str) -> None:
    """The whole input at once (HTTP speech, warm-up): push it, flush it, end the input."""
    for spoken in (text.push(raw), text.flush()):  # pushed as a turn's text and stop are
        if spoken:
            stream.push_text(spoken)
    stream.end_input()
