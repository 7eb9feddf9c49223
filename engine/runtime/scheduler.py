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
takes the best priority of the streams waiting for it), then arrival.

Priority decides only where rows are short. The loop sizes a step to every slot, so every admitted
stream runs in every step; what priority changes there is which new voice prefix is filled first.
A capped step (a smaller `max_step_rows`) would serve favoured streams ahead of all others for as
long as they fill it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from engine.model.prompt import Voice
from engine.runtime.stream import StreamState, StreamStatus

log = logging.getLogger(__name__)


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
    def __init__(self, max_step_rows: int, prefill_rows_per_step: int) -> None:
        if max_step_rows < 1 or prefill_rows_per_step < 1:
            raise ValueError("max_step_rows and prefill_rows_per_step must be at least 1")
        self.max_step_rows = max_step_rows
        self.prefill_rows_per_step = prefill_rows_per_step
        self._streams: dict[int, StreamState] = {}

    def add(self, stream: StreamState) -> None:
        self._streams[stream.id] = stream

    def remove(self, stream: StreamState) -> None:
        self._streams.pop(stream.id, None)

    def __len__(self) -> int:
        return len(self._streams)

    def schedule(self, prefix_totals: dict[int, int]) -> StepPlan:
        """Plan one step. `prefix_totals` gives the prefix rows of streams still in PREFIX that no
        cached prefix covers; a stream whose prompt another stream is already filling waits for it."""
        plan = StepPlan()
        budget = self.prefill_rows_per_step
        filling: set[Voice] = set()
        waiting = [
            s for s in self._streams.values() if s.status is StreamStatus.PREFIX and s.id in prefix_totals
        ]
        best: dict[Voice, int] = {}
        for stream in waiting:
            best[stream.prompt] = min(best.get(stream.prompt, stream.priority), stream.priority)
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
            ready.sort(key=lambda s: (s.priority, s.frames_produced > 0, s.last_served))
            ready = ready[: self.max_step_rows]
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
        cap = max(min_frame_cap, max_frames_per_text_token * len(stream.text_ids))
        if stream.frames_produced >= cap:
            log.warning(
                "stream %d stopped after %d frames for %d text tokens (runaway guard)",
                stream.id, stream.frames_produced, len(stream.text_ids),
            )
            return "frame_cap"
    return None
