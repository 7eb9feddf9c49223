"""The busy loop: one background thread owns the device and runs schedule -> step -> output.

API calls only post commands to `inbox` (a thread-safe queue) and never wait on a step; text
arrives here already tokenized. Per iteration the loop drains its inbox, asks the scheduler for
this step's work and launches the frame step; while the step runs it posts the audio decoded
since the last iteration and hands the chunks due now (`engine.runtime.output`) to the codec,
which on CUDA runs on its own stream beside the step; then it takes the step's frames. What lies
between one step's end and the next one's launch (taking frames, first audio, scheduling) is all
the device waits for. A stream that ends
(EOS, a cap, cancel, error) gives its slot back once its last chunk is posted, so the slot is
free for the next step. Host work per iteration is array operations over the streams' rows
(`StreamBatch`) for the step's inputs and outputs, and one hand-off of the posted chunks per
sink (`Output.post`); Python touches a stream only on its own events (joining, text arriving,
ending, a reader near its bound). `stats` splits the iteration's time into waiting for the
step, waiting for the codec, and the host's own work, and `headroom` turns it into admission.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from voice_tts.protocol import Error, ErrorCode

from engine.event_channel import Mailbox
from engine.runtime.headroom import Headroom
from engine.runtime.kv_cache import CachedPrefix, PrefixCache
from engine.runtime.output import EOS_BARRED_STEPS, AudioBatch, ChunkPolicy, Output
from engine.runtime.runner import ModelRunner, StreamStart
from engine.runtime.scheduler import Scheduler, frame_cap, stop_reasons
from engine.runtime.stream import (
    CODEC_SAMPLE_RATE,
    CancelCommand,
    StreamEnd,
    StreamState,
    StreamStatus,
    TextCommand,
    ReaderCommand,
)
from engine.runtime.stream_batch import FINISHED, PREFIX

log = logging.getLogger(__name__)

# A stream is opening for its first second of audio (started, its first chunk decoded apart, the
# next ones sized for first audio; after a burst, its chunks fall due with every other stream of
# the burst); the headroom's fit learns only from settled iterations, where at most this share of
# the streams stepped are opening (`engine.runtime.headroom`). Measured on an H100 through the
# server: a burst of 1,024 openings slowed the iterations of the next two seconds or so.
OPENING_FRAMES = 12
SETTLED_OPENING_SHARE = 0.25


@dataclass(frozen=True)
class LoopSettings:
    chunks: ChunkPolicy = ChunkPolicy()
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
    # Share of a frame's time an iteration may take with one more stream (admission).
    headroom_target: float = 0.7

    @property
    def max_unread_samples(self) -> int:
        return int(self.max_unread_audio_s * CODEC_SAMPLE_RATE)


@dataclass
class LoopStats:
    """Cumulative: busy iterations, streams stepped, and where their time went (seconds)."""

    iterations: int = 0
    streams_stepped: int = 0
    seconds: float = 0.0
    step_wait: float = 0.0  # host waiting for the frame step's codes
    codec_wait: float = 0.0  # host waiting for decoded audio
    host: float = 0.0  # everything else: the loop's own work

    def snapshot(self) -> LoopStats:
        return LoopStats(**vars(self))


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
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.runner = runner
        self.settings = settings
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()
        self.scheduler = Scheduler(runner.slots, settings.prefill_rows_per_step, clock)
        self.batch = self.scheduler.batch  # every stream's step state, by slot
        self.prefix_cache = PrefixCache(settings.prefix_cache_entries)
        self.output = Output(settings.chunks, runner.vocoder, self.batch)
        # The events of the streams opened here: one record per iteration, split on the consumers' side.
        self.mailbox = Mailbox()
        self.headroom = Headroom(settings.headroom_target)
        self.stats = LoopStats()
        self._clock = clock
        self._on_release = on_release
        self._streams: dict[int, StreamState] = {}
        self._prefix_totals: dict[int, int] = {}
        self._ending: list[tuple[StreamState, StreamEnd]] = []
        self._starting: list[StreamStart] = []  # reset on the device in one batch before the next step
        self._in_flight: AudioBatch | None = None  # audio whose decode runs beside the next step
        self._step = 0
        self._recent_iteration_s = 0.0  # moving mean of busy iterations (first chunk size)
        self.failure: str | None = None  # why the loop died, if it did (the server reports it)
        # Called at the end of every iteration and once the loop has ended, on the loop thread:
        # the engine core sends each API worker one message with everything posted since the last.
        self.on_iteration_end: Callable[[], None] | None = None
        self._accepting = True  # False from the final drain on: `post` refuses, nothing is lost
        self._accepting_lock = threading.Lock()
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

    def post(self, command: Any) -> bool:
        """Queue a command for the loop; False once the loop is ending (its final drain has begun,
        so nothing would read the command)."""
        with self._accepting_lock:
            if self._accepting:
                self.inbox.put(command)
            return self._accepting

    # ---- the loop ---------------------------------------------------------------------------

    def _run(self) -> None:
        """Per iteration: launch the frame step, and while it runs post the audio decoded beside
        the previous step and hand the chunks due now (frames the host has taken) to the codec
        stream, then queue behind the step the decode of the first chunks it completes; take the
        step's frames; post those first chunks. The host's output work thus overlaps the step,
        and between one step's end and the next one's launch the host only takes frames, posts
        first audio and schedules. Where the codec does not run beside the step (CPU), chunks are
        posted at once."""
        try:
            while True:
                if not self._drain(self._wait_timeout()):
                    break
                started = self._clock()
                graphs = self.runner.graphs_captured
                waits = [0.0, 0.0]
                plan = self.scheduler.schedule(self._prefix_totals)
                if plan.fills:
                    self._run_fills(plan.fills)
                starting, self._starting = self._starting, []
                self.runner.start_streams(starting)  # streams admitted or filled since the last iteration
                self.runner.vocoder.apply_resets()
                first_frames = self.settings.chunks.first_frames(self._expected_iteration_s())
                stepping = len(plan.steps) > 0
                if stepping:
                    self._step += 1
                    self._launch_step(plan.steps)
                batch, self._in_flight = self._in_flight, None
                waits[1] += self._deliver(batch)
                self.output.choose(self._rows_with_pending_frames(), self._clock(), len(plan.steps), first_frames)
                ending, self._ending = self._ending, []
                batch = self.output.launch(ending)
                first_chunks = None
                if stepping and self.output.queue_opening_chunks(plan.steps, first_frames):
                    first_chunks = self.output.launch_opening_chunks()
                if batch is not None and (batch.audio is None and batch.urgent_audio is None or not self.runner.vocoder.overlaps):
                    waits[1] += self._deliver(batch)  # nothing runs on the device: post at once
                else:
                    self._in_flight = batch
                if stepping:
                    before = self._clock()
                    codes = self.runner.finish_step()
                    waits[0] += self._clock() - before
                    self._take_frames(plan.steps, codes)
                waits[1] += self._deliver(first_chunks)  # decoded right behind the step: first audio now
                if not plan.empty:
                    opening = int(np.count_nonzero(self.batch.frames_produced[plan.steps] <= OPENING_FRAMES))
                    self._count(len(plan.steps), opening, self._clock() - started, waits, graphs != self.runner.graphs_captured)
                if self.on_iteration_end is not None:
                    self.on_iteration_end()
        except BaseException as e:  # a device failure ends every stream with an error, never a hang
            log.exception("step loop failed")
            self.failure = f"engine step failed: {e!r}"
            self.output.drop()
            for stream in list(self._streams.values()):
                self._finish(stream, "engine_error", Error(ErrorCode.ENGINE_ERROR, f"engine step failed: {e}", True))
            self._end_streams(self._ending)
            self._ending = []
        finally:
            self._shutdown_streams()
            if self.on_iteration_end is not None:
                self.on_iteration_end()

    def _count(self, streams: int, opening: int, seconds: float, waits: list[float], captured: bool) -> None:
        stats = self.stats
        stats.iterations += 1
        stats.streams_stepped += streams
        stats.seconds += seconds
        stats.step_wait += waits[0]
        stats.codec_wait += waits[1]
        stats.host += seconds - waits[0] - waits[1]
        if streams and not captured:  # a graph capture (seconds, once per shape) says nothing of load
            if opening <= SETTLED_OPENING_SHARE * streams:
                self.headroom.record(streams, seconds)
            self._recent_iteration_s += 0.2 * (seconds - self._recent_iteration_s)

    def _expected_iteration_s(self) -> float:
        """What the coming iterations will take: the recent mean, or more while streams arrive
        faster than they start stepping (the measured line's time for every admitted stream; no
        guess before recent iterations span two batch sizes: from one stream's iterations, the
        cautious per-stream reading would make every new level's first chunks two frames)."""
        predicted = self.headroom.predicted_seconds(len(self._streams), extrapolate=False)
        return self._recent_iteration_s if predicted is None else max(self._recent_iteration_s, predicted)

    def _wait_timeout(self) -> float | None:
        """0 while there is work; otherwise how long the loop may sleep on its inbox: until the
        earliest stream holding frames must get them (None: no such stream). Streams that ended
        with the step just taken (`_ending`, their last chunks queued) go out in the next iteration."""
        if self._in_flight is not None or self._ending or self._has_work():
            return 0.0
        wake = self.settings.chunks.wake_at(self.batch, self._live_rows())
        return None if np.isnan(wake).all() else max(0.0, float(np.nanmin(wake)) - self._clock())

    def _live_rows(self) -> np.ndarray:
        """The rows of the streams that have not finished."""
        batch = self.batch
        return np.flatnonzero(batch.used & (batch.status != FINISHED))

    def _rows_with_pending_frames(self) -> np.ndarray:
        batch = self.batch
        return np.flatnonzero(batch.used & (batch.status != FINISHED) & (batch.frames_produced > batch.frames_vocoded))

    def _has_work(self) -> bool:
        batch = self.batch
        rows = self._live_rows()
        if not len(rows):
            return False
        if (batch.status[rows] == PREFIX).any():
            return True
        if ((batch.frames_pending(rows) > 0) & (batch.chunks_emitted[rows] == 0)).any():
            return True
        known = rows[batch.next_text_known(rows)]
        return not batch.readers_behind(known).all()

    def _drain(self, timeout: float | None) -> bool:
        """Apply pending commands, waiting up to `timeout` seconds for the first (None: until
        one comes); False when the loop must stop."""
        try:
            command = self.inbox.get_nowait() if timeout == 0 else self.inbox.get(timeout=timeout)
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
            if command.tokens:
                stream.add_text([token.id for token in command.tokens], [token.spoken_end for token in command.tokens])
            stream.characters_received = command.characters_received
            if command.ended:
                stream.text_ended = True
                if not self.batch.text_count[stream.row]:
                    self._finish(stream, "empty_text")
                else:  # the runaway guard now bounds its frames: so does its KV reservation
                    settings = self.settings
                    text_count = int(self.batch.text_count[stream.row])
                    cap = int(frame_cap(text_count, settings.max_frames_per_text_token, settings.min_frame_cap))
                    self.runner.pool.limit(stream.slot, min(stream.max_frames, cap))
        elif isinstance(command, CancelCommand):
            self._finish(stream, "cancelled", cancelled=True)
        elif isinstance(command, ReaderCommand):
            self.batch.reader_behind[stream.row] = command.behind

    def _admit(self, stream: StreamState) -> None:
        """Take a slot and reserve the KV blocks of the stream's longest turn, or refuse it with
        `capacity` (nothing held) where they are not free (`engine.runtime.kv_cache`)."""
        pool = self.runner.pool
        cached = self.prefix_cache.get(stream.prompt)
        total = cached.length if cached is not None else self.runner.prefix_length(stream.prompt)
        slot = pool.allocate()
        if not pool.reserve(slot, total + stream.track_offset, stream.max_frames):
            pool.release(slot)
            self._on_release()
            error = Error(ErrorCode.CAPACITY, f"no KV cache room for another stream beside {len(self._streams)}", True)
            stream.channel.put(StreamEnd(cancelled=False, reason=error.code, error=error))
            return
        if self.settings.keep_codes:
            stream.codes = []
        stream.slot = slot
        counted = stream.channel.bound(
            self.settings.max_unread_samples,
            lambda: self.inbox.put(ReaderCommand(stream.id)),
        )
        self._streams[stream.id] = stream
        self.scheduler.add(stream)
        if counted:
            self.batch.unread_bound[stream.row] = self.settings.max_unread_samples
        self.batch.sink[stream.row] = self.output.sink(stream.channel.sink)
        if cached is not None:
            self._start_stream(stream, cached.length, cached)
        else:
            self._prefix_totals[stream.id] = total
            self.runner.reserve(stream.slot, total)

    def _start_stream(self, stream: StreamState, prefix_length: int, cached: CachedPrefix | None = None) -> None:
        """The stream takes its first step next; its device state is reset with the others that
        start in this iteration (`runner.start_streams`, before the step), loading `cached` first."""
        self._prefix_totals.pop(stream.id, None)
        stream.prefix_rows = prefix_length
        stream.tail_pending = stream.track_offset > 0
        self._starting.append(StreamStart(stream.slot, prefix_length, stream.sampling, stream.prompt, cached))
        stream.status = StreamStatus.READY if stream.next_text_id_known else StreamStatus.WAIT_TEXT

    def _run_fills(self, fills) -> None:
        self.runner.fill_prefix([(f.stream.slot, f.stream.prompt, f.start, f.end) for f in fills])
        for fill in fills:
            stream = fill.stream
            stream.prefix_rows = fill.end
            if fill.end == self._prefix_totals[stream.id]:
                self.prefix_cache.put(stream.prompt, self.runner.pool.save(stream.slot, fill.end))
                self._start_stream(stream, fill.end)
        # Streams that waited for another stream to fill the same voice prefix take it now.
        for stream in self.scheduler.waiting_for_prefix():
            if stream.prefix_rows == 0:
                cached = self.prefix_cache.get(stream.prompt)
                if cached is not None:
                    self._start_stream(stream, cached.length, cached)

    def _fill_tails(self, rows: np.ndarray) -> None:
        """Prefill the reference-frame rows of ICL streams about to take their first step."""
        batch = self.batch
        for row in rows[batch.tail_pending[rows]].tolist():
            stream = batch.streams[row]
            track = batch.track[row, : stream.track_length].tolist()
            self.runner.fill_tail(stream.slot, stream.prompt, track, stream.text_ended, stream.prefix_rows)
            stream.prefix_rows += stream.track_offset
            stream.tail_pending = False

    def _launch_step(self, rows: np.ndarray) -> None:
        """Launch the frame step of `rows` (slots): each one's text row from its track."""
        self._fill_tails(rows)
        batch = self.batch
        steps = batch.steps[rows]
        # Step s feeds text-track row s + track_offset (an ICL clone's track starts with its transcript).
        index = steps + batch.track_offset[rows]
        length = batch.track_length(rows)
        # The text row of each step: the next track token, then tts_eos once, then tts_pad.
        text_ids = np.where(index == length, self.runner.tts_eos_id, self.runner.tts_pad_id)
        feeding = index < length
        text_ids[feeding] = batch.track[rows[feeding], index[feeding]]
        eos_allowed = steps >= EOS_BARRED_STEPS
        if self.settings.eos_after_text_end:
            eos_allowed &= batch.text_ended[rows] & (index >= length)
        self.runner.launch_step(rows, text_ids, eos_allowed.astype(np.int64))

    def _take_frames(self, rows: np.ndarray, codes: np.ndarray) -> None:
        batch = self.batch
        batch.steps[rows] += 1
        batch.last_served[rows] = self._step
        eos = codes[:, 0] == self.runner.codec_eos_id
        framed = rows[~eos]
        batch.frames_produced[framed] += 1
        if self.settings.keep_codes:
            for row, frame in zip(framed.tolist(), codes[~eos].tolist()):
                batch.streams[row].codes.append(frame)
        self._finish_rows(rows[eos], "eos")
        settings = self.settings
        stopped = stop_reasons(batch, framed, self.runner.max_context, settings.max_frames_per_text_token, settings.min_frame_cap)
        for reason, ended in stopped.items():
            self._finish_rows(ended, reason)

    def _deliver(self, batch: AudioBatch | None) -> float:
        """Post a batch's decoded chunks, first chunks first, then end the streams that finished
        with them (only then giving their slot back); returns the seconds spent waiting for the codec."""
        if batch is None:
            return 0.0
        waited = 0.0
        for chunks, audio in ((batch.urgent, batch.urgent_audio), (batch.chunks, batch.audio)):
            if audio is not None:
                before = self._clock()
                audio.wait()
                waited += self._clock() - before
            self.output.post(chunks, audio, self._clock)
        self._end_streams(batch.ending)
        return waited

    def _end_streams(self, ending: list[tuple[StreamState, StreamEnd]]) -> None:
        for stream, end in ending:
            self.runner.pool.release(stream.slot)
            self.scheduler.release(stream)
            stream.slot = None
            self._on_release()  # before `Done` reaches the caller: it may open the next stream at once
            stream.channel.put(end)

    def _finish(self, stream: StreamState, reason: str, error: Error | None = None, cancelled: bool = False) -> None:
        if stream.status is StreamStatus.FINISHED:
            return
        if not cancelled and error is None:
            self.output.queue_last(np.array([stream.row]), np.array([reason == "eos"]))
        stream.frames_vocoded = stream.frames_produced  # nothing pending any more
        self._leave(stream, reason, error, cancelled)

    def _finish_rows(self, rows: np.ndarray, reason: str) -> None:
        """End the streams of `rows` (just stepped, none finished) for `reason`, their pending
        frames queued as their last chunks in one go."""
        if not len(rows):
            return
        self.output.queue_last(rows, np.full(len(rows), reason == "eos"))
        streams = self.batch.streams
        for row in rows.tolist():
            self._leave(streams[row], reason)

    def _leave(self, stream: StreamState, reason: str, error: Error | None = None, cancelled: bool = False) -> None:
        """The stream runs no more; it ends once its queued chunks are posted."""
        if reason not in ("eos", "cancelled", "empty_text"):
            log.info("stream %d finished: %s", stream.id, reason)
        self._streams.pop(stream.id, None)
        self._prefix_totals.pop(stream.id, None)
        self.scheduler.remove(stream)
        self._ending.append((stream, StreamEnd(cancelled=cancelled, reason=reason, error=error, codes=stream.codes)))

    def _shutdown_streams(self) -> None:
        """Everything still open when the loop ends (engine closed) ends now, and so does
        everything that arrives later."""
        self.output.drop()
        if self._in_flight is not None:  # its streams still end; their audio is dropped
            self._end_streams(self._in_flight.ending)
            self._in_flight = None
        for stream in list(self._streams.values()):
            self._finish(stream, "engine_closed", cancelled=True)
        self.output.drop()
        self._end_streams(self._ending)
        self._ending = []
        with self._accepting_lock:
            self._accepting = False
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
