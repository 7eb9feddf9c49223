"""One assistant turn for the framework adapters: raw LLM text in, audio and timed words out.

`TTSSession` joins the three parts every adapter needs: streaming text normalization (raw
deltas become spoken commits pushed to the engine as soon as they are final), the engine
stream, and progress mapping (engine `Progress` in spoken characters becomes raw-text words
with start times; a barge-in returns the raw text the listener actually heard).

Time-based commits (an LLM that stalls mid-word) are driven by `events()` itself, which wakes
every `POLL_INTERVAL` seconds while text is held; adapters never call `poll()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import AsyncIterator, Callable, Union

from voice_tts.progress import ProgressTracker, Word
from voice_tts.protocol import AudioChunk, Done, Error, Progress, StreamingEngine, Usage
from voice_tts.tn import Commit, StreamingNormalizer

POLL_INTERVAL = 0.05
# Below this much queued audio the listener is about to hear silence (spec streaming-tn §3.9).
STARVING_SECONDS = 0.2


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


def normalizer_language(language: str | None) -> str:
    """The normalizer's language for an engine language name: English and Chinese variants
    map to "en" and "zh"; anything else lets the normalizer route by script."""
    key = (language or "auto").strip().lower()
    if key.startswith("zh") or key in ("chinese", "mandarin", "cmn"):
        return "zh"
    if key.startswith("en"):
        return "en"
    return "auto"


class TTSSession:
    """One turn. Call `push_text`, `end_input`, `cancel` and `poll` from one thread (the
    adapter's event loop); iterate `events()` once."""

    def __init__(
        self,
        engine: StreamingEngine,
        *,
        voice: str | None = None,
        language: str | None = None,
        instruct: str | None = None,
        sample_rate: int = 24000,
        normalize: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._clock = clock
        self._normalizer = (
            StreamingNormalizer(normalizer_language(language), clock=clock) if normalize else None
        )
        self._tracker = ProgressTracker()
        self._raw_parts: list[str] = []
        self._raw_length = 0
        self._spoken_length = 0
        self._input_ended = False
        self._cancelled = False
        self._heard_at_cancel: str | None = None
        self._audio_samples = 0
        self._sample_rate = sample_rate
        self._first_audio_at: float | None = None
        self._done = False
        self._stream = engine.open_stream(
            voice=voice, language=language, instruct=instruct, sample_rate=sample_rate
        )

    # -- text in ------------------------------------------------------------------------

    def push_text(self, delta: str) -> None:
        """A raw LLM delta; never blocks."""
        if not isinstance(delta, str):
            raise TypeError(f"push_text takes str, got {type(delta).__name__}")
        if self._cancelled or not delta:
            return
        if self._input_ended:
            raise RuntimeError("push_text after end_input")
        self._raw_parts.append(delta)
        self._raw_length += len(delta)
        if self._normalizer is None:
            start = self._raw_length - len(delta)
            commit = Commit(start, self._raw_length, delta, self._spoken_length, raw=delta, kind="raw")
            self._forward([commit])
        else:
            self._forward(self._normalizer.push(delta))

    def end_input(self) -> None:
        """No more text: what is held is committed and the engine drains."""
        if self._cancelled or self._input_ended:
            return
        self._input_ended = True
        if self._normalizer is not None:
            self._forward(self._normalizer.flush())
        self._stream.end_input()

    def poll(self, now: float | None = None) -> None:
        """Commit held text the normalizer gives up waiting for (an LLM stalled mid-span)."""
        if self._normalizer is None or self._input_ended or self._cancelled:
            return
        now = self._clock() if now is None else now
        self._forward(self._normalizer.poll(now, starving=self._starving(now)))

    def cancel(self, played_seconds: float | None = None) -> str:
        """Barge-in: stop the engine stream and return the raw text heard in the first
        `played_seconds` of audio (None: everything whose audio was produced), in whole words."""
        if not self._cancelled and not self._done:
            self._cancelled = True
            if self._normalizer is not None:
                self._normalizer.reset()
            self._stream.cancel()
        self._heard_at_cancel = self._tracker.heard_text(played_seconds)
        return self._heard_at_cancel

    def _forward(self, commits: list[Commit]) -> None:
        if not commits:
            return
        self._tracker.add_commits(commits)
        for commit in commits:
            self._spoken_length = commit.spoken_end
            if commit.spoken:
                self._stream.push_text(commit.spoken)

    def _starving(self, now: float) -> bool:
        if self._first_audio_at is None:
            return True
        return self._audio_samples / self._sample_rate - (now - self._first_audio_at) < STARVING_SECONDS

    # -- events out ---------------------------------------------------------------------

    async def events(self) -> AsyncIterator[SessionEvent]:
        engine_events = aiter(self._stream.events())
        async with contextlib.aclosing(self._with_polling(engine_events)) as session_events:
            async for event in session_events:
                if isinstance(event, Progress):
                    words = self._tracker.on_progress(event.spoken_end, event.audio_time)
                    if words and not self._cancelled:
                        yield WordsEvent(words)
                elif isinstance(event, AudioChunk):
                    if self._cancelled:
                        continue  # a remote engine's audio already in flight at the barge-in
                    if self._first_audio_at is None:
                        self._first_audio_at = self._clock()
                    self._audio_samples += event.num_samples
                    self._sample_rate = event.sample_rate
                    yield event
                elif isinstance(event, Error):
                    yield event
                elif isinstance(event, Done):
                    self._done = True
                    heard = self._heard_at_cancel
                    if heard is None:
                        heard = self._tracker.heard_text(None)
                    yield SessionDone(cancelled=event.cancelled, usage=self.usage, heard_text=heard)
                    return

    async def _with_polling(self, events: AsyncIterator) -> AsyncIterator:
        """The engine's events; while text is held back, `poll` runs between them."""
        pending: asyncio.Task | None = None
        try:
            while True:
                if pending is None:
                    pending = asyncio.ensure_future(anext(events))
                if self._needs_polling():
                    await asyncio.wait({pending}, timeout=POLL_INTERVAL)
                    if not pending.done():
                        self.poll()
                        continue
                try:
                    event = await pending
                except StopAsyncIteration:
                    return
                pending = None
                yield event
        finally:
            # Close the engine's event stream now, not at garbage collection: a remote
            # engine's socket goes back to its pool only when its stream is closed.
            if pending is not None and not pending.done():
                pending.cancel()
                with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration, Exception):
                    await pending
            if aclose := getattr(events, "aclose", None):
                await aclose()

    def _needs_polling(self) -> bool:
        return (
            self._normalizer is not None
            and not self._input_ended
            and not self._cancelled
            and bool(self._normalizer.pending)
        )

    # -- state --------------------------------------------------------------------------

    @property
    def raw_text(self) -> str:
        """Every raw character received so far."""
        if len(self._raw_parts) > 1:
            self._raw_parts = ["".join(self._raw_parts)]
        return self._raw_parts[0] if self._raw_parts else ""

    @property
    def usage(self) -> Usage:
        """Raw characters received, raw characters whose audio was produced, audio seconds."""
        return Usage(
            self._raw_length,
            len(self._tracker.heard_text(None)),
            self._audio_samples / self._sample_rate,
        )
