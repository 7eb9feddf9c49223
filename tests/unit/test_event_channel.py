"""Channels that share a mailbox: the producer hands over one record per batch, the consumers'
event loops split it, and every channel gets its items in order, wherever it is consumed."""

from __future__ import annotations

import asyncio
import threading

import numpy as np

from engine.event_channel import EventChannel, Mailbox


def consume(channel: EventChannel, count: int, got: list, started: threading.Event) -> threading.Thread:
    """Read `count` items from `channel` on an event loop of a thread of its own."""

    async def read() -> None:
        started.set()
        for _ in range(count):
            got.append(await asyncio.wait_for(channel.get(), timeout=10))

    thread = threading.Thread(target=lambda: asyncio.run(read()))
    thread.start()
    return thread


def test_records_posted_for_many_channels_reach_consumers_on_two_event_loops_in_order():
    mailbox = Mailbox()
    channels = [EventChannel(mailbox) for _ in range(4)]
    got: list[list] = [[] for _ in channels]
    batches = 50
    threads = []
    for channel, into in zip(channels, got):
        started = threading.Event()
        threads.append(consume(channel, batches + 1, into, started))
        started.wait()
    for batch in range(batches):  # the producer: one record per batch for every channel
        mailbox.post(np.array(channels, dtype=object), [(i, batch) for i in range(len(channels))])
    for i, channel in enumerate(channels):
        channel.put((i, "end"))  # after what the mailbox holds for it
    for thread in threads:
        thread.join(timeout=20)
        assert not thread.is_alive()
    for i, items in enumerate(got):
        assert items == [(i, batch) for batch in range(batches)] + [(i, "end")]


def test_a_channel_read_without_waiting_takes_what_the_mailbox_holds():
    mailbox = Mailbox()
    first, second = EventChannel(mailbox), EventChannel(mailbox)
    mailbox.post([first, second, first], ["a", "b", "c"])
    assert [first.get_nowait(), first.get_nowait(), first.get_nowait()] == ["a", "c", None]
    assert second.get_nowait() == "b"
