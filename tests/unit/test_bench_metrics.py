"""The benchmark definitions on made-up timelines: TTFA, underruns under real-time playout, RTF."""

from __future__ import annotations

import pytest

from voice_tts.bench.metrics import StreamTiming, percentile, summarize

RATE = 1000  # samples per second: a chunk of 500 samples is half a second


def timeline(first_text_at: float, arrivals: list[tuple[float, int]]) -> StreamTiming:
    timing = StreamTiming(sample_rate=RATE, first_text_at=first_text_at)
    start = 0
    for at, samples in arrivals:
        timing.chunk(at, start, samples)
        start += samples
    return timing


def test_a_stream_fed_ahead_of_playout_has_no_underrun():
    timing = timeline(10.0, [(10.2, 500), (10.3, 500), (10.69, 500)])
    assert timing.ttfa_ms == pytest.approx(200)
    assert timing.late_chunks() == []
    assert timing.audio_seconds == 1.5
    assert timing.rtf == pytest.approx(0.69 / 1.5)


def test_a_chunk_after_its_playout_time_is_late_by_the_difference():
    # Played from 10.2: the chunk starting at 0.5 s plays at 10.7 and arrives at 10.9.
    timing = timeline(10.0, [(10.2, 500), (10.9, 500), (11.0, 500)])
    assert timing.late_chunks() == [pytest.approx((0.5, 0.2))]


def test_summary_of_a_level():
    good = timeline(0.0, [(0.1, 500), (0.2, 500)])
    late = timeline(0.0, [(0.3, 500), (1.9, 2000), (2.0, 500)])
    empty = StreamTiming(sample_rate=RATE, first_text_at=0.0)
    summary = summarize([t.figures() for t in (good, late, empty)], wall_seconds=2.0)
    assert summary["ttfa_ms_p50"] == pytest.approx(100)  # nearest rank of [100, 300]
    assert summary["ttfa_ms_p99"] == pytest.approx(300)
    assert summary["streams_with_underruns"] == 1
    assert summary["underrun_chunks"] == 1
    assert summary["late_chunks_by_position_s"] == {"<0.5": 0, "0.5-1": 1, "1-2": 0, ">=2": 0}
    assert summary["audio_seconds_total"] == 4.0
    assert summary["audio_seconds_per_wall_second"] == 2.0


def test_percentile_is_the_nearest_rank():
    values = list(range(1, 101))
    assert percentile(values, 50) == 51
    assert percentile(values, 99) == 99
    assert percentile([7.0], 99) == 7.0
