"""Which streams fill their voice prefix and which run a talker step, this step; and when a
stream must stop whatever the model says (`stop_reason`).

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

from engine.model.prompt import Voice
from engine.runtime.stream import StreamState, StreamStatus

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
    steps: list[StreamState] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.fills and not self.steps


class Scheduler:
    def __init__(
        self, max_step_rows: int, prefill_rows_per_step: int, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        if max_step_rows < 1 or prefill_rows_per_step < 1:
            raise ValueError("max_step_rows and prefill_rows_per_step must be at least 1")
        self.max_step_rows = max_step_rows
        self.prefill_rows_per_step = prefill_rows_per_step
        self._clock = clock
        self._streams: dict[int, StreamState] = {}
        self._waiting_since: dict[int, float] = {}  # arrival, then the last step a stream ran in

    def add(self, stream: StreamState) -> None:
        self._streams[stream.id] = stream
        self._waiting_since[stream.id] = self._clock()

    def remove(self, stream: StreamState) -> None:
        self._streams.pop(stream.id, None)
        self._waiting_since.pop(stream.id, None)

    def _priority(self, stream: StreamState, now: float) -> float:
        """The stream's priority, or the highest once it has waited past `PRIORITY_MAX_WAIT_S`."""
        return -math.inf if now - self._waiting_since[stream.id] > PRIORITY_MAX_WAIT_S else stream.priority

    def __len__(self) -> int:
        return len(self._streams)

    def schedule(self, prefix_totals: dict[int, int]) -> StepPlan:
        """Plan one step. `prefix_totals` gives the prefix rows of streams still in PREFIX that no
        cached prefix covers; a stream whose prompt another stream is already filling waits for it."""
        plan = StepPlan()
        now = self._clock()
        budget = self.prefill_rows_per_step
        filling: set[Voice] = set()
        waiting = [
            s for s in self._streams.values() if s.status is StreamStatus.PREFIX and s.id in prefix_totals
        ]
        best: dict[Voice, float] = {}
        for stream in waiting:
            priority = self._priority(stream, now)
            best[stream.prompt] = min(best.get(stream.prompt, priority), priority)
        waiting.sort(key=lambda s: best[s.prompt])  # stable: arrival order within a priority
        for stream in waiting:
            if stream.prompt in filling and stream.prefix_rows == 0:
                continue
            filling.add(stream.prompt)
            if budget <= 0:
                continue
            end = min(prefix_totals[stream.id], stream.prefix_rows + budget)
            plan.fills.append(PrefixFill(stream, stream.prefix_rows, end))
            budget -= end - stream.prefix_rows

        ready = []
        for stream in self._streams.values():
            if stream.status in (StreamStatus.WAIT_TEXT, StreamStatus.READY, StreamStatus.WAIT_READER):
                if stream.channel.reader_behind():
                    stream.status = StreamStatus.WAIT_READER
                    continue
                stream.status = StreamStatus.READY if stream.next_text_id_known else StreamStatus.WAIT_TEXT
                if stream.status is StreamStatus.READY:
                    ready.append(stream)
        if len(ready) > self.max_step_rows:
            ready.sort(key=lambda s: (self._priority(s, now), s.frames_produced > 0, s.last_served))
            ready = ready[: self.max_step_rows]
        for stream in ready:
            self._waiting_since[stream.id] = now
        plan.steps = ready
        return plan


def stop_reason(stream: StreamState, max_context: int, max_frames_per_text_token: float, min_frame_cap: int) -> str | None:
    """Why a stream that just produced a frame must end now (None: it goes on)."""
    if stream.frames_produced >= stream.max_frames:
        return "max_new_tokens"
    if stream.prefix_rows + stream.steps >= max_context:
        log.warning("stream %d reached the context limit (%d rows)", stream.id, max_context)
        return "context_limit"
    if stream.text_ended:
        cap = frame_cap(len(stream.text_ids), max_frames_per_text_token, min_frame_cap)
        if stream.frames_produced >= cap:
            log.warning(
                "stream %d stopped after %d frames for %d text tokens (runaway guard)",
                stream.id, stream.frames_produced, len(stream.text_ids),
            )
            return "frame_cap"
    return None


def frame_cap(text_tokens: int, max_frames_per_text_token: float, min_frame_cap: int) -> int:
    """The most frames a stream whose text has ended with `text_tokens` tokens produces (the runaway guard)."""
    return math.ceil(max(min_frame_cap, max_frames_per_text_token * text_tokens))
