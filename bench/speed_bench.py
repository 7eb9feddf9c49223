"""Speaking-rate stretchers compared on real speech: pitch, duration, chunking, CPU, look-ahead.

The embedded voice speaks a short paragraph at 24 kHz; each candidate stretches it at each
speed, streamed in 80 ms chunks (one Qwen3-TTS frame, what the engines emit) where it can stream:
- rubberband-r2: Rubber Band's real-time mode, its faster engine (pylibrb) — voice_tts/speed.py;
- rubberband-r3: the same, its finer engine;
- audiotsm-wsola: audiotsm's WSOLA (MIT), streamed;
- pedalboard: Rubber Band offline through pedalboard (whole clip; it cannot stream), a reference.
Pitch is the median F0 (tests/pitch.py) over frames that cover the same stretch of the text:
`f0_ratio` over each clip's own voiced frames, `f0_ratio_same_moments` over the moments of the
text voiced in both (what the tests check; stretching drops frames from the voiced set unevenly).
`rubberband_r2_options` tries Rubber Band's options on the chosen engine at 1.5 and 2.0;
`chunked_equals_whole` compares the streamed output with the same audio stretched in one call.
CPU is process time per second of input audio, one stream on one core.

    .venv/bin/python bench/speed_bench.py [--out bench/results/speed_stretchers.json]

The comparison needs the other candidates beside the `speed` extra:
`pip install audiotsm==0.1.2 pedalboard==0.9.26` (not in any extra: only this script uses them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from pitch import median_f0, median_f0_ratio  # noqa: E402

from engine.backends.espeak import EmbeddedEngine  # noqa: E402
from voice_tts.protocol import AudioChunk  # noqa: E402
from voice_tts.speed import TimeStretcher  # noqa: E402

RATE = 24000
CHUNK = 1920  # 80 ms
SPEEDS = (0.5, 0.75, 1.25, 1.5, 2.0)
TEXT = (
    "The quick brown fox jumps over the lazy dog. Please call me back at five five five, "
    "one two three four, before noon tomorrow. Thank you for waiting, and have a lovely day."
)


async def synthesize() -> np.ndarray:
    stream = EmbeddedEngine().open_stream(sample_rate=RATE)
    stream.push_text(TEXT)
    stream.end_input()
    pcm = b"".join([e.pcm async for e in stream.events() if isinstance(e, AudioChunk)])
    return np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0


def to_pcm(x: np.ndarray) -> bytes:
    return np.clip(np.rint(x * 32768.0), -32768, 32767).astype("<i2").tobytes()


def rubberband(engine: str, *extra: str):
    import pylibrb

    option = {"r2": pylibrb.Option.ENGINE_FASTER, "r3": pylibrb.Option.ENGINE_FINER}[engine]
    for name in extra:
        option |= getattr(pylibrb.Option, name)

    def run(x: np.ndarray, speed: float, chunk: int) -> tuple[np.ndarray, int]:
        rb = pylibrb.RubberBandStretcher(RATE, 1, pylibrb.Option.PROCESS_REALTIME | option, 1.0 / speed)
        rb.set_max_process_size(chunk)
        pad, delay = rb.get_preferred_start_pad(), rb.get_start_delay()
        rb.process(np.zeros((1, pad), dtype=np.float32))
        out = []
        for i in range(0, len(x), chunk):
            rb.process(x[None, i : i + chunk], final=i + chunk >= len(x))
            out.append(rb.retrieve_available()[0])
        return np.concatenate(out)[delay:], pad

    return run


def audiotsm_wsola(x: np.ndarray, speed: float, chunk: int) -> tuple[np.ndarray, int]:
    import audiotsm
    from audiotsm.io.array import ArrayReader, ArrayWriter

    tsm = audiotsm.wsola(1, speed=speed)
    writer = ArrayWriter(1)
    for i in range(0, len(x), chunk):
        tsm.run(ArrayReader(x[None, i : i + chunk]), writer, flush=False)
    tsm.flush_to(writer)
    return writer.data[0], 1024  # its frame length: audio held back before output starts


def pedalboard_offline(x: np.ndarray, speed: float, chunk: int) -> tuple[np.ndarray, int]:
    import pedalboard

    return pedalboard.time_stretch(x[None, :], RATE, stretch_factor=speed)[0], len(x)


CANDIDATES = {
    "rubberband-r2": (rubberband("r2"), True),
    "rubberband-r3": (rubberband("r3"), True),
    "audiotsm-wsola": (audiotsm_wsola, True),
    "pedalboard": (pedalboard_offline, False),
}

# Rubber Band's options that bear on a time stretch (pylibrb exposes no pitch-quality options:
# those only matter when shifting pitch), each beside the default R2 stage.
R2_OPTIONS = (
    "FORMANT_PRESERVED", "WINDOW_SHORT", "WINDOW_LONG", "TRANSIENTS_MIXED", "TRANSIENTS_SMOOTH",
    "DETECTOR_SOFT", "PHASE_INDEPENDENT", "SMOOTHING_ON",
)


def pitch_duration_cpu(run, x: np.ndarray, speed: float, chunk: int, reference_f0: float) -> tuple[dict, np.ndarray]:
    """One run's row, and its output."""
    pcm = to_pcm(x)
    started = time.process_time()
    y, look_ahead = run(x, speed, chunk)
    cpu = time.process_time() - started
    stretched = to_pcm(y)
    return {
        "speed": speed,
        "duration_ratio": round(len(y) / len(x) * speed, 4),
        "f0_ratio": round(median_f0(stretched, RATE, speed=speed) / reference_f0, 4),
        "f0_ratio_same_moments": round(median_f0_ratio(stretched, pcm, RATE, speed), 4),
        "cpu_percent_of_core": round(100 * cpu / (len(x) / RATE), 3),
        "look_ahead_ms": round(1000 * look_ahead / RATE, 1),
    }, y


def measure(x: np.ndarray) -> dict:
    reference_f0 = median_f0(to_pcm(x), RATE)
    seconds = len(x) / RATE
    results = {}
    for name, (run, streams) in CANDIDATES.items():
        rows = []
        for speed in SPEEDS:
            row, y = pitch_duration_cpu(run, x, speed, CHUNK if streams else len(x), reference_f0)
            if streams:
                whole, _ = run(x, speed, len(x))
                same = len(whole) == len(y) and np.array_equal(whole, y)
                row["chunked_equals_whole"] = bool(same)
                m = min(len(whole), len(y))
                row["chunked_vs_whole_max_abs"] = round(float(np.abs(whole[:m] - y[:m]).max()), 6)
            rows.append(row)
        results[name] = rows
    options = {
        name: [pitch_duration_cpu(rubberband("r2", *extra), x, speed, CHUNK, reference_f0)[0] for speed in (1.5, 2.0)]
        for name, extra in [("default", ()), *((option, (option,)) for option in R2_OPTIONS)]
    }
    return {
        "reference_f0_hz": round(reference_f0, 2),
        "audio_seconds": round(seconds, 3),
        "candidates": results,
        "rubberband_r2_options": options,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    x = asyncio.run(synthesize())
    # The stage as shipped (TimeStretcher), many streams' worth, for a steadier CPU figure.
    started = time.process_time()
    rounds = 20
    for _ in range(rounds):
        stretcher = TimeStretcher(RATE, 1.5)
        pcm = to_pcm(x)
        for i in range(0, len(pcm), 2 * CHUNK):
            stretcher.process(pcm[i : i + 2 * CHUNK])
        stretcher.flush()
    stage_cpu = 100 * (time.process_time() - started) / (rounds * len(x) / RATE)
    report = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "python": platform.python_version(),
        "sample_rate": RATE,
        "chunk_samples": CHUNK,
        "text": TEXT,
        **measure(x),
        "speed_stage_cpu_percent_of_core_at_1_5": round(stage_cpu, 3),
        "command": "python bench/speed_bench.py --out bench/results/speed_stretchers.json",
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
