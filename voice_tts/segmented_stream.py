"""A turn with expressive markup, spoken as a chain of engine streams with one timeline.

The turn's text side (`voice_tts.turn_text.TurnText` with a markup dialect) finds the tags and
tells `mark` where each one acts, as an offset in the spoken text. A mark that changes what the
model is asked (a style instruction), cuts the audio (a pause), or changes the rate or the gain
starts a new *segment* there: the segment before gets its input ended, and the new one gets an
engine stream for the turn's request with the new instruction (same voice, seed and settings)
as soon as the segment before it has sounded, so it generates while that one plays and its
first audio is ready when that one drains. At most LIVE_SEGMENTS (two) segments hold an engine
stream at once; later ones wait with their text.

`events()` joins the segments into one stream: audio samples, progress offsets and times run on
across them, a pause is silence between them, a gain scales a segment's audio, and a rate change
reaches the output pipeline's speed stage (`on_rate`) just before the segment's first event. A
turn whose text has no marks is one segment: the engine stream as it would be.

The engine core is untouched: a segment is an ordinary stream, its style instruction part of
its prompt. On an engine that takes no instruction (`features` without "instruct": the 0.6B
CustomVoice, Base checkpoints, the eSpeak voice) expressions change nothing, and
`ignored_marks` says so.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from voice_tts.audio import scaled_pcm16
from voice_tts.markup import Expression, Gain, Mark, Pause, Rate
from voice_tts.protocol import AudioChunk, Done, EngineStream, Error, Event, Progress, StreamingEngine, Usage
from voice_tts.request import StreamRequest

__all__ = ["SegmentedStream", "ignored_marks", "takes_instruct"]


def takes_instruct(engine: StreamingEngine) -> bool:
    """The engine's model follows a style instruction (its `features` say "instruct")."""
    return "instruct" in getattr(engine, "features", ())


def ignored_marks(engine: StreamingEngine, request: StreamRequest) -> list[str]:
    """The kinds of tag a turn for `request` on `engine` drops (its words kept): expressions
    where the model takes no style instruction."""
    return ["expression"] if request.markup is not None and not takes_instruct(engine) else []


# Segments with an engine stream at once: the one playing and the next, generating ahead. Later
# ones wait with their text, so a turn holds at most this many of the engine's slots.
LIVE_SEGMENTS = 2


@dataclass
class _Segment:
    """One engine stream of the turn: the spoken text from `spoken_start` on, for `request`,
    after `pause` seconds of silence, at `rate` times the turn's speed and `gain` times its
    loudness. `request` is None for a pause at the very end of the turn (silence alone). Its
    stream opens when fewer than LIVE_SEGMENTS segments before it are still playing; until
    then its text waits in `pending`."""

    request: StreamRequest | None
    spoken_start: int
    pause: float = 0.0
    rate: float = 1.0
    gain: float = 1.0
    stream: EngineStream | None = None
    pending: list[str] = field(default_factory=list)
    received: int = 0  # spoken characters given to it
    ended: bool = False  # its input ended
    sounding: bool = False  # its first audio went out
    finished: bool = False  # its events were read to their end


@dataclass
class _Next:
    """Settings from the marks seen since the last text: they start the next segment."""

    instruct: str | None
    rate: float
    gain: float
    pause: float = 0.0
    changed: bool = False


class SegmentedStream:
    """An `EngineStream` over a chain of `engine` streams for `request` (see the module's
    docstring). `on_rate(ratio)`: the turn's speaking rate is `ratio` times its own from the
    next event on; it returns the speaking rate then in effect."""

    def __init__(
        self,
        engine: StreamingEngine,
        request: StreamRequest,
        *,
        on_rate: Callable[[float], float] | None = None,
    ) -> None:
        self._engine = engine
        self._request = request
        self._takes_instruct = takes_instruct(engine)
        self._on_rate = on_rate
        # The first stream opens with the first text (or the input's end), so that marks before
        # any text set its request instead of replacing it. (An engine reports what it cannot
        # serve as the stream's `Error`, not at `open_stream`: nothing is lost by waiting.)
        self._segments = [_Segment(request, 0)]
        self._marks: deque[tuple[int, Mark]] = deque()
        self._next: _Next | None = None
        self._received = 0
        self._input_ended = False
        self._cancelled = False
        self._stopped = False  # cancelled, or a segment failed: no segment opens from now on
        self._added = asyncio.Event()  # a segment was added, or the input ended

    @property
    def _current(self) -> _Segment:
        return self._segments[-1]

    # -- text and marks in ---------------------------------------------------------------

    def mark(self, spoken_offset: int, mark: Mark) -> None:
        """`mark` acts at `spoken_offset` of the turn's spoken text (not pushed yet)."""
        if isinstance(mark, Expression) and not self._takes_instruct:
            return  # said once, in `ignored_marks`
        self._marks.append((spoken_offset, mark))

    def push_text(self, text: str) -> None:
        if self._stopped or self._input_ended:
            return
        while self._marks and self._marks[0][0] - self._received <= len(text):
            cut = self._marks[0][0] - self._received
            self._push(text[:cut])
            text = text[cut:]
            self._take_mark(self._marks.popleft()[1])
        self._push(text)

    def _push(self, text: str) -> None:
        if not text:
            return
        if self._next is not None:
            self._start_segment()
        segment = self._current
        if segment.stream is None and len(self._segments) == 1:
            self._open_ready()
        if segment.stream is not None:
            segment.stream.push_text(text)
        else:
            segment.pending.append(text)
        segment.received += len(text)
        self._received += len(text)

    def _take_mark(self, mark: Mark) -> None:
        if self._next is None:
            current = self._current
            self._next = _Next(current.request.instruct if current.request else None, current.rate, current.gain)
        nxt = self._next
        if isinstance(mark, Expression):
            nxt.changed |= mark.label != nxt.instruct
            nxt.instruct = mark.label
        elif isinstance(mark, Pause):
            nxt.pause += mark.seconds
            nxt.changed = True
        elif isinstance(mark, Rate):
            nxt.changed |= mark.ratio != nxt.rate
            nxt.rate = mark.ratio
        elif isinstance(mark, Gain):
            nxt.changed |= mark.ratio != nxt.gain
            nxt.gain = mark.ratio

    def _start_segment(self, *, last: bool = False) -> None:
        """The marks since the last text start a segment here (none if they changed nothing).
        `last`: no text follows (a pause at the end is silence alone)."""
        nxt, self._next = self._next, None
        if nxt is None or not nxt.changed or (last and not nxt.pause):
            return
        current = self._current
        request = None if last else StreamRequest.of(self._request, instruct=nxt.instruct)
        segment = _Segment(request, self._received, nxt.pause, nxt.rate, nxt.gain)
        if len(self._segments) == 1 and current.received == 0 and not last:
            self._segments[0] = segment  # marks before any text: the turn starts with them
            return
        self._end(current)
        self._segments.append(segment)
        self._open_ready()
        self._added.set()

    def _end(self, segment: _Segment) -> None:
        segment.ended = True
        if segment.stream is not None:
            segment.stream.end_input()

    def _open_ready(self) -> None:
        """Open the streams of waiting segments while fewer than LIVE_SEGMENTS play, each once
        the segment before it has sounded (its first audio does not share the engine's step
        with the next segment's prompt)."""
        live = 0
        before_sounded = True
        for segment in self._segments:
            if self._stopped or live >= LIVE_SEGMENTS:
                return
            if segment.request is None or segment.finished:
                continue
            if segment.stream is None and not before_sounded:
                return
            before_sounded = segment.sounding
            if segment.stream is None:
                segment.stream = self._engine.open_stream(segment.request)
                self._added.set()
                if segment.pending:
                    segment.stream.push_text("".join(segment.pending))
                    segment.pending.clear()
                if segment.ended:
                    segment.stream.end_input()
            live += 1

    def mark_word_end(self, space_follows: bool = False) -> None:
        if (stream := self._current.stream) is not None and (mark := getattr(stream, "mark_word_end", None)):
            mark(space_follows=space_follows)

    def end_input(self) -> None:
        if self._stopped or self._input_ended:
            return
        while self._marks:
            self._take_mark(self._marks.popleft()[1])
        current = self._current
        self._start_segment(last=True)
        self._end(current)
        self._input_ended = True
        self._open_ready()
        self._added.set()

    def cancel(self) -> None:
        if self._cancelled:
            return
        self._cancelled = True
        self._stop_all()

    def _stop_all(self) -> None:
        self._stopped = True
        for segment in self._segments:
            if segment.stream is not None:
                segment.stream.cancel()
        self._added.set()

    def pause(self) -> None:
        for segment in self._segments:
            if segment.stream is not None and (pause := getattr(segment.stream, "pause", None)):
                pause()

    def resume(self) -> None:
        for segment in self._segments:
            if segment.stream is not None and (resume := getattr(segment.stream, "resume", None)):
                resume()

    # -- events out ----------------------------------------------------------------------

    async def events(self) -> AsyncIterator[Event]:
        samples = 0  # of the turn's audio so far, silence included
        sample_rate = self._request.sample_rate
        cancelled = False
        failed = False
        rate = 1.0
        speed = self._request.speed  # the speaking rate in effect, for a pause's length
        index = 0
        while True:
            if index == len(self._segments):
                if self._input_ended or self._cancelled or failed:
                    break
                self._added.clear()
                await self._added.wait()
                continue
            segment = self._segments[index]
            while segment.request is not None and segment.stream is None and not self._stopped:
                self._added.clear()  # the first segment opens with the turn's first text
                await self._added.wait()
                segment = self._segments[index]  # marks before any text may have replaced it
            index += 1
            live = not (self._cancelled or failed)
            if live and segment.rate != rate and self._on_rate is not None:
                rate = segment.rate
                speed = self._on_rate(rate)
            if live and segment.pause:
                # Silence in engine time: the speed stage stretches it to `pause` seconds played.
                n = round(segment.pause * sample_rate * speed)
                yield AudioChunk(bytes(2 * n), sample_rate, samples)
                samples += n
            if segment.stream is None:  # silence alone, or a segment never opened (stopped)
                segment.finished = True
                continue
            base_time = samples / sample_rate
            async with contextlib.aclosing(aiter(segment.stream.events())) as events:
                async for event in events:
                    if isinstance(event, AudioChunk):
                        if self._cancelled or failed:
                            continue
                        sample_rate = event.sample_rate
                        yield AudioChunk(scaled_pcm16(event.pcm, segment.gain), sample_rate, samples)
                        samples += event.num_samples
                        if not segment.sounding:
                            segment.sounding = True
                            self._open_ready()
                    elif isinstance(event, Progress):
                        if not (self._cancelled or failed):
                            yield Progress(event.spoken_end + segment.spoken_start, event.audio_time + base_time)
                    elif isinstance(event, Error):
                        if not failed:
                            failed = True
                            yield event
                            self._stop_all()
                    elif isinstance(event, Done):
                        cancelled |= event.cancelled
            segment.finished = True
            self._open_ready()
        yield Done(cancelled=cancelled or self._cancelled, usage=Usage(audio_seconds=samples / sample_rate))
