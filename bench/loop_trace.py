"""Where a concurrency level's late chunks come from: a per-iteration trace of the step loop and
each chunk's post and arrival times, for the streams of `bench/engine_bench.py`'s levels.

    python bench/loop_trace.py CHECKPOINT --levels 1 256 512 [--capacity 1024] [--out trace.json]

Same streams as the engine bench (voice "ryan", text at 30 tokens/s, 100 frames, a level's
streams starting at random within 1 s, TTFA from the push that commits the first text token).
Per level it prints TTFA, the loop's iteration times (and the share waiting for the step and
the codec), the lag from a chunk's post to its arrival at the consumer (the asyncio side), and
the late chunks under real-time playout from the first arrival: by frame index in the stream
and by wall time since the level began, which separates a slow start from a slow steady state.
`--out` keeps every iteration (start, seconds, streams stepped, step and codec waits) and every
stream's arrivals. The loop is observed by wrapping its per-iteration accounting and the
output's posting; nothing in the engine changes.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import random
import statistics
import time
from pathlib import Path

from voice_tts.bench.deltas import push_at_pace
from voice_tts.bench.metrics import LATE_TOLERANCE_S, StreamTiming, percentile
from voice_tts.protocol import AudioChunk

from engine import Engine
from engine.runtime import loop as loop_module
from engine.runtime import output as output_module
from engine.runtime.stream import SAMPLES_PER_FRAME

from engine_bench import TOKENS_PER_SECOND, first_commit_piece, token_pieces

SAMPLE_RATE = 24000


class Recorder:
    """The loop's busy iterations and every posted chunk, from wrappers around the loop's own
    accounting (`StepLoop._count`) and posting (`Output.post`)."""

    def __init__(self) -> None:
        self.iterations: list[tuple[float, float, int, float, float]] = []
        self.posted: dict[tuple[int, int], float] = {}
        count, post = loop_module.StepLoop._count, output_module.Output.post

        def counted(loop, streams, seconds, waits, captured):
            self.iterations.append((time.perf_counter() - seconds, seconds, streams, waits[0], waits[1]))
            return count(loop, streams, seconds, waits, captured)

        def posted(output, chunks, audio, clock):
            post(output, chunks, audio, clock)
            now = time.perf_counter()
            for row, first, frames in zip(chunks.rows.tolist(), chunks.first_frames.tolist(), chunks.frames.tolist()):
                if frames:
                    self.posted[(output.batch.streams[row].id, first)] = now

        loop_module.StepLoop._count = counted
        output_module.Output.post = posted

    def clear(self) -> None:
        self.iterations.clear()
        self.posted.clear()


async def one_stream(engine, pieces: list[str], commit_at: int, delay: float, frames: int) -> dict:
    await asyncio.sleep(delay)
    stream = engine.open_stream(voice="ryan", language="english", max_new_tokens=frames + 1)
    opened = time.perf_counter()
    timing = StreamTiming(SAMPLE_RATE)

    async def consume() -> None:
        async for event in stream.events():
            if isinstance(event, AudioChunk):
                timing.chunk(time.perf_counter(), event.start_sample, event.num_samples)

    def pushed(index: int) -> None:
        if index == commit_at:
            timing.first_text_at = time.perf_counter()

    await asyncio.gather(consume(), push_at_pace(stream, pieces, TOKENS_PER_SECOND, pushed))
    return {"id": stream.id, "opened": opened, "first_text_at": timing.first_text_at,
            "arrivals": [(a.at, a.start_sample, a.samples) for a in timing.arrivals], "ttfa_ms": timing.ttfa_ms}


def summarize(streams: list[dict], iterations: list, posted: dict) -> dict:
    began = min(s["opened"] for s in streams)
    seconds = [i[1] * 1e3 for i in iterations]
    lags, late = [], []
    for s in streams:
        if not s["arrivals"]:
            continue
        first = s["arrivals"][0][0]
        for at, start_sample, _ in s["arrivals"]:
            frame = start_sample // SAMPLES_PER_FRAME
            if (s["id"], frame) in posted:
                lags.append((at - posted[(s["id"], frame)]) * 1e3)
            lateness = at - (first + start_sample / SAMPLE_RATE)
            if lateness > LATE_TOLERANCE_S:
                late.append((s["id"], frame, lateness * 1e3, at - began))
    ttfa = [s["ttfa_ms"] for s in streams if s["ttfa_ms"] is not None]

    def spread(values: list[float]) -> dict:
        return {q: round(percentile(values, p), 2) for q, p in (("p50", 50), ("p90", 90), ("p99", 99))} | {"max": round(max(values), 2)} if values else {}

    return {
        "streams": len(streams),
        "ttfa_ms": spread(ttfa),
        "iteration_ms": spread(seconds),
        "step_wait_ms_mean": round(statistics.mean(i[3] for i in iterations) * 1e3, 2) if iterations else None,
        "codec_wait_ms_mean": round(statistics.mean(i[4] for i in iterations) * 1e3, 2) if iterations else None,
        "post_to_arrival_ms": spread(lags),
        "late_chunks": len(late),
        "streams_with_late_chunks": len({stream for stream, *_ in late}),
        "late_by_frame_index": dict(sorted(collections.Counter(min(frame, 20) for _, frame, _, _ in late).items())),
        "late_by_wall_second": dict(sorted(collections.Counter(round(t, 1) for *_, t in late).items())),
        "lateness_ms": spread([ms for _, _, ms, _ in late]),
    }


async def main_async(args) -> dict:
    engine = Engine.from_pretrained(
        args.checkpoint, device=args.device, max_streams=args.capacity or max(args.levels),
        max_context=512, admit_by_headroom=False,
    )
    recorder = Recorder()
    pieces = token_pieces(engine)
    commit_at = first_commit_piece(engine, pieces)
    await one_stream(engine, pieces, commit_at, 0.0, 10)  # the voice's prefix into the cache
    results = {"conditions": {"device": args.device, "capacity": engine.capacity, "frames_per_stream": args.frames,
                              "text_tokens_per_second": TOKENS_PER_SECOND}, "levels": []}
    for index, level in enumerate(args.levels):
        recorder.clear()
        rng = random.Random(level * 1000 + index)
        delays = [0.0] if level == 1 else [rng.uniform(0, 1.0) for _ in range(level)]
        streams = await asyncio.gather(*(one_stream(engine, pieces, commit_at, d, args.frames) for d in delays))
        summary = {"concurrency": level, **summarize(streams, recorder.iterations, recorder.posted)}
        print(json.dumps(summary), flush=True)
        results["levels"].append({**summary, "iterations": list(recorder.iterations), "stream_arrivals": streams} if args.out else summary)
    await engine.aclose()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 256, 512])
    parser.add_argument("--capacity", type=int, help="streams the engine is built for (default: the top level)")
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    if args.out:
        args.out.write_text(json.dumps(results))


if __name__ == "__main__":
    main()
