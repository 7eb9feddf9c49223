"""When a stream's pending frames go to the codec: the chunk schedule, and before a chunk is
complete, the playout deadline (audio already sent, played at real time from the first chunk)."""

from __future__ import annotations

import asyncio
import types

import pytest

from engine.model.prompt import Voice
from engine.model.sampling import SamplingParams
from engine.runtime.loop import LoopSettings, StepLoop
from engine.runtime.stream import FRAME_SECONDS, EventChannel, StreamState

FRAME = [0] * 16


def loop_with(**settings) -> StepLoop:
    # The policy reads only the loop's settings and clock; the runner stand-in gives the slot count.
    return StepLoop(types.SimpleNamespace(slots=4), LoopSettings(**settings), on_release=lambda: None)


def stream(pending: int, chunks_emitted: int, frames_vocoded: int, first_audio_at: float | None) -> StreamState:
    s = StreamState(id=1, prompt=Voice("ryan", "english", None), sampling=SamplingParams.greedy(), channel=EventChannel(), max_frames=100)
    s.frames = [FRAME] * pending
    s.chunks_emitted, s.frames_vocoded, s.first_audio_at = chunks_emitted, frames_vocoded, first_audio_at
    return s


def test_a_complete_scheduled_chunk_goes_at_once():
    loop = loop_with(chunk_schedule=(1, 2, 4, 8))
    assert loop._chunk_due(stream(pending=1, chunks_emitted=0, frames_vocoded=0, first_audio_at=None)) == 1
    assert loop._chunk_due(stream(pending=4, chunks_emitted=2, frames_vocoded=3, first_audio_at=0.0)) == 4
    assert loop._chunk_due(stream(pending=8, chunks_emitted=9, frames_vocoded=30, first_audio_at=0.0)) == 8


def test_a_stream_about_to_run_out_gets_its_pending_frames_in_codec_sizes():
    loop = loop_with(chunk_schedule=(1, 2, 4, 8), playout_margin=0.25)
    loop._now = 10.0
    # 3 frames sent from t = 9.9: the audio runs out at 10.14, within the margin.
    starving = dict(chunks_emitted=2, frames_vocoded=3, first_audio_at=9.9)
    assert loop._chunk_due(stream(pending=1, **starving)) == 1
    assert loop._chunk_due(stream(pending=3, **starving)) == 2
    assert loop._chunk_due(stream(pending=7, **{**starving, "chunks_emitted": 4})) == 4


def test_a_stream_with_audio_to_spare_waits_for_its_full_chunk():
    loop = loop_with(chunk_schedule=(1, 2, 4, 8), playout_margin=0.25)
    loop._now = 10.0 + 0.5
    # 20 frames (1.6 s) sent from t = 10.0: 1.1 s left, more than the margin.
    assert 20 * FRAME_SECONDS - 0.5 > 0.25
    assert loop._chunk_due(stream(pending=5, chunks_emitted=5, frames_vocoded=20, first_audio_at=10.0)) == 0


def test_before_the_first_chunk_arrives_and_without_a_margin_only_the_schedule_counts():
    loop = loop_with(chunk_schedule=(2, 8), playout_margin=0.25)
    loop._now = 10.0
    assert loop._chunk_due(stream(pending=1, chunks_emitted=0, frames_vocoded=0, first_audio_at=None)) == 0
    plain = loop_with(chunk_schedule=(1, 8), playout_margin=None)
    plain._now = 10.0
    assert plain._chunk_due(stream(pending=3, chunks_emitted=1, frames_vocoded=1, first_audio_at=9.99)) == 0


@pytest.mark.parametrize("margin", [0.0, 0.25, 1.0])
def test_queued_chunks_take_the_oldest_frames_and_keep_the_rest(margin):
    loop = loop_with(playout_margin=margin)
    s = stream(pending=0, chunks_emitted=1, frames_vocoded=1, first_audio_at=0.0)
    s.frames = [[i] * 16 for i in range(3)]
    s.text_ids, s.text_ends = [1, 2, 3, 4], [1, 2, 3, 4]
    loop._queue_chunk(s, 2)
    assert [f[0] for f in loop._chunks[0].frames] == [0, 1] and [f[0] for f in s.frames] == [2]
    assert s.frames_vocoded == 3 and loop._chunks[0].start_sample == 1920


async def test_events_posted_together_arrive_in_order():
    channel = EventChannel()
    waiter = asyncio.ensure_future(channel.get())
    await asyncio.sleep(0)
    channel.put_many(["progress", "audio"])
    assert await waiter == "progress"
    assert await channel.get() == "audio"
