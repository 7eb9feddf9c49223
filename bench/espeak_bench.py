"""Time the embedded eSpeak NG voice: first-audio latency under concurrent streams fed at an
LLM's pace, synthesis speed with all text given at once, and the bounded wait for a clause end.

    python bench/espeak_bench.py [--concurrency 1 8 32 64] [--tokens-per-second 40] [--rounds 10]

TTFA is measured from a stream's first text delta to its first audio chunk; every stream speaks
the same English paragraph, split into 4-character deltas. The clause-wait rows speak one
sentence of 115 characters with no punctuation, with the default `ClauseWait` and with clause
ends only (`ClauseWait(None, None)`, the behaviour before the bounded wait).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

from engine import Engine
from engine.backends.espeak_segments import ClauseWait
from voice_tts.protocol import AudioChunk

PARAGRAPH = (
    "Thanks for calling. Your order shipped this morning, and it should arrive on Thursday. "
    "If you are not home, the driver will leave it at the front desk, as you asked last time. "
    "Is there anything else I can help you with today?"
)


UNPUNCTUATED = (
    "so I looked into it and the short answer is that you can move the booking to any day "
    "next week without paying extra"
)


async def paced_stream(engine, tokens_per_second: float, text: str = PARAGRAPH) -> dict:
    stream = engine.open_stream()
    deltas = [text[i : i + 4] for i in range(0, len(text), 4)]

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
    results["clause_wait"] = await clause_wait_ttfa(args.rounds, args.tokens_per_second)
    print(json.dumps(results, indent=2))


async def clause_wait_ttfa(rounds: int, tokens_per_second: float) -> list[dict]:
    rows = []
    for name, wait in (("default", ClauseWait()), ("clause ends only", ClauseWait(None, None))):
        engine = Engine.embedded(clause_wait=wait)
        for text_name, text in (("unpunctuated sentence", UNPUNCTUATED), ("paragraph", PARAGRAPH)):
            ttfa = sorted([(await paced_stream(engine, tokens_per_second, text))["ttfa_ms"] for _ in range(rounds)])
            rows.append(
                {
                    "clause_wait": name,
                    "text": text_name,
                    "chars": len(text),
                    "tokens_per_second": tokens_per_second,
                    "ttfa_ms_p50": round(statistics.median(ttfa), 1),
                    "ttfa_ms_max": round(ttfa[-1], 1),
                    "text_seconds": round(len(range(0, len(text), 4)) / tokens_per_second, 2),
                }
            )
        await engine.aclose()
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32, 64])
    parser.add_argument("--tokens-per-second", type=float, default=40.0)
    parser.add_argument("--rounds", type=int, default=10, help="streams per clause-wait row")
    asyncio.run(main(parser.parse_args()))
