"""Time the embedded eSpeak NG voice: first-audio latency under concurrent streams fed at an
LLM's pace, and synthesis speed with all text given at once.

    python bench/espeak_bench.py [--concurrency 1 8 32 64] [--tokens-per-second 40]

TTFA is measured from a stream's first text delta to its first audio chunk; every stream speaks
the same English paragraph, split into 4-character deltas.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

from engine import Engine
from voice_tts.protocol import AudioChunk

PARAGRAPH = (
    "Thanks for calling. Your order shipped this morning, and it should arrive on Thursday. "
    "If you are not home, the driver will leave it at the front desk, as you asked last time. "
    "Is there anything else I can help you with today?"
)


async def paced_stream(engine, tokens_per_second: float) -> dict:
    stream = engine.open_stream()
    deltas = [PARAGRAPH[i : i + 4] for i in range(0, len(PARAGRAPH), 4)]

    async def feed() -> None:
        for delta in deltas:
            stream.push_text(delta)
            await asyncio.sleep(1 / tokens_per_second)
        stream.end_input()

    started = time.perf_counter()
    feeder = asyncio.create_task(feed())
    first_audio, audio = None, 0.0
    async for event in stream.events():
        if isinstance(event, AudioChunk):
            first_audio = first_audio or time.perf_counter() - started
            audio += event.duration
    await feeder
    return {"ttfa_ms": first_audio * 1000, "audio_s": audio}


async def throughput(engine, streams: int) -> dict:
    async def one() -> float:
        stream = engine.open_stream()
        stream.push_text(PARAGRAPH)
        stream.end_input()
        return sum([e.duration async for e in stream.events() if isinstance(e, AudioChunk)])

    started = time.perf_counter()
    audio = sum(await asyncio.gather(*(one() for _ in range(streams))))
    wall = time.perf_counter() - started
    return {"streams": streams, "audio_s": round(audio, 2), "wall_s": round(wall, 3), "x_real_time": round(audio / wall, 1)}


async def main(args: argparse.Namespace) -> None:
    engine = Engine.embedded(capacity=max(args.concurrency))
    await throughput(engine, 1)  # load the voice data once
    results = {"paced": [], "throughput": []}
    for n in args.concurrency:
        runs = await asyncio.gather(*(paced_stream(engine, args.tokens_per_second) for _ in range(n)))
        ttfa = sorted(r["ttfa_ms"] for r in runs)
        results["paced"].append(
            {
                "concurrency": n,
                "ttfa_ms_p50": round(statistics.median(ttfa), 1),
                "ttfa_ms_max": round(ttfa[-1], 1),
                "tokens_per_second": args.tokens_per_second,
            }
        )
        results["throughput"].append(await throughput(engine, n))
    await engine.aclose()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32, 64])
    parser.add_argument("--tokens-per-second", type=float, default=40.0)
    asyncio.run(main(parser.parse_args()))
