"""A queue from any thread to one asyncio consumer on whatever event loop iterates it.

The producer (a synthesis thread) never blocks; the consumer's loop is found when it first
waits, so a stream can be opened in one place and consumed in another event loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


def _resolve(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


class EventChannel(Generic[T]):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: deque[T] = deque()
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future] | None = None

    def put(self, item: T) -> None:
        with self._lock:
            self._items.append(item)
        self.wake()

    def wake(self) -> None:
        """Make a waiting `get` look again (used when state beside the queue changed)."""
        with self._lock:
            waiter, self._waiter = self._waiter, None
        if waiter is not None:
            loop, future = waiter
            try:
                loop.call_soon_threadsafe(_resolve, future)
            except RuntimeError:  # the consumer's loop is closed: nobody is listening
                pass

    def get_nowait(self) -> T | None:
        with self._lock:
            return self._items.popleft() if self._items else None

    async def wait(self) -> None:
        """Return once an item is available or `wake` was called."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._items:
                return
            future = loop.create_future()
            self._waiter = (loop, future)
        await future

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
