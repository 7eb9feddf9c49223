"""`voice-tts bench --processes N`: a sweep's clients spread over N client processes.

One Python process drives only so many clients before its own event loop, not the server, sets
the TTFA it measures. Here every level's clients are dealt round-robin to N processes (client
`i` to process `i % N`, each with the start delay it would have in one process); the processes
start each level together (a barrier) and send back their turns and CPU time, which
`merge_level` makes into one level. Nothing waits without a bound: a process that dies or stops
answering ends the sweep with `ClientProcessError`.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import queue
import threading
import time
import traceback
from typing import Callable

from voice_tts.bench.sweep import LevelShare, SweepSettings, merge_level, run_level_share
from voice_tts.client import RemoteEngine

# Beyond a level's own bound (each client's turns one after another, each within the turn
# timeout): starting the processes, their imports and sockets.
SLACK_S = 60.0


class ClientProcessError(Exception):
    """A client process failed or stopped answering."""


def level_bound(settings: SweepSettings) -> float:
    """Seconds a level may take at most."""
    return settings.spread + settings.turns * settings.turn_timeout + SLACK_S


def run_sweep_in_processes(
    url: str,
    api_key: str | None,
    settings: SweepSettings,
    processes: int,
    on_turn: Callable[[], None] = lambda: None,
) -> list[dict]:
    """The sweep's levels, each merged from `processes` client processes (spawned: each starts
    with a fresh interpreter and its own event loop)."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(processes)
    reports = context.Queue()
    workers = [
        context.Process(
            target=client_process,
            args=(url, api_key, settings, index, processes, barrier, reports),
            name=f"voice-tts-bench-{index}",
            daemon=True,
        )
        for index in range(processes)
    ]
    for worker in workers:
        worker.start()
    try:
        levels = []
        for concurrency in settings.concurrency:
            shares = collect_level(reports, workers, level_bound(settings), on_turn)
            levels.append(merge_level([shares[index] for index in range(processes)]))
        return levels
    finally:
        barrier.abort()  # frees a process still waiting for a level that will not come
        for worker in workers:
            worker.join(timeout=5)
            if worker.is_alive():
                worker.terminate()
                worker.join(timeout=5)


def collect_level(
    reports: multiprocessing.Queue,
    workers: list[multiprocessing.Process],
    bound: float,
    on_turn: Callable[[], None],
) -> dict[int, LevelShare]:
    """Every process's share of the next level (ticks of finished turns go to `on_turn`)."""
    shares: dict[int, LevelShare] = {}
    deadline = time.monotonic() + bound
    while len(shares) < len(workers):
        if time.monotonic() > deadline:
            raise ClientProcessError(f"client processes sent no result within {bound:g} s")
        try:
            kind, index, payload = reports.get(timeout=1.0)
        except queue.Empty:
            for index, worker in enumerate(workers):
                # A process exits once it has sent its share of the last level.
                if index not in shares and not worker.is_alive():
                    raise ClientProcessError(
                        f"client process {worker.name} exited ({worker.exitcode})"
                    ) from None
            continue
        if kind == "turn":
            on_turn()
        elif kind == "level":
            shares[index] = payload
        else:
            raise ClientProcessError(f"client process {index} failed:\n{payload}")
    return shares


def client_process(
    url: str,
    api_key: str | None,
    settings: SweepSettings,
    index: int,
    processes: int,
    barrier: threading.Barrier,
    reports: multiprocessing.Queue,
) -> None:
    """One client process: its share of every level, each started with the others'."""

    async def run_shares() -> None:
        # Sockets carry over from level to level, as in one process.
        engine = RemoteEngine(url, api_key=api_key, contexts_per_socket=settings.contexts_per_socket)
        bound = level_bound(settings)
        try:
            for concurrency in settings.concurrency:
                await asyncio.to_thread(barrier.wait, bound)
                share = await run_level_share(
                    engine,
                    settings,
                    concurrency,
                    on_turn=lambda: reports.put(("turn", index, None)),
                    share=index,
                    shares=processes,
                )
                reports.put(("level", index, share))
        finally:
            await engine.aclose()

    try:
        asyncio.run(run_shares())
    except threading.BrokenBarrierError:
        pass  # the parent gave up on the sweep; it says why
    except BaseException:
        reports.put(("failed", index, traceback.format_exc()))
