"""LiveKit Agents TTS: LLM tokens in, speech and word-aligned transcripts out.

One `SynthesizeStream` is one agent speech and one `TTSSession` (one engine stream). Tokens are
pushed to the session as they arrive; the session's words come back as `TimedString` pieces
that slice the text exactly as it was received and carry each word's start and end in the
audio. The pieces join back to the text, so LiveKit's synchronized transcript (and with it the
chat message kept after a barge-in) is made of the words whose audio was played; a failure
raises at once, with only the words already spoken in the transcript.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from typing import Literal

from livekit.agents import (
    APIConnectionError,
    APIError,
    APIStatusError,
    APITimeoutError,
    tts,
    utils,
)
from livekit.agents.types import (
    DEFAULT_API_CONNECT_OPTIONS,
    NOT_GIVEN,
    APIConnectOptions,
    NotGivenOr,
    TimedString,
)

from voice_tts.engines import default_engine, model_name
from voice_tts.progress import Word
from voice_tts.protocol import (
    SUPPORTED_SAMPLE_RATES,
    AudioChunk,
    Error,
    ErrorCode,
    StreamingEngine,
)
from voice_tts.session import (
    SILENCE_TIMEOUT,
    SessionDone,
    TTSSession,
    WordsEvent,
    prepare_normalizer,
)
from voice_tts.request import StreamRequest
from voice_tts.tn import Lexicon

from .markup import Markup
from .models import TTSLanguages, TTSVoices

logger = logging.getLogger("livekit.plugins.qwen3_tts")

NUM_CHANNELS = 1
# Errors of the remote client that mean the engine server was not reached or was lost.
_CONNECTION_ERROR_CODES = frozenset({ErrorCode.DISCONNECTED, ErrorCode.UNREACHABLE})
# Engine errors that are an HTTP status in LiveKit's terms: a refused API key (never
# retried), a full server (retried).
_STATUS_CODES = {ErrorCode.UNAUTHORIZED: 401, ErrorCode.FORBIDDEN: 403, ErrorCode.CAPACITY: 429}


class Qwen3StreamingTTS(tts.TTS):
    Markup = Markup

    def __init__(
        self,
        *,
        engine: StreamingEngine | None = None,
        voice: TTSVoices | str | None = None,
        language: TTSLanguages | str | None = None,
        instruct: str | None = None,
        sample_rate: int = 24000,
        normalize: bool = True,
        spell_acronyms: bool = True,
        lexicon: Lexicon | list[dict] | None = None,
        silence_timeout: float = SILENCE_TIMEOUT,
        speed: float = 1.0,
        markup: Literal["expr"] | None = None,
    ) -> None:
        """
        Args:
            engine: an in-process `Engine`, `Engine.embedded()` or `RemoteEngine(url)`.
                Default: `RemoteEngine($VOICE_TTS_URL)` if set, else the embedded voice,
                created on first use and closed by `aclose()`.
            voice: speaker name; None is the engine's default voice.
            language: an ISO code or tag ("en", "en-US", "zh-CN") or a Qwen3 language name;
                None or "auto" lets the engine decide.
            instruct: style instruction for models that take one.
            sample_rate: output rate, one of `SUPPORTED_SAMPLE_RATES`; the engine produces
                audio at this rate.
            normalize: run streaming text normalization (numbers, dates, ...) on the tokens.
            spell_acronyms: spell capitals that are not words ("FBI" -> "F B I") when normalizing.
            lexicon: pronunciation dictionary, a `voice_tts.tn.Lexicon` or its rules such as
                `[{"match": "SQL", "say": "sequel"}]`; the chat context keeps the raw words.
            silence_timeout: seconds the engine may stay silent once it has all the text
                (at most the stream's `conn_options.timeout`) before the speech fails with
                `APITimeoutError`.
            speed: speaking rate, 0.5 to 2.0, pitch kept (needs the `speed` extra on an
                in-process engine); timed transcripts and the chat context after a
                barge-in follow the audio as played.
            markup: "expr": the LLM's text carries LiveKit's expressive markers
                (`tts.markup.llm_instructions()` teaches them), spoken as they direct and
                kept out of the transcript; also on for every speech the framework marks
                expressive. None: `<` is text.
        """
        if sample_rate not in SUPPORTED_SAMPLE_RATES:
            raise ValueError(
                f"sample_rate must be one of {SUPPORTED_SAMPLE_RATES}, got {sample_rate!r}"
            )
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=True, aligned_transcript=True),
            sample_rate=sample_rate,
            num_channels=NUM_CHANNELS,
        )
        # Every speech's settings, checked here: a bad dictionary or speed fails now, not at
        # the first speech.
        self._request = StreamRequest(
            voice=voice, language=language, instruct=instruct, lexicon=lexicon, speed=speed,
            sample_rate=sample_rate, normalize=normalize, spell_acronyms=spell_acronyms,
            markup=markup,
        )
        self._silence_timeout = silence_timeout
        self._engine = engine
        self._owns_engine = engine is None
        prepare_normalizer(engine, normalize)
        self._streams = weakref.WeakSet[SynthesizeStream]()
        self._prewarm_task: asyncio.Task | None = None

    @property
    def model(self) -> str:
        return model_name(self.engine)

    @property
    def provider(self) -> str:
        return "voice-tts"

    @property
    def engine(self) -> StreamingEngine:
        if self._engine is None:
            self._engine = default_engine()
        return self._engine

    def update_options(
        self,
        *,
        voice: NotGivenOr[TTSVoices | str | None] = NOT_GIVEN,
        language: NotGivenOr[TTSLanguages | str | None] = NOT_GIVEN,
        instruct: NotGivenOr[str | None] = NOT_GIVEN,
        lexicon: NotGivenOr[Lexicon | list[dict] | None] = NOT_GIVEN,
        speed: NotGivenOr[float] = NOT_GIVEN,
    ) -> None:
        """Applies to streams opened from now on; a speech in progress keeps its voice, and
        takes a new `speed` from its next chunk. A value that cannot be used raises ValueError
        naming the option, and changes nothing; whether the engine has the voice or language
        is the engine's to say, at the next speech (an `APIError` naming it)."""
        given = dict(voice=voice, language=language, instruct=instruct, lexicon=lexicon, speed=speed)
        changes = {name: value for name, value in given.items() if utils.is_given(value)}
        self._request = StreamRequest.of(self._request, **changes)
        if "speed" in changes:
            for stream in self._streams:
                stream._set_speed(self._request.speed)

    def _speech_request(self) -> StreamRequest:
        """The next speech's settings: the options, with markup on where the framework marked
        the speech expressive (it does just before `stream()` or `synthesize()`)."""
        if self._expressive and self._request.markup is None:
            return StreamRequest.of(self._request, markup="expr")
        return self._request

    def prewarm(self) -> None:
        """Create the default engine now, and open a remote engine's connection ahead of the
        first speech (in the background, when an event loop runs)."""
        prewarm = getattr(self.engine, "prewarm", None)
        if prewarm is None or self._prewarm_task is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._prewarm_task = loop.create_task(self._prewarm(prewarm))

    async def _prewarm(self, prewarm) -> None:
        try:
            await prewarm()
        except Exception as e:  # the first speech reports it as a connection error
            logger.warning("voice-tts prewarm failed: %s", e)

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> ChunkedStream:
        stream = ChunkedStream(tts=self, input_text=text, conn_options=conn_options)
        stream._request = self._speech_request()
        return stream

    def stream(
        self, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> SynthesizeStream:
        stream = SynthesizeStream(tts=self, conn_options=conn_options)
        stream._request = self._speech_request()
        self._streams.add(stream)
        return stream

    async def aclose(self) -> None:
        if self._prewarm_task is not None:
            await utils.aio.cancel_and_wait(self._prewarm_task)
            self._prewarm_task = None
        for stream in list(self._streams):
            await stream.aclose()
        self._streams.clear()
        if self._owns_engine and self._engine is not None:
            engine, self._engine = self._engine, None
            await engine.aclose()

    def _open_session(self, request: StreamRequest, conn_options: APIConnectOptions) -> TTSSession:
        try:
            return TTSSession(
                self.engine,
                request,
                silence_timeout=min(self._silence_timeout, conn_options.timeout),
                # LiveKit's retry timing holds only if each attempt connects within it.
                connect_timeout=conn_options.timeout,
            )
        except (ConnectionError, OSError) as e:
            raise APIConnectionError(f"voice-tts engine unreachable: {e}") from e
        except Exception as e:
            raise APIError(f"voice-tts could not open a stream: {e!r}", retryable=False) from e


class ChunkedStream(tts.ChunkedStream):
    """`synthesize(text)`: the whole text at once, spoken on one engine stream."""

    def __init__(
        self, *, tts: Qwen3StreamingTTS, input_text: str, conn_options: APIConnectOptions
    ) -> None:
        super().__init__(tts=tts, input_text=input_text, conn_options=conn_options)
        self._tts: Qwen3StreamingTTS = tts
        self._request = tts._request

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        _initialize(output_emitter, self._request, stream=False)
        session = self._tts._open_session(self._request, self._conn_options)
        await session.feed(self._input_text)
        session.end_input()
        await _Speech(self, session, output_emitter, self._request.sample_rate, None).run()


class SynthesizeStream(tts.SynthesizeStream):
    def __init__(self, *, tts: Qwen3StreamingTTS, conn_options: APIConnectOptions) -> None:
        super().__init__(tts=tts, conn_options=conn_options)
        self._tts: Qwen3StreamingTTS = tts
        self._request = tts._request
        self._session: TTSSession | None = None

    def _set_speed(self, speed: float) -> None:
        """From the running attempt's next chunk, and for any retry."""
        self._request = StreamRequest.of(self._request, speed=speed)
        if self._session is not None:
            self._session.set_speed(speed)

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        # Called again on a retry: each attempt gets its own engine stream and replays the input.
        request_id = _initialize(output_emitter, self._request, stream=True)
        session = self._session = self._tts._open_session(self._request, self._conn_options)

        async def _forward_input() -> None:
            async for data in self._input_ch:
                if isinstance(data, self._FlushSentinel):
                    # A flush closes the stream's only segment: the base class drops any
                    # text pushed after it, so the engine can finish now.
                    if session.raw_text:
                        break
                    continue
                self._mark_started()
                await session.feed(data)
            session.end_input()

        forward_input = asyncio.create_task(_forward_input(), name="qwen3_tts.forward_input")
        try:
            await _Speech(self, session, output_emitter, self._request.sample_rate, request_id).run()
        finally:
            await utils.aio.cancel_and_wait(forward_input)


def _initialize(output_emitter: tts.AudioEmitter, request: StreamRequest, *, stream: bool) -> str:
    """Start an attempt's emitter; returns its request id."""
    request_id = utils.shortuuid()
    output_emitter.initialize(
        request_id=request_id,
        sample_rate=request.sample_rate,
        num_channels=NUM_CHANNELS,
        mime_type="audio/pcm",
        stream=stream,
    )
    return request_id


class _Speech:
    """Maps one session's events onto an `AudioEmitter`; raises the session's failure as the
    LiveKit error it is, at once. `segment_id` None: a `synthesize()` call (no segments)."""

    def __init__(
        self,
        api_stream: tts.ChunkedStream | tts.SynthesizeStream,
        session: TTSSession,
        output_emitter: tts.AudioEmitter,
        sample_rate: int,
        segment_id: str | None,
    ) -> None:
        self._api_stream = api_stream
        self._session = session
        self._emitter = output_emitter
        self._sample_rate = sample_rate
        self._segment_id = segment_id
        self._segment_started = segment_id is None
        self._audio_samples = 0
        self._transcript = _TranscriptSlicer()

    async def run(self) -> None:
        session = self._session
        finished = False
        try:
            async with contextlib.aclosing(session.events()) as events:
                async for ev in events:
                    if isinstance(ev, AudioChunk):
                        self._on_audio(ev)
                    elif isinstance(ev, WordsEvent):
                        self._start_segment()
                        self._push(self._transcript.pieces(session.raw_text, ev.words))
                    elif isinstance(ev, Error):
                        await self._deliver_spoken()
                        raise _api_error(ev)
                    elif isinstance(ev, SessionDone):
                        finished = True
                        if ev.cancelled:
                            await self._deliver_spoken()
                            raise APIError("voice-tts engine cancelled the stream", retryable=True)
                        self._finish()
        finally:
            if not finished:
                # aclose(), barge-in, or an error: stop the engine so its slot is freed.
                session.cancel()

    async def _deliver_spoken(self) -> None:
        """Before a failure is raised: the audio so far goes out with its words, the last one
        ending where the audio does (LiveKit drops what an attempt still has queued when it
        fails)."""
        if self._audio_samples:
            self._push(self._transcript.release(self._audio_end))
            self._emitter.end_input()
            await self._emitter.join()

    def _on_audio(self, chunk: AudioChunk) -> None:
        if chunk.sample_rate != self._sample_rate:
            raise APIError(
                f"engine sent {chunk.sample_rate} Hz audio, {self._sample_rate} Hz was asked for",
                retryable=False,
            )
        if self._audio_samples == 0:
            stream = self._session.engine_stream
            # A remote engine tells how its socket was had; LiveKit reports it in the metrics.
            self._api_stream._acquire_time = getattr(stream, "acquire_time", 0.0)
            self._api_stream._connection_reused = getattr(stream, "connection_reused", False)
        self._start_segment()
        self._emitter.push(chunk.pcm)
        self._audio_samples += chunk.num_samples

    @property
    def _audio_end(self) -> float:
        return self._audio_samples / self._sample_rate

    def _finish(self) -> None:
        raw_text = self._session.raw_text
        if self._audio_samples == 0 and raw_text.strip():
            # Nothing speakable (an emoji, a lone symbol): LiveKit fails a stream whose text
            # produced no audio, so the text gets a moment of silence.
            self._start_segment()
            silence = self._sample_rate // 100
            self._emitter.push(bytes(2 * silence))
            self._audio_samples += silence
        if self._segment_started:
            # The text after the last word (closing punctuation, whitespace) goes where the
            # audio ends, which also closes the last word's span.
            self._push(self._transcript.rest(raw_text, self._audio_end))
            if self._segment_id is not None:
                self._emitter.end_segment()

    def _start_segment(self) -> None:
        if not self._segment_started:
            self._emitter.start_segment(segment_id=self._segment_id)
            self._segment_started = True

    def _push(self, pieces: list[TimedString]) -> None:
        if pieces:
            self._emitter.push_timed_transcript(pieces)


def _api_error(error: Error) -> APIError:
    """The LiveKit error for an engine error. A server that cannot be reached is always
    retryable here: the client reports a refused connection as final so that a Pipecat
    fallback takes over at once, but LiveKit's retry loop owns that choice
    (`APIConnectOptions.max_retry`; `FallbackAdapter` sets it per instance)."""
    message = f"voice-tts engine {error.code}: {error.message}"
    if error.code == ErrorCode.TIMEOUT:
        return APITimeoutError(message, retryable=error.retryable)
    if error.code in _CONNECTION_ERROR_CODES:
        return APIConnectionError(message, retryable=True)
    if error.code in _STATUS_CODES:
        return APIStatusError(message, status_code=_STATUS_CODES[error.code], retryable=error.retryable)
    return APIError(message, retryable=error.retryable)


class _TranscriptSlicer:
    """Cuts the received text into one piece per word, each piece running from the end of
    the previous one to the end of its word, so the pieces join back to the text exactly.

    Every piece carries its word's start and end in the audio. A word's end is the start of
    the next word, known when the engine reports that word (at or before that word's audio),
    or the end of the audio for the last word; a piece goes out once its end is known. LiveKit
    hands text out with the next audio frame and treats a span as closed at `end_time`, so
    the end is never guessed."""

    def __init__(self) -> None:
        self._end = 0
        self._time = 0.0  # LiveKit's synchronizer needs start times that never go back
        self._waiting: tuple[str, float] | None = None  # the last word's piece and start

    def pieces(self, text: str, words: list[Word]) -> list[TimedString]:
        out: list[TimedString] = []
        for word in words:
            if word.raw_end <= self._end:
                continue
            self._time = max(self._time, word.start_time)
            out += self.release(self._time)
            self._waiting = (text[self._end : word.raw_end], self._time)
            self._end = word.raw_end
        return out

    def release(self, end_time: float) -> list[TimedString]:
        """The piece waiting for its end, ended at `end_time` (a word's start, the audio end)."""
        if self._waiting is None:
            return []
        piece, start_time = self._waiting
        self._waiting = None
        return [TimedString(piece, start_time=start_time, end_time=max(start_time, end_time))]

    def rest(self, text: str, audio_end: float) -> list[TimedString]:
        self._time = max(self._time, audio_end)
        out = self.release(self._time)
        out.append(TimedString(text[self._end :], start_time=self._time, end_time=self._time))
        self._end = len(text)
        return out
