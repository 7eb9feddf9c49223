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

from voice_tts.protocol import AudioChunk, Progress

from engine.runtime.stream import CODEC_SAMPLE_RATE, FRAME_SECONDS, SAMPLES_PER_FRAME, StreamEnd, StreamState
from engine.runtime.vocoder import MAX_PENDING_FRAMES, Chunk, PendingAudio, Vocoder


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

    def due(self, stream: StreamState, now: float, first_frames: int | None = None) -> int:
        """How many of the stream's pending frames to decode now (0: keep collecting).
        `first_frames`: the size of a first chunk now (default `first_chunk_frames`), unless the
        stream asked for its own; a stream short of it waits only while it can step at once (its
        next text is there). A first chunk of the asked size may be several codec runs."""
        pending = stream.frames_pending
        if pending <= 0:
            return 0
        if stream.chunks_emitted == 0:
            first = stream.first_chunk_frames or (self.first_chunk_frames if first_frames is None else first_frames)
            if pending >= first:
                return first
            return 0 if stream.next_text_id_known else _codec_size(pending)
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


@dataclass(slots=True)
class QueuedChunk(Chunk):
    """A chunk of a stream's frames as the vocoder names it (slot, first frame, frames; no
    frames: progress only), with the stream it goes to and the progress posted with it."""

    stream: StreamState
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

    def queue_opening_chunks(self, stepped: list[StreamState], first_frames: int) -> bool:
        """Queue the chunks that the streams in `stepped` (just launched in a frame step, not yet
        taken) complete with this step among their first `EOS_BARRED_STEPS`: a first chunk of
        `first_frames` (or the size the stream asked for), and the frame right after a one-frame
        first chunk (those 80 ms run out before a chunk decoded an iteration later would arrive).
        True if any was queued. Their decode (`launch_opening_chunks`) follows the step on the
        device."""
        queued = False
        for stream in stepped:
            if stream.steps >= EOS_BARRED_STEPS:
                continue
            frames = stream.frames_pending + 1
            if frames >= ((stream.first_chunk_frames or first_frames) if stream.chunks_emitted == 0 else 1):
                self.queue(stream, _codec_size(frames), urgent=True)
                queued = True
        return queued

    def launch_opening_chunks(self) -> AudioBatch | None:
        """Start decoding the opening chunks queued so far, after the work already launched on the
        device (the frame step that makes their last frame)."""
        urgent, self._urgent = self._urgent, []
        if not urgent:
            return None
        audio, _ = self.vocoder.decode_async(urgent)
        return AudioBatch(urgent=[], chunks=urgent, urgent_audio=None, audio=audio, ending=[])

    def choose(self, streams: list[StreamState], now: float, stepped: int, first_frames: int | None = None) -> None:
        """Queue the chunks due now among `streams` (those with pending frames), first audio
        first, then least buffered, within the iteration's codec budget."""
        due = []
        for stream in streams:
            frames = self.policy.due(stream, now, first_frames)
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

    def queue(self, stream: StreamState, count: int | None = None, urgent: bool | None = None) -> None:
        """Queue the oldest `count` pending frames (all by default) as the stream's next chunk,
        among the urgent ones (decoded and posted first; by default a first chunk) or the rest."""
        count = stream.frames_pending if count is None else count
        first = stream.frames_vocoded
        last = first + count - 1
        progress = None
        spoken = stream.spoken_end_before(last)
        if spoken > stream.progress_end:
            stream.progress_end = spoken
            progress = Progress(spoken_end=spoken, audio_time=round(last * FRAME_SECONDS, 6))
        chunk = QueuedChunk(stream.slot, first, count, stream, progress)
        if urgent is None:
            urgent = stream.chunks_emitted == 0
        (self._urgent if urgent else self._queued).append(chunk)
        stream.frames_vocoded += count
        stream.chunks_emitted += 1

    def queue_final_progress(self, stream: StreamState, progress: Progress) -> None:
        self._queued.append(QueuedChunk(stream.slot, 0, 0, stream, progress))

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
            # Their frames are on the host already: the decode runs beside the step now running.
            rest_audio, urgent_audio = self.vocoder.decode_async(audible, urgent=len(urgent), behind_current=False)
        return AudioBatch(urgent, chunks, urgent_audio, rest_audio, ending)

    @staticmethod
    def post(chunks: list[QueuedChunk], audio: PendingAudio | None, clock: Callable[[], float]) -> None:
        """Post decoded chunks (waiting for their decode); a stream's first chunk starts its
        playout clock. `audio` holds the PCM of the chunks with frames, in their order."""
        pcms = iter(audio.result() if audio is not None else ())
        now = clock()
        for chunk in chunks:
            stream = chunk.stream
            if chunk.frames:
                if stream.first_audio_at is None:
                    stream.first_audio_at = now
                pcm = AudioChunk(next(pcms), CODEC_SAMPLE_RATE, chunk.first_frame * SAMPLES_PER_FRAME)
                stream.channel.put_many((pcm,) if chunk.progress is None else (chunk.progress, pcm))  # one wake-up for both
            elif chunk.progress is not None:
                stream.channel.put(chunk.progress)
