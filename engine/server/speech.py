"""`POST /v1/audio/speech`: the OpenAI-compatible speech endpoint.

Rules where the OpenAI API and this server differ (docs/protocol.md repeats them):
- `response_format`: `pcm` (24 kHz mono s16le, no header), `wav` (the default), or `mp3`,
  `opus` (in Ogg), `aac` (ADTS) and `flac`, encoded as the audio streams (engine/server/encoders.py);
  not in OpenAI's API: `mulaw` and `alaw` (G.711 at 8 kHz, one byte a sample, no header).
- `speed` from 0.5 to 2.0, pitch kept (voice_tts/speed.py); OpenAI's wider 0.25-4.0 is refused
  past that range with 400 `unsupported_speed` rather than quietly clamped.
- `model` is accepted for compatibility and does not choose anything: the server speaks with
  the engine it was started with. `voice` may be left out (the server's default voice).
- OpenAI's own voice names (alloy, nova, ...) select the server's default voice; any other name
  must be one of `GET /v1/voices` (matched without regard to case).
- vLLM-Omni's fields (`task_type`, `ref_audio`, `ref_text`, `x_vector_only_mode`,
  `max_new_tokens`, `initial_codec_chunk_frames`, `non_streaming_mode`): see
  engine/server/speech_settings.py and docs/vllm-omni.md.
- `instructions` becomes the engine's `instruct`; `language` (not in OpenAI's API) is passed on.
- `lexicon` (not in OpenAI's API): the request's pronunciation dictionary, rules like
  `{"match": "SQL", "say": "sequel"}` applied before the server's `--lexicon` rules;
  `spell_acronyms` (default true) spells capitals that are not words ("FBI" -> "F B I").
- Without `stream`, audio is sent as it is produced with chunked transfer; a streamed WAV
  has 0xFFFFFFFF as its RIFF and data sizes, as OpenAI's streamed WAV does. `stream: false`
  answers with a complete body with its real length. `stream: true` without a
  `stream_format` means server-sent events, as in vLLM-Omni; with `stream_format: "audio"`
  the audio streams.
- `stream_format: "sse"` answers with OpenAI's server-sent events: `speech.audio.delta` with
  base64 audio as it is produced, then `speech.audio.done` with `usage` (always streamed).
  The deltas decoded and joined are exactly the `audio` stream's body (for `wav`, the first
  delta starts with the streamed WAV header).
- With `--phrase-cache-mb`, a request whose input and settings equal a recent turn's that finished
  (this endpoint's or `/v1/ws`'s) is answered from memory (engine/server/phrase_cache.py), byte
  for byte the same, its usage marked `cached` (in `speech.audio.done` and the usage log);
  `cache: false` (not in OpenAI's API) asks for the engine.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import math
import struct
import uuid
from typing import AsyncIterator, Literal

from pydantic import Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from engine.server.encoders import FORMATS, StreamEncoder
from engine.server.settings import ServerSettings
from engine.server.speech_settings import SAMPLE_RATE, SpeechRefused, SpeechSettings, check_speed, resolve, stream_request
from engine.server.state import ServerState
from engine.server.route_stream import open_output_stream, speak_all
from engine.server.usage import StreamUsage
from voice_tts.audio import wav_bytes
from voice_tts.protocol import EngineStream, Error, ErrorCode
from voice_tts.stream_output import AudioOut, Finished, Output, StreamOutput

log = logging.getLogger(__name__)

# The uncompressed formats (G.711's media types are RFC 4856's).
MEDIA_TYPES = {"pcm": "audio/pcm", "wav": "audio/wav", "mulaw": "audio/PCMU", "alaw": "audio/PCMA"}
# `usage.output_tokens` counts audio in the codec's 80 ms frames (Qwen3-TTS speaks 12.5 a second).
OUTPUT_TOKENS_PER_SECOND = 12.5


class SpeechRequest(SpeechSettings):
    input: str = Field(min_length=1)
    stream: bool | None = None
    stream_format: Literal["audio", "sse"] | None = None
    cache: bool = True  # may be answered from the phrase cache

    @property
    def delivery(self) -> Literal["sse", "audio", "whole"]:
        """Server-sent events, audio as it is produced, or one whole body. `stream: true`
        without a `stream_format` means events, as in vLLM-Omni; without `stream` the audio
        streams, as OpenAI's does."""
        if self.stream_format == "sse" or (self.stream and self.stream_format is None):
            return "sse"
        return "whole" if self.stream is False else "audio"


# Engine errors that are the request's fault (HTTP 400) rather than the server's.
REQUEST_ERROR_CODES = frozenset(
    {
        ErrorCode.INVALID_VOICE,
        ErrorCode.INVALID_SAMPLE_RATE,
        ErrorCode.UNSUPPORTED_LANGUAGE,
        ErrorCode.INVALID_SAMPLING,
        ErrorCode.INVALID_MESSAGE,
        ErrorCode.TEXT_TOO_LONG,
    }
)


def openai_error(
    status: int,
    message: str,
    code: str,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return JSONResponse(
        {"error": {"message": message, "type": kind, "param": param, "code": code}},
        status_code=status,
        headers=headers,
    )


def validation_error(exc: ValidationError) -> JSONResponse:
    """A body the request model refuses: 400 naming the first field at fault."""
    first = exc.errors()[0]
    if first["type"] == "json_invalid":
        return openai_error(400, f"the body is not JSON: {first['msg']}", ErrorCode.INVALID_JSON)
    param = ".".join(str(p) for p in first["loc"]) or None
    message = f"{param}: {first['msg']}" if param else first["msg"].removeprefix("Value error, ")
    return openai_error(400, message, ErrorCode.INVALID_MESSAGE, param)


class ReaderPacedResponse(StreamingResponse):
    """A streamed body its client must keep taking: a part that cannot go out within
    `stall_timeout_s` ends the response, and closing the body cancels the stream and frees its
    slot (a client that stops reading must not hold one for good)."""

    def __init__(self, content: AsyncIterator[bytes], stall_timeout_s: float, **kwargs) -> None:
        super().__init__(content, **kwargs)
        self.stall_timeout_s = stall_timeout_s

    async def __call__(self, scope, receive, send) -> None:
        async def send_in_time(message) -> None:
            async with asyncio.timeout(self.stall_timeout_s):
                await send(message)

        try:
            await super().__call__(scope, receive, send_in_time)
        except TimeoutError:
            log.warning(
                "a speech client took nothing for %g s: its stream is dropped", self.stall_timeout_s
            )
        finally:
            await self.body_iterator.aclose()


def error_status(error: Error) -> int:
    if error.code in REQUEST_ERROR_CODES:
        return 400
    if error.code == ErrorCode.CAPACITY:
        return 429
    return 503 if error.retryable else 500


class RefusedBody(Exception):
    def __init__(self, response: Response) -> None:
        self.response = response


async def read_body(request: Request, settings: ServerSettings, limit: int | None = None) -> bytes:
    """The request body, refused with 413 before reading when its announced size is over the
    limit (`settings.max_request_bytes` unless given; or as soon as a chunked one passes it),
    and with 408 when it does not arrive in time."""
    limit = settings.max_request_bytes if limit is None else limit
    too_large = RefusedBody(
        openai_error(
            413,
            f"the request body is over the limit of {limit} bytes",
            ErrorCode.REQUEST_TOO_LARGE,
            headers={"Connection": "close"},
        )
    )
    announced = request.headers.get("content-length", "")
    if announced.isdigit() and int(announced) > limit:
        raise too_large
    body = bytearray()
    try:
        async with asyncio.timeout(settings.body_timeout_s):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise too_large
    except TimeoutError:
        raise RefusedBody(
            openai_error(
                408,
                f"the request body did not arrive within {settings.body_timeout_s} s",
                ErrorCode.REQUEST_TIMEOUT,
                headers={"Connection": "close"},
            )
        ) from None
    return bytes(body)


def streaming_wav_header(sample_rate: int) -> bytes:
    """A mono s16le WAV header whose sizes say 'unknown' (the maximum), for a streamed body."""
    unknown = 0xFFFFFFFF
    return (
        b"RIFF"
        + struct.pack("<I", unknown)
        + b"WAVE"
        + b"fmt "
        + struct.pack("<IHHIIHH", 16, 1, 1, sample_rate, sample_rate * 2, 2, 16)
        + b"data"
        + struct.pack("<I", unknown)
    )


class SpeechEndpoint:
    def __init__(self, state: ServerState) -> None:
        self._state = state

    async def handle(self, request: Request) -> Response:
        state = self._state
        settings = state.settings
        # A request may carry a reference recording (ref_audio) as base64, up to the size of an upload.
        limit = settings.max_request_bytes + 4 * math.ceil(settings.max_voice_upload_bytes / 3)
        try:
            body = await read_body(request, settings, limit)
        except RefusedBody as refused:
            return refused.response
        try:
            speech = SpeechRequest.model_validate_json(body)
        except ValidationError as exc:
            return validation_error(exc)
        rejected = self._check(speech)
        if rejected is not None:
            return rejected
        if (refusal := state.readiness.refusal()) is not None:
            code, message = refusal
            return openai_error(503, message, code)
        try:
            choice = await resolve(state, speech)
        except SpeechRefused as refused:
            return openai_error(refused.status, str(refused), refused.code, refused.param)
        try:
            stream_settings = stream_request(speech, choice)
        except ValueError as exc:  # a bad lexicon rule
            return openai_error(400, str(exc), getattr(exc, "code", ErrorCode.INVALID_MESSAGE))
        if not state.slots.acquire():
            return openai_error(
                429, f"all {state.slots.capacity} streams are busy", ErrorCode.CAPACITY
            )
        usage = state.stream_usage(
            "http", uuid.uuid4().hex, choice.voice, traceparent=request.headers.get("traceparent")
        )
        try:
            stream, output = open_output_stream(state, stream_settings, usage, cache=speech.cache)
        except ValueError as exc:
            state.slots.release()
            return openai_error(400, str(exc), getattr(exc, "code", ErrorCode.INVALID_MESSAGE))
        except Exception as exc:
            state.slots.release()
            log.exception("could not open a stream")
            return openai_error(500, f"could not open a stream: {exc}", ErrorCode.ENGINE_ERROR)
        usage.text_arrived()
        speak_all(stream, output.text, speech.input)
        return await self._respond(speech, stream, output, usage)

    def _check(self, speech: SpeechRequest) -> Response | None:
        if speech.response_format not in MEDIA_TYPES and speech.response_format not in FORMATS:
            names = ", ".join(repr(name) for name in [*MEDIA_TYPES, *FORMATS])
            return openai_error(
                400,
                f"response_format {speech.response_format!r} is not supported; use one of {names}",
                "unsupported_response_format",
                "response_format",
            )
        try:
            check_speed(speech)
        except SpeechRefused as refused:
            return openai_error(refused.status, str(refused), refused.code, refused.param)
        limit = self._state.settings.max_turn_text_chars
        if len(speech.input) > limit:
            return openai_error(
                400,
                f"input has {len(speech.input)} characters; the limit is {limit}",
                ErrorCode.TEXT_TOO_LONG,
                "input",
            )
        return None

    async def _respond(
        self, speech: SpeechRequest, stream: EngineStream, output: StreamOutput, usage: StreamUsage
    ) -> Response:
        """Waits for the first audio so that a failure before it still gets an HTTP status."""
        state = self._state
        outputs = aiter(_outputs(stream, output, usage))
        first: AudioOut | None = None
        finished = False
        try:
            async for out in outputs:
                if isinstance(out, AudioOut):
                    first = out
                    break
                if isinstance(out, Error):
                    state.metrics.errors.labels(code=out.code).inc()
                    usage.error(out.code, out.message)
                    stream.cancel()
                    state.slots.release()
                    usage.finish("error", output.usage)
                    return openai_error(error_status(out), out.message, out.code)
                if isinstance(out, Finished):
                    finished = True
                    break
        except BaseException:
            stream.cancel()
            state.slots.release()
            usage.finish("error", output.usage)
            raise
        if first is None and not finished:
            state.slots.release()
            usage.finish("error", output.usage)
            return openai_error(500, "the stream ended without audio", ErrorCode.ENGINE_ERROR)
        body = self._body(stream, output, outputs, first, finished, usage)
        audio_format = speech.response_format
        if audio_format in FORMATS:
            encoder = StreamEncoder(audio_format, SAMPLE_RATE)
            audio, media_type = _encoded(body, encoder), encoder.media_type
        else:
            header = streaming_wav_header(SAMPLE_RATE) if audio_format == "wav" else b""  # G.711: none
            audio, media_type = _prepend(header, body), MEDIA_TYPES[audio_format]
        stall_timeout_s = self._state.settings.max_client_lag_s
        if speech.delivery == "sse":
            return ReaderPacedResponse(
                _sse_events(audio, usage, output),
                stall_timeout_s,
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache"},
            )
        if speech.delivery == "audio":
            return ReaderPacedResponse(audio, stall_timeout_s, media_type=media_type)
        if audio_format == "wav":
            pcm = b"".join([chunk async for chunk in body])
            return Response(wav_bytes(pcm, SAMPLE_RATE), media_type=media_type)
        return Response(b"".join([chunk async for chunk in audio]), media_type=media_type)

    async def _body(
        self,
        stream: EngineStream,
        output: StreamOutput,
        outputs: AsyncIterator[Output],
        first: AudioOut | None,
        finished: bool,
        usage: StreamUsage,
    ) -> AsyncIterator[bytes]:
        """PCM from the first chunk to the end; a client that leaves cancels the stream."""
        metrics = self._state.metrics
        outcome = "abandoned"
        try:
            if first is not None:
                yield first.data
            if finished:
                outcome = "done"
                return
            async for out in outputs:
                if isinstance(out, AudioOut):
                    yield out.data
                elif isinstance(out, Error):
                    # Headers are out: the body just ends short; the log and metric say why.
                    metrics.errors.labels(code=out.code).inc()
                    log.error("speech stream failed after audio started: %s", out.message)
                    outcome = "error"
                elif isinstance(out, Finished):
                    if outcome != "error":
                        outcome = "done"
        finally:
            if outcome != "done":
                stream.cancel()
                output.cancel()  # heard: the words whose audio went out
            self._state.slots.release()
            usage.finish(outcome, output.usage)


async def _outputs(stream: EngineStream, output: StreamOutput, usage: StreamUsage) -> AsyncIterator[Output]:
    """The stream's engine events through its output pipeline, in order."""
    async for event in stream.events():
        usage.engine_output()
        for out in output.process(event):
            yield out


def _sse(event: dict) -> bytes:
    return b"data: " + json.dumps(event, separators=(",", ":")).encode() + b"\n\n"


async def _sse_events(body: AsyncIterator[bytes], usage: StreamUsage, output: StreamOutput) -> AsyncIterator[bytes]:
    """OpenAI's speech stream events: a delta per chunk of audio, then done with usage (or,
    when the engine failed after audio started, an `error` event in OpenAI's shape)."""
    async with contextlib.aclosing(body):  # a response ended early closes the stream now
        async for chunk in body:
            yield _sse({"type": "speech.audio.delta", "audio": base64.b64encode(chunk).decode()})
    if usage.outcome == "error":
        error = {
            "message": "the engine failed after the audio started; the audio is incomplete",
            "type": "server_error",
            "param": None,
            "code": ErrorCode.ENGINE_ERROR,
        }
        yield _sse({"type": "error", "error": error})
        return
    characters, audio_seconds = output.usage.characters_received, output.usage.audio_seconds
    output_tokens = math.ceil(audio_seconds * OUTPUT_TOKENS_PER_SECOND - 1e-9)
    counts = {"input_tokens": characters, "output_tokens": output_tokens, "total_tokens": characters + output_tokens}
    if usage.cached:
        counts["cached"] = True  # not in OpenAI's API: answered from the phrase cache
    yield _sse({"type": "speech.audio.done", "usage": counts})


async def _encoded(body: AsyncIterator[bytes], encoder: StreamEncoder) -> AsyncIterator[bytes]:
    async with contextlib.aclosing(body):
        async for pcm in body:
            if data := encoder.encode(pcm):
                yield data
    if data := encoder.finish():
        yield data


async def _prepend(header: bytes, body: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    if header:
        yield header
    async with contextlib.aclosing(body):
        async for chunk in body:
            yield chunk
