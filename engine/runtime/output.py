"""What becomes of a stream's frames after the step: when they go to the codec and in what order,
and how their audio and progress reach the stream.

Chunk choice follows each stream's buffered audio (sent and not yet played, the audio playing in
real time from the arrival of its first chunk), not a fixed schedule. A stream's first chunk is
one frame while loop iterations are short, two once they take longer than `loaded_iteration_s`
(the loop's estimate of the coming iterations: while streams arrive faster than they start, what
the measured fit predicts for all of them): the next chunk comes one to two iterations after the
first, and one frame (80 ms) would not cover that under load. The first chunk is queued when the
step that completes it is launched (`queue_opening_chunks`): its decode waits for that step on
the device, not for the host to see the step's codes, so first audio costs one step and one
decode. A stream may ask for its own first chunk size (`StreamRequest.first_chunk_frames`, read
into its state at admission): it gets that many frames in its first chunk (several codec runs if
need be), unless its text runs short first. After a one-frame first chunk the next frame goes
the same way. After that a stream keeps collecting frames while it has more than `low_water`
seconds buffered, and gets what it has (in codec graph sizes) once it falls under, or a full
`max_chunk_frames` chunk as soon as it has one. Every later chunk is one codec run (1, 2 or 4
frames), so an iteration's decode is at most three graph launches: a launch costs 3-10 ms at
small batches whatever its rows, and 8-frame chunks (two runs, the second at its own offset)
made a fourth. Order: first chunks first, each decoded in its own batch ahead of the rest so it
can be posted before the rest is done; then by playout deadline, least buffered first. A
per-iteration budget of codec frames (relative to the streams stepped) keeps one iteration's
codec work bounded; what does not fit waits for the next iteration, where it is more urgent, so
nobody starves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np


from engine.event_channel import Direct, Sink
from engine.runtime.stream import FRAME_SECONDS, SAMPLES_PER_FRAME, DecodedChunks, StreamEnd, StreamState
from engine.runtime.stream_batch import StreamBatch
from engine.runtime.vocoder import MAX_PENDING_FRAMES, CodecChunks, PendingAudio, Vocoder


# A stream's first steps always make a frame: the loop bars EOS from them (its first frame is
# never "no audio"), so a first chunk can be queued before the host has seen the step's codes.
EOS_BARRED_STEPS = 2


@dataclass(frozen=True)
class ChunkPolicy:
    first_chunk_frames: int = 1
    # First chunk once recent loop iterations take longer than `loaded_iteration_s` (at most
    # EOS_BARRED_STEPS frames, so that it can be queued ahead of its last step's codes).
    first_chunk_frames_loaded: int = 2
    loaded_iteration_s: float = 0.025
    max_chunk_frames: int = 4  # one codec run (CODEC_FRAME_SIZES)
    # Seconds of buffered audio under which a stream gets its pending frames now. Must cover a
    # few loop iterations (the codec runs beside the next step) plus the consumer's jitter.
    low_water: float = 0.3
    # Codec frames per iteration, per stream stepped in it (first chunks always go); None: no cap.
    codec_frames_per_stream: float | None = 2.0

    def first_frames(self, iteration_s: float) -> int:
        """Frames of a first chunk while loop iterations take `iteration_s` (recent mean)."""
        return self.first_chunk_frames_loaded if iteration_s > self.loaded_iteration_s else self.first_chunk_frames

    def due(self, batch: StreamBatch, rows: np.ndarray, now: float, first_frames: int | None = None) -> np.ndarray:
        """How many of each row's pending frames to decode now (0: keep collecting).
        `first_frames`: the size of a first chunk now (default `first_chunk_frames`), unless the
        stream asked for its own; a stream short of it waits only while it can step at once (its
        next text is there). A first chunk of the asked size may be several codec runs."""
        pending = batch.frames_pending(rows)
        asked = batch.first_chunk_frames[rows]
        first = np.where(asked > 0, asked, self.first_chunk_frames if first_frames is None else first_frames)
        size = codec_size(pending)
        first_due = np.where(pending >= first, first, np.where(batch.next_text_known(rows), 0, size))
        running_out = (pending >= MAX_PENDING_FRAMES) | (buffered(batch, rows, now) < self.low_water)
        later_due = np.where(pending >= self.max_chunk_frames, self.max_chunk_frames, np.where(running_out, size, 0))
        return np.where(pending <= 0, 0, np.where(batch.chunks_emitted[rows] == 0, first_due, later_due))

    def wake_at(self, batch: StreamBatch, rows: np.ndarray) -> np.ndarray:
        """When each row that keeps its pending frames must be looked at again (loop clock; NaN: never)."""
        at = batch.first_audio_at[rows] + batch.frames_vocoded[rows] * FRAME_SECONDS - self.low_water
        return np.where(batch.frames_pending(rows) > 0, at, np.nan)


def buffered(batch: StreamBatch, rows: np.ndarray, now: float) -> np.ndarray:
    """Seconds of audio sent to each row's stream and not yet played at `now`; before its first
    chunk arrives, all that was sent (it starts playing on arrival)."""
    sent = batch.frames_vocoded[rows] * FRAME_SECONDS
    first_audio_at = batch.first_audio_at[rows]
    return np.where(np.isnan(first_audio_at), sent, first_audio_at + sent - now)


def codec_size(frames: np.ndarray) -> np.ndarray:
    """The largest power of two within each of `frames` (1 for none): a chunk of whole codec
    runs of one size."""
    return np.left_shift(1, np.frexp(np.maximum(frames, 1))[1] - 1)


_AUDIO_TIMES = np.zeros(0)


def audio_times(frames: int) -> np.ndarray:
    """The start of each of the first `frames` frames in seconds, as progress reports it
    (rounded to the microsecond); kept, so posting chunks looks their times up."""
    global _AUDIO_TIMES
    if len(_AUDIO_TIMES) < frames:
        count = max(frames, 2 * len(_AUDIO_TIMES))
        _AUDIO_TIMES = np.array([round(i * FRAME_SECONDS, 6) for i in range(count)])
    return _AUDIO_TIMES


@dataclass(frozen=True)
class QueuedChunks:
    """Chunks of streams' frames as arrays, one entry per chunk: the stream's row (its slot),
    its first frame and frames (0: progress only), and the spoken end posted with it as
    `Progress` (-1: none) at the start of its last frame."""

    rows: np.ndarray
    first_frames: np.ndarray
    frames: np.ndarray
    spoken: np.ndarray
    last_frames: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index) -> QueuedChunks:
        return QueuedChunks(*(getattr(self, f)[index] for f in ("rows", "first_frames", "frames", "spoken", "last_frames")))

    @staticmethod
    def join(parts: list[QueuedChunks]) -> QueuedChunks:
        if len(parts) == 1:
            return parts[0]
        names = ("rows", "first_frames", "frames", "spoken", "last_frames")
        if not parts:
            return QueuedChunks(*(np.zeros(0, dtype=np.int64) for _ in names))
        return QueuedChunks(*(np.concatenate([getattr(p, f) for p in parts]) for f in names))

    def codec_chunks(self) -> CodecChunks:
        return CodecChunks(self.rows, self.first_frames, self.frames)


@dataclass
class AudioBatch:
    """Chunks whose codec decode runs on the device, and the streams that end after them."""

    urgent: QueuedChunks  # first chunks, decoded ahead of `chunks`
    chunks: QueuedChunks
    urgent_audio: PendingAudio | None
    audio: PendingAudio | None
    ending: list[tuple[StreamState, StreamEnd]]


@dataclass
class Output:
    policy: ChunkPolicy
    vocoder: Vocoder
    batch: StreamBatch
    # Where chunks are posted (`StreamBatch.sink` indexes it); channels of no mailbox at 0.
    sinks: list[Sink] = field(default_factory=lambda: [Direct])
    _queued: list[QueuedChunks] = field(default_factory=list)
    _urgent: list[QueuedChunks] = field(default_factory=list)

    def queue_opening_chunks(self, stepped: np.ndarray, first_frames: int) -> bool:
        """Queue the chunks that the rows in `stepped` (just launched in a frame step, not yet
        taken) complete with this step among their first `EOS_BARRED_STEPS`: a first chunk of
        `first_frames` (or the size the stream asked for), and the frame right after a one-frame
        first chunk (those 80 ms run out before a chunk decoded an iteration later would arrive).
        True if any was queued. Their decode (`launch_opening_chunks`) follows the step on the
        device."""
        batch = self.batch
        rows = stepped[batch.steps[stepped] < EOS_BARRED_STEPS]
        if not len(rows):
            return False
        frames = batch.frames_pending(rows) + 1
        asked = batch.first_chunk_frames[rows]
        needed = np.where(batch.chunks_emitted[rows] == 0, np.where(asked > 0, asked, first_frames), 1)
        complete = frames >= needed
        if not complete.any():
            return False
        self._queue_rows(rows[complete], codec_size(frames[complete]), np.ones(int(complete.sum()), dtype=bool))
        return True

    def launch_opening_chunks(self) -> AudioBatch | None:
        """Start decoding the opening chunks queued so far, after the work already launched on the
        device (the frame step that makes their last frame)."""
        if not self._urgent:
            return None
        urgent, self._urgent = QueuedChunks.join(self._urgent), []
        audio, _ = self.vocoder.decode_async(urgent.codec_chunks())
        return AudioBatch(QueuedChunks.join([]), urgent, None, audio, [])

    def choose(self, rows: np.ndarray, now: float, stepped: int, first_frames: int | None = None) -> None:
        """Queue the chunks due now among `rows` (streams with pending frames), first audio
        first, then least buffered, within the iteration's codec budget."""
        batch = self.batch
        frames = self.policy.due(batch, rows, now, first_frames)
        due = frames > 0
        rows, frames = rows[due], frames[due]
        if not len(rows):
            return
        started = batch.chunks_emitted[rows] > 0
        order = np.lexsort((buffered(batch, rows, now), started))
        rows, frames, started = rows[order], frames[order], started[order]
        per_stream = self.policy.codec_frames_per_stream
        budget = math.inf if per_stream is None else max(per_stream * stepped, self.policy.max_chunk_frames)
        if frames[started].sum() > budget:
            # Over the budget: in order, a started stream's chunk waits unless it fits what is
            # left (or its history is nearly full); what waits is more urgent next iteration.
            going = ~started
            pending = batch.frames_pending(rows)
            for i in np.flatnonzero(started).tolist():
                if budget < frames[i] and pending[i] < MAX_PENDING_FRAMES:
                    continue
                budget -= frames[i]
                going[i] = True
            rows, frames, started = rows[going], frames[going], started[going]
        self._queue_rows(rows, frames, ~started)

    def queue_last(self, rows: np.ndarray, text_spoken: np.ndarray) -> None:
        """Queue the last chunks of `rows` (streams that end now): all their pending frames (a
        first chunk among the urgent ones), then, for the rows flagged in `text_spoken` (EOS
        after the end-of-text row: the model has spoken all of the text), that all of their
        text was spoken by the start of their last frame."""
        batch = self.batch
        pending = batch.frames_pending(rows)
        going = pending > 0
        if going.any():
            self._queue_rows(rows[going], pending[going], batch.chunks_emitted[rows[going]] == 0)
        spoken = rows[text_spoken]
        spoken = spoken[(batch.frames_vocoded[spoken] > 0) & (batch.progress_end[spoken] < batch.characters_received[spoken])]
        if len(spoken):
            received = batch.characters_received[spoken]
            batch.progress_end[spoken] = received
            zeros = np.zeros(len(spoken), dtype=np.int64)
            self._queued.append(QueuedChunks(spoken, zeros, zeros, received, batch.frames_vocoded[spoken] - 1))

    def _queue_rows(self, rows: np.ndarray, counts: np.ndarray, urgent: np.ndarray) -> None:
        """Queue the oldest `counts` pending frames of each of `rows` (distinct) as its next chunk,
        the `urgent` ones among the chunks decoded and posted first."""
        batch = self.batch
        first = batch.frames_vocoded[rows]
        last = first + counts - 1
        spoken = batch.spoken_end_before(rows, last)
        advanced = spoken > batch.progress_end[rows]
        batch.progress_end[rows[advanced]] = spoken[advanced]
        chunks = QueuedChunks(rows, first, counts, np.where(advanced, spoken, -1), last)
        batch.frames_vocoded[rows] = first + counts
        batch.chunks_emitted[rows] += 1
        if urgent.all():
            self._urgent.append(chunks)
        elif not urgent.any():
            self._queued.append(chunks)
        else:
            self._urgent.append(chunks[urgent])
            self._queued.append(chunks[~urgent])

    def drop(self) -> None:
        self._queued, self._urgent = [], []

    def launch(self, ending: list[tuple[StreamState, StreamEnd]]) -> AudioBatch | None:
        """Start decoding the queued chunks; the streams in `ending` end once those chunks (their
        last ones) are posted."""
        if not self._urgent and not self._queued and not ending:
            return None
        urgent, self._urgent = QueuedChunks.join(self._urgent), []
        chunks, self._queued = QueuedChunks.join(self._queued), []
        rest_audio = urgent_audio = None
        audible = QueuedChunks.join([urgent, chunks])
        audible = audible[audible.frames > 0]
        if len(audible):
            # Their frames are on the host already: the decode runs beside the step now running.
            rest_audio, urgent_audio = self.vocoder.decode_async(audible.codec_chunks(), urgent=len(urgent), behind_current=False)
        return AudioBatch(urgent, chunks, urgent_audio, rest_audio, ending)

    def sink(self, sink: Sink) -> int:
        """The index of `sink` (a channel's `sink`) among the places chunks are posted to."""
        for index, known in enumerate(self.sinks):
            if known is sink:
                return index
        self.sinks.append(sink)
        return len(self.sinks) - 1

    def post(self, chunks: QueuedChunks, audio: PendingAudio | None, clock: Callable[[], float]) -> None:
        """Post decoded chunks (waiting for their decode); a stream's first chunk starts its
        playout clock. `audio` holds the PCM of the chunks with frames, in their order. Each
        sink (the streams' mailbox, an API worker's outbox) gets all of its chunks in one call:
        a decoded chunk as one `DecodedChunk` record, a chunk of no frames as its `Progress`;
        the events are made on the consumer's side."""
        if not len(chunks):
            return
        batch = self.batch
        framed = chunks.frames > 0
        audible = chunks.rows[framed]
        starting = audible[np.isnan(batch.first_audio_at[audible])]
        batch.first_audio_at[starting] = clock()
        np.add.at(batch.samples_posted, audible, chunks.frames[framed] * SAMPLES_PER_FRAME)
        samples = audio.samples() if audio is not None else ()
        times = audio_times(int(chunks.last_frames.max()) + 1)[chunks.last_frames]
        items = DecodedChunks(samples, framed, chunks.first_frames * SAMPLES_PER_FRAME, chunks.spoken, times)
        channels = batch.channels[chunks.rows]
        sinks = batch.sink[chunks.rows]
        if (sinks == sinks[0]).all():
            self.sinks[sinks[0]].post(channels, items)
            return
        for sink in np.unique(sinks).tolist():
            mine = np.flatnonzero(sinks == sink)
            self.sinks[sink].post(channels[mine], items.take(mine))
