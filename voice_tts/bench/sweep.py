"""`voice-tts bench`: load a running server the way voice agents do and measure it.

At each concurrency level, that many clients start within `spread` seconds of each other; each
speaks `turns` turns one after another, its text streamed as LLM token deltas at
`tokens_per_second` (`deltas`: cut as an LLM's tokenizer cuts it, or in 1-3 characters) over
`/v1/ws` (the server normalizes, as a thin client would ask), its audio in `format` (24 kHz
s16le, or G.711 at the telephone's 8 kHz, which the server encodes). Every turn's audio is timed as
it arrives (`voice_tts.bench.metrics`): TTFA from the first text delta sent, underruns under
real-time playout, RTF. Turns the server refuses for lack of a stream slot (after
`RemoteEngine`'s own retries of a refused start, a quarter of a second) count as `capacity`
refusals; other failures as errors. Every wait is bounded: a turn without `Done`
within `turn_timeout` seconds is cancelled and counted as a `turn_timeout` error, so a stuck
server shows in the results instead of holding the sweep.

A level's clients may be spread over several client processes (`voice_tts.bench.processes`):
each runs its share (`run_level_share`), and `merge_level` makes one level of the shares, with
each process's CPU time, so that a client process that is the bound shows.

Each process's `RemoteEngine` carries up to `contexts_per_socket` turns on one socket
(docs/protocol.md, "Contexts"); a level reports the most sockets its clients had open at once,
and, given the server's process id (a server on this machine), the CPU the server spent on it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import random
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from voice_tts.bench.metrics import StreamTiming, summarize
from voice_tts.bench.server_cpu import server_process_cpu_seconds
from voice_tts.client import RemoteEngine
from voice_tts.protocol import AudioChunk, Done, Error, ErrorCode
from voice_tts.bench.deltas import deltas_for, push_at_pace

SAMPLE_RATE = 24000
G711_SAMPLE_RATE = 8000
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
    # Why a `capacity` refusal came (slots, KV room, real-time headroom): the message without
    # its numbers, so a level's refusals count by cause.
    refusal: str | None = None


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
    turn_timeout: float = 120.0  # seconds a turn may take from its start to `Done`
    contexts_per_socket: int = 1  # turns one socket of a client process carries
    server_pid: int | None = None  # a server on this machine, whose CPU each level reports
    format: str = "pcm16"  # the audio's encoding on the wire (`voice_tts.request.AUDIO_FORMATS`)

    @property
    def sample_rate(self) -> int:
        return SAMPLE_RATE if self.format == "pcm16" else G711_SAMPLE_RATE


# How often a level samples its client processes' open sockets (for the peak it reports).
SOCKET_SAMPLE_S = 0.05


# The error code of a turn that got no `Done` within `SweepSettings.turn_timeout`.
TURN_TIMEOUT = "turn_timeout"


async def speak_turn(
    engine: RemoteEngine, text: str, settings: SweepSettings, seed: int
) -> TurnOutcome:
    stream = engine.open_stream(
        voice=settings.voice,
        language=settings.language,
        sample_rate=settings.sample_rate,
        format=settings.format,
        normalize=True,
    )
    timing = StreamTiming(sample_rate=settings.sample_rate)
    outcome = TurnOutcome(timing)

    def first_pushed(index: int) -> None:
        if index == 0:
            timing.first_text_at = time.perf_counter()

    deltas = deltas_for(settings.deltas, text, seed)
    feeder = asyncio.create_task(push_at_pace(stream, deltas, settings.tokens_per_second, first_pushed))
    try:
        async with asyncio.timeout(settings.turn_timeout):
            # Closed here, not whenever the garbage collector gets to it: the socket goes back
            # to the pool before the client's next turn asks for one.
            async with contextlib.aclosing(stream.events()) as events:
                async for event in events:
                    if isinstance(event, AudioChunk):
                        timing.chunk(time.perf_counter(), event.start_sample, event.num_samples)
                    elif isinstance(event, Error):
                        if outcome.error is None and event.code == ErrorCode.CAPACITY:
                            outcome.refusal = refusal_cause(event.message)
                        outcome.error = outcome.error or event.code
                        # A refused or failed turn takes no more text; an error that did not
                        # end the turn would leave its input open, and the turn would wait for
                        # text: the cancel ends it.
                        feeder.cancel()
                        stream.cancel()
                    elif isinstance(event, Done):
                        break
    except TimeoutError:
        outcome.error = TURN_TIMEOUT
    finally:
        feeder.cancel()
    return outcome


def refusal_cause(message: str) -> str:
    """'no KV cache room for another stream beside 812' -> 'no KV cache room for another stream beside N'."""
    return re.sub(r"\d+", "N", message)


@dataclass
class LevelShare:
    """What one client process measured of one level: its clients' turns, the wall time from
    the level's start to its last turn's end, and the process's CPU time meanwhile."""

    concurrency: int
    clients: int
    outcomes: list[TurnOutcome]
    wall_seconds: float
    cpu_user_seconds: float
    cpu_system_seconds: float
    peak_sockets: int = 0
    # The server's CPU seconds over the level, each process's (role, seconds) by pid (measured by
    # share 0, given `server_pid`).
    server_processes: dict[int, tuple[str, float]] | None = None


async def run_level_share(
    engine: RemoteEngine,
    settings: SweepSettings,
    concurrency: int,
    on_turn: Callable[[], None] = lambda: None,
    share: int = 0,
    shares: int = 1,
) -> LevelShare:
    """Clients `share`, `share + shares`, ... of the level's `concurrency`; every share draws
    the same start delays, so a level spread over processes starts as it would in one."""
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

    peak_sockets = 0

    async def count_sockets() -> None:
        nonlocal peak_sockets
        while True:
            peak_sockets = max(peak_sockets, engine.open_sockets)
            await asyncio.sleep(SOCKET_SAMPLE_S)

    measures_server = settings.server_pid is not None and share == 0
    spread = settings.spread if concurrency > 1 else 0.0
    delays = [rng.uniform(0, spread) for _ in range(concurrency)]
    mine = list(range(share, concurrency, shares))
    server_before = server_process_cpu_seconds(settings.server_pid) if measures_server else None
    cpu_before = os.times()
    began = time.perf_counter()
    sampler = asyncio.create_task(count_sockets())
    try:
        results = await asyncio.gather(*(client(i, delays[i]) for i in mine))
    finally:
        sampler.cancel()
    wall = time.perf_counter() - began
    cpu_after = os.times()
    server_processes = None
    if measures_server:
        server_processes = {
            pid: (role, seconds - server_before.get(pid, (role, 0.0))[1])
            for pid, (role, seconds) in server_process_cpu_seconds(settings.server_pid).items()
        }
    return LevelShare(
        concurrency=concurrency,
        clients=len(mine),
        outcomes=[outcome for per_client in results for outcome in per_client],
        wall_seconds=wall,
        cpu_user_seconds=cpu_after.user - cpu_before.user,
        cpu_system_seconds=cpu_after.system - cpu_before.system,
        peak_sockets=peak_sockets,
        server_processes=server_processes,
    )


def merge_level(shares: list[LevelShare]) -> dict:
    """One level's figures from its client processes' shares (the level's wall time: the
    longest share's), and each process's CPU use."""
    concurrency = shares[0].concurrency
    wall = max(share.wall_seconds for share in shares)
    outcomes = [outcome for share in shares for outcome in share.outcomes]
    served = [o.timing.figures() for o in outcomes if o.error is None]
    errors = collections.Counter(o.error for o in outcomes if o.error is not None)
    processes = shares[0].server_processes
    server_cpu = None if processes is None else sum(seconds for _, seconds in processes.values())
    return {
        "concurrency": concurrency,
        # The most sockets open at once (the sum of each process's peak).
        "sockets": sum(share.peak_sockets for share in shares),
        "turns": len(outcomes),
        "completed": len(served),
        **summarize(served, wall),
        "capacity_refusals": errors.pop(ErrorCode.CAPACITY, 0),
        "capacity_refusals_by_cause": dict(collections.Counter(o.refusal for o in outcomes if o.refusal)),
        "errors": sum(errors.values()),
        "errors_by_code": dict(errors),
        "wall_seconds": round(wall, 2),
        "server_cpu_seconds": None if server_cpu is None else round(server_cpu, 2),
        # Of one core: above 100 the server used several.
        "server_cpu_percent_of_wall": None if server_cpu is None else round(100 * server_cpu / wall, 1),
        # Each server process's share of one core, busiest first: the engine core and every API
        # worker (a worker near 100 bounds the server whatever the engine could take).
        "server_processes": None if processes is None else [
            {"pid": pid, "role": role, "cpu_percent_of_wall": round(100 * seconds / wall, 1)}
            for pid, (role, seconds) in sorted(processes.items(), key=lambda item: -item[1][1])
        ],
        "client_processes": [client_cpu(share) for share in shares],
    }


def client_cpu(share: LevelShare) -> dict:
    cpu = share.cpu_user_seconds + share.cpu_system_seconds
    return {
        "clients": share.clients,
        "cpu_user_seconds": round(share.cpu_user_seconds, 2),
        "cpu_system_seconds": round(share.cpu_system_seconds, 2),
        # Of one core: near 100 the process, not the server, bounds what it measures.
        "cpu_percent_of_wall": round(100 * cpu / share.wall_seconds, 1) if share.wall_seconds else None,
    }


async def run_level(
    engine: RemoteEngine,
    settings: SweepSettings,
    concurrency: int,
    on_turn: Callable[[], None] = lambda: None,
) -> dict:
    return merge_level([await run_level_share(engine, settings, concurrency, on_turn)])


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
        "turn_timeout_s": settings.turn_timeout,
        "contexts_per_socket": settings.contexts_per_socket,
        "sample_rate": settings.sample_rate,
        "format": settings.format,
        "ttfa_from": "the first text delta sent by the client",
        "playout": "real time from the first chunk's arrival, no jitter buffer",
    }


def format_table(levels: list[dict]) -> str:
    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.0f}"

    header = ("concurrency", "sockets", "turns", "TTFA p50 ms", "TTFA p99 ms", "underruns", "RTF p50")
    rows = [header + ("errors", "capacity", "server CPU %")]
    for level in levels:
        server_cpu = level.get("server_cpu_percent_of_wall")
        rows.append(
            (
                str(level["concurrency"]),
                str(level["sockets"]),
                str(level["turns"]),
                ms(level["ttfa_ms_p50"]),
                ms(level["ttfa_ms_p99"]),
                f"{level['streams_with_underruns']}/{level['completed']}",
                "-" if level["rtf_p50"] is None else f"{level['rtf_p50']:.3f}",
                str(level["errors"]),
                str(level["capacity_refusals"]),
                "-" if server_cpu is None else f"{server_cpu:g}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in rows)


def format_client_cpu(levels: list[dict]) -> str:
    """Per level, the busiest client process's CPU (of one core): near 100 % the client, not
    the server, bounds the level."""
    lines = []
    for level in levels:
        busiest = max(level["client_processes"], key=lambda p: p["cpu_percent_of_wall"] or 0)
        lines.append(
            f"client CPU    {level['concurrency']} clients in {len(level['client_processes'])} "
            f"process(es): busiest {busiest['cpu_percent_of_wall']} % of a core"
        )
    return "\n".join(lines)


def format_context_ratios(runs: list[dict]) -> str:
    """Each run's levels beside the first run's (another `contexts_per_socket`): sockets,
    server CPU and TTFA p99 as ratios, level by level."""
    first = runs[0]
    lines = []
    for run in runs[1:]:
        for base, level in zip(first["levels"], run["levels"]):
            ratios = []
            for name, key in (("sockets", "sockets"), ("server CPU", "server_cpu_seconds"), ("TTFA p99", "ttfa_ms_p99")):
                if base.get(key) and level.get(key) is not None:
                    ratios.append(f"{name} {level[key] / base[key]:.3g}x")
            lines.append(
                f"{run['contexts_per_socket']} vs {first['contexts_per_socket']} contexts per socket, "
                f"{level['concurrency']} clients: " + ", ".join(ratios)
            )
    return "\n".join(lines)
