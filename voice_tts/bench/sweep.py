"""`voice-tts bench`: load a running server the way voice agents do and measure it.

At each concurrency level, that many clients start within `spread` seconds of each other; each
speaks `turns` turns one after another, its text streamed as LLM token deltas at
`tokens_per_second` (`deltas`: cut as an LLM's tokenizer cuts it, or in 1-3 characters) over
`/v1/ws` (the server normalizes, as a thin client would ask). Every turn's audio is timed as
it arrives (`voice_tts.bench.metrics`): TTFA from the first text delta sent, underruns under
real-time playout, RTF. Turns the server refuses for lack of a stream slot (after
`RemoteEngine`'s own retries of a refused start, a quarter of a second) count as `capacity`
refusals; other failures as errors.
"""

from __future__ import annotations

import asyncio
import collections
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from voice_tts.bench.metrics import StreamTiming, summarize
from voice_tts.client import RemoteEngine
from voice_tts.protocol import AudioChunk, Done, Error, ErrorCode
from voice_tts.bench.deltas import deltas_for

SAMPLE_RATE = 24000
# Replies of a voice agent: numbers, dates, times and symbols, so that the server's text
# normalization is part of what is measured.
BUILT_IN_TEXTS = (
    "Thanks for calling. Your order shipped this morning and should arrive on Friday; I can also "
    "text you the tracking link if that helps.",
    "Sure, I've booked a table for 4 at 7:30 pm on March 3rd. The deposit is $25, refundable up "
    "to 24 hours before.",
    "The weather today is sunny with a high of 72 degrees, and there's a 10% chance of rain "
    "this evening, so you won't need an umbrella.",
    "Your balance is $1,284.50. The last payment of $120 was received on the 2nd, and the next "
    "one is due in 12 days.",
)


def read_texts(path: Path) -> list[str]:
    """One text per paragraph (blank lines separate them)."""
    paragraphs = [" ".join(p.split()) for p in path.read_text(encoding="utf-8").split("\n\n")]
    texts = [p for p in paragraphs if p]
    if not texts:
        raise ValueError(f"{path} holds no text")
    return texts


@dataclass
class TurnOutcome:
    timing: StreamTiming
    error: str | None = None  # the error code, when the turn failed


@dataclass
class SweepSettings:
    concurrency: list[int]
    turns: int = 2
    tokens_per_second: float = 30.0
    deltas: str = "llm"  # voice_tts.bench.deltas.DELTA_KINDS
    texts: tuple[str, ...] = BUILT_IN_TEXTS
    voice: str | None = None
    language: str | None = None
    spread: float = 1.0  # seconds over which a level's clients start
    seed: int = 0


async def speak_turn(
    engine: RemoteEngine, text: str, settings: SweepSettings, seed: int
) -> TurnOutcome:
    stream = engine.open_stream(
        voice=settings.voice, language=settings.language, sample_rate=SAMPLE_RATE, normalize=True
    )
    timing = StreamTiming(sample_rate=SAMPLE_RATE)
    outcome = TurnOutcome(timing)

    async def feed() -> None:
        period = 1.0 / settings.tokens_per_second
        began = time.perf_counter()
        for index, delta in enumerate(deltas_for(settings.deltas, text, seed)):
            delay = began + index * period - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if timing.first_text_at is None:
                timing.first_text_at = time.perf_counter()
            stream.push_text(delta)
        stream.end_input()

    feeder = asyncio.create_task(feed())
    try:
        async for event in stream.events():
            if isinstance(event, AudioChunk):
                timing.chunk(time.perf_counter(), event.start_sample, event.num_samples)
            elif isinstance(event, Error):
                outcome.error = outcome.error or event.code
                # A refused or failed turn takes no more text.
                feeder.cancel()
            elif isinstance(event, Done):
                break
    finally:
        feeder.cancel()
    return outcome


async def run_level(
    engine: RemoteEngine,
    settings: SweepSettings,
    concurrency: int,
    on_turn: Callable[[], None] = lambda: None,
) -> dict:
    rng = random.Random(settings.seed * 1000 + concurrency)
    texts = settings.texts

    async def client(index: int, delay: float) -> list[TurnOutcome]:
        await asyncio.sleep(delay)
        outcomes = []
        for turn in range(settings.turns):
            number = index * settings.turns + turn
            outcomes.append(await speak_turn(engine, texts[number % len(texts)], settings, number))
            on_turn()
        return outcomes

    spread = settings.spread if concurrency > 1 else 0.0
    delays = [rng.uniform(0, spread) for _ in range(concurrency)]
    began = time.perf_counter()
    results = await asyncio.gather(*(client(i, d) for i, d in enumerate(delays)))
    wall = time.perf_counter() - began
    outcomes = [outcome for per_client in results for outcome in per_client]
    served = [o.timing.figures() for o in outcomes if o.error is None]
    errors = collections.Counter(o.error for o in outcomes if o.error is not None)
    return {
        "concurrency": concurrency,
        "turns": len(outcomes),
        "completed": len(served),
        **summarize(served, wall),
        "capacity_refusals": errors.pop(ErrorCode.CAPACITY, 0),
        "errors": sum(errors.values()),
        "errors_by_code": dict(errors),
        "wall_seconds": round(wall, 2),
    }


async def run_sweep(
    engine: RemoteEngine, settings: SweepSettings, on_turn: Callable[[], None] = lambda: None
) -> list[dict]:
    return [await run_level(engine, settings, c, on_turn) for c in settings.concurrency]


def conditions(settings: SweepSettings, url: str, capabilities: dict | None) -> dict:
    return {
        "url": url,
        "backend": capabilities.get("backend") if capabilities else None,
        "model": capabilities.get("model") if capabilities else None,
        "server_capacity": capabilities.get("capacity") if capabilities else None,
        "voice": settings.voice,
        "language": settings.language,
        "tokens_per_second": settings.tokens_per_second,
        "deltas": settings.deltas,
        "turns_per_client": settings.turns,
        "texts": len(settings.texts),
        "start_spread_s": settings.spread,
        "sample_rate": SAMPLE_RATE,
        "ttfa_from": "the first text delta sent by the client",
        "playout": "real time from the first chunk's arrival, no jitter buffer",
    }


def format_table(levels: list[dict]) -> str:
    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.0f}"

    header = ("concurrency", "turns", "TTFA p50 ms", "TTFA p99 ms", "underruns", "RTF p50")
    rows = [header + ("errors", "capacity")]
    for level in levels:
        rows.append(
            (
                str(level["concurrency"]),
                str(level["turns"]),
                ms(level["ttfa_ms_p50"]),
                ms(level["ttfa_ms_p99"]),
                f"{level['streams_with_underruns']}/{level['completed']}",
                "-" if level["rtf_p50"] is None else f"{level['rtf_p50']:.3f}",
                str(level["errors"]),
                str(level["capacity_refusals"]),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in rows)
