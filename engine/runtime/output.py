"""What becomes of a stream's frames after the step: when they go to the codec and in what order,
and how their audio and progress reach the stream.

Chunk choice follows each stream's buffered audio (sent and not yet played, the audio playing in
real time from the arrival of its first chunk), not a fixed schedule: a stream's first frame goes
at once (first audio); after that a stream keeps collecting frames while it has more than
`low_water` seconds buffered, and gets what it has (in codec graph sizes) once it falls under, or
a full `max_chunk_frames` chunk as soon as it has one. Order: first chunks first, each decoded in
its own batch ahead of the rest so it can be posted before the rest is done; then by playout
deadline, least buffered first. A per-iteration budget of codec frames (relative to the streams
stepped) keeps one iteration's codec work bounded; what does not fit waits for the next
iteration, where it is more urgent, so nobody starves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from voice_tts.protocol import AudioChunk, Progress

from engine.runtime.stream import FRAME_SECONDS, SAMPLES_PER_FRAME, StreamEnd, StreamState
from engine.runtime.vocoder import MAX_PENDING_FRAMES, Chunk, PendingAudio, Vocoder


@dataclass(frozen=True)
class ChunkPolicy:
    first_chunk_frames: int = 1
    max_chunk_frames: int = 8
    # Seconds of buffered audio under which a stream gets its pending frames now. Must cover a
    # few loop iterations (the codec runs beside the next step) plus the consumer's jitter.
    low_water: float = 0.3
    # Codec frames per iteration, per stream stepped in it (first chunks always go); None: no cap.
    codec_frames_per_stream: float | None = 2.0

    def due(self, stream: StreamState, now: float) -> int:
        """How many of the stream's pending frames to decode now (0: keep collecting)."""
        pending = stream.frames_pending
        if pending <= 0:
            return 0
        if stream.chunks_emitted == 0:
            return _codec_size(min(pending, self.first_chunk_frames))
        if pending >= self.max_chunk_frames:
            return self.max_chunk_frames
        if pending >= MAX_PENDING_FRAMES or buffered(stream, now) < self.low_water:
            return _codec_size(pending)
        return 0

    def wake_at(self, stream: StreamState) -> float | None:
        """When a stream that keeps its pending frames must be looked at again (loop clock)."""
        if stream.frames_pending <= 0 or stream.first_audio_at is None:
            return None
        return stream.first_audio_at + stream.frames_vocoded * FRAME_SECONDS - self.low_water


def buffered(stream: StreamState, now: float) -> float:
    """Seconds of audio sent to the stream and not yet played at `now`; before its first chunk
    arrives, all that was sent (it starts playing on arrival)."""
    sent = stream.frames_vocoded * FRAME_SECONDS
    if stream.first_audio_at is None:
        return sent
    return stream.first_audio_at + sent - now


def _codec_size(frames: int) -> int:
    """The largest power of two within `frames`: a chunk of whole codec runs of one size."""
    return 1 << (frames.bit_length() - 1)


@dataclass(frozen=True)
class QueuedChunk:
    stream: StreamState
    first_frame: int
    frames: int
    progress: Progress | None


@dataclass
class AudioBatch:
    """Chunks whose codec decode runs on the device, and the streams that end after them."""

    urgent: list[QueuedChunk]  # first chunks, decoded ahead of `chunks`
    chunks: list[QueuedChunk]
    urgent_audio: PendingAudio | None
    audio: PendingAudio | None
    ending: list[tuple[StreamState, StreamEnd]]


@dataclass
class Output:
    policy: ChunkPolicy
    vocoder: Vocoder
    _queued: list[QueuedChunk] = field(default_factory=list)
    _urgent: list[QueuedChunk] = field(default_factory=list)

    def choose(self, streams: list[StreamState], now: float, stepped: int) -> None:
        """Queue the chunks due now among `streams` (those with pending frames), first audio
        first, then least buffered, within the iteration's codec budget."""
        due = []
        for stream in streams:
            frames = self.policy.due(stream, now)
            if frames:
                due.append((stream.chunks_emitted > 0, buffered(stream, now), frames, stream))
        due.sort(key=lambda d: (d[0], d[1]))
        per_stream = self.policy.codec_frames_per_stream
        budget = math.inf if per_stream is None else max(per_stream * stepped, self.policy.max_chunk_frames)
        for started, _, frames, stream in due:
            if started and budget < frames and stream.frames_pending < MAX_PENDING_FRAMES:
                continue
            if started:
                budget -= frames
            self.queue(stream, frames)

    def queue(self, stream: StreamState, count: int | None = None) -> None:
        """Queue the oldest `count` pending frames (all by default) as the stream's next chunk."""
        count = stream.frames_pending if count is None else count
        first = stream.frames_vocoded
        last = first + count - 1
        progress = None
        spoken = stream.spoken_end_before(last)
        if spoken > stream.progress_end:
            stream.progress_end = spoken
            progress = Progress(spoken_end=spoken, audio_time=round(last * FRAME_SECONDS, 6))
        chunk = QueuedChunk(stream, first, count, progress)
        (self._urgent if stream.chunks_emitted == 0 else self._queued).append(chunk)
        stream.frames_vocoded += count
        stream.chunks_emitted += 1

    def queue_final_progress(self, stream: StreamState, progress: Progress) -> None:
        self._queued.append(QueuedChunk(stream, 0, 0, progress))

    def drop(self) -> None:
        self._queued, self._urgent = [], []

    def launch(self, ending: list[tuple[StreamState, StreamEnd]]) -> AudioBatch | None:
        """Start decoding the queued chunks; the streams in `ending` end once those chunks (their
        last ones) are posted."""
        urgent, self._urgent = self._urgent, []
        chunks, self._queued = self._queued, []
        if not urgent and not chunks and not ending:
            return None
        audible = [c for c in urgent + chunks if c.frames]
        rest_audio = urgent_audio = None
        if audible:
            rest_audio, urgent_audio = self.vocoder.decode_async(
                [Chunk(c.stream.slot, c.first_frame, c.frames) for c in audible], urgent=len(urgent)
            )
        return AudioBatch(urgent, chunks, urgent_audio, rest_audio, ending)

    @staticmethod
    def post(chunks: list[QueuedChunk], audio: PendingAudio | None, clock: Callable[[], float]) -> None:
        """Post decoded chunks (waiting for their decode); a stream's first chunk starts its playout clock."""
        audible = [c for c in chunks if c.frames]
        pcms = dict(zip(map(id, audible), audio.result())) if audio is not None else {}
        now = clock()
        for chunk in chunks:
            events: list = [] if chunk.progress is None else [chunk.progress]
            if chunk.frames:
                if chunk.stream.first_audio_at is None:
                    chunk.stream.first_audio_at = now
                events.append(AudioChunk(pcms[id(chunk)], 24000, chunk.first_frame * SAMPLES_PER_FRAME))
            chunk.stream.channel.put_many(events)  # one wake-up of the consumer for both
