"""Which streams run each step: WAIT_TEXT parking, new streams first, no starvation, chunked fills, priority
and how long it may hold a stream back."""

from __future__ import annotations

from engine.model.prompt import Voice
from engine.model.sampling import SamplingParams
from engine.runtime.scheduler import PRIORITY_MAX_WAIT_S, Scheduler
from engine.runtime.stream import StreamChannel, StreamState, StreamStatus

RYAN = Voice("ryan", "english", None)
VIVIAN = Voice("vivian", "chinese", None)


def stream(stream_id: int, voice: Voice = RYAN, status: StreamStatus = StreamStatus.READY, **fields) -> StreamState:
    s = StreamState(id=stream_id, prompt=voice, sampling=SamplingParams.greedy(), channel=StreamChannel(), max_frames=100)
    s.status = status
    for name, value in fields.items():
        setattr(s, name, value)
    return s


def ids(scheduler: Scheduler, rows) -> list[int]:
    """The ids of the streams in `rows` of the scheduler's batch (a step's rows)."""
    return [scheduler.batch.streams[row].id for row in rows]


def test_a_stream_without_its_next_text_row_waits_and_resumes():
    scheduler = Scheduler(max_step_rows=8, prefill_rows_per_step=64)
    s = stream(1, text_ids=[5, 6], text_ends=[1, 2], steps=2)
    scheduler.add(s)
    assert ids(scheduler, scheduler.schedule({}).steps) == []
    assert s.status is StreamStatus.WAIT_TEXT
    s.add_text([7], [3])
    assert ids(scheduler, scheduler.schedule({}).steps) == [1]
    assert s.status is StreamStatus.READY


def test_end_of_text_makes_the_eos_and_pad_rows_known():
    scheduler = Scheduler(max_step_rows=8, prefill_rows_per_step=64)
    s = stream(1, text_ids=[5], text_ends=[1], steps=1, text_ended=True)
    scheduler.add(s)
    assert ids(scheduler, scheduler.schedule({}).steps) == [1]
    s.steps = 7
    assert ids(scheduler, scheduler.schedule({}).steps) == [1]


def test_every_ready_stream_runs_when_the_batch_fits():
    scheduler = Scheduler(max_step_rows=8, prefill_rows_per_step=64)
    streams = [stream(i, text_ids=[1] * 10, text_ends=[1] * 10, steps=i) for i in range(1, 7)]
    for s in streams:
        scheduler.add(s)
    assert ids(scheduler, scheduler.schedule({}).steps) == [s.id for s in streams]


def test_capped_steps_serve_new_streams_first_then_the_least_recently_served():
    scheduler = Scheduler(max_step_rows=2, prefill_rows_per_step=64)
    old_recent = stream(1, text_ids=[1] * 50, text_ends=[1] * 50, steps=20, frames_produced=20, last_served=9)
    old_waiting = stream(2, text_ids=[1] * 50, text_ends=[1] * 50, steps=20, frames_produced=20, last_served=3)
    new = stream(3, text_ids=[1], text_ends=[1])
    for s in (old_recent, old_waiting, new):
        scheduler.add(s)
    assert ids(scheduler, scheduler.schedule({}).steps) == [3, 2]
    # Once served, a stream goes to the back: nobody is starved.
    new.frames_produced, new.last_served, old_waiting.last_served = 1, 10, 11
    assert ids(scheduler, scheduler.schedule({}).steps) == [1, 3]


def test_prefix_fills_are_chunked_and_one_voice_is_filled_once():
    scheduler = Scheduler(max_step_rows=8, prefill_rows_per_step=16)
    a = stream(1, status=StreamStatus.PREFIX)
    b = stream(2, status=StreamStatus.PREFIX)  # same voice as a: waits for a's prefix
    c = stream(3, voice=VIVIAN, status=StreamStatus.PREFIX)
    for s in (a, b, c):
        scheduler.add(s)
    totals = {1: 24, 2: 24, 3: 10}
    fills = scheduler.schedule(totals).fills
    assert [(f.stream.id, f.start, f.end) for f in fills] == [(1, 0, 16)]
    a.prefix_rows = 16
    fills = scheduler.schedule(totals).fills
    assert [(f.stream.id, f.start, f.end) for f in fills] == [(1, 16, 24), (3, 0, 8)]


def test_priority_comes_first_in_capped_steps_and_prefix_fills():
    scheduler = Scheduler(max_step_rows=1, prefill_rows_per_step=10)
    old = stream(1, text_ids=[1] * 50, text_ends=[1] * 50, steps=20, frames_produced=20, last_served=3)
    favoured = stream(2, text_ids=[1] * 50, text_ends=[1] * 50, steps=20, frames_produced=20, last_served=9, priority=-1)
    new = stream(3, text_ids=[1], text_ends=[1])
    for s in (old, favoured, new):
        scheduler.add(s)
    assert ids(scheduler, scheduler.schedule({}).steps) == [2]

    scheduler = Scheduler(max_step_rows=8, prefill_rows_per_step=10)
    first = stream(1, status=StreamStatus.PREFIX)  # ryan, filling already
    other = stream(2, voice=VIVIAN, status=StreamStatus.PREFIX)
    favoured = stream(3, status=StreamStatus.PREFIX, priority=-1)  # waits for ryan's fill, which goes first
    first.prefix_rows = 4
    for s in (first, other, favoured):
        scheduler.add(s)
    fills = scheduler.schedule({1: 24, 2: 10, 3: 24}).fills
    assert [(f.stream.id, f.start, f.end) for f in fills] == [(1, 4, 14)]


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_favoured_prefix_fills_hold_a_voice_back_only_for_a_while():
    clock = FakeClock()
    scheduler = Scheduler(max_step_rows=8, prefill_rows_per_step=10, clock=clock)
    normal = stream(1, voice=VIVIAN, status=StreamStatus.PREFIX)
    scheduler.add(normal)
    totals = {1: 10}
    # Favoured new voices keep arriving, each taking the whole fill budget of a step.
    for i in range(2, 12):
        clock.now += 0.3
        favoured = stream(i, voice=Voice(f"clone-{i}", "english", None), status=StreamStatus.PREFIX, priority=-1)
        scheduler.add(favoured)
        totals[i] = 10
        fills = scheduler.schedule(totals).fills
        waited = clock.now
        assert [f.stream.id for f in fills] == ([1] if waited > PRIORITY_MAX_WAIT_S else [i])
        if fills[0].stream is normal:
            break
        scheduler.remove(favoured)
    assert fills[0].stream is normal and clock.now <= PRIORITY_MAX_WAIT_S + 0.3


def test_a_capped_step_serves_a_stream_held_back_by_priority_once_it_has_waited():
    clock = FakeClock()
    scheduler = Scheduler(max_step_rows=1, prefill_rows_per_step=10, clock=clock)
    favoured = stream(1, text_ids=[1] * 50, text_ends=[1] * 50, priority=-1)
    normal = stream(2, text_ids=[1] * 50, text_ends=[1] * 50)
    for s in (favoured, normal):
        scheduler.add(s)
    served = []
    for step in range(1, 40):
        clock.now += 0.08
        (row,) = scheduler.schedule({}).steps
        ran = scheduler.batch.streams[row]
        ran.last_served, ran.frames_produced = step, ran.frames_produced + 1
        served.append(ran.id)
    # The favoured stream runs until the other has waited PRIORITY_MAX_WAIT_S, then the other
    # runs once, and the favoured one again.
    held = int(PRIORITY_MAX_WAIT_S / 0.08)
    assert served[:held] == [1] * held
    assert 2 in served[held : held + 2]
    assert served.count(2) >= 2 and served.count(1) > served.count(2)
