"""Cached phrases (`voice-tts serve --phrase-cache-mb N`): a turn whose whole text and settings
equal those of a recent turn that finished is served from memory, without the engine, whichever
door it came through (the speech endpoint, `/v1/ws` plain turns and contexts) and whichever
door spoke it first.

What is kept is the engine stream's own events (audio chunks, progress, words, `Done`), not
what a door made of them: a turn served from the cache runs them through its own output
pipeline (`voice_tts.stream_output`), so its audio bytes, words, heard text and usage are
computed where every turn's are, and equal the original turn's. Only a turn that finished
(not cancelled, no error) is kept.

A phrase's key is the spoken text its engine stream was given (what the engine's audio and
progress are of: a raw text that is normalized another way, as a streamed text stalled
mid-number may be, is another phrase) and its `Voicing`: every setting of its `StreamRequest`
that shapes the audio (not its priority, nor whether it may resume); a cloned voice enters it
with the time it was made, so a voice deleted (or deleted and made again under the same name)
never finds the old voice's phrases; a deletion also drops them (`keep_voices`, whenever the
server's list of voices changes, in every API worker). The cache is bounded in bytes of audio,
least recently used first; each API worker holds its own.

A streamed turn's text is known only at its end, so its engine stream (`PhraseStream`) is
opened lazily: while the spoken text so far begins some phrase of the turn's voicing (and is
shorter than `MAX_HELD_CHARS`, and more text came within `MAX_HOLD_S`), it is held; the first
text that begins none opens the engine
stream with everything held, and an end of input on a whole phrase serves it from memory, the
engine never touched. A voicing with no phrase opens the engine at once, as without the cache.
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import dataclasses
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from voice_tts.protocol import AudioChunk, Done, EngineStream, Error, ErrorCode, Event
from voice_tts.request import PRIORITY_NORMAL, StreamRequest
from voice_tts.turn_text import SPOKEN_AHEAD_CHARS

# What one kept event costs beside its audio (the Python objects around it), so that a phrase
# of many small events is not counted as free.
EVENT_OVERHEAD_BYTES = 200
# A streamed turn's text is normalized only so far ahead of its engine's progress: a held text
# this long opens the engine stream, whose progress lets the rest be normalized (held longer,
# the turn would wait for progress that never comes). Longer phrases are served to a turn whose
# whole text comes at once (the speech endpoint's).
MAX_HELD_CHARS = SPOKEN_AHEAD_CHARS
# Held text that no more text follows for this long opens the engine stream: an LLM that pauses
# mid-reply (a tool call) keeps no listener waiting for a reply that began as a phrase does.
MAX_HOLD_S = 0.3


@dataclass(frozen=True)
class Voicing:
    """Everything beside its text that shapes a phrase's audio."""

    settings: StreamRequest  # its audio-shaping settings (equal and hashed field by field)
    voice_made_at: int | None  # a cloned voice's creation time (None: a preset voice)


def voicing(request: StreamRequest, voice_made_at: int | None) -> Voicing:
    """The voicing of `request` (`voice_made_at`: its cloned voice's creation time). Priority
    and resumability do not change a turn's audio."""
    return Voicing(dataclasses.replace(request, priority=PRIORITY_NORMAL, resumable=False), voice_made_at)


@dataclass(frozen=True)
class PhraseKey:
    voicing: Voicing
    spoken: str  # the text its engine stream was given


@dataclass(frozen=True)
class Phrase:
    events: tuple[Event, ...]
    size: int


def _size(event: Event) -> int:
    return EVENT_OVERHEAD_BYTES + (len(event.pcm) if isinstance(event, AudioChunk) else 0)


class PhraseCache:
    """Finished phrases by key, at most `max_bytes` of them, least recently used first out."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self._phrases: collections.OrderedDict[PhraseKey, Phrase] = collections.OrderedDict()
        # Each voicing's spoken texts, sorted: whether a text begins one is a bisection.
        self._texts: dict[Voicing, list[str]] = {}
        # The voices of an API worker may change from the thread that hears of the core's.
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._phrases)

    def stream(
        self, voicing: Voicing, open_engine: Callable[[], EngineStream], on_replay: Callable[[], None]
    ) -> EngineStream:
        """A stream of `voicing` whose text the cache may answer: its engine stream is
        `open_engine()`'s, opened once its text is no phrase's (at once where the voicing has
        none, and then an exception of `open_engine` propagates); a turn whose whole text is a
        phrase gives the phrase's events and calls `on_replay`; one that finishes is kept."""
        return PhraseStream(self, voicing, open_engine, on_replay)

    def has_phrases(self, voicing: Voicing) -> bool:
        return voicing in self._texts

    def begins_some(self, voicing: Voicing, spoken: str) -> bool:
        """Some phrase of `voicing` begins with `spoken` (or is it)."""
        with self._lock:
            texts = self._texts.get(voicing, [])
            at = bisect.bisect_left(texts, spoken)
            return at < len(texts) and texts[at].startswith(spoken)

    def replay(self, key: PhraseKey) -> GivenStream | None:
        """A stream that gives the phrase's events again (None: not cached)."""
        with self._lock:
            phrase = self._phrases.get(key)
            if phrase is None:
                return None
            self._phrases.move_to_end(key)
        return GivenStream(phrase.events)

    def keep_voices(self, cloned: set[tuple[str, int]]) -> None:
        """Forget the phrases of every cloned voice not in `cloned` (name, creation time): one
        deleted, here or through another API worker."""
        with self._lock:
            for key in [k for k in self._phrases if (made_at := k.voicing.voice_made_at) is not None and (k.voicing.settings.voice, made_at) not in cloned]:
                self._forget(key)

    def keep(self, key: PhraseKey, events: tuple[Event, ...], size: int) -> None:
        if size > self.max_bytes:
            return
        with self._lock:
            if key in self._phrases:
                self._forget(key)
            self._phrases[key] = Phrase(events, size)
            bisect.insort(self._texts.setdefault(key.voicing, []), key.spoken)
            self.size += size
            while self.size > self.max_bytes:
                self._forget(next(iter(self._phrases)))

    def _forget(self, key: PhraseKey) -> None:
        self.size -= self._phrases.pop(key).size
        texts = self._texts[key.voicing]
        del texts[bisect.bisect_left(texts, key.spoken)]
        if not texts:
            del self._texts[key.voicing]


class PhraseStream:
    """An engine stream opened lazily (this module's docstring): text pushed while it begins a
    phrase is held; the first that begins none opens the engine stream with everything held;
    `end_input` on a whole phrase serves it from memory. A stream that reached the engine is
    kept in the cache when it ends with `Done` (not cancelled, no error); a phrase past the
    cache's size stops being noted at once."""

    def __init__(
        self,
        cache: PhraseCache,
        voicing: Voicing,
        open_engine: Callable[[], EngineStream],
        on_replay: Callable[[], None],
    ) -> None:
        self._cache, self._voicing = cache, voicing
        self._open_engine, self._on_replay = open_engine, on_replay
        self._spoken = ""
        # What the engine stream is to be told once opened, in order: text and word ends.
        self._held: list[Callable[[EngineStream], None]] = []
        self._stream: EngineStream | None = None
        self._chosen = asyncio.Event()  # the stream is open (or given), or the turn cancelled
        self._hold_timer: asyncio.TimerHandle | None = None
        self._cancelled = False
        self._events: list[Event] | None = []  # noted for the cache (None: not to be kept)
        self._size = 0
        if not cache.has_phrases(voicing):
            self._stream = open_engine()
            self._chosen.set()

    def push_text(self, text: str) -> None:
        self._spoken += text
        self._tell(lambda stream: stream.push_text(text))
        if self._stream is None and not self._cancelled:
            if len(self._spoken) >= MAX_HELD_CHARS or not self._cache.begins_some(self._voicing, self._spoken):
                self._open()
            else:
                self._hold(MAX_HOLD_S)

    def mark_word_end(self, space_follows: bool = False) -> None:
        def mark(stream: EngineStream) -> None:
            if (mark_word_end := getattr(stream, "mark_word_end", None)) is not None:
                mark_word_end(space_follows=space_follows)

        self._tell(mark)

    def end_input(self) -> None:
        self._tell(lambda stream: stream.end_input())
        if self._stream is None and not self._cancelled:
            given = self._cache.replay(PhraseKey(self._voicing, self._spoken))
            if given is None:
                self._open()
                return
            self._hold(None)
            self._held.clear()
            self._events = None  # kept already
            self._stream = given
            self._on_replay()
            self._chosen.set()

    def cancel(self) -> None:
        self._hold(None)
        self._events = None
        self._cancelled = True
        if self._stream is not None:
            self._stream.cancel()
        self._chosen.set()

    def _hold(self, seconds: float | None) -> None:
        """Opens the engine stream `seconds` from now unless more text comes (None: never)."""
        if self._hold_timer is not None:
            self._hold_timer.cancel()
            self._hold_timer = None
        if seconds is not None:
            self._hold_timer = asyncio.get_running_loop().call_later(seconds, self._open_if_held)

    def _open_if_held(self) -> None:
        self._hold_timer = None
        if self._stream is None and not self._cancelled:
            self._open()

    def _tell(self, action: Callable[[EngineStream], None]) -> None:
        if self._stream is not None:
            action(self._stream)
        elif not self._cancelled:
            self._held.append(action)

    def _open(self) -> None:
        self._hold(None)
        try:
            self._stream = self._open_engine()
        except Exception as exc:  # the engine refused it: the turn's failure, its events say so
            self._stream = GivenStream((opening_error(exc), Done()))
        for action in self._held:
            action(self._stream)
        self._held.clear()
        self._chosen.set()

    async def events(self) -> AsyncIterator[Event]:
        await self._chosen.wait()
        if self._stream is None:  # cancelled before the engine was needed
            yield Done(cancelled=True)
            return
        async for event in self._stream.events():
            if self._events is not None:
                if isinstance(event, Error):
                    self._events = None
                else:
                    self._events.append(event)
                    self._size += _size(event)
                    if self._size > self._cache.max_bytes:
                        self._events = None
            if isinstance(event, Done) and self._events is not None and not event.cancelled:
                self._cache.keep(PhraseKey(self._voicing, self._spoken), tuple(self._events), self._size)
            yield event


def opening_error(exc: Exception) -> Error:
    """An engine stream that could not open, as its stream's error: a ValueError is the
    request's fault (an engine's coded one keeps its code)."""
    request_fault = isinstance(exc, ValueError)
    code = getattr(exc, "code", None) or (ErrorCode.INVALID_MESSAGE if request_fault else ErrorCode.ENGINE_ERROR)
    return Error(code=code, message=f"could not open a stream: {exc}", retryable=not request_fault)


class GivenStream:
    """A stream whose events are given: a kept phrase spoken again (at once), or an engine
    stream's failure to open. Text pushed is ignored; a cancel ends it as any stream's does."""

    def __init__(self, events: tuple[Event, ...]) -> None:
        self._events = events
        self._cancelled = False

    def push_text(self, text: str) -> None:
        pass

    def end_input(self) -> None:
        pass

    def cancel(self) -> None:
        self._cancelled = True

    async def events(self) -> AsyncIterator[Event]:
        for event in self._events:
            if self._cancelled:
                break
            yield event
        if self._cancelled:
            yield Done(cancelled=True)
