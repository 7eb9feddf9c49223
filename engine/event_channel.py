"""A queue from any thread to one asyncio consumer on whatever event loop iterates it.

The producer (the step loop, a synthesis thread) never blocks; the consumer's loop is found when
it first waits, so a stream can be opened in one place and consumed in another event loop.
Producers fill hundreds of channels per iteration: the consumers of one event loop that became
ready since its last wake-up are woken by one cross-thread call (`_Waker`), not one call (and
one self-pipe write) per channel; a producer that fills many channels at once can also take
their waiters and wake them together (`wake_all`). Subclasses account for what passes through (`_added`,
`_taken`, under the channel's lock).
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections import deque
from typing import Generic, Sequence, TypeVar

T = TypeVar("T")


class _Waker:
    """Resolves the waiting consumers' futures of one event loop from other threads."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = weakref.ref(loop)  # weak: the registry below is keyed by the loop
        self._lock = threading.Lock()
        self._ready: list[asyncio.Future] = []

    def wake(self, future: asyncio.Future) -> None:
        self.wake_many([future])

    def wake_many(self, futures: list[asyncio.Future]) -> None:
        with self._lock:
            self._ready.extend(futures)
            if len(self._ready) > len(futures):
                return  # a call is already on its way
        loop = self._loop()
        try:
            if loop is None:
                raise RuntimeError("event loop is gone")
            loop.call_soon_threadsafe(self._resolve_all)
        except RuntimeError:  # the consumer's loop is closed: nobody is listening
            with self._lock:
                self._ready.clear()

    def _resolve_all(self) -> None:
        with self._lock:
            ready, self._ready = self._ready, []
        for future in ready:
            if not future.done():
                future.set_result(None)


Waiter = tuple[_Waker, asyncio.Future]


def wake_all(waiters: list[Waiter]) -> None:
    """Wake the consumers of `waiters` (taken from channels filled without waking, as
    `StreamChannel.put_chunk` fills them): one lock and at most
    one cross-thread call per event loop, however many channels were filled."""
    by_waker: dict[_Waker, list[asyncio.Future]] = {}
    for waker, future in waiters:
        by_waker.setdefault(waker, []).append(future)
    for waker, futures in by_waker.items():
        waker.wake_many(futures)


_wakers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Waker] = weakref.WeakKeyDictionary()
_wakers_lock = threading.Lock()


def _waker(loop: asyncio.AbstractEventLoop) -> _Waker:
    with _wakers_lock:
        waker = _wakers.get(loop)
        if waker is None:
            waker = _wakers[loop] = _Waker(loop)
        return waker


class EventChannel(Generic[T]):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: deque[T] = deque()
        self._waiter: tuple[_Waker, asyncio.Future] | None = None

    def put(self, item: T) -> None:
        self.put_many((item,))

    def put_many(self, items: Sequence[T]) -> None:
        """Queue `items` in order; their consumer wakes once for all of them."""
        if not items:
            return
        with self._lock:
            self._items.extend(items)
            self._added(items)
            waiter, self._waiter = self._waiter, None
        if waiter is not None:
            waiter[0].wake(waiter[1])

    def wake(self) -> None:
        """Make a waiting `get` look again (used when state beside the queue changed)."""
        with self._lock:
            waiter, self._waiter = self._waiter, None
        if waiter is not None:
            waiter[0].wake(waiter[1])

    def get_nowait(self) -> T | None:
        with self._lock:
            if not self._items:
                return None
            item = self._items.popleft()
            self._taken(item)
            return item

    async def wait(self) -> None:
        """Return once an item is available or `wake` was called."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._items:
                return
            future = loop.create_future()
            self._waiter = (_waker(loop), future)
        await future

    async def get(self) -> T:
        while True:
            item = self.get_nowait()
            if item is not None:
                return item
            await self.wait()

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def _added(self, items: Sequence[T]) -> None:
        """`items` were just queued (under the lock)."""

    def _taken(self, item: T) -> None:
        """`item` was just taken from the queue (under the lock)."""
