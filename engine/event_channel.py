"""A queue from any thread to one asyncio consumer on whatever event loop iterates it.

The producer (the step loop, a synthesis thread) never blocks; the consumer's loop is found when
it first waits, so a stream can be opened in one place and consumed in another event loop.
Producers fill hundreds of channels per iteration: the consumers of one event loop that became
ready since its last wake-up are woken by one cross-thread call (`_Waker`), not one call (and
one self-pipe write) per channel. Channels that share a `Mailbox` go further: the producer
hands over one record per batch (the step loop's iteration) for all of them, and the record is
split into the channels on their consumers' side. Subclasses account for what passes through
(`_added`, `_taken`, under the channel's lock).
"""

from __future__ import annotations

import asyncio
import functools
import threading
import weakref
from collections import deque
from typing import Callable, Generic, Protocol, Sequence, TypeVar

T = TypeVar("T")


class _Waker:
    """Resolves the waiting consumers' futures of one event loop from other threads."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = weakref.ref(loop)  # weak: the registry below is keyed by the loop
        self._lock = threading.Lock()
        self._ready: list[asyncio.Future] = []

    def wake(self, future: asyncio.Future) -> None:
        self.wake_many([future])

    def call(self, callback: Callable[[], None]) -> bool:
        """Run `callback` on the event loop; False if the loop is gone or closed."""
        loop = self._loop()
        if loop is None:
            return False
        try:
            loop.call_soon_threadsafe(callback)
        except RuntimeError:  # closed
            return False
        return True

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
    """Wake the consumers of `waiters` (taken from channels filled without waking, as a
    `Mailbox` fills them): one lock and at most one cross-thread call per event loop, however
    many channels were filled."""
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


class Mailbox:
    """Items for many channels, handed over by a producer as one record per batch and split
    into the channels on their consumers' side. Per batch the producer takes one lock and makes
    one cross-thread call per event loop its channels' consumers wait on, however many channels
    the record fills; queueing each item and waking each consumer runs on one of those event
    loops (the first to get to it), or in a consumer that looks for its items. One split at a
    time, so every channel gets its items in the order they were posted."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[tuple[Sequence[EventChannel], Sequence]] = []
        self._loops: dict[_Waker, bool] = {}  # consumers' event loops -> a split is on its way there
        self._splitting = threading.Lock()

    def post(self, channels: Sequence[EventChannel], items: Sequence) -> None:
        """Queue `items[i]` into `channels[i]` (a channel may come more than once: its items in
        order); from any thread, never blocking."""
        with self._lock:
            self._pending.append((channels, items))
            calling = [waker for waker, on_its_way in self._loops.items() if not on_its_way]
            for waker in calling:
                self._loops[waker] = True
        for waker in calling:
            if not waker.call(functools.partial(self._split_on, waker)):
                with self._lock:  # nobody listens there any more
                    self._loops.pop(waker, None)

    def listen(self, waker: _Waker) -> None:
        """A consumer waits on `waker`'s event loop: records posted from now on are split there."""
        with self._lock:
            self._loops.setdefault(waker, False)

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def _split_on(self, waker: _Waker) -> None:
        with self._lock:
            if waker in self._loops:
                self._loops[waker] = False
        self.split()

    def split(self) -> None:
        """Queue the posted records' items into their channels and wake their consumers."""
        waiters = []
        with self._splitting:
            with self._lock:
                pending, self._pending = self._pending, []
            for channels, items in pending:
                for channel, item in zip(channels, items):
                    waiter = channel._queue(item)
                    if waiter is not None:
                        waiters.append(waiter)
        wake_all(waiters)


class Sink(Protocol):
    """Where a producer posts the items of many channels in one call (a channel's `sink`): a
    `Mailbox`, `Direct`, or the engine core's outbox to an API worker."""

    def post(self, channels: Sequence, items: Sequence) -> None: ...


class Direct:
    """Items put into each channel at once: the producer's `post` for channels of no mailbox."""

    @staticmethod
    def post(channels: Sequence[EventChannel], items: Sequence) -> None:
        for channel, item in zip(channels, items):
            channel.put(item)


class EventChannel(Generic[T]):
    def __init__(self, mailbox: Mailbox | None = None) -> None:
        self._lock = threading.Lock()
        self._items: deque[T] = deque()
        self._waiter: tuple[_Waker, asyncio.Future] | None = None
        self._mailbox = mailbox  # where its items come through, if it shares one

    @property
    def sink(self) -> Sink:
        """Where a producer filling many channels at once posts this one's items."""
        return Direct if self._mailbox is None else self._mailbox

    def put(self, item: T) -> None:
        self.put_many((item,))

    def put_many(self, items: Sequence[T]) -> None:
        """Queue `items` in order; their consumer wakes once for all of them."""
        if not items:
            return
        if self._mailbox is not None:  # behind what the mailbox holds for it
            self._mailbox.post([self] * len(items), items)
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

    def _queue(self, item: T) -> Waiter | None:
        """Queue `item` without waking the consumer: its waiter, to wake (a mailbox's split)."""
        with self._lock:
            self._items.append(item)
            self._added((item,))
            waiter, self._waiter = self._waiter, None
        return waiter

    def get_nowait(self) -> T | None:
        if self._mailbox is not None and self._mailbox.pending:
            self._mailbox.split()
        with self._lock:
            if not self._items:
                return None
            item = self._items.popleft()
            self._taken(item)
            return item

    async def wait(self) -> None:
        """Return once an item is available or `wake` was called."""
        loop = asyncio.get_running_loop()
        if self._mailbox is not None:
            self._mailbox.listen(_waker(loop))
            if self._mailbox.pending:
                self._mailbox.split()
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
