"""The speaking rate on the Qwen3 engine (the tiny random-weight checkpoint, CPU, greedy): a
stream heard through a `SpeedStage` at 0.5, 1.5 and 2.0 keeps its pitch and scales its
duration, as the embedded voice's does (tests/unit/test_speed.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest
from pitch import median_f0, spectral_lines

from engine.model.sampling import SamplingParams
from engine.runtime.qwen3_engine import Qwen3Engine
from voice_tts.protocol import AudioChunk, Done
from voice_tts.speed import SpeedStage

pytest.importorskip("pylibrb")

RATE = 24000
TEXT = "The quick brown fox jumps over the lazy dog, and then it rests."


async def _speak(engine: Qwen3Engine, speed: float) -> bytes:
    stream = engine.open_stream(voice="Ryan", language="English", sampling=SamplingParams.greedy(), max_new_tokens=100)
    stage = SpeedStage(speed)
    stream.push_text(TEXT)
    stream.end_input()
    events = [out async for event in stream.events() for out in stage.events_for(event)]
    assert isinstance(events[-1], Done) and not events[-1].cancelled
    return b"".join(e.pcm for e in events if isinstance(e, AudioChunk))


@pytest.fixture(scope="module")
def speech(tiny_checkpoint: Path) -> dict[float, bytes]:
    """The same greedy turn (the same engine audio every time) heard at each speed."""
    engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=1)
    try:
        return {speed: asyncio.run(_speak(engine, speed)) for speed in (1.0, 0.5, 1.5, 2.0)}
    finally:
        engine.close()


@pytest.mark.parametrize("speed", [0.5, 1.5, 2.0])
def test_duration_scales_with_the_speed(speech, speed):
    assert len(speech[speed]) / len(speech[1.0]) == pytest.approx(1 / speed, rel=0.03)


@pytest.mark.parametrize("speed", [0.5, 1.5, 2.0])
def test_pitch_is_kept(speech, speed):
    """Random weights do not make a voice: the fixture's audio is a DC offset, noise and steady
    tonal lines (near 4 and 8 kHz), and the F0 estimator finds no voiced frame in it, so median
    F0 cannot be compared. The pitch proxy is those lines: their frequencies stay within 3 % of
    the 1.0 audio's at every speed, where a stretch that did not keep pitch (a resampling) would
    move them by the speed."""
    with pytest.raises(ValueError, match="no voiced frames"):
        median_f0(speech[1.0], RATE)
    reference = spectral_lines(speech[1.0], RATE)
    assert len(reference) == 2
    stretched = spectral_lines(speech[speed], RATE)
    assert sorted(stretched) == pytest.approx(sorted(reference), rel=0.03)
    # The proxy tells the two apart: the same audio played faster by resampling moves its lines.
    x = np.frombuffer(speech[1.0], dtype="<i2").astype(np.float64)
    resampled = np.interp(np.arange(0, len(x) - 1, speed), np.arange(len(x)), x)
    moved = spectral_lines(np.rint(resampled).astype("<i2").tobytes(), RATE)
    assert sorted(moved) != pytest.approx(sorted(reference), rel=0.03)
