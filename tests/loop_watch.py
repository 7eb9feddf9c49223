"""How long code on the event loop holds it: a heartbeat task wakes every millisecond, and the
longest gap between its turns is measured in the loop thread's CPU time, so that other
processes on a loaded machine do not count. The garbage collector is off while watching: its
pauses belong to the whole process (they grow with everything alive in it), not to the code
under test."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import AsyncIterator


class LoopWatch:
    def __init__(self) -> None:
        self.longest_cpu = 0.0  # seconds of loop-thread CPU between two heartbeats
        self.longest_wall = 0.0

    async def _beat(self) -> None:
        while True:
            wall, cpu = time.perf_counter(), time.thread_time()
            await asyncio.sleep(0.001)
            self.longest_cpu = max(self.longest_cpu, time.thread_time() - cpu)
            self.longest_wall = max(self.longest_wall, time.perf_counter() - wall - 0.001)


@contextlib.asynccontextmanager
async def watch_loop() -> AsyncIterator[LoopWatch]:
    watch = LoopWatch()
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()
    beat = asyncio.create_task(watch._beat())
    try:
        await asyncio.sleep(0)
        yield watch
    finally:
        beat.cancel()
        if collecting:
            gc.enable()
