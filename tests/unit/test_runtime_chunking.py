"""When a stream's frames go to the codec and in what order (engine.runtime.output), and admission
from measured headroom (engine.runtime.headroom) as the engine and the server report it; all on
a fake clock (given times and given iteration measurements)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from voice_tts.protocol import AudioChunk, Done, Error, ErrorCode
from voice_tts.request import MAX_FIRST_CHUNK_FRAMES, StreamRequest

from engine.model.prompt import Voice
from engine.model.sampling import SamplingParams
from engine.runtime.headroom import Headroom
from engine.runtime.output import ChunkPolicy, Output, QueuedChunks, buffered
from engine.runtime.qwen3_engine import Qwen3Engine
from engine.runtime.stream import CODEC_SAMPLE_RATE, FRAME_SECONDS, SAMPLES_PER_FRAME, StreamChannel, StreamState
from engine.runtime.stream_batch import StreamBatch
from engine.runtime.vocoder import MAX_PENDING_FRAMES
from engine.server.settings import ServerSettings
from engine.server.state import EngineDescription, ServerState

POLICY = ChunkPolicy(low_water=0.3, max_chunk_frames=4, codec_frames_per_stream=2.0)


def stream(pending: int, frames_vocoded: int = 0, first_audio_at: float | None = None, stream_id: int = 1) -> StreamState:
    s = StreamState(id=stream_id, prompt=Voice("ryan", "english", None), sampling=SamplingParams.greedy(), channel=StreamChannel(), max_frames=100)
    s.frames_vocoded = frames_vocoded
    s.frames_produced = frames_vocoded + pending
    s.chunks_emitted = 1 if frames_vocoded else 0
    s.first_audio_at = first_audio_at
    s.text_ids, s.text_ends = [1] * 40, list(range(1, 41))
    return s


def due(s: StreamState, now: float, first_frames: int | None = None) -> int:
    return int(POLICY.due(s.batch, np.array([s.row]), now, first_frames)[0])


def output_of(*streams: StreamState) -> Output:
    """An output over a batch of `streams` (no codec: chunks are only queued)."""
    batch = StreamBatch()
    for s in streams:
        batch.adopt(s)
    return Output(POLICY, vocoder=None, batch=batch)


def rows(*streams: StreamState) -> np.ndarray:
    return np.array([s.row for s in streams], dtype=np.int64)


def queued(output: Output, parts: list[QueuedChunks]) -> list[tuple[int, int, int]]:
    """(stream id, first frame, frames) of each queued chunk, in order."""
    chunks = QueuedChunks.join(parts)
    return [
        (output.batch.streams[row].id, first, frames)
        for row, first, frames in zip(chunks.rows.tolist(), chunks.first_frames.tolist(), chunks.frames.tolist())
    ]


def test_a_first_frame_goes_at_once():
    assert due(stream(pending=1), now=0.0) == 1
    assert due(stream(pending=3), now=0.0) == 1  # first audio is one frame, the rest follows


def test_under_load_a_first_chunk_is_two_frames_but_never_waits_for_text():
    assert POLICY.first_frames(0.006) == 1
    assert POLICY.first_frames(0.05) == 2  # iterations past 25 ms: they grow as load arrives, and one frame would not cover the next chunk
    s = stream(pending=1)
    assert due(s, now=0.0, first_frames=2) == 0  # its next step comes at once: collect
    s.text_ids, s.text_ends = [1], [1]
    s.steps = 1  # its next text token has not arrived: what it has goes now
    assert due(s, now=0.0, first_frames=2) == 1
    assert due(stream(pending=2), now=0.0, first_frames=2) == 2


def test_a_first_chunk_is_queued_with_the_step_that_completes_it():
    fresh = stream(pending=0, stream_id=1)  # about to make its first frame
    one = stream(pending=1, stream_id=2)  # has one frame, about to make its second
    one.steps = 1
    started = stream(pending=0, frames_vocoded=3, first_audio_at=0.0, stream_id=3)
    started.steps = 3
    late = stream(pending=2, stream_id=4)  # past the steps that surely make a frame: not ahead of its codes
    late.steps = 2
    output = output_of(fresh, one, started, late)
    assert not output.queue_opening_chunks(rows(fresh, started), first_frames=2)  # nothing complete
    assert output.queue_opening_chunks(rows(fresh, one, started), first_frames=2)
    assert queued(output, output._urgent) == [(2, 0, 2)]
    # Counted as handed to the codec ahead of the step's codes: nothing pending once taken.
    one.frames_produced += 1
    assert one.frames_pending == 0 and one.chunks_emitted == 1
    output.drop()
    assert output.queue_opening_chunks(rows(fresh), first_frames=1)
    assert [(i, frames) for i, _, frames in queued(output, output._urgent)] == [(1, 1)]
    assert not output.queue_opening_chunks(rows(late), first_frames=2)


def test_the_frame_after_a_one_frame_first_chunk_goes_with_its_step_too():
    s = stream(pending=0, frames_vocoded=1)  # its one-frame first chunk went with its first step
    s.steps = 1
    output = output_of(s)
    assert output.queue_opening_chunks(rows(s), first_frames=2)
    assert queued(output, output._urgent) == [(1, 1, 1)]
    output.drop()
    s.frames_produced, s.steps = 2, 2  # a third step may end the stream: its frame waits for the codes
    assert not output.queue_opening_chunks(rows(s), first_frames=2)


def test_a_stream_that_asks_for_its_first_chunk_size_gets_it_whole():
    s = stream(pending=3)
    s.first_chunk_frames = 5
    assert due(s, now=0.0, first_frames=1) == 0  # its next text is there: collect
    s.frames_produced += 2
    assert due(s, now=0.0, first_frames=2) == 5  # the asked size, not a codec run
    s.text_ids, s.text_ends, s.steps = [1], [1], 1
    s.frames_produced -= 2
    assert due(s, now=0.0) == 2  # its text ran short: what it has goes, in codec sizes
    # With the step that completes it when that is among the first steps, else as it is due.
    two = stream(pending=1, stream_id=2)
    two.first_chunk_frames, two.steps = 2, 1
    big = stream(pending=1, stream_id=3)
    big.first_chunk_frames, big.steps = 4, 1
    output = output_of(two, big)
    assert output.queue_opening_chunks(rows(two, big), first_frames=1)
    assert [(i, frames) for i, _, frames in queued(output, output._urgent)] == [(2, 2)]
    assert MAX_FIRST_CHUNK_FRAMES <= MAX_PENDING_FRAMES  # the largest first chunk fits the code history


def test_a_full_chunk_goes_at_once_whatever_is_buffered():
    assert due(stream(pending=4, frames_vocoded=30, first_audio_at=10.0), now=10.0) == 4
    assert due(stream(pending=6, frames_vocoded=30, first_audio_at=10.0), now=10.0) == 4  # one codec run


def test_a_stream_with_audio_to_spare_keeps_collecting():
    s = stream(pending=3, frames_vocoded=10, first_audio_at=10.0)  # 0.8 s sent
    assert float(buffered(s.batch, s.row, 10.4)) == pytest.approx(0.4)
    assert due(s, now=10.4) == 0
    # It is looked at again when its buffer reaches the low-water mark.
    assert float(POLICY.wake_at(s.batch, s.row)) == pytest.approx(10.0 + 0.8 - 0.3)


def test_a_stream_about_to_run_out_gets_its_pending_frames_in_codec_sizes():
    for pending, size in ((1, 1), (2, 2), (3, 2), (5, 4)):
        assert due(stream(pending=pending, frames_vocoded=10, first_audio_at=10.0), now=10.55) == size


def test_before_its_first_chunk_arrives_a_stream_counts_what_was_sent():
    s = stream(pending=2, frames_vocoded=1)  # first chunk queued, not yet posted: 80 ms sent
    assert float(buffered(s.batch, s.row, 123.0)) == pytest.approx(FRAME_SECONDS)
    assert due(s, now=123.0) == 2


def test_first_audio_goes_first_then_the_least_buffered_within_the_budget():
    now = 20.0
    new = stream(pending=1, stream_id=1)
    low = stream(pending=4, frames_vocoded=10, first_audio_at=now - 0.7, stream_id=2)  # 0.1 s left
    lower = stream(pending=4, frames_vocoded=10, first_audio_at=now - 0.75, stream_id=3)  # 0.05 s left
    full = stream(pending=4, frames_vocoded=40, first_audio_at=now - 1.0, stream_id=4)  # 2.2 s left
    output = output_of(full, low, new, lower)
    # Budget: 2 codec frames per stream stepped (4 streams) = 8 frames beside the first chunk.
    output.choose(rows(full, low, new, lower), now, stepped=4)
    assert [(i, frames) for i, _, frames in queued(output, output._urgent)] == [(1, 1)]
    assert [(i, frames) for i, _, frames in queued(output, output._queued)] == [(3, 4), (2, 4)]
    assert full.frames_pending == 4  # over the budget: it waits, with the most audio to spare
    output.drop()
    output.choose(rows(full), now + 0.04, stepped=4)  # next iteration: it goes
    assert [(i, frames) for i, _, frames in queued(output, output._queued)] == [(4, 4)]


def test_queued_chunks_take_the_oldest_frames_and_report_progress():
    s = stream(pending=5, frames_vocoded=3, first_audio_at=0.0)
    output = output_of(s)
    output.choose(rows(s), now=10.0, stepped=1)  # under its low-water mark: it gets 4 of its 5 frames
    chunk = QueuedChunks.join(output._queued)
    assert (chunk.first_frames.tolist(), chunk.frames.tolist()) == ([3], [4])
    assert s.frames_vocoded == 7 and s.frames_pending == 1
    assert chunk.spoken.tolist() == [s.text_ends[6]]


def test_a_stream_that_ends_gets_its_pending_frames_and_all_of_its_text_as_spoken():
    s = stream(pending=3, frames_vocoded=2, first_audio_at=0.0)
    s.text_ended, s.characters_received = True, 99
    other = stream(pending=2, stream_id=2)  # no chunk yet: its last chunk is its first
    output = output_of(s, other)
    output.queue_last(rows(s, other), np.array([True, False]))
    assert [(i, first, frames) for i, first, frames in queued(output, output._urgent)] == [(2, 0, 2)]
    assert [(i, first, frames) for i, first, frames in queued(output, output._queued)] == [(1, 2, 3), (1, 0, 0)]
    final = QueuedChunks.join(output._queued)[1:]
    assert (final.spoken.tolist(), final.last_frames.tolist()) == ([99], [4])
    assert s.frames_pending == 0 and other.frames_pending == 0 and s.progress_end == 99


def test_headroom_admits_while_the_predicted_iteration_fits():
    headroom = Headroom(target=0.5, frame_seconds=0.08)  # 40 ms per iteration allowed
    assert headroom.admits(10_000)  # nothing measured yet
    for _ in range(5):
        headroom.record(100, 0.005 + 100 * 0.0001)
        headroom.record(200, 0.005 + 200 * 0.0001)
    assert headroom.predicted_seconds(300) == pytest.approx(0.035)
    assert headroom.admits(349)  # 350 streams: 40 ms
    assert not headroom.admits(350) and not headroom.admits(399)
    # Past twice the largest batch seen (200): no prediction, as before the first iteration (a
    # burst outgrowing what was measured is admitted; the iterations it settles into decide).
    assert headroom.admits(400)
    report = headroom.report()
    assert report.max_streams == 350
    assert report.headroom == pytest.approx(1 - 0.02 / 0.08)


def test_headroom_fits_only_its_window_of_recent_iterations():
    headroom = Headroom(window=8)
    for streams in (500, 600) * 10:  # slow iterations, then pushed out of the window
        headroom.record(streams, 1.0)
    for streams in (100, 200) * 4:
        headroom.record(streams, 0.005 + streams * 0.0001)
    assert headroom.predicted_seconds(300) == pytest.approx(0.035)
    for _ in range(8):
        headroom.record(100, 0.01)  # one batch size: no line, unless read as all per stream
    assert headroom.predicted_seconds(300) == pytest.approx(0.03)
    assert headroom.predicted_seconds(300, extrapolate=False) is None


def test_the_headroom_learns_from_settled_iterations_not_a_burst_of_openings(tiny_checkpoint: Path):
    engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=8)
    try:
        count = engine.loop._count
        # A burst: 900 of 1,000 streams stepped are opening, and the iteration is slow for it.
        count(1000, 900, 0.2, [0.0, 0.0], False)
        assert engine.loop.headroom.report() is None  # nothing learned from it
        for streams in (1000, 1010):  # settled: at most a quarter opening
            count(streams, streams // 4, 0.005 + streams * 0.00004, [0.0, 0.0], False)
        assert engine.loop.headroom.predicted_seconds(1500) == pytest.approx(0.065)
        assert engine.loop.stats.iterations == 3  # every iteration still counts in the loop's figures
    finally:
        engine.close()


async def test_the_engine_refuses_a_stream_the_headroom_cannot_carry(tiny_checkpoint: Path):
    engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=8, admit_by_headroom=True)
    try:
        for streams in (1, 2, 1, 2):  # measured: 50 ms per stream, so one stream fits 70 % of a frame
            engine.loop.headroom.record(streams, 0.05 * streams)
        first = engine.open_stream(voice="ryan", language="english")
        second = engine.open_stream(voice="ryan", language="english")
        events = [e async for e in second.events()]
        assert isinstance(events[0], Error) and events[0].code == ErrorCode.CAPACITY and events[0].retryable
        assert isinstance(events[-1], Done)
        headroom = engine.capabilities()["headroom"]
        assert headroom["admission"] == "headroom" and headroom["max_streams_estimate"] == 1
        # The server reports it in /v1/capabilities and /metrics.
        state = ServerState(engine, ServerSettings(), EngineDescription.of(engine))
        assert state.capabilities().headroom.max_streams_estimate == 1
        assert b"voice_tts_engine_max_streams_estimate 1.0" in state.metrics.render()
        first.cancel()
        assert isinstance([e async for e in first.events()][-1], Done)
    finally:
        await engine.aclose()


def pcm_of(events: list) -> np.ndarray:
    return np.frombuffer(b"".join(e.pcm for e in events if isinstance(e, AudioChunk)), dtype=np.int16)


async def test_a_first_chunk_size_cuts_the_same_codes_differently(tiny_checkpoint: Path, golden_cases):
    """A stream that asks for an N-frame first chunk gets N * 1920 samples first, then chunks
    as any stream gets them; its codes are the golden ones, and its audio that of the default
    cut up to the codec's rounding (one LSB: a run of other length rounds differently)."""
    case = golden_cases["A02_en_ryan_english_stream"]
    a = case["args"]
    engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=2, keep_codes=True)
    try:
        async def speak(first_chunk_frames: int | None):
            stream = engine.open_stream(StreamRequest(
                voice=a["speaker"], language=a["language"], sampling=SamplingParams.greedy(),
                max_new_tokens=a["max_new_tokens"], first_chunk_frames=first_chunk_frames,
            ))
            stream.push_text(a["text"])
            stream.end_input()
            events = [e async for e in stream.events()]
            assert isinstance(events[-1], Done) and not events[-1].cancelled
            assert stream.codes == case["codes"]
            return [e for e in events if isinstance(e, AudioChunk)]

        default = await speak(None)
        assert len(case["codes"]) > MAX_FIRST_CHUNK_FRAMES
        for frames in (3, 8, MAX_FIRST_CHUNK_FRAMES):
            chunks = await speak(frames)
            assert (chunks[0].sample_rate, len(chunks[0].pcm)) == (CODEC_SAMPLE_RATE, frames * SAMPLES_PER_FRAME * 2)
            assert all(len(c.pcm) <= POLICY.max_chunk_frames * SAMPLES_PER_FRAME * 2 for c in chunks[1:]), frames
            assert [c.start_sample for c in chunks] == np.cumsum([0] + [c.num_samples for c in chunks[:-1]]).tolist()
            wav, expected = pcm_of(chunks), pcm_of(default)
            assert wav.shape == expected.shape, frames
            assert np.abs(wav.astype(int) - expected).max() <= 1, frames
            assert np.abs(wav / 32767.0 - case["wav"]).max() <= 1e-4, frames
    finally:
        await engine.aclose()


async def test_events_posted_together_arrive_in_order():
    channel = StreamChannel()
    channel.put_many(["progress", "audio"])
    assert [await channel.get(), await channel.get()] == ["progress", "audio"]
    await asyncio.sleep(0)
