"""LiveKit Agents TTS: LLM tokens in, speech and word-aligned transcripts out.

One `SynthesizeStream` is one agent speech and one `TTSSession` (one engine stream). Tokens are
pushed to the session as they arrive; the session's words come back as `TimedString` pieces
that slice the text exactly as it was received and carry each word's start in the audio. The
pieces join back to the text, so LiveKit's synchronized transcript (and with it the chat
message kept after a barge-in) is made of the words whose audio was played.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from dataclasses import dataclass, replace

from livekit.agents import APIConnectionError, APIError, APITimeoutError, tts, utils
from livekit.agents.types import (
    DEFAULT_API_CONNECT_OPTIONS,
    NOT_GIVEN,
    APIConnectOptions,
    NotGivenOr,
    TimedString,
)

from voice_tts.engines import default_engine
from voice_tts.progress import Word
from voice_tts.protocol import (
    SUPPORTED_SAMPLE_RATES,
    AudioChunk,
    Error,
    ErrorCode,
    StreamingEngine,
)
from voice_tts.session import SessionDone, TTSSession, WordsEvent
from voice_tts.tn import Lexicon

from .models import TTSLanguages, TTSVoices

logger = logging.getLogger("livekit.plugins.qwen3_tts")

NUM_CHANNELS = 1
# Errors of the remote client that mean the engine server was not reached or was lost.
_CONNECTION_ERROR_CODES = frozenset({ErrorCode.DISCONNECTED, ErrorCode.UNREACHABLE})


@dataclass
class _TTSOptions:
    voice: TTSVoices | str | None
    language: TTSLanguages | str | None
    instruct: str | None
    sample_rate: int
    normalize: bool
    lexicon: Lexicon | None = None



class Qwen3StreamingTTS(tts.TTS):
    def __init__(
        self,
        *,
        engine: StreamingEngine | None = None,
        voice: TTSVoices | str | None = None,
        language: TTSLanguages | str | None = None,
        instruct: str | None = None,
        sample_rate: int = 24000,
        normalize: bool = True,
        lexicon: Lexicon | list[dict] | None = None,
    ) -> None:
        """
        Args:
            engine: an in-process `Engine`, `Engine.embedded()` or `RemoteEngine(url)`.
                Default: `RemoteEngine($VOICE_TTS_URL)` if set, else the embedded voice,
                created on first use and closed by `aclose()`.
            voice: speaker name; None is the engine's default voice.
            language: None or "auto" lets the engine decide.
            instruct: style instruction for models that take one.
            sample_rate: output rate, one of `SUPPORTED_SAMPLE_RATES`; the engine produces
                audio at this rate.
            normalize: run streaming text normalization (numbers, dates, ...) on the tokens.
            lexicon: pronunciation dictionary, a `voice_tts.tn.Lexicon` or its rules such as
                `[{"match": "SQL", "say": "sequel"}]`; the chat context keeps the raw words.
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
        self._opts = _TTSOptions(
            voice=voice,
            language=language,
            instruct=instruct,
            sample_rate=sample_rate,
            normalize=normalize,
            lexicon=Lexicon.of(lexicon),  # a bad dictionary fails here, not at the first speech
        )
        self._engine = engine
        self._owns_engine = engine is None
        self._streams = weakref.WeakSet[SynthesizeStream]()

    @property
    def model(self) -> str:
        return getattr(self._engine, "model_name", None) or "qwen3-tts"

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
    ) -> None:
        """Applies to streams opened from now on; a speech in progress keeps its voice."""
        if utils.is_given(lexicon):
            self._opts.lexicon = Lexicon.of(lexicon)
        if utils.is_given(voice):
            self._opts.voice = voice
        if utils.is_given(language):
            self._opts.language = language
        if utils.is_given(instruct):
            self._opts.instruct = instruct

    def prewarm(self) -> None:
        """Create the default engine now rather than on the first speech."""
        _ = self.engine

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> tts.ChunkedStream:
        return self._synthesize_with_stream(text, conn_options=conn_options)

    def stream(
        self, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> SynthesizeStream:
        stream = SynthesizeStream(tts=self, conn_options=conn_options)
        self._streams.add(stream)
        return stream

    async def aclose(self) -> None:
        for stream in list(self._streams):
            await stream.aclose()
        self._streams.clear()
        if self._owns_engine and self._engine is not None:
            engine, self._engine = self._engine, None
            await engine.aclose()


class SynthesizeStream(tts.SynthesizeStream):
    def __init__(self, *, tts: Qwen3StreamingTTS, conn_options: APIConnectOptions) -> None:
        super().__init__(tts=tts, conn_options=conn_options)
        self._tts: Qwen3StreamingTTS = tts
        self._opts = replace(tts._opts)

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        # Called again on a retry: each attempt gets its own engine stream and replays the input.
        request_id = utils.shortuuid()
        output_emitter.initialize(
            request_id=request_id,
            sample_rate=self._opts.sample_rate,
            num_channels=NUM_CHANNELS,
            mime_type="audio/pcm",
            stream=True,
        )
        # Engines report failures (unreachable server, bad voice) as stream events, not here.
        session = TTSSession(
            self._tts.engine,
            voice=self._opts.voice,
            language=self._opts.language,
            instruct=self._opts.instruct,
            sample_rate=self._opts.sample_rate,
            normalize=self._opts.normalize,
            lexicon=self._opts.lexicon,
        )

        input_ended = asyncio.Event()
        event_seen = asyncio.Event()
        finished = False

        async def _forward_input() -> None:
            async for data in self._input_ch:
                if isinstance(data, self._FlushSentinel):
                    # A flush closes the stream's only segment: the base class drops any
                    # text pushed after it, so the engine can finish now.
                    if session.raw_text:
                        break
                    continue
                self._mark_started()
                session.push_text(data)
            session.end_input()
            input_ended.set()

        async def _watch_engine() -> None:
            # While text is still coming the engine may rightly wait for more (the end of a
            # clause, a number); once it has everything, silence means it is stuck.
            await input_ended.wait()
            while not finished:
                try:
                    await asyncio.wait_for(event_seen.wait(), self._conn_options.timeout)
                except TimeoutError:
                    raise APITimeoutError(
                        f"voice-tts engine sent nothing for {self._conn_options.timeout} s"
                    ) from None
                event_seen.clear()

        async def _forward_events() -> None:
            nonlocal finished
            transcript = _TranscriptSlicer()
            segment_started = False
            audio_samples = 0

            def _start_segment() -> None:
                nonlocal segment_started
                if not segment_started:
                    output_emitter.start_segment(segment_id=request_id)
                    segment_started = True

            async for ev in session.events():
                event_seen.set()
                if isinstance(ev, AudioChunk):
                    if ev.sample_rate != self._opts.sample_rate:
                        raise APIError(
                            f"engine sent {ev.sample_rate} Hz audio, "
                            f"{self._opts.sample_rate} Hz was asked for",
                            retryable=False,
                        )
                    _start_segment()
                    output_emitter.push(ev.pcm)
                    audio_samples += ev.num_samples
                elif isinstance(ev, WordsEvent):
                    _start_segment()
                    output_emitter.push_timed_transcript(
                        transcript.pieces(session.raw_text, ev.words)
                    )
                elif isinstance(ev, Error):
                    if ev.code in _CONNECTION_ERROR_CODES:
                        raise APIConnectionError(
                            f"voice-tts engine {ev.code}: {ev.message}", retryable=ev.retryable
                        )
                    raise APIError(
                        f"voice-tts engine error {ev.code}: {ev.message}", retryable=ev.retryable
                    )
                elif isinstance(ev, SessionDone):
                    if ev.cancelled:
                        raise APIError("voice-tts engine cancelled the stream", retryable=True)
                    if not segment_started and session.raw_text.strip():
                        # Nothing speakable (an emoji, a lone symbol): LiveKit fails a stream
                        # whose text produced no audio, so the text gets a moment of silence.
                        _start_segment()
                        silence = self._opts.sample_rate // 100
                        output_emitter.push(bytes(2 * silence))
                        audio_samples += silence
                    if segment_started:
                        # The text after the last word (closing punctuation, whitespace) goes
                        # where the audio ends, which also closes the last word's span.
                        output_emitter.push_timed_transcript(
                            transcript.rest(
                                session.raw_text, audio_samples / self._opts.sample_rate
                            )
                        )
                        output_emitter.end_segment()
                    finished = True
                    event_seen.set()
                    return

        tasks = [
            asyncio.create_task(_forward_input(), name="qwen3_tts.forward_input"),
            asyncio.create_task(_watch_engine(), name="qwen3_tts.watch_engine"),
            asyncio.create_task(_forward_events(), name="qwen3_tts.forward_events"),
        ]
        try:
            await asyncio.gather(*tasks)
        except APIError:
            raise
        except (ConnectionError, OSError) as e:
            raise APIConnectionError(f"voice-tts engine connection failed: {e}") from e
        except Exception as e:
            raise APIError(f"voice-tts stream failed: {e!r}", retryable=False) from e
        finally:
            if not finished:
                # aclose(), barge-in, or an error: stop the engine so the GPU slot is freed.
                session.cancel()
            for task in tasks:
                # Cancel each task once (gather already did if _run was cancelled): a second
                # cancel would cut short the engine stream's own cleanup, such as a remote
                # engine closing its socket, which is what ends the turn on the server.
                if not task.done() and not task.cancelling():
                    task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


class _TranscriptSlicer:
    """Cuts the received text into one piece per word, each piece running from the end of
    the previous one to the end of its word, so the pieces join back to the text exactly."""

    def __init__(self) -> None:
        self._end = 0
        self._time = 0.0  # LiveKit's synchronizer needs start times that never go back

    def pieces(self, text: str, words: list[Word]) -> list[TimedString]:
        out: list[TimedString] = []
        for word in words:
            if word.raw_end <= self._end:
                continue
            self._time = max(self._time, word.start_time)
            out.append(TimedString(text[self._end : word.raw_end], start_time=self._time))
            self._end = word.raw_end
        return out

    def rest(self, text: str, audio_end: float) -> TimedString:
        self._time = max(self._time, audio_end)
        rest = TimedString(text[self._end :], start_time=self._time)
        self._end = len(text)
        return rest
