"""The embedded default voice: eSpeak NG behind the engine stream contract.

Runs on any CPU with nothing to download (the library and its data ship in the
`espeakng-loader` wheel). Text is spoken clause by clause as it arrives; eSpeak's word events
give exact `Progress`; audio is resampled from eSpeak's 22050 Hz to the requested rate.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable

from engine.backends.espeak_library import EspeakLibrary
from engine.backends.espeak_scheduler import SynthesisScheduler, shared_scheduler
from engine.backends.espeak_segments import ClauseWait, Piece, complete_words, take_pieces
from engine.backends.espeak_voices import (
    AUTO,
    LANGUAGES,
    VOICES,
    LanguageNotSupported,
    VoiceInfo,
    VoiceNotFound,
    VoiceSelection,
)
from engine.event_channel import EventChannel
from engine.gil import lower_switch_interval
from engine.backends.espeak_output import TimedOutput
from voice_tts.protocol import (
    PRIORITY_NORMAL,
    SUPPORTED_SAMPLE_RATES,
    AudioChunk,
    Done,
    Error,
    ErrorCode,
    Event,
    Progress,
    Usage,
)
from voice_tts.request import StreamRequest

BACKEND = "espeak-ng"
MIN_SAMPLE_RATE, MAX_SAMPLE_RATE = 8000, 48000
# Synthesis runs far faster than real time, and a consumer that reads takes audio as it
# comes; a stream stops being scheduled once this much of its audio waits unread, so a consumer
# that stopped (a paused turn, a client that does not read) costs little synthesis ahead of it.
MAX_QUEUED_AUDIO_SECONDS = 2.0

_FINISHED = object()  # worker -> consumer: no more events after this


@dataclass(frozen=True)
class Capabilities:
    backend: str
    voices: list[VoiceInfo]
    languages: list[str]
    sample_rates: list[int]
    formats: list[str]
    capacity: int
    streaming_input: bool = True
    word_timestamps: bool = True
    instruct: bool = False


class EspeakStream:
    """One turn on the embedded voice. `push_text`, `end_input` and `cancel` may be called
    from any thread; `events()` from any event loop, once."""

    def __init__(
        self,
        scheduler: SynthesisScheduler,
        selection: VoiceSelection | None,
        sample_rate: int,
        on_finished: Callable[[EspeakStream], None],
        wait: ClauseWait = ClauseWait(),
        clock: Callable[[], float] = time.monotonic,
        priority: int = PRIORITY_NORMAL,
    ) -> None:
        self.priority = priority  # orders its first audio among streams without audio
        self._scheduler = scheduler
        self._wait = wait
        self._clock = clock
        self._selection = selection
        self._sample_rate = sample_rate
        self._on_finished = on_finished
        self._channel: EventChannel[object] = EventChannel()
        self._lock = threading.Lock()
        # text side, guarded by _lock
        self._received = 0
        self._pending = ""
        self._pieces: deque[Piece] = deque()
        self._queued_any = False  # a piece was queued: the first-piece rules are done
        self._words_since: float | None = None  # when the pending text first had a whole word
        self._last_text_at = clock()
        self._input_ended = False
        self._cancelled = False
        self._finished = False
        self._queued_samples = 0
        self._throttled = False
        # synthesis side, touched only by the scheduler's thread
        self._output: TimedOutput | None = None
        self._language: str | None = None
        # consumer side
        self._iterated = False
        self._delivered_samples = 0
        self._delivered_chars = 0

    @classmethod
    def failed(cls, error: Error, sample_rate: int = 24000) -> EspeakStream:
        """A stream that reports `error`, then `Done`, and ignores its input."""
        stream = cls(shared_scheduler(), None, sample_rate, lambda _stream: None)
        stream._finished = True
        stream._channel.put(error)
        stream._channel.put(_FINISHED)
        return stream

    # -- producer API -------------------------------------------------------------------

    def push_text(self, text: str) -> None:
        if not isinstance(text, str):
            raise TypeError(f"push_text takes str, got {type(text).__name__}")
        with self._lock:
            if self._cancelled or self._finished:
                return
            if self._input_ended:
                raise RuntimeError("push_text after end_input")
            self._received += len(text)
            self._last_text_at = self._clock()
            has_work = self._cut_pieces(self._pending + text, final=False)
            has_work = self._cut_waiting_words(self._last_text_at) or has_work
        if has_work:
            self._scheduler.wake(self)

    def end_input(self) -> None:
        with self._lock:
            if self._cancelled or self._finished or self._input_ended:
                return
            self._input_ended = True
            self._cut_pieces(self._pending, final=True)
        self._scheduler.wake(self)

    def _cut_pieces(self, unsynthesized: str, final: bool) -> bool:
        """Queue the complete pieces of `unsynthesized` (the received text after the last queued
        piece) and keep the rest pending."""
        start = self._received - len(unsynthesized)
        ready, self._pending = take_pieces(unsynthesized, final)
        for text in ready:
            self._pieces.append(Piece(start, text))
            start += len(text)
        if ready:
            self._queued_any = True
            self._words_since = None
        return bool(ready)

    def _cut_waiting_words(self, now: float) -> bool:
        """Queue the pending complete words that `ClauseWait` says have waited enough."""
        end, count = complete_words(self._pending)
        if not count:
            self._words_since = None
            return False
        if self._words_since is None:
            self._words_since = now
        due = self._due_at()
        first_words = self._wait.first_words
        if not (due is not None and now >= due) and not (
            not self._queued_any and first_words is not None and count >= first_words
        ):
            return False
        self._pieces.append(Piece(self._received - len(self._pending), self._pending[:end]))
        self._pending = self._pending[end:]
        self._queued_any = True
        self._words_since = None
        return True

    def _due_at(self) -> float | None:
        """When the pending complete words are spoken without a clause end (None: not timed)."""
        if self._wait.delay_s is None or self._words_since is None:
            return None
        since = self._words_since if not self._queued_any else max(self._words_since, self._last_text_at)
        return since + self._wait.delay_s

    def cancel(self) -> None:
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            self._pieces.clear()
            self._pending = ""
        self._channel.wake()
        self._on_finished(self)

    # -- consumer API -------------------------------------------------------------------

    async def events(self) -> AsyncIterator[Event]:
        if self._iterated:
            raise RuntimeError("a stream's events can be iterated only once")
        self._iterated = True
        while True:
            if self._cancelled:
                self._channel.clear()
                yield Done(cancelled=True, usage=self.usage)
                return
            item = self._channel.get_nowait()
            if item is None:
                await self._channel.wait()
                continue
            if item is _FINISHED:
                yield Done(cancelled=False, usage=self.usage)
                return
            if isinstance(item, AudioChunk):
                self._delivered_samples += item.num_samples
                self._release(item.num_samples)
            elif isinstance(item, Progress):
                self._delivered_chars = item.spoken_end
            yield item

    @property
    def usage(self) -> Usage:
        """What this stream received, and what it delivered through `events()` so far."""
        return Usage(
            characters_received=self._received,
            characters_spoken=self._delivered_chars,
            audio_seconds=self._delivered_samples / self._sample_rate,
        )

    def _release(self, samples: int) -> None:
        limit = MAX_QUEUED_AUDIO_SECONDS * self._sample_rate
        with self._lock:
            self._queued_samples -= samples
            resume = self._throttled and self._queued_samples < limit / 2
            if resume:
                self._throttled = False
        if resume:
            self._scheduler.wake()

    # -- synthesis job (scheduler thread) ----------------------------------------------

    @property
    def finished(self) -> bool:
        return self._cancelled or self._finished

    @property
    def has_audio(self) -> bool:
        return self._output is not None and self._output.output_samples > 0

    def ready(self) -> bool:
        with self._lock:
            if self._cancelled or self._finished:
                return False
            if self._queued_samples >= MAX_QUEUED_AUDIO_SECONDS * self._sample_rate:
                self._throttled = True
                return False
            if not self._input_ended:
                self._cut_waiting_words(self._clock())
            return bool(self._pieces) or self._input_ended

    def due_at(self) -> float | None:
        """When this stream becomes ready without more text (the bounded wait), on its clock."""
        with self._lock:
            if self._cancelled or self._finished or self._input_ended:
                return None
            return self._due_at()

    def step(self, library: EspeakLibrary) -> None:
        with self._lock:
            if self._cancelled:
                return
            piece = self._pieces.popleft() if self._pieces else None
        if self._output is None:
            self._output = TimedOutput(library.sample_rate, self._sample_rate, self._emit)
        if piece is not None:
            self._speak(library, piece)
            return
        self._output.finish()
        self._end(None)

    def fail(self, code: str, message: str) -> None:
        self._end(Error(code=code, message=message))

    def _end(self, error: Error | None) -> None:
        with self._lock:
            if self._finished:
                return
            self._finished = True
        self._on_finished(self)  # before Done can be read: a finished turn frees its slot
        if error is not None:
            self._channel.put(error)
        self._channel.put(_FINISHED)

    def _speak(self, library: EspeakLibrary, piece: Piece) -> None:
        output = self._output
        if piece.language is None:
            piece = dataclasses.replace(
                piece, language=self._selection.language_for(piece.text, self._language)
            )
        self._language = piece.language
        base = output.native_samples - piece.done_samples  # where the piece's audio starts
        produced = 0  # samples of the piece synthesized by this call
        # Cutting a piece short and speaking it again is exact only when eSpeak's output is
        # a function of text and voice (its carried state found and restored).
        yields = library.reproducible and self._scheduler.should_yield

        def on_chunk(pcm: bytes, words) -> bool:
            nonlocal produced
            if self._cancelled:
                return False
            # Progress that does not advance (words of the part spoken before) is dropped.
            for word in words:
                end = piece.start + _word_end(piece.text, word.start, word.length)
                output.progress(end, base + word.sample)
            skip = 2 * max(0, piece.done_samples - produced)
            produced += len(pcm) // 2
            if skip >= len(pcm):
                return True
            output.audio(pcm[skip:])
            # Only once it has gone further than before: a piece yielded again and again
            # still gets spoken.
            return not (yields and yields())

        if not piece.text.strip() or library.synthesize(
            piece.text, self._selection.espeak_voice(self._language), on_chunk
        ):
            # Punctuation and anything eSpeak said without a word event is done by the
            # time the piece's audio ends.
            output.progress(piece.end, output.native_samples)
            return
        with self._lock:
            if not self._cancelled:  # it yielded: the rest of the piece comes next time
                self._pieces.appendleft(dataclasses.replace(piece, done_samples=produced))

    def _emit(self, event: Event) -> None:
        if isinstance(event, AudioChunk):
            with self._lock:
                self._queued_samples += event.num_samples
        self._channel.put(event)


def _word_end(text: str, start: int, length: int) -> int:
    """End of the word eSpeak reported at `start`. eSpeak sometimes reports a length that
    runs past the word (the parts of a spoken number, emoji sequences); a word never claims
    characters beyond the whitespace that ends it."""
    start = min(max(start, 0), len(text))
    end = min(len(text), start + max(length, 1))
    for i in range(start + 1, end):
        if text[i].isspace():
            return i
    return end


class EmbeddedEngine:
    """The embedded eSpeak NG voice as a `StreamingEngine`."""

    backend = BACKEND
    model_name = "eSpeak NG"

    def __init__(
        self,
        capacity: int = 64,
        scheduler: SynthesisScheduler | None = None,
        clause_wait: ClauseWait = ClauseWait(),
    ) -> None:
        """`clause_wait`: how long text without a clause end waits before it is spoken anyway
        (`ClauseWait(first_words=None, delay_s=None)` waits for clause ends only)."""
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._capacity = capacity
        self._clause_wait = clause_wait
        self._scheduler = scheduler or shared_scheduler()
        # The synthesis thread takes the GIL for each of eSpeak's audio buffers while it speaks.
        lower_switch_interval()
        self._streams: set[EspeakStream] = set()
        self._lock = threading.Lock()
        self._closed = False

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def failure(self) -> str | None:
        """Why the synthesis loop died (None while it runs): the engine no longer speaks."""
        return self._scheduler.failure

    @property
    def active_streams(self) -> int:
        with self._lock:
            return len(self._streams)

    def open_stream(self, request: StreamRequest | None = None, /, **settings: Any) -> EspeakStream:
        """Open a turn (`StreamRequest.of(request, **settings)`). Never raises for settings the
        engine cannot serve: the stream reports an `Error` and ends. `instruct` and `sampling`
        do not apply to eSpeak and are ignored. Streams with a lower `priority` get their first
        audio first (`espeak_scheduler` says how long at most a stream is held back by it)."""
        request = StreamRequest.of(request, **settings)
        sample_rate, voice, language = request.sample_rate, request.voice, request.language
        if not isinstance(sample_rate, int) or not MIN_SAMPLE_RATE <= sample_rate <= MAX_SAMPLE_RATE:
            message = (
                f"sample_rate must be an integer from {MIN_SAMPLE_RATE} to {MAX_SAMPLE_RATE},"
                f" got {sample_rate!r}"
            )
            return EspeakStream.failed(Error(ErrorCode.INVALID_SAMPLE_RATE, message))
        try:
            selection = VoiceSelection.resolve(voice, language)
        except (VoiceNotFound, LanguageNotSupported) as exc:
            return EspeakStream.failed(Error(exc.code, str(exc)), sample_rate)
        with self._lock:
            if self._closed:
                return EspeakStream.failed(Error(ErrorCode.ENGINE_CLOSED, "the engine is closed"), sample_rate)
            if len(self._streams) >= self._capacity:
                return EspeakStream.failed(
                    Error(ErrorCode.CAPACITY, f"all {self._capacity} streams are busy", retryable=True),
                    sample_rate,
                )
            stream = EspeakStream(
                self._scheduler, selection, sample_rate, self._forget, self._clause_wait, priority=request.priority
            )
            self._streams.add(stream)
        self._scheduler.add(stream)
        return stream

    def _forget(self, stream: EspeakStream) -> None:
        with self._lock:
            self._streams.discard(stream)

    async def aclose(self) -> None:
        """Cancel every open stream; later `open_stream` calls report `engine_closed`."""
        with self._lock:
            self._closed = True
            streams = list(self._streams)
        for stream in streams:
            stream.cancel()

    @property
    def voices(self) -> tuple[VoiceInfo, ...]:
        """The named voices; each speaks every language."""
        return tuple(info for info, _variant in VOICES.values())

    @property
    def languages(self) -> tuple[str, ...]:
        """Language codes `open_stream` accepts ("auto" picks by the script of the text;
        English names such as "Chinese" work too)."""
        return (AUTO, *(lang.code for lang in LANGUAGES))

    def capabilities(self) -> Capabilities:
        return Capabilities(
            backend=BACKEND,
            voices=list(self.voices),
            languages=list(self.languages),
            sample_rates=list(SUPPORTED_SAMPLE_RATES),
            formats=["pcm_s16le"],
            capacity=self._capacity,
        )
