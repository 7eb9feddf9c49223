"""Opening a route's stream: its output pipeline and its engine stream, for a `StreamRequest`.

The server serves engine streams directly. Each stream's events go through its output pipeline
(`voice_tts.stream_output`, the one place its audio, words, heard text and usage are computed),
whose text side normalizes the raw text only when the client asked the server to. Every route
(`/v1/ws` and the vLLM-Omni socket through `turn.py`, speech, Realtime, the warm-up) opens its
stream here.
"""

from __future__ import annotations

from engine.server.phrase_cache import opening_error, voicing
from engine.server.state import ServerState
from engine.server.usage import StreamUsage
from voice_tts.protocol import EngineStream, Usage
from voice_tts.request import StreamRequest
from voice_tts.stream_output import StreamOutput
from voice_tts.turn_text import TurnText


def open_output_stream(
    state: ServerState,
    request: StreamRequest,
    usage: StreamUsage | None = None,
    cache: bool = False,
) -> tuple[EngineStream, StreamOutput]:
    """A route's stream for `request`: its output pipeline first (a bad setting is refused
    before an engine stream exists), with the server's lexicon after the request's own, then
    the engine stream. `cache`: the phrase cache may answer it (engine/server/phrase_cache.py:
    the engine stream is then opened once the text is no cached phrase's, and a turn served
    from memory has its usage marked `cached`). `usage` is told each piece of audio that goes
    out; a stream that cannot open (the exception propagates: a ValueError is the request's
    fault) finishes it as an error that received, heard and made nothing."""
    try:
        output = StreamOutput(
            request,
            default_lexicon=state.lexicon if request.normalize else None,
            meter=usage.audio_sent if usage is not None else None,
        )
        # Markup's rate changes act on the pipeline beside the engine's events, which is all
        # a phrase keeps: a turn with markup always goes to the engine.
        if not cache or state.phrases is None or usage is None or request.markup is not None:
            return output.open_stream(state.engine), output
        made_at = next((v.created_at for v in state.description.voices if v.name == request.voice), None)

        def served_from_memory() -> None:
            usage.cached = True

        stream = state.phrases.stream(
            voicing(request, made_at), lambda: output.open_stream(state.engine), served_from_memory
        )
        return stream, output
    except Exception as exc:
        if usage is not None:
            usage.error(opening_error(exc).code, str(exc))
            usage.finish("error", Usage())
        raise


def speak_all(stream: EngineStream, text: TurnText, raw: str) -> None:
    """The whole input at once (HTTP speech, warm-up): push it, flush it, end the input."""
    for spoken in (text.push(raw), text.flush()):  # pushed as a turn's text and stop are
        if spoken:
            stream.push_text(spoken)
    stream.end_input()
