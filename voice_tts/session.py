"""One assistant turn for the framework adapters: raw LLM text in, audio and timed words out.

`TTSSession` joins the three parts every adapter needs: streaming text normalization (raw
deltas become spoken commits pushed to the engine as soon as they are final), the engine
stream, and progress mapping (engine `Progress` in spoken characters becomes raw-text words
with start times; a barge-in returns the raw text the listener actually heard). The text side
is `voice_tts.turn_text.TurnText`, the same one a server turn uses.

Over an engine that reports words itself (`RemoteEngine`: its server normalizes and tracks
words), the session sends the raw text as it is and takes the server's words unchanged.

The session's settings are one `StreamRequest`, checked once, given unchanged to the engine; the
engine's events go through the stream's output pipeline (`voice_tts.stream_output`), which
stretches them to the speaking rate (a remote engine's server stretches instead), counts the
audio and maps words and heard text: audio, words, heard text and usage are in played time.

Time-based commits (an LLM that stalls mid-word) are driven by `events()` itself, which wakes
every `POLL_INTERVAL` seconds while text is held; adapters never call `poll()`.

Once the input has ended the engine owes events: if it sends nothing for `silence_timeout`
seconds (a wedged engine; a paused turn excepted) the session cancels the stream and ends with
`Error(code="timeout", retryable=True)` then `SessionDone`, without waiting on the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Union

from voice_tts.progress import Word
from voice_tts.turn_text import NORMALIZE_SLICE_CHARS, close_events, normalizer_language
from voice_tts.protocol import (
    AudioChunk,
    Done,
    EngineStream,
    Error,
    ErrorCode,
    StreamingEngine,
    Usage,
    push_spoken,
)
from voice_tts.request import StreamRequest, checked_speed
from voice_tts.stream_output import AudioOut, Finished, StreamOutput, WordsOut
from voice_tts.tn import warm_up

# Seconds an engine that has all of a turn's text may go without an event (adapters' default).
SILENCE_TIMEOUT = 2.0

__all__ = [
    "SessionDone",
    "SessionEvent",
    "TTSSession",
    "WordsEvent",
    "normalizer_language",
    "prepare_normalizer",
]


def prepare_normalizer(engine: StreamingEngine | None, normalize: bool) -> None:
    """Load streaming TN's data now if sessions on `engine` (None: the default engine) will
    normalize on this side: about a second, once per process, that would otherwise hold the
    event loop at the first number of a conversation. Adapters call it when constructed."""
    if normalize and not getattr(engine, "reports_words", False):
        warm_up()


@dataclass(frozen=True)
class WordsEvent:
    """Raw-text words that start in the audio that follows, in order, each reported once."""

    words: list[Word]


@dataclass(frozen=True)
class SessionDone:
    """The last event of a session. `heard_text` is the raw text whose audio was heard (after
    a cancel) or produced; `usage` counts raw characters received and spoken, and seconds of
    audio delivered."""

    cancelled: bool
    usage: Usage = field(default_factory=Usage)
    heard_text: str = ""


SessionEvent = Union[AudioChunk, WordsEvent, Error, SessionDone]


class TTSSession:
    """One turn. Call `push_text`, `end_input`, `cancel` and `poll` from one thread (the
    adapter's event loop); iterate `events()` once. Its settings are `request` with `settings`
    (its fields, as keywords) changed; without a request, `normalize` defaults to True. Among
    them: `lexicon`, the turn's pronunciation dictionary (a `Lexicon` or its rules, applied
    inside normalization); `spell_acronyms`: capitals that are not words are spelled ("FBI" ->
    "F B I"); `speed`: the speaking rate (0.5-2.0, pitch kept; other than 1.0 needs the `speed`
    extra where the stream is in-process). `connect_timeout`: seconds a remote engine's turn may take to connect and start (None: the
    engine's own timeouts; an in-process engine has nothing to connect)."""

    def __init__(
        self,
        engine: StreamingEngine,
        request: StreamRequest | None = None,
        *,
        silence_timeout: float | None = SILENCE_TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
        connect_timeout: float | None = None,
        **settings: Any,
    ) -> None:
        if request is None:
            settings.setdefault("normalize", True)  # a session takes raw LLM text by default
        request = StreamRequest.of(request, **settings)
        self.request = request
        self._clock = clock
        self._silence_timeout = silence_timeout
        # Set once the engine has all it will get (input ended or cancelled): from then on
        # it owes events, and silence is a fault.
        self._engine_owes_events = asyncio.Event()
        # An engine that reports words takes raw text and normalizes on its side when asked.
        self._words_from_engine = getattr(engine, "reports_words", False)
        self._output = StreamOutput(request, words_from_engine=self._words_from_engine, clock=clock)
        self._text = self._output.text
        self._input_ended = False
        self._cancelled = False
        self._done = False
        self._unpaused = asyncio.Event()
        self._unpaused.set()
        if self._words_from_engine and connect_timeout is not None:
            self._stream = self._output.open_stream(engine, connect_timeout=connect_timeout)
        else:
            self._stream = self._output.open_stream(engine)

    # -- text in ------------------------------------------------------------------------

    def push_text(self, delta: str) -> None:
        """A raw LLM delta; never blocks."""
        if not isinstance(delta, str):
            raise TypeError(f"push_text takes str, got {type(delta).__name__}")
        if self._cancelled or not delta:
            return
        if self._input_ended:
            raise RuntimeError("push_text after end_input")
        self._forward(self._text.push(delta))

    async def feed(self, delta: str) -> None:
        """`push_text` for a delta of any size, from the event loop: a huge LLM token is
        normalized a slice at a time, so the loop is never held for long."""
        for start in range(0, len(delta), NORMALIZE_SLICE_CHARS):
            if start:
                await asyncio.sleep(0)
            self.push_text(delta[start : start + NORMALIZE_SLICE_CHARS])

    def end_input(self) -> None:
        """No more text: what is held is committed and the engine drains."""
        if self._cancelled or self._input_ended:
            return
        self._input_ended = True
        self._forward(self._text.flush())
        self._stream.end_input()
        self._engine_owes_events.set()

    def poll(self, now: float | None = None) -> None:
        """Commit held text the normalizer gives up waiting for (an LLM stalled mid-span)."""
        if self._input_ended or self._cancelled:
            return
        self._forward(self._text.poll(now))

    def cancel(self, played_seconds: float | None = None) -> str:
        """Barge-in: stop the engine stream and return the raw text heard in the first
        `played_seconds` of audio (None: everything whose audio was produced), in whole words."""
        if not self._cancelled and not self._done:
            self._cancelled = True
            self._stream.cancel()
            self._unpaused.set()
            self._engine_owes_events.set()
        return self._output.cancel(played_seconds)

    def pause(self) -> None:
        """Duplex pause (the listener may be barging in): no more audio or words come out of
        `events()` until `resume()`, and the turn keeps its place. A remote engine's server
        stops sending; an in-process engine's stream waits once it is a bounded amount ahead."""
        if self._cancelled or self._done or not self._unpaused.is_set():
            return
        self._unpaused.clear()
        if pause := getattr(self._stream, "pause", None):
            pause()

    def resume(self) -> None:
        """After `pause()`: audio goes on from the exact next sample."""
        if self._unpaused.is_set():
            return
        if resume := getattr(self._stream, "resume", None):
            resume()
        self._unpaused.set()

    @property
    def speed(self) -> float:
        return self._stream.speed if self._words_from_engine else self._output.speed

    def set_speed(self, speed: float) -> None:
        """The speaking rate from the next audio chunk on; words and heard text stay in the
        time the listener hears. A remote engine's server stretches."""
        speed = checked_speed(speed)
        if not (self._cancelled or self._done):
            (self._stream if self._words_from_engine else self._output).set_speed(speed)

    def _forward(self, spoken: str) -> None:
        push_spoken(self._stream, spoken, self._text.word_end, self._text.space_follows)

    # -- events out ---------------------------------------------------------------------

    async def events(self) -> AsyncIterator[SessionEvent]:
        engine_events = self._watch_silence(aiter(self._stream.events()))
        polled = self._text.with_polling(engine_events, self._forward_polled)
        async with contextlib.aclosing(polled) as session_events:
            async for event in session_events:
                if not self._cancelled:
                    await self._unpaused.wait()
                for out in self._output.process(event):
                    if isinstance(out, AudioOut):
                        yield out.chunk
                    elif isinstance(out, WordsOut):
                        if out.words:
                            yield WordsEvent(out.words)
                    elif isinstance(out, Error):
                        yield out
                    elif isinstance(out, Finished):
                        self._done = True
                        yield SessionDone(out.cancelled, out.usage, out.heard_text)
                        return

    async def _watch_silence(self, events: AsyncIterator) -> AsyncIterator:
        """The engine's events; once it owes them and the turn is not paused, a silence past
        `silence_timeout` ends them (a timeout `Error`, none after a cancel, then `Done`)."""
        pending: asyncio.Future | None = None
        waiters: dict[asyncio.Event, asyncio.Future] = {}

        def signalled(flag: asyncio.Event) -> asyncio.Future:
            if flag not in waiters or waiters[flag].done():
                waiters[flag] = asyncio.ensure_future(flag.wait())
            return waiters[flag]

        try:
            while True:
                if pending is None:
                    pending = asyncio.ensure_future(anext(events))
                while self._silence_timeout is not None and not pending.done():
                    if not self._engine_owes_events.is_set():
                        flag = self._engine_owes_events  # it may rightly wait for text
                    elif not self._unpaused.is_set():
                        flag = self._unpaused  # a paused turn is silent on purpose
                    else:
                        await asyncio.wait({pending}, timeout=self._silence_timeout)
                        if pending.done():
                            break
                        if not self._cancelled:
                            self._stream.cancel()
                            yield Error(
                                ErrorCode.TIMEOUT,
                                f"the engine sent nothing for {self._silence_timeout} s",
                                retryable=True,
                            )
                        yield Done(cancelled=self._cancelled)
                        return
                    await asyncio.wait({pending, signalled(flag)}, return_when=asyncio.FIRST_COMPLETED)
                try:
                    event = await pending
                except StopAsyncIteration:
                    return
                pending = None
                yield event
        finally:
            for waiter in waiters.values():
                waiter.cancel()
            await close_events(events, pending)

    def _forward_polled(self, spoken: str) -> None:
        if not (self._input_ended or self._cancelled):
            self._forward(spoken)

    # -- state --------------------------------------------------------------------------

    @property
    def engine_stream(self) -> EngineStream:
        """The engine stream of this turn (a remote one tells how its socket was acquired)."""
        return self._stream

    @property
    def raw_text(self) -> str:
        """The turn's raw text as the LLM sent it, so far (without its tags, under markup)."""
        return self._text.raw_text

    @property
    def raw_length(self) -> int:
        """`len(raw_text)`, without building it."""
        return self._text.raw_length

    @property
    def usage(self) -> Usage:
        """The turn's usage so far, as its output pipeline counts it (`SessionDone.usage` at
        the end): raw characters received and heard, audio seconds in played time."""
        return self._output.usage
