"""What the phrase cache costs a turn's first audio on `/v1/ws` (engine/server/phrase_cache.py).

    python bench/phrase_cache_bench.py [--model embedded|DIR] [--device cpu] [--turns 40] [--rate 30]
        [--out bench/results/phrase_cache_cpu.json]

One server on 127.0.0.1 in this process with `--phrase-cache-mb 16` and a few greetings cached
for the default voice, so that every turn below is of a voicing that has phrases (a voicing
without any opens its engine stream at `start`, exactly as without the cache). Each turn streams
its text as an LLM sends it (`voice_tts.bench.deltas.llm_deltas`, `--rate` deltas a second) on a
socket of its own path, and is cancelled at its first audio (a cancelled turn is never kept, so
the cached phrases stay the greetings). First audio: first delta sent -> first audio frame
received, on this process's monotonic clock. Paths, round-robin (each round runs each once, so
that on a shared machine every path meets the same load):
- `reply_off` / `reply_on`: agent replies that begin no phrase, with `"cache": false` on `start`
  (the engine stream opened at `start`, as on a server without the cache) and with the cache
  (the engine stream opened at the first text that begins no phrase);
- `prefix_off` / `prefix_on`: replies whose first sentence is a cached greeting's and then go
  on otherwise: with the cache their text is held until it leaves the greeting;
- `hit`: a cached greeting, served from memory once `stop` comes (first audio also from `stop`).
`on_minus_off`: per round, the cache's turn minus the same text's turn without it (p50, p99).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from websockets.asyncio.client import connect

from voice_tts.bench.deltas import llm_deltas

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "integration"))

GREETINGS = (
    "Thanks for calling Acme. Your call is important to us.",
    "Good morning, this is the front desk of the Harbor Hotel.",
    "Hello! You have reached the pharmacy refill line.",
)
# Long enough that a turn is cancelled at its first audio, long before its end (a turn that
# finished would be kept, and served from memory the next time).
REPLIES = (
    "Sure thing, let me look that up for you while you wait on the line.",
    "Your order shipped this morning and should arrive on Friday.",
    "The weather today is sunny with a high of 72 degrees",
)
PREFIXED = (
    "Thanks for calling Acme. How can I help you today?",
    "Good morning, this is the front desk of the Harbor Hotel. We have a room for you.",
)


async def first_audio(ws, text: str, rate: float, cache: bool) -> dict:
    """One turn streamed at `rate`: ms from its first delta to its first audio (and from its
    `stop`), then cancelled."""
    await ws.send(json.dumps({"type": "start", "cache": cache}))
    deltas = llm_deltas(text)
    began = time.perf_counter()
    first: float | None = None
    stopped: float | None = None

    async def send() -> None:
        nonlocal stopped
        for index, delta in enumerate(deltas):
            delay = began + index / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            await ws.send(json.dumps({"type": "text", "text": delta}))
        stopped = time.perf_counter()
        await ws.send(json.dumps({"type": "stop"}))

    sender = asyncio.create_task(send())
    cancelled = False
    while True:
        frame = await ws.recv()
        if isinstance(frame, bytes):
            if first is None:
                first = time.perf_counter()
                if not sender.done():
                    sender.cancel()
                await ws.send(json.dumps({"type": "cancel"}))
                cancelled = True
            continue
        message = json.loads(frame)
        if message["type"] == "done":
            break
    if not sender.done():
        sender.cancel()
    assert first is not None and cancelled, text
    return {
        "from_first_delta_ms": (first - began) * 1000,
        "from_stop_ms": None if stopped is None or stopped > first else (first - stopped) * 1000,
        "cached": message["usage"].get("cached", False),
    }


def summary(values: list[float]) -> dict:
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 2),
        "p99": round(ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))], 2),
        "mean": round(statistics.fmean(ordered), 2),
    }


async def measure(args) -> dict:
    from server_harness import speak, start_server

    from engine import Engine

    engine = Engine.embedded() if args.model == "embedded" else Engine.from_pretrained(args.model, device=args.device)
    server = start_server(engine, phrase_cache_mb=16)
    paths = {
        "reply_off": (REPLIES, False),
        "reply_on": (REPLIES, True),
        "prefix_off": (PREFIXED, False),
        "prefix_on": (PREFIXED, True),
        "hit": (GREETINGS, True),
    }
    times: dict[str, list[dict]] = {name: [] for name in paths}
    try:
        sockets = {name: await connect(server.ws_url, max_size=None, compression=None) for name in paths}
        async with connect(server.ws_url, max_size=None, compression=None) as ws:
            for greeting in GREETINGS:
                await speak(ws, [greeting])
        for round_ in range(args.warmup + args.turns):
            for name, (texts, cache) in paths.items():
                turn = await first_audio(sockets[name], texts[round_ % len(texts)], args.rate, cache)
                assert turn["cached"] == (name == "hit"), (name, turn)
                if round_ >= args.warmup:
                    times[name].append(turn)
        for ws in sockets.values():
            await ws.close()
    finally:
        server.stop()
    first = {name: [t["from_first_delta_ms"] for t in turns] for name, turns in times.items()}
    return {
        "conditions": {
            "model": args.model,
            "device": args.device,
            "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores (shared with other work)",
            "server": "in this process (BackgroundServer), 127.0.0.1, --phrase-cache-mb 16, 3 greetings cached",
            "turns_per_path": args.turns,
            "deltas_per_second": args.rate,
            "deltas": "voice_tts.bench.deltas.llm_deltas (one delta per tokenizer piece)",
            "command": "python bench/phrase_cache_bench.py " + " ".join(sys.argv[1:]),
        },
        "from_first_delta_ms": {name: summary(values) for name, values in first.items()},
        "hit_from_stop_ms": summary([t["from_stop_ms"] for t in times["hit"]]),
        "on_minus_off_ms": {
            kind: summary([on - off for on, off in zip(first[f"{kind}_on"], first[f"{kind}_off"])])
            for kind in ("reply", "prefix")
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="embedded", help="'embedded' (the eSpeak voice) or a checkpoint folder")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--rate", type=float, default=30.0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results = asyncio.run(measure(args))
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
