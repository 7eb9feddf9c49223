"""The busy loop: one background thread owns the device and runs schedule -> step -> post-process.

API calls only post commands to `inbox` (a thread-safe queue) and never wait on a step; text
arrives here already tokenized. Per iteration the loop drains its inbox, asks the scheduler for
this step's work, runs it on the runner, and turns finished frames into audio chunks and progress
for each stream. On CUDA the codec decode of an iteration's chunks runs on its own stream beside
the next frame step, and the chunks are posted while that step runs. Which pending frames are
decoded when follows each stream's playout deadline: a stream whose sent audio is about to run
out gets what it has now; one with plenty buffered waits for a full chunk. A stream that ends
(EOS, a cap, cancel, error) gives its slot back once its last chunk is posted, so the slot is
free for the next step.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from voice_tts.protocol import AudioChunk, Error, ErrorCode, Progress

from engine.runtime.kv_cache import PrefixCache
from engine.runtime.runner import DecodeRow, ModelRunner, PendingAudio
from engine.runtime.scheduler import Scheduler
from engine.runtime.stream import (
    CODEC_SAMPLE_RATE,
    FRAME_SECONDS,
    SAMPLES_PER_FRAME,
    CancelCommand,
    StreamEnd,
    StreamState,
    StreamStatus,
    TextCommand,
    WakeCommand,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LoopSettings:
    # Frames per audio chunk: the first chunk is 1 frame (80 ms) for first-audio latency, later
    # ones are larger (fewer events and codec calls); the last entry repeats. On the H200 at 128
    # streams, (1, 1, 2, 4, 8) left more streams late than this one: the codec calls it adds cost
    # more than its earlier second chunk gains (docs/benchmarks.md).
    chunk_schedule: tuple[int, ...] = (1, 2, 4, 8)
    # Playout deadline: a stream whose audio already sent runs out (played at real time from its
    # first chunk) within this many seconds gets its pending frames decoded now, whatever the
    # schedule says; streams with more buffered audio wait for their full chunk. None: schedule only.
    playout_margin: float | None = 0.25
    # Runaway guard: a stream ends once its frames exceed this many per text token (+ the floor).
    max_frames_per_text_token: float = 15.0
    min_frame_cap: int = 50
    # EOS may end a stream only after its end-of-text row was fed; False follows the official
    # layout exactly (parity tests).
    eos_after_text_end: bool = True
    prefill_rows_per_step: int = 64
    prefix_cache_entries: int = 32
    # Keep every stream's frame codes and hand them to its handle at the end (`stream.codes`).
    keep_codes: bool = False
    # A stream whose consumer has this much audio unread (a paused turn) stops stepping, keeping
    # its KV, until the consumer has read half of it: a bounded look-ahead, no batch row held.
    max_unread_audio_s: float = 10.0


@dataclass(frozen=True)
class _QueuedChunk:
    stream: StreamState
    frames: list[list[int]]
    start_sample: int
    progress: Progress | None


@dataclass
class _AudioBatch:
    """Chunks whose codec decode runs on the device, and the streams that end after them."""

    chunks: list[_QueuedChunk]
    audio: PendingAudio | None
    ending: list[tuple[StreamState, StreamEnd]]


@dataclass(frozen=True)
class OpenCommand:
    state: StreamState


class StopCommand:
    pass


@dataclass(frozen=True)
class DeviceCall:
    """Device work from another thread (cloning a voice), run by the loop between two steps so
    that it never races a step or a graph capture; its result or error goes to `done`."""

    work: Callable[[], Any]
    done: concurrent.futures.Future

    def run(self) -> None:
        try:
            self.done.set_result(self.work())
        except Exception as e:  # the caller's error, not the loop's
            self.done.set_exception(e)


class StepLoop:
    def __init__(
        self,
        runner: ModelRunner,
        settings: LoopSettings,
        on_release: Callable[[], None],
    ) -> None:
        self.runner = runner
        self.settings = settings
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()
        self.scheduler = Scheduler(runner.slots, settings.prefill_rows_per_step)
        self.prefix_cache = PrefixCache(settings.prefix_cache_entries)
        self._on_release = on_release
        self._streams: dict[int, StreamState] = {}
        self._prefix_totals: dict[int, int] = {}
        self._chunks: list[_QueuedChunk] = []
        self._ending: list[tuple[StreamState, StreamEnd]] = []
        self._in_flight: _AudioBatch | None = None  # the batch of audio whose decode is queued last
        self._now = 0.0
        self._step = 0
        self.steps_run = 0
        self.step_seconds_total = 0.0
        self.failure: str | None = None  # why the loop died, if it did (the server reports it)
        self._thread = threading.Thread(target=self._run, name="qwen3-tts-step-loop", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float | None = None) -> None:
        if self._thread.is_alive():
            self.inbox.put(StopCommand())
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    # ---- the loop ---------------------------------------------------------------------------

    def _run(self) -> None:
        """Per iteration: run the frame step, turn its frames into chunks and queue their decode
        on the codec stream; then hand out the audio of the previous iteration's chunks, whose
        decode ran beside this step. The codec stream thus always has the next batch queued
        while the host posts the last one, and the host work of an iteration overlaps the
        device's. Where the codec does not run beside the step (CPU), chunks are posted at once."""
        try:
            while True:
                busy = bool(self._streams) and self._has_work()
                if not self._drain(block=not busy and self._in_flight is None):
                    break
                plan = self.scheduler.schedule(self._prefix_totals)
                started = time.perf_counter()
                if plan.fills:
                    self._run_fills(plan.fills)
                if plan.decodes:
                    self._step += 1
                    self._fill_tails(plan.decodes)
                    self.runner.launch_decode(self._decode_rows(plan.decodes))
                    codes = self.runner.finish_decode()
                    self._now = time.perf_counter()
                    self._take_frames(plan.decodes, codes)
                self._flush_parked()
                batch = self._launch_audio()
                previous, self._in_flight = self._in_flight, batch
                self._deliver(previous)
                if batch is not None and (batch.audio is None or not self.runner.codec_overlaps):
                    self._in_flight = None  # nothing runs on the device: post at once
                    self._deliver(batch)
                if not plan.empty:
                    self.steps_run += 1
                    self.step_seconds_total += time.perf_counter() - started
        except BaseException as e:  # a device failure ends every stream with an error, never a hang
            log.exception("step loop failed")
            self.failure = f"engine step failed: {e!r}"
            self._chunks = []
            for stream in list(self._streams.values()):
                self._finish(stream, "engine_error", Error(ErrorCode.ENGINE_ERROR, f"engine step failed: {e}", True))
            self._end_streams(self._ending)
            self._ending = []
        finally:
            self._shutdown_streams()

    def _has_work(self) -> bool:
        return any(
            s.status is StreamStatus.PREFIX
            or (
                s.status is not StreamStatus.FINISHED
                and s.next_text_id_known
                and not s.channel.reader_behind()
            )
            for s in self._streams.values()
        )

    def _drain(self, block: bool) -> bool:
        """Apply pending commands; False when the loop must stop."""
        try:
            command = self.inbox.get(timeout=None) if block else self.inbox.get_nowait()
        except queue.Empty:
            return True
        while True:
            if isinstance(command, StopCommand):
                return False
            self._apply(command)
            try:
                command = self.inbox.get_nowait()
            except queue.Empty:
                return True

    def _apply(self, command: Any) -> None:
        if isinstance(command, OpenCommand):
            self._admit(command.state)
            return
        if isinstance(command, DeviceCall):
            command.run()
            return
        stream = self._streams.get(command.stream_id)
        if stream is None:
            return
        if isinstance(command, TextCommand):
            for token in command.tokens:
                stream.text_ids.append(token.id)
                stream.text_ends.append(token.spoken_end)
            stream.characters_received = command.characters_received
            if command.ended:
                stream.text_ended = True
                if not stream.text_ids:
                    self._finish(stream, "empty_text")
        elif isinstance(command, CancelCommand):
            self._finish(stream, "cancelled", cancelled=True)

    def _admit(self, stream: StreamState) -> None:
        if self.settings.keep_codes:
            stream.codes = []
        stream.slot = self.runner.pool.allocate()
        stream.channel.bound(
            int(self.settings.max_unread_audio_s * CODEC_SAMPLE_RATE),
            lambda: self.inbox.put(WakeCommand(stream.id)),
        )
        self._streams[stream.id] = stream
        self.scheduler.add(stream)
        cached = self.prefix_cache.get(stream.prompt)
        if cached is not None:
            self.runner.pool.load(stream.slot, cached)
            self._start_decoding(stream, cached.length)
        else:
            total = self.runner.prefix_length(stream.prompt)
            self._prefix_totals[stream.id] = total
            self.runner.reserve(stream.slot, total)

    def _start_decoding(self, stream: StreamState, prefix_length: int) -> None:
        self._prefix_totals.pop(stream.id, None)
        stream.prefix_rows = prefix_length
        stream.tail_pending = stream.track_offset > 0
        self.runner.start_stream(stream.slot, prefix_length, stream.sampling, stream.prompt)
        stream.status = StreamStatus.READY if stream.next_text_id_known else StreamStatus.WAIT_TEXT

    def _run_fills(self, fills) -> None:
        self.runner.fill_prefix([(f.stream.slot, f.stream.prompt, f.start, f.end) for f in fills])
        for fill in fills:
            stream = fill.stream
            stream.prefix_rows = fill.end
            if fill.end == self._prefix_totals[stream.id]:
                self.prefix_cache.put(stream.prompt, self.runner.pool.save(stream.slot, fill.end))
                self._start_decoding(stream, fill.end)
        # Streams that waited for another stream to fill the same voice prefix take it now.
        for stream in list(self._streams.values()):
            if stream.status is StreamStatus.PREFIX and stream.prefix_rows == 0:
                cached = self.prefix_cache.get(stream.prompt)
                if cached is not None:
                    self.runner.pool.load(stream.slot, cached)
                    self._start_decoding(stream, cached.length)

    def _fill_tails(self, streams: list[StreamState]) -> None:
        """Prefill the reference-frame rows of ICL streams about to take their first step."""
        for stream in streams:
            if stream.tail_pending:
                track = [stream.track_id(i) for i in range(stream.track_length)]
                self.runner.fill_tail(stream.slot, stream.prompt, track, stream.text_ended, stream.prefix_rows)
                stream.prefix_rows += stream.track_offset
                stream.tail_pending = False

    def _decode_rows(self, streams: list[StreamState]) -> list[DecodeRow]:
        rows = []
        for stream in streams:
            step = stream.steps
            index, length = step + stream.track_offset, stream.track_length
            if index < length:
                text_id = stream.track_id(index)
            elif index == length:
                text_id = self.runner.tts_eos_id
            else:
                text_id = self.runner.tts_pad_id
            eos_allowed = step >= 2 and (
                not self.settings.eos_after_text_end or (stream.text_ended and index >= length)
            )
            rows.append(DecodeRow(stream.slot, text_id, eos_allowed))
        return rows

    def _take_frames(self, streams: list[StreamState], codes: list[list[int]]) -> None:
        for stream, frame in zip(streams, codes):
            stream.steps += 1
            stream.last_served = self._step
            if frame[0] == self.runner.codec_eos_id:
                self._finish(stream, "eos")
                continue
            stream.frames.append(frame)
            stream.frames_produced += 1
            if stream.codes is not None:
                stream.codes.append(frame)
            reason = self._cap_reason(stream)
            if reason is not None:
                self._finish(stream, reason)
            else:
                due = self._chunk_due(stream)
                if due:
                    self._queue_chunk(stream, due)

    def _cap_reason(self, stream: StreamState) -> str | None:
        if stream.frames_produced >= stream.max_frames:
            return "max_new_tokens"
        if stream.prefix_rows + stream.steps >= self.runner.max_context:
            log.warning("stream %d reached the context limit (%d rows)", stream.id, self.runner.max_context)
            return "context_limit"
        if stream.text_ended:
            cap = max(self.settings.min_frame_cap, self.settings.max_frames_per_text_token * len(stream.text_ids))
            if stream.frames_produced >= cap:
                log.warning(
                    "stream %d stopped after %d frames for %d text tokens (runaway guard)",
                    stream.id, stream.frames_produced, len(stream.text_ids),
                )
                return "frame_cap"
        return None

    def _chunk_due(self, stream: StreamState) -> int:
        """How many of the stream's pending frames to decode now (0: wait). The schedule's
        chunk when it is complete; before that, if the audio already sent runs out within the
        playout margin, the largest power of two of the pending frames (codec graph sizes)."""
        schedule = self.settings.chunk_schedule
        size = schedule[min(stream.chunks_emitted, len(schedule) - 1)]
        pending = len(stream.frames)
        if pending >= size:
            return pending
        margin = self.settings.playout_margin
        if margin is None or stream.first_audio_at is None:
            return 0
        runs_out = stream.first_audio_at + stream.frames_vocoded * FRAME_SECONDS
        if runs_out - self._now >= margin:
            return 0
        return 1 << (pending.bit_length() - 1)

    def _flush_parked(self) -> None:
        """A stream waiting for text still gets the audio of the frames it already has."""
        for stream in self._streams.values():
            if stream.frames and stream.status is not StreamStatus.PREFIX and not stream.next_text_id_known:
                self._queue_chunk(stream)

    def _queue_chunk(self, stream: StreamState, count: int | None = None) -> None:
        """Queue the oldest `count` pending frames (all by default) as the stream's next chunk."""
        count = len(stream.frames) if count is None else count
        frames, stream.frames = stream.frames[:count], stream.frames[count:]
        first = stream.frames_vocoded
        last = first + len(frames) - 1
        progress = None
        spoken = stream.spoken_end_before(last)
        if spoken > stream.progress_end:
            stream.progress_end = spoken
            progress = Progress(spoken_end=spoken, audio_time=round(last * FRAME_SECONDS, 6))
        self._chunks.append(_QueuedChunk(stream, frames, first * SAMPLES_PER_FRAME, progress))
        stream.frames_vocoded += len(frames)
        stream.chunks_emitted += 1

    def _launch_audio(self) -> _AudioBatch | None:
        """Start decoding this iteration's chunks; the streams that ended this iteration end
        once those chunks (their last ones) are delivered."""
        chunks, self._chunks = self._chunks, []
        ending, self._ending = self._ending, []
        if not chunks and not ending:
            return None
        audible = [c for c in chunks if c.frames]
        audio = self.runner.vocode_async([(c.stream.slot, c.frames) for c in audible]) if audible else None
        return _AudioBatch(chunks, audio, ending)

    def _deliver(self, batch: _AudioBatch | None) -> None:
        """Post a batch's decoded chunks (waiting for the codec if needed), then end the streams
        that finished with them (only then giving their slot back)."""
        if batch is None:
            return
        audible = [c for c in batch.chunks if c.frames]
        pcms = dict(zip(map(id, audible), batch.audio.result())) if batch.audio is not None else {}
        now = time.perf_counter()
        for chunk in batch.chunks:
            events: list = [] if chunk.progress is None else [chunk.progress]
            if chunk.frames:
                if chunk.stream.first_audio_at is None:
                    chunk.stream.first_audio_at = now
                events.append(AudioChunk(pcms[id(chunk)], 24000, chunk.start_sample))
            chunk.stream.channel.put_many(events)  # one wake-up of the consumer for both
        self._end_streams(batch.ending)

    def _end_streams(self, ending: list[tuple[StreamState, StreamEnd]]) -> None:
        for stream, end in ending:
            self.runner.pool.release(stream.slot)
            stream.slot = None
            self._on_release()  # before `Done` reaches the caller: it may open the next stream at once
            stream.channel.put(end)

    def _finish(self, stream: StreamState, reason: str, error: Error | None = None, cancelled: bool = False) -> None:
        if stream.status is StreamStatus.FINISHED:
            return
        if not cancelled and error is None:
            if stream.frames:
                self._queue_chunk(stream)
            if reason == "eos" and stream.frames_vocoded and stream.progress_end < stream.characters_received:
                # EOS after the end-of-text row: the model has spoken all of the text.
                stream.progress_end = stream.characters_received
                audio_time = round((stream.frames_vocoded - 1) * FRAME_SECONDS, 6)
                self._chunks.append(_QueuedChunk(stream, [], 0, Progress(stream.characters_received, audio_time)))
        if reason not in ("eos", "cancelled", "empty_text"):
            log.info("stream %d finished: %s", stream.id, reason)
        stream.status = StreamStatus.FINISHED
        stream.frames = []
        self._streams.pop(stream.id, None)
        self._prefix_totals.pop(stream.id, None)
        self.scheduler.remove(stream)
        self._ending.append((stream, StreamEnd(cancelled=cancelled, reason=reason, error=error, codes=stream.codes)))

    def _shutdown_streams(self) -> None:
        """Everything still open when the loop ends (engine closed) ends now, and so does
        everything that arrives later."""
        self._chunks = []
        if self._in_flight is not None:  # its streams still end; their audio is dropped
            self._end_streams(self._in_flight.ending)
            self._in_flight = None
        for stream in list(self._streams.values()):
            self._finish(stream, "engine_closed", cancelled=True)
        self._end_streams(self._ending)
        self._ending = []
        while True:
            try:
                command = self.inbox.get_nowait()
            except queue.Empty:
                break
            if isinstance(command, OpenCommand):
                self._on_release()
                command.state.channel.put(StreamEnd(cancelled=True, reason="engine_closed"))
            elif isinstance(command, DeviceCall):
                command.done.set_exception(RuntimeError("the engine is closed"))
