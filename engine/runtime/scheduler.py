"""Which streams fill their voice prefix and which run a talker step, this step; and when a
stream must stop whatever the model says (`stop_reasons`). Both read the streams' rows of the
`StreamBatch` at once (a few array operations per step, whatever the number of streams).

Every stream whose next text row is known runs in the same batched step, so nobody waits behind
anybody while the batch fits; a stream whose next text token has not arrived is parked in
WAIT_TEXT (its KV and its finished frames stay; it resumes exactly where it stopped); one whose
consumer has stopped reading (a paused turn) is parked the same way in WAIT_READER once its unread
audio reaches the loop's bound, so it holds no batch row while it waits. When the
step is capped, streams of a lower `priority` value go first, then those that have not produced
audio yet (first-audio latency), then the ones served least recently, so a long-running stream is
never starved by its equals. Voice-prefix fills run in chunks of at most `prefill_rows_per_step`
rows per step, so a new voice never stalls the others; they go by priority too (a voice's fill
takes the best priority of the streams waiting for it), then arrival. Priority only holds a stream
back for `PRIORITY_MAX_WAIT_S`: a stream waiting longer for its prefix fill (since it arrived) or
for a capped step (since it last ran) goes as if it had the highest priority, so a steady arrival
of favoured streams never starves the others.

Priority decides only where rows are short. The loop sizes a step to every slot, so every admitted
stream runs in every step; what priority changes there is which new voice prefix is filled first.
A capped step (a smaller `max_step_rows`) would serve favoured streams ahead of all others for as
long as they fill it.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from engine.model.prompt import Voice
from engine.runtime.stream import StreamState, StreamStatus
from engine.runtime.stream_batch import FINISHED, READY, WAIT_READER, WAIT_TEXT, StreamBatch

log = logging.getLogger(__name__)

# How long priority may hold a stream back. A voice's prefix fill takes a few steps (a few tens of
# ms each), so a second lets a burst of favoured new voices go first, and no stream waits much
# longer than that for its fill, or for a step, because of priority.
PRIORITY_MAX_WAIT_S = 1.0


@dataclass(frozen=True)
class PrefixFill:
    stream: StreamState
    start: int
    end: int


@dataclass
class StepPlan:
    fills: list[PrefixFill] = field(default_factory=list)
    steps: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # rows (slots) that step

    @property
    def empty(self) -> bool:
        return not self.fills and not len(self.steps)


class Scheduler:
    """Schedules the streams of its `batch` (a stream's row is its slot, or any free row)."""

    def __init__(
        self, max_step_rows: int, prefill_rows_per_step: int, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        if max_step_rows < 1 or prefill_rows_per_step < 1:
            raise ValueError("max_step_rows and prefill_rows_per_step must be at least 1")
        self.max_step_rows = max_step_rows
        self.prefill_rows_per_step = prefill_rows_per_step
        self._clock = clock
        self.batch = StreamBatch(max_step_rows)
        self._prefix: dict[int, StreamState] = {}  # streams that may still need a prefix fill, by arrival

    def add(self, stream: StreamState) -> None:
        row = self.batch.adopt(stream, stream.slot)
        self.batch.waiting_since[row] = self._clock()
        self._prefix[stream.id] = stream

    def remove(self, stream: StreamState) -> None:
        """The stream runs no more; its row stays its own until `release`."""
        stream.status = StreamStatus.FINISHED
        self._prefix.pop(stream.id, None)

    def release(self, stream: StreamState) -> None:
        self.batch.release(stream)

    def waiting_for_prefix(self) -> list[StreamState]:
        return [s for s in self._prefix.values() if s.status is StreamStatus.PREFIX]

    def _priority(self, stream: StreamState, now: float) -> float:
        """The stream's priority, or the highest once it has waited past `PRIORITY_MAX_WAIT_S`."""
        waited = now - self.batch.waiting_since[stream.row]
        return -math.inf if waited > PRIORITY_MAX_WAIT_S else stream.priority

    def __len__(self) -> int:
        batch = self.batch
        return int(np.count_nonzero(batch.used & (batch.status != FINISHED)))

    def schedule(self, prefix_totals: dict[int, int]) -> StepPlan:
        """Plan one step. `prefix_totals` gives the prefix rows of streams still in PREFIX that no
        cached prefix covers; a stream whose prompt another stream is already filling waits for it."""
        plan = StepPlan()
        now = self._clock()
        if self._prefix:
            plan.fills = self._fills(prefix_totals, now)

        batch = self.batch
        status = batch.status
        rows = np.flatnonzero(batch.used & (status >= WAIT_TEXT) & (status <= READY))
        behind = batch.readers_behind(rows)
        known = batch.next_text_known(rows)
        status[rows] = np.where(behind, WAIT_READER, np.where(known, READY, WAIT_TEXT))
        ready = rows[known & ~behind]
        if len(ready) > self.max_step_rows:
            priority = batch.priority[ready].astype(np.float64)
            priority[now - batch.waiting_since[ready] > PRIORITY_MAX_WAIT_S] = -math.inf
            order = np.lexsort((batch.last_served[ready], batch.frames_produced[ready] > 0, priority))
            ready = ready[order[: self.max_step_rows]]
        batch.waiting_since[ready] = now
        plan.steps = ready
        return plan

    def _fills(self, prefix_totals: dict[int, int], now: float) -> list[PrefixFill]:
        fills = []
        budget = self.prefill_rows_per_step
        filling: set[Voice] = set()
        for stream_id in [i for i, s in self._prefix.items() if s.status is not StreamStatus.PREFIX]:
            del self._prefix[stream_id]
        waiting = [s for s in self._prefix.values() if s.id in prefix_totals]
        best: dict[Voice, float] = {}
        for stream in waiting:
            priority = self._priority(stream, now)
            best[stream.prompt] = min(best.get(stream.prompt, priority), priority)
        waiting.sort(key=lambda s: best[s.prompt])  # stable: arrival order within a priority
        for stream in waiting:
            prefix_rows = stream.prefix_rows
            if stream.prompt in filling and prefix_rows == 0:
                continue
            filling.add(stream.prompt)
            if budget <= 0:
                continue
            end = min(prefix_totals[stream.id], prefix_rows + budget)
            fills.append(PrefixFill(stream, prefix_rows, end))
            budget -= end - prefix_rows
        return fills


def stop_reasons(batch: StreamBatch, rows: np.ndarray, max_context: int, max_frames_per_text_token: float, min_frame_cap: int) -> dict[str, np.ndarray]:
    """Which of `rows` (streams that just produced a frame) must end now whatever the model says,
    and why: {reason: rows}, each row under its first reason only."""
    produced = batch.frames_produced[rows]
    capped = produced >= batch.max_frames[rows]
    context = ~capped & (batch.prefix_rows[rows] + batch.steps[rows] >= max_context)
    cap = frame_cap(batch.text_count[rows], max_frames_per_text_token, min_frame_cap)
    runaway = ~capped & ~context & batch.text_ended[rows] & (produced >= cap)
    reasons = {"max_new_tokens": rows[capped], "context_limit": rows[context], "frame_cap": rows[runaway]}
    for row in reasons["context_limit"].tolist():
        log.warning("stream %d reached the context limit (%d rows)", batch.streams[row].id, max_context)
    for row in reasons["frame_cap"].tolist():
        log.warning(
            "stream %d stopped after %d frames for %d text tokens (runaway guard)",
            batch.streams[row].id, batch.frames_produced[row], batch.text_count[row],
        )
    return reasons


def frame_cap(text_tokens, max_frames_per_text_token: float, min_frame_cap: int):
    """The most frames a stream whose text has ended with `text_tokens` tokens produces (the
    runaway guard); `text_tokens` an int or an array of them."""
    return np.ceil(np.maximum(min_frame_cap, max_frames_per_text_token * np.asarray(text_tokens))).astype(np.int64)
