"""The sockets a `RemoteEngine` keeps to one server, each carrying many turns as contexts
(docs/protocol.md, "Contexts"): connecting (every address of its host in turn), one socket per
server until `contexts_per_socket` turns share it, each socket's frames dealt to its contexts,
all bound to the event loop that opened them; once warm, the sockets follow whether the server
can be reached, reconnecting with backoff while it is away."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import errno
import itertools
import logging
import socket

from pydantic import BaseModel, ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.protocol import State
from websockets.uri import parse_uri

from voice_tts.protocol import CancelMessage, ErrorCode, server_message_adapter, unframe_audio

logger = logging.getLogger(__name__)

# Close codes the server uses for a missing / wrong API key.
CLOSE_CODE_ERRORS = {4401: ErrorCode.UNAUTHORIZED, 4403: ErrorCode.FORBIDDEN}
# Audio frames can hold seconds of PCM; far above the server's client-message limit.
MAX_FRAME_BYTES = 16 * 1024 * 1024


# Sockets are pinged this often by the WebSocket layer; a dead one is dropped.
IDLE_PING_INTERVAL = 10.0
# A graceful close of a socket waits this long for the server's close frame.
CLOSE_TIMEOUT = 1.0
# Audio a context may hold unread (its turn's consumer fell behind) before the socket stops
# reading for it: bytes, several minutes of 24 kHz PCM.
MAX_UNREAD_BYTES = 16 * 1024 * 1024
# Reconnect delays of the warm pool while the server is away: doubling, capped low, since a
# server that comes back should serve the next turn (a refused connection costs nothing).
RECONNECT_DELAYS = (0.1, 0.2, 0.5, 1.0)
# Errors of a connection attempt to an address this machine cannot use at all (an IPv6
# `localhost` where IPv6 is off): beside refusals, they still mean nothing listens.
_UNUSABLE_ADDRESS_ERRNOS = frozenset({errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT, errno.ENETUNREACH})


async def _connect_tcp(url: str) -> socket.socket:
    """A TCP socket connected to the server of `url`, trying its host's addresses in turn.

    Raises `ConnectionRefusedError` when every address refused (or is one this machine cannot
    use) so that nothing listening is told apart from a passing fault however many addresses
    the host has: asyncio reports several failed addresses (`localhost` as 127.0.0.1 and ::1)
    as a plain `OSError`, which would be retried as if the server might still answer."""
    uri = parse_uri(url)
    loop = asyncio.get_running_loop()
    addresses = await loop.getaddrinfo(uri.host, uri.port, type=socket.SOCK_STREAM)
    errors: list[OSError] = []
    for family, kind, proto, _, address in addresses:
        tcp = socket.socket(family, kind, proto)
        try:
            tcp.setblocking(False)
            await loop.sock_connect(tcp, address)
        except OSError as exc:
            tcp.close()
            errors.append(exc)
            continue
        except BaseException:
            tcp.close()
            raise
        return tcp
    if len(errors) == 1:
        raise errors[0]
    detail = "; ".join(map(str, errors))
    if any(isinstance(e, ConnectionRefusedError) for e in errors) and all(
        isinstance(e, ConnectionRefusedError) or e.errno in _UNUSABLE_ADDRESS_ERRNOS for e in errors
    ):
        raise ConnectionRefusedError(
            errno.ECONNREFUSED, f"every address of {uri.host}:{uri.port} refused: {detail}"
        )
    raise OSError(f"cannot connect to {uri.host}:{uri.port}: {detail}")


# What a context reads: audio bytes, a server message, or None for a frame it could not read.
Frame = bytes | BaseModel | None


class ContextChannel:
    """One turn's context on a shared socket: what `RemoteStream` sends and reads. Messages go
    out addressed to the context; the socket's reader files the frames that name it here."""

    def __init__(self, socket: ContextSocket, context_id: str) -> None:
        self.socket = socket
        self.context_id = context_id
        self._frames: collections.deque[Frame] = collections.deque()
        self._unread_bytes = 0
        self._arrived = asyncio.Event()
        self._closed: ConnectionClosed | None = None
        self.started = False  # the server opened the context

    async def send(self, message: BaseModel) -> None:
        """Raises `ConnectionClosed` once the socket is gone."""
        addressed = message.model_copy(update={"context_id": self.context_id})
        await self.socket.connection.send(addressed.model_dump_json())

    async def recv(self) -> Frame:
        """The next frame of this context; raises `ConnectionClosed` once the socket is gone
        and every frame that came before is read."""
        while not self._frames:
            if self._closed is not None:
                raise self._closed
            self._arrived.clear()
            await self._arrived.wait()
        frame = self._frames.popleft()
        if isinstance(frame, bytes):
            self._unread_bytes -= len(frame)
        return frame

    async def ping(self):
        return await self.socket.connection.ping()

    def mark_started(self) -> None:
        self.started = True

    def close(self) -> None:
        """The turn is over here: later frames for its context are dropped."""
        self.socket.forget(self)

    def deliver(self, frame: Frame) -> bool:
        """False when the turn's consumer has left too much audio unread."""
        if isinstance(frame, bytes):
            if self._unread_bytes + len(frame) > MAX_UNREAD_BYTES:
                return False
            self._unread_bytes += len(frame)
        self._frames.append(frame)
        self._arrived.set()
        return True

    def lost(self, closed: ConnectionClosed) -> None:
        self._closed = closed
        self._arrived.set()


class ContextSocket:
    """A socket carrying contexts: one reader deals its frames to them by context id."""

    def __init__(self, connection: ClientConnection, capacity: int, on_closed, on_idle) -> None:
        self.connection = connection
        self._on_idle = on_idle
        # Contexts it may carry; lowered when the server refuses one more (`too_many_contexts`).
        self.capacity = capacity
        self._channels: dict[str, ContextChannel] = {}
        self._ids = itertools.count(1)
        self._reader = asyncio.get_running_loop().create_task(self._read(on_closed))

    @property
    def open(self) -> bool:
        return self.connection.state is State.OPEN

    @property
    def contexts(self) -> int:
        return len(self._channels)

    @property
    def started_contexts(self) -> int:
        return sum(channel.started for channel in self._channels.values())

    def has_room(self) -> bool:
        return self.open and len(self._channels) < self.capacity

    def channel(self) -> ContextChannel:
        channel = ContextChannel(self, f"t{next(self._ids)}")
        self._channels[channel.context_id] = channel
        return channel

    def forget(self, channel: ContextChannel) -> None:
        if self._channels.get(channel.context_id) is channel:
            del self._channels[channel.context_id]
            if not self._channels:
                self._on_idle(self)

    async def _read(self, on_closed) -> None:
        connection = self.connection
        try:
            async for frame in connection:
                if isinstance(frame, bytes):
                    if len(frame) < 1:
                        continue
                    context_id, audio = unframe_audio(frame)
                    item: Frame = audio
                else:
                    try:
                        item = server_message_adapter.validate_json(frame)
                    except ValidationError:
                        continue  # nothing a context can be told of: no id to address it
                    context_id = item.context_id
                channel = self._channels.get(context_id)
                if channel is not None and not channel.deliver(item):
                    # Its consumer stopped reading: the turn ends at the server, not the socket.
                    self.forget(channel)
                    channel.lost(ConnectionClosed(None, None))
                    asyncio.get_running_loop().create_task(self._cancel(context_id))
        except ConnectionClosed:
            pass
        finally:
            if connection.state is State.CLOSED:
                # How it closed (a normal close ends the iteration without raising).
                closed = connection.protocol.close_exc
            else:  # the reader failed: no context on this socket can be served any more
                logger.exception("reading a server's socket failed")
                connection.transport.abort()
                closed = ConnectionClosed(None, None)
            for channel in list(self._channels.values()):
                channel.lost(closed)
            self._channels.clear()
            on_closed(self)

    async def _cancel(self, context_id: str) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.connection.send(CancelMessage(context_id=context_id).model_dump_json())

    def drop(self) -> None:
        """Close at once, without a close handshake (unread audio queued in front of the
        server's close frame would hold a graceful close for `close_timeout`)."""
        self.connection.transport.abort()

    async def close(self) -> None:
        await self.connection.close()
        await asyncio.gather(self._reader, return_exceptions=True)


class ContextSockets:
    """The sockets to one server, bound to the event loop that opened them: a turn takes a
    context on the first socket with room and a new socket opens only when none has.

    Once warm, they also follow whether the server can be reached: a warm socket that closes
    is replaced at once, so a server that dies is known to be unreachable as soon as its
    sockets close and the next connection is refused, and reachable again on the first
    connection that succeeds."""

    def __init__(self, url: str, headers: dict[str, str], contexts_per_socket: int, open_timeout: float) -> None:
        if contexts_per_socket < 1:
            raise ValueError(f"contexts_per_socket must be at least 1, got {contexts_per_socket!r}")
        self._url = url
        self._headers = headers
        self._contexts_per_socket = contexts_per_socket
        self._open_timeout = open_timeout
        self._sockets: list[ContextSocket] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._connecting: asyncio.Lock | None = None
        # Idle sockets being closed (held: the loop keeps only weak references to tasks).
        self._closing: set[asyncio.Task] = set()
        # Sockets kept open ahead of turns (set by `warm`); reopened in the background.
        self._warm = 0
        self._refill: asyncio.Task | None = None
        # Whether the last connection attempt succeeded (None: none yet); set on every change.
        self.reachable: bool | None = None
        self._reachability_changed = asyncio.Event()

    @property
    def open_sockets(self) -> int:
        return sum(carrier.open for carrier in self._sockets)

    def _bind(self) -> None:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            # Sockets of another (possibly finished) loop cannot be used here.
            self._sockets, self._loop, self._refill, self._closing = [], loop, None, set()
            self._connecting = asyncio.Lock()
            self.reachable, self._reachability_changed = None, asyncio.Event()

    async def wait_reachable(self, reachable: bool) -> None:
        self._bind()
        while self.reachable is not reachable:
            await self._reachability_changed.wait()

    def _note_reachable(self, reachable: bool) -> None:
        if reachable is not self.reachable:
            self.reachable = reachable
            changed, self._reachability_changed = self._reachability_changed, asyncio.Event()
            changed.set()

    async def _connect(self, open_timeout: float | None = None) -> ContextSocket:
        try:
            if open_timeout is None:
                open_timeout = self._open_timeout
            connection = await self._open(open_timeout)
        except (OSError, InvalidHandshake, TimeoutError):
            self._note_reachable(False)
            raise
        self._note_reachable(True)
        carrier = ContextSocket(connection, self._contexts_per_socket, self._closed, self._idle)
        self._sockets.append(carrier)
        return carrier

    async def _open(self, open_timeout: float) -> ClientConnection:
        """A socket with its WebSocket handshake done within `open_timeout` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + open_timeout
        try:
            async with asyncio.timeout_at(deadline):
                tcp = await _connect_tcp(self._url)
        except TimeoutError:
            raise TimeoutError(f"no TCP connection within {open_timeout:g} s") from None
        return await connect(
            self._url,
            sock=tcp,
            additional_headers=self._headers,
            open_timeout=max(deadline - loop.time(), 0.001),
            ping_interval=IDLE_PING_INTERVAL,
            ping_timeout=IDLE_PING_INTERVAL,
            close_timeout=CLOSE_TIMEOUT,
            max_size=MAX_FRAME_BYTES,
            compression=None,
            proxy=None,
        )

    async def channel(
        self, fresh: bool = False, open_timeout: float | None = None
    ) -> tuple[ContextChannel, bool]:
        """A context on an open socket (`fresh`: on a new one) and whether the socket was open
        before (it may have died unnoticed). A new socket must connect within `open_timeout`
        (None: the engine's); turns that need one at once share one connection attempt."""
        self._bind()
        if not fresh and (carrier := self._with_room()) is not None:
            return carrier.channel(), True
        async with self._connecting:
            if not fresh and (carrier := self._with_room()) is not None:
                return carrier.channel(), True
            carrier = await self._connect(open_timeout)
        return carrier.channel(), False

    def _with_room(self) -> ContextSocket | None:
        return next((carrier for carrier in self._sockets if carrier.has_room()), None)

    def refused_one_more(self, channel: ContextChannel) -> None:
        """The server refused `channel`'s context (`too_many_contexts`): its socket carries
        no more than the contexts the server has opened on it now."""
        carrier = channel.socket
        channel.close()
        carrier.capacity = max(1, carrier.started_contexts)

    def retire(self, channel: ContextChannel) -> None:
        """The server refused `channel`'s context because it is shutting down: its socket takes
        no new context (it closes once its running ones end)."""
        carrier = channel.socket
        channel.close()
        carrier.capacity = 0

    async def warm(self, count: int) -> None:
        """Open sockets until `count` are open and keep that many from now on; raises if the
        server cannot be reached (they go on trying in the background)."""
        self._bind()
        self._warm = max(self._warm, count)
        try:
            while self.open_sockets < self._warm:
                await self._connect()
        except (OSError, InvalidHandshake, TimeoutError):
            self._keep_warm()
            raise

    def _keep_warm(self) -> None:
        if self.open_sockets < self._warm and (self._refill is None or self._refill.done()):
            self._refill = asyncio.get_running_loop().create_task(self._reopen())

    async def _reopen(self) -> None:
        failures = 0
        while self.open_sockets < self._warm:
            try:
                await self._connect()
            except (OSError, InvalidHandshake, TimeoutError) as exc:
                delay = RECONNECT_DELAYS[min(failures, len(RECONNECT_DELAYS) - 1)]
                failures += 1
                logger.debug("reconnecting to %s in %.1f s: %s", self._url, delay, exc)
                await asyncio.sleep(delay)
                continue
            failures = 0

    def _idle(self, carrier: ContextSocket) -> None:
        """A socket that carries no turn now is closed if enough others are idle: one is kept
        for the next turn (as many as `warm` asked for), the rest were opened for a peak."""
        idle = [other for other in self._sockets if other.open and not other.contexts]
        if carrier in idle and len(idle) > max(1, self._warm):
            self._sockets.remove(carrier)
            self._closing.add(asyncio.get_running_loop().create_task(carrier.close()))
            for task in list(self._closing):
                if task.done():
                    self._closing.discard(task)

    def _closed(self, carrier: ContextSocket) -> None:
        if carrier in self._sockets:
            self._sockets.remove(carrier)
        if carrier.connection.close_code in CLOSE_CODE_ERRORS:
            # The server refused the API key: every new socket would be refused the same.
            self._warm = 0
        elif self._loop is not None and not self._loop.is_closed():
            self._keep_warm()

    async def close(self) -> None:
        if self._refill is not None:
            self._refill.cancel()
            await asyncio.gather(self._refill, return_exceptions=True)
            self._refill = None
        self._warm = 0
        sockets, self._sockets = self._sockets, []
        closing, self._closing = self._closing, set()
        await asyncio.gather(*(carrier.close() for carrier in sockets), *closing, return_exceptions=True)
