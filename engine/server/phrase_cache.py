"""Cached phrases (`voice-tts serve --phrase-cache-mb N`): a turn whose whole text and settings
equal those of a recent turn that finished is served from memory, without the engine.

What is kept is the engine stream's own events (audio chunks, progress, words, `Done`), not
what a door made of them: a turn served from the cache runs them through its own output
pipeline (`voice_tts.stream_output`), so its audio bytes, words, heard text and usage are
computed where every turn's are, and equal the original turn's. Only a turn that finished
(not cancelled, no error) is kept, and only one whose text was whole when it was opened (the
speech endpoint's `input`): a streamed turn's text is not known until its end.

A phrase's key is its raw text and every setting of its `StreamRequest` that shapes the audio
(not its priority, nor whether it may resume); a cloned voice enters the key with the time it
was made, so a voice deleted (or deleted and made again under the same name) never finds the
old voice's phrases; a deletion also drops them (`keep_voices`, whenever the server's list of
voices changes, in every API worker). The cache is bounded in bytes of audio, least recently
used first; each API worker holds its own.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass

from voice_tts.protocol import AudioChunk, Done, EngineStream, Error, Event
from voice_tts.request import PRIORITY_NORMAL, StreamRequest

# What one kept event costs beside its audio (the Python objects around it), so that a phrase
# of many small events is not counted as free.
EVENT_OVERHEAD_BYTES = 200


@dataclass(frozen=True)
class PhraseKey:
    text: str
    settings: StreamRequest  # its audio-shaping settings (equal and hashed field by field)
    voice: str | None
    voice_made_at: int | None  # a cloned voice's creation time (None: a preset voice)


def phrase_key(text: str, request: StreamRequest, voice_made_at: int | None) -> PhraseKey:
    """The key of `text` spoken with `request` (`voice_made_at`: its cloned voice's creation
    time). Priority and resumability do not change a turn's audio."""
    shaping = dataclasses.replace(request, priority=PRIORITY_NORMAL, resumable=False)
    return PhraseKey(text, shaping, request.voice, voice_made_at)


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
        # The voices of an API worker may change from the thread that hears of the core's.
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._phrases)

    def replay(self, key: PhraseKey) -> EngineStream | None:
        """A stream that gives the phrase's events again (None: not cached)."""
        with self._lock:
            phrase = self._phrases.get(key)
            if phrase is None:
                return None
            self._phrases.move_to_end(key)
        return CachedStream(phrase.events)

    def recording(self, key: PhraseKey, stream: EngineStream) -> EngineStream:
        """`stream`, whose events are kept under `key` once it has finished whole."""
        return RecordingStream(stream, key, self)

    def keep_voices(self, cloned: set[tuple[str, int]]) -> None:
        """Forget the phrases of every cloned voice not in `cloned` (name, creation time): one
        deleted, here or through another API worker."""
        with self._lock:
            for key in [k for k in self._phrases if k.voice_made_at is not None and (k.voice, k.voice_made_at) not in cloned]:
                self.size -= self._phrases.pop(key).size

    def _keep(self, key: PhraseKey, events: tuple[Event, ...], size: int) -> None:
        if size > self.max_bytes:
            return
        with self._lock:
            if (old := self._phrases.pop(key, None)) is not None:
                self.size -= old.size
            self._phrases[key] = Phrase(events, size)
            self.size += size
            while self.size > self.max_bytes:
                _, evicted = self._phrases.popitem(last=False)
                self.size -= evicted.size


class RecordingStream:
    """An engine stream whose events are noted as they pass, and kept in the cache when the
    stream ends with `Done` (not cancelled, no error). A phrase past the cache's size stops
    being noted at once."""

    def __init__(self, stream: EngineStream, key: PhraseKey, cache: PhraseCache) -> None:
        self._stream, self._key, self._cache = stream, key, cache
        self._events: list[Event] | None = []
        self._size = 0

    def push_text(self, text: str) -> None:
        self._stream.push_text(text)

    def end_input(self) -> None:
        self._stream.end_input()

    def cancel(self) -> None:
        self._events = None
        self._stream.cancel()

    def __getattr__(self, name: str):  # what else the stream offers (pause, speed, ...)
        return getattr(self._stream, name)

    async def events(self) -> AsyncIterator[Event]:
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
                self._cache._keep(self._key, tuple(self._events), self._size)
            yield event


class CachedStream:
    """A kept phrase spoken again: its events, at once. Text pushed is ignored (the phrase has
    it); a cancel ends it as any stream's cancel does."""

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
