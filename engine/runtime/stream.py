"""What one stream is: the loop's view of it (`StreamState`) and the caller's handle (`Qwen3Stream`).

The handle lives in the caller's threads: it tokenizes text (`TextFeed`) and posts ready token ids
to the loop; the loop owns `StreamState` and posts events back through a `StreamChannel`, which
hands them to whichever asyncio loop consumes `events()`.
"""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Sequence

import numpy as np

from voice_tts.protocol import PRIORITY_NORMAL, AudioChunk, Done, Error, ErrorCode, Event, Progress, Usage

from engine.event_channel import EventChannel, Mailbox
from engine.runtime.stream_batch import StreamBatch
from engine.runtime.text_feed import TextFeed, TextToken

if TYPE_CHECKING:  # the handle side (API workers of the engine core) runs without torch
    from engine.model.prompt import Voice

CODEC_SAMPLE_RATE = 24000
SAMPLES_PER_FRAME = 1920
FRAME_SECONDS = SAMPLES_PER_FRAME / CODEC_SAMPLE_RATE
MIN_SAMPLE_RATE, MAX_SAMPLE_RATE = 8000, 48000


def sample_rate_error(sample_rate: object) -> Error | None:
    """Why a stream cannot be opened at `sample_rate` (None: it can)."""
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, int) or not MIN_SAMPLE_RATE <= sample_rate <= MAX_SAMPLE_RATE:
        return Error(
            ErrorCode.INVALID_SAMPLE_RATE,
            f"sample_rate must be an integer from {MIN_SAMPLE_RATE} to {MAX_SAMPLE_RATE}, got {sample_rate!r}",
        )
    return None


class StreamStatus(enum.Enum):
    PREFIX = "prefix"  # its slot is being filled with the voice prefix
    WAIT_TEXT = "wait_text"  # parked: the next text row has not arrived; KV kept
    WAIT_READER = "wait_reader"  # parked: its consumer is `max_unread_audio_s` behind; KV kept
    READY = "ready"  # its next talker step can run
    FINISHED = "finished"


STATUSES = tuple(StreamStatus)  # a `StreamBatch.status` code is the index here
STATUS_CODES = {status: code for code, status in enumerate(STATUSES)}


@dataclass(frozen=True)
class StreamEnd:
    """The loop's last word on a stream; the handle turns it into `Error` + `Done`."""

    cancelled: bool
    reason: str
    error: Error | None = None
    codes: list[list[int]] | None = None  # every frame produced, when the loop keeps them


class _Column:
    """A `StreamState` attribute that is its row of a `StreamBatch` column."""

    def __init__(self, none: Any = None) -> None:
        self._none = none  # the column's value that reads as None

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, stream: StreamState | None, owner: type | None = None) -> Any:
        if stream is None:
            return self
        value = getattr(stream.batch, self._name)[stream.row].item()
        if self._none is not None and (value == self._none or value != value):  # NaN marks None too
            return None
        return value

    def __set__(self, stream: StreamState, value: Any) -> None:
        getattr(stream.batch, self._name)[stream.row] = self._none if value is None else value


class StreamState:
    """One stream as the loop sees it. Touched only by the loop thread. Its step state is its row
    of the loop's `StreamBatch` (`engine.runtime.stream_batch`): the attributes below read and
    write that row, for events and tests; the loop's per-iteration work reads the columns."""

    priority = _Column()  # lower first: prefix fills and capped steps (scheduler.py)
    first_chunk_frames = _Column(none=0)  # the request's size of its first chunk (None: the loop's)
    max_frames = _Column()  # from max_new_tokens: the sampled token that would make frame N is never used
    prefix_rows = _Column()  # rows of the voice prefix already in the slot's KV
    text_ended = _Column()
    characters_received = _Column()
    steps = _Column()  # talker steps run = text rows consumed (x_0, x_1, ..., eos, pad, ...)
    frames_produced = _Column()  # its codes are in the vocoder's history on the device
    frames_vocoded = _Column()  # frames handed to the codec; the rest are pending
    chunks_emitted = _Column()
    first_audio_at = _Column(none=np.nan)  # loop clock when its first chunk was posted (playout start)
    progress_end = _Column()
    last_served = _Column()  # loop step at which this stream last ran (anti-starvation order)
    # An ICL clone's text track starts with its transcript, and its tail has one row per
    # reference frame before the first step: step s feeds track row s + track_offset (0 for
    # every other voice). `tail_pending` until those rows are in the slot's KV.
    track_offset = _Column()
    tail_pending = _Column()

    def __init__(
        self,
        id: int,
        prompt: Voice,  # the text-independent part of the prompt; equal voices share a cached prefix
        sampling: Any,
        channel: StreamChannel,
        max_frames: int,
        status: StreamStatus = StreamStatus.PREFIX,
        priority: int = PRIORITY_NORMAL,
        first_chunk_frames: int | None = None,
        reference_ids: Sequence[int] = (),
        track_offset: int = 0,
    ) -> None:
        self.id, self.prompt, self.sampling, self.channel = id, prompt, sampling, channel
        self.slot: int | None = None
        self.codes: list[list[int]] | None = None  # every frame produced, kept for parity checks
        self.batch, self.row = StreamBatch(1), 0
        self.batch.used[0], self.batch.streams[0], self.batch.channels[0] = True, self, channel
        self.max_frames, self.status, self.priority = max_frames, status, priority
        self.first_chunk_frames, self.track_offset = first_chunk_frames, track_offset
        self.batch.set_track(0, reference_ids, (), ())

    @property
    def status(self) -> StreamStatus:
        return STATUSES[self.batch.status[self.row]]

    @status.setter
    def status(self, status: StreamStatus) -> None:
        self.batch.status[self.row] = STATUS_CODES[status]

    @property
    def reference_ids(self) -> list[int]:
        return self.batch.track[self.row, : self.batch.reference_count[self.row]].tolist()

    @property
    def text_ids(self) -> list[int]:
        r, t = self.batch.reference_count[self.row], self.batch.text_count[self.row]
        return self.batch.track[self.row, r : r + t].tolist()

    @text_ids.setter
    def text_ids(self, ids: Sequence[int]) -> None:
        self.batch.set_track(self.row, self.reference_ids, ids, self.text_ends)

    @property
    def text_ends(self) -> list[int]:
        """Spoken end of each text token."""
        return self.batch.text_ends[self.row, : self.batch.text_count[self.row]].tolist()

    @text_ends.setter
    def text_ends(self, ends: Sequence[int]) -> None:
        self.batch.text_ends[self.row, : len(ends)] = ends

    def add_text(self, ids: Sequence[int], ends: Sequence[int]) -> None:
        self.batch.append_text(self.row, ids, ends)

    @property
    def track_length(self) -> int:
        return int(self.batch.track_length(self.row))

    def track_id(self, index: int) -> int:
        return int(self.batch.track[self.row, index])

    @property
    def frames_pending(self) -> int:
        return int(self.batch.frames_pending(self.row))

    @property
    def next_text_id_known(self) -> bool:
        return bool(self.batch.next_text_known(self.row))

    def spoken_end_before(self, frame: int) -> int:
        """Characters of spoken text fed to the model before frame `frame` was generated."""
        return int(self.batch.spoken_end_before(self.row, frame))


class StreamChannel(EventChannel[Any]):
    """A Qwen3 stream's events, counting the audio its consumer has not read yet: a consumer
    that stops reading (a paused turn) parks its stream once that backlog reaches the loop's
    bound, and wakes the loop when it has read half of it."""

    def __init__(self, mailbox: Mailbox | None = None) -> None:
        super().__init__(mailbox)
        self.unread_samples = 0
        self.samples_read = 0  # by the consumer, ever: the loop reads it when the stream may be behind
        self._behind_at: int | None = None  # the backlog that parks the stream
        self._wake_loop: Callable[[], None] | None = None
        self._parked = False

    def bound(self, samples: int, wake: Callable[[], None]) -> bool:
        """Park the stream at `samples` of unread audio; `wake()` the loop once half is read.
        True: the channel counts its reader's backlog (`samples_read`, `reader_behind`)."""
        self._behind_at, self._wake_loop = samples, wake
        return True

    def reader_behind(self, posted: int) -> bool:
        """Whether the consumer is a whole bound behind, `posted` samples having been posted to
        it (the loop's count: some may still wait in the mailbox); if so the stream counts as
        parked until the consumer has read half of that (then it wakes the loop)."""
        with self._lock:
            behind = self._behind_at is not None and posted - self.samples_read >= self._behind_at
            self._parked = self._parked or behind
            return behind

    def _added(self, items: Sequence[Any]) -> None:
        for item in items:
            if type(item) is tuple:
                self.unread_samples += len(item[0])
            elif isinstance(item, AudioChunk):
                self.unread_samples += item.num_samples

    def _taken(self, item: Any) -> None:
        if isinstance(item, AudioChunk) or type(item) is tuple:
            samples = item.num_samples if isinstance(item, AudioChunk) else len(item[0])
            self.unread_samples -= samples
            self.samples_read += samples
            if self._parked and self.unread_samples * 2 < self._behind_at:
                self._parked = False
                self._wake_loop()  # a non-blocking queue put: safe under the lock


# A decoded chunk as the loop posts it: (int16 samples, start sample, spoken end or -1, audio time).
DecodedChunk = tuple[np.ndarray, int, int, float]


@dataclass(frozen=True)
class DecodedChunks:
    """Chunks as the loop posts them to a sink, column by column: iterating makes each one's
    record, a `DecodedChunk` (or a chunk of no frames: its `Progress`), on the side that takes
    them (a mailbox's consumer), not in the loop."""

    samples: Sequence[np.ndarray]  # of the chunks with frames, in order (rows of one array, often)
    framed: np.ndarray  # whether each chunk has frames
    starts: np.ndarray  # first sample
    spoken: np.ndarray  # spoken end posted with it, -1: none
    times: np.ndarray  # audio time of its progress

    def __len__(self) -> int:
        return len(self.starts)

    def __iter__(self):
        columns = self.starts.tolist(), self.spoken.tolist(), self.times.tolist()
        if len(self.samples) == len(self.starts):
            return zip(self.samples, *columns)
        pcm = iter(self.samples)
        return (
            (next(pcm), start, end, time) if framed else Progress(end, time)
            for framed, start, end, time in zip(self.framed.tolist(), *columns)
        )

    def take(self, indices: np.ndarray) -> DecodedChunks:
        """The chunks at `indices` (in order)."""
        sample_of = np.cumsum(self.framed) - 1
        mine = indices[self.framed[indices]]
        samples = [self.samples[i] for i in sample_of[mine].tolist()]
        return DecodedChunks(samples, self.framed[indices], self.starts[indices], self.spoken[indices], self.times[indices])


def decoded_events(chunk: DecodedChunk) -> tuple[Event, ...]:
    """The events of a decoded chunk: its `Progress` (if any), then its `AudioChunk`."""
    samples, start_sample, spoken_end, audio_time = chunk
    audio = AudioChunk(samples.tobytes(), CODEC_SAMPLE_RATE, start_sample)
    return (audio,) if spoken_end < 0 else (Progress(spoken_end, audio_time), audio)


@dataclass(frozen=True)
class TextCommand:
    stream_id: int
    tokens: list[TextToken]
    characters_received: int
    ended: bool


@dataclass(frozen=True)
class CancelCommand:
    stream_id: int


@dataclass(frozen=True)
class ReaderCommand:
    """A stream's reader is a whole bound behind (`behind`, said by a reader the loop cannot
    count: an API worker's) or has caught up with a stream parked in WAIT_READER: the loop
    wakes (if it was idle) and schedules it again."""

    stream_id: int
    behind: bool = False


class Qwen3Stream:
    """The caller's handle on one stream (`voice_tts.protocol.EngineStream`)."""

    def __init__(
        self,
        stream_id: int,
        feed: TextFeed | None,
        post: Callable[[Any], None],
        sample_rate: int,
        channel: StreamChannel,
    ) -> None:
        self.id = stream_id
        self._feed = feed
        self._post = post
        self._sample_rate = sample_rate
        self._channel = channel
        self._lock = threading.Lock()
        self._ended = False
        self._cancelled = False
        self._consumed = False
        self.end_reason: str | None = None  # why the engine ended it: eos, max_new_tokens, frame_cap, ...
        self.codes: list[list[int]] | None = None

    def push_text(self, text: str) -> None:
        if not isinstance(text, str):
            raise TypeError(f"push_text takes str, not {type(text).__name__}")
        with self._lock:
            if self._ended:
                raise RuntimeError("push_text after end_input")
            if self._cancelled or self._feed is None or not text:
                return
            tokens = self._feed.push(text)
            self._post(TextCommand(self.id, tokens, self._feed.characters_received, False))

    def mark_word_end(self, space_follows: bool = False) -> None:
        """The text pushed so far ends a word, or (`space_follows`) goes on with a space and a
        letter (see `voice_tts.protocol.push_spoken`): its last tokens go to the loop now, not
        with the next text."""
        with self._lock:
            if self._ended or self._cancelled or self._feed is None:
                return
            tokens = self._feed.end_word(space_follows)
            if tokens:
                self._post(TextCommand(self.id, tokens, self._feed.characters_received, False))

    def end_input(self) -> None:
        with self._lock:
            if self._ended or self._cancelled:
                return
            self._ended = True
            if self._feed is None:
                return
            tokens = self._feed.finish()
            self._post(TextCommand(self.id, tokens, self._feed.characters_received, True))

    def cancel(self) -> None:
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
        self._post(CancelCommand(self.id))

    async def events(self) -> AsyncIterator[Event]:
        if self._consumed:
            raise RuntimeError("events() can be iterated only once per stream")
        self._consumed = True
        resampler = None
        if self._sample_rate != CODEC_SAMPLE_RATE:
            from voice_tts.audio import PCMResampler

            resampler = PCMResampler(CODEC_SAMPLE_RATE, self._sample_rate)
        samples_out = 0
        spoken = 0
        received = 0
        while True:
            item = await self._channel.get()
            # A decoded chunk is posted as one record (`DecodedChunk`): its events are made here.
            for item in decoded_events(item) if type(item) is tuple else (item,):
                if isinstance(item, StreamEnd):
                    self.end_reason, self.codes = item.reason, item.codes
                    cancelled = item.cancelled or self._cancelled
                    if resampler is not None and not cancelled:
                        tail = resampler.flush()
                        if tail:
                            yield AudioChunk(tail, self._sample_rate, samples_out)
                            samples_out += len(tail) // 2
                    if item.error is not None:
                        yield item.error
                    if self._feed is not None:
                        received = self._feed.characters_received
                    yield Done(
                        cancelled=cancelled,
                        usage=Usage(
                            characters_received=received,
                            characters_spoken=spoken,
                            audio_seconds=samples_out / self._sample_rate,
                        ),
                    )
                    return
                if self._cancelled:
                    continue  # nothing after cancel(): queued audio and progress are dropped
                if isinstance(item, Progress):
                    spoken = max(spoken, item.spoken_end)
                    yield item
                elif isinstance(item, AudioChunk):
                    if resampler is None and item.start_sample == samples_out and item.pcm:
                        yield item  # already this stream's chunk as it goes out (one object per chunk less)
                        samples_out += item.num_samples
                        continue
                    pcm = item.pcm if resampler is None else resampler.process(item.pcm)
                    if pcm:
                        yield AudioChunk(pcm, self._sample_rate, samples_out)
                        samples_out += len(pcm) // 2
