"""The speaking-rate stage: pitch kept, duration scaled, chunking inaudible, played-time clock."""

from __future__ import annotations

import asyncio
import sys

import numpy as np
import pytest

from engine.backends.espeak import EmbeddedEngine
from pitch import click_ratio, median_f0, median_f0_ratio
from voice_tts.protocol import AudioChunk, Progress
from voice_tts.speed import MAX_SPEED, MIN_SPEED, PlayedClock, SpeedStage, SpeedUnavailable, TimeStretcher, checked_speed

RATE = 24000
TEXT = (
    "The quick brown fox jumps over the lazy dog. Please call me back at five five five, "
    "one two three four, before noon tomorrow. Thank you for waiting."
)


async def _synthesize(text: str) -> tuple[bytes, list]:
    engine = EmbeddedEngine()
    stream = engine.open_stream(sample_rate=RATE)
    stream.push_text(text)
    stream.end_input()
    events = [event async for event in stream.events()]
    return b"".join(e.pcm for e in events if isinstance(e, AudioChunk)), events


@pytest.fixture(scope="module")
def speech() -> tuple[bytes, list]:
    """Real speech from the embedded voice, and the events it came in."""
    return asyncio.run(_synthesize(TEXT))


def stretch(pcm: bytes, speed: float, chunk_samples: int | None = None) -> bytes:
    stretcher = TimeStretcher(RATE, speed)
    step = 2 * (chunk_samples or len(pcm))
    parts = [stretcher.process(pcm[i : i + step]) for i in range(0, len(pcm), step)]
    return b"".join(parts) + stretcher.flush()


def test_speed_outside_the_range_is_refused_clearly():
    assert checked_speed(1) == 1.0
    assert (checked_speed(MIN_SPEED), checked_speed(MAX_SPEED)) == (0.5, 2.0)
    for bad in (0.25, 4.0, 0, -1.0, float("nan"), float("inf"), "1.5", None, True):
        with pytest.raises(ValueError, match="speed must be"):
            checked_speed(bad)
    with pytest.raises(ValueError, match="speed must be"):
        SpeedStage(3.0)
    with pytest.raises(ValueError, match="speed must be"):
        TimeStretcher(RATE).set_speed(0.1)


def test_at_normal_speed_audio_passes_through_untouched(speech):
    pcm, events = speech
    assert stretch(pcm, 1.0, chunk_samples=1000) == pcm
    stage = SpeedStage(1.0)
    out = [e for event in events for e in stage.events_for(event)]
    assert out == events


@pytest.mark.parametrize("speed", [0.5, 0.75, 1.5, 2.0])
def test_pitch_is_kept_and_duration_scales(speech, speed):
    pcm, _ = speech
    stretched = stretch(pcm, speed, chunk_samples=1920)
    assert len(stretched) / len(pcm) == pytest.approx(1 / speed, rel=0.03)
    assert median_f0_ratio(stretched, pcm, RATE, speed) == pytest.approx(1.0, rel=0.03)


def test_pitch_of_a_steady_voice_is_kept_exactly():
    t = np.arange(3 * RATE) / RATE
    phase = 2 * np.pi * np.cumsum(140 * (1 + 0.03 * np.sin(2 * np.pi * 3 * t))) / RATE
    envelope = (0.5 + 0.5 * np.sin(2 * np.pi * 2.5 * t)) ** 2
    voice = sum(np.sin(k * phase) * 0.3 / k for k in range(1, 15)) * envelope
    pcm = np.rint(voice * 32767).astype("<i2").tobytes()
    for speed in (0.5, 2.0):
        assert median_f0(stretch(pcm, speed, 960), RATE, speed=speed) == pytest.approx(140.0, rel=0.01)


@pytest.mark.parametrize("speed", [0.5, 1.5, 2.0])
def test_a_chunked_stream_is_the_same_audio_as_one_piece(speech, speed):
    """The stretcher keeps its state across chunks: any chunking (odd sizes, the engine's
    80 ms frames, whole seconds) gives the one-piece output sample for sample, so chunk
    boundaries cannot click."""
    pcm, _ = speech
    whole = stretch(pcm, speed)
    for chunk_samples in (1920, 1001, 24000):
        assert stretch(pcm, speed, chunk_samples) == whole


def test_a_speed_change_mid_stream_scales_from_the_next_chunk_without_a_click(speech):
    pcm, _ = speech
    half = (len(pcm) // 4) * 2
    for first, second in ((1.0, 1.5), (1.5, 0.75), (2.0, 1.0)):
        stretcher = TimeStretcher(RATE, first)
        head = stretcher.process(pcm[:half])
        stretcher.set_speed(second)
        out = head + stretcher.process(pcm[half:]) + stretcher.flush()
        expected = (half / 2) / first + (len(pcm) - half) / 2 / second
        assert len(out) / 2 == pytest.approx(expected, rel=0.03)
        seam = int((half / 2) / first)
        assert click_ratio(out, seam) < 2.0, (first, second)


def test_the_played_clock_maps_engine_time_through_each_change():
    clock = PlayedClock()
    assert clock.played(2.0) == 2.0
    clock.advance(1.0, 2.0)  # from 1 s of engine audio on, twice as fast
    clock.advance(3.0, 0.5)
    assert clock.played(0.5) == 0.5
    assert clock.played(2.0) == 1.5
    assert clock.played(3.0) == 2.0
    assert clock.played(4.0) == 4.0
    with pytest.raises(ValueError):
        clock.advance(2.0, 1.0)


def test_the_stage_puts_progress_and_audio_in_played_time(speech):
    _, events = speech
    chunks = [e for e in events if isinstance(e, AudioChunk)]
    change_at = chunks[len(chunks) // 2].start_sample / RATE
    stage = SpeedStage(1.5)
    out = []
    for event in events:
        if isinstance(event, AudioChunk) and event.start_sample / RATE == change_at:
            stage.set_speed(0.75)
        out += stage.events_for(event)

    audio = [e for e in out if isinstance(e, AudioChunk)]
    assert [a.start_sample for a in audio] == list(np.cumsum([0] + [a.num_samples for a in audio[:-1]]))
    played = sum(a.num_samples for a in audio) / RATE
    engine_seconds = sum(c.num_samples for c in chunks) / RATE
    assert played == pytest.approx(change_at / 1.5 + (engine_seconds - change_at) / 0.75, rel=0.03)
    # The engine's `Done` passes as it is: a turn's usage is counted on the stage's output
    # (voice_tts/stream_output.py; tests/unit/test_stream_output.py).
    assert out[-1] is events[-1]

    progress_in = [e for e in events if isinstance(e, Progress)]
    progress_out = [e for e in out if isinstance(e, Progress)]
    assert [p.spoken_end for p in progress_out] == [p.spoken_end for p in progress_in]
    for before, after in zip(progress_in, progress_out):
        t = before.audio_time
        expected = t / 1.5 if t <= change_at else change_at / 1.5 + (t - change_at) / 0.75
        assert after.audio_time == pytest.approx(min(expected, played), abs=1e-9)
    # Each progress report goes out before the audio it describes.
    emitted = 0
    for event in out:
        if isinstance(event, AudioChunk):
            emitted += event.num_samples
        elif isinstance(event, Progress):
            assert event.audio_time * RATE >= emitted - 1


def test_without_rubber_band_a_rate_change_says_which_extra_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pylibrb", None)
    assert TimeStretcher(RATE, 1.0).process(b"\x01\x00") == b"\x01\x00"
    with pytest.raises(SpeedUnavailable, match=r"voice-tts\[speed\]"):
        TimeStretcher(RATE, 1.5)
    with pytest.raises(SpeedUnavailable, match=r"voice-tts\[speed\]"):
        SpeedStage(1.0).set_speed(0.75)
