"""The sockets a `RemoteEngine` keeps to one server: connecting (every address of its host in
turn), a pool of idle sockets bound to the event loop that opened them, and a warm pool that
follows whether the server can be reached, reconnecting with backoff while it is away."""

from __future__ import annotations

import asyncio
import errno
import logging
import socket

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidHandshake
from websockets.protocol import State
from websockets.uri import parse_uri

from voice_tts.protocol import ErrorCode

logger = logging.getLogger(__name__)

# Close codes the server uses for a missing / wrong API key.
CLOSE_CODE_ERRORS = {4401: ErrorCode.UNAUTHORIZED, 4403: ErrorCode.FORBIDDEN}
# Audio frames can hold seconds of PCM; far above the server's client-message limit.
MAX_FRAME_BYTES = 16 * 1024 * 1024


# Idle pooled sockets are pinged this often by the WebSocket layer; a dead one is dropped.
IDLE_PING_INTERVAL = 10.0
# A graceful close of an idle socket waits this long for the server's close frame.
CLOSE_TIMEOUT = 1.0
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


class ConnectionPool:
    """Idle sockets to one server, bound to the event loop that opened them.

    Once warm, the pool also follows whether the server can be reached: an idle socket that
    closes is replaced at once, so a server that dies is known to be unreachable as soon as
    its sockets close and the next connection is refused, and reachable again on the first
    connection that succeeds."""

    def __init__(self, url: str, headers: dict[str, str], size: int, open_timeout: float) -> None:
        self._url = url
        self._headers = headers
        self._size = size
        self._open_timeout = open_timeout
        self._idle: list[ClientConnection] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        # Idle sockets kept open ahead of turns (set by `warm`); refilled in the background.
        self._warm = 0
        self._refill: asyncio.Task | None = None
        # Tasks that notice an idle socket closing (held: the loop keeps only weak references).
        self._watches: set[asyncio.Task] = set()
        # Whether the last connection attempt succeeded (None: none yet); set on every change.
        self.reachable: bool | None = None
        self._reachability_changed = asyncio.Event()

    def _bind(self) -> None:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            # Sockets of another (possibly finished) loop cannot be used here.
            self._idle, self._loop, self._refill, self._watches = [], loop, None, set()
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

    async def _connect(self, open_timeout: float | None = None) -> ClientConnection:
        try:
            if open_timeout is None:
                open_timeout = self._open_timeout
            connection = await self._open(open_timeout)
        except (OSError, InvalidHandshake, TimeoutError):
            self._note_reachable(False)
            raise
        self._note_reachable(True)
        return connection

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

    async def acquire(
        self, fresh: bool = False, open_timeout: float | None = None
    ) -> tuple[ClientConnection, bool]:
        """An open socket (`fresh`: a new one) and whether it was reused (a reused one may have
        died unnoticed). A new one must connect within `open_timeout` (None: the pool's)."""
        self._bind()
        while self._idle and not fresh:
            connection = self._idle.pop()
            if connection.state is State.OPEN:
                self._keep_warm()
                return connection, True
        connection = await self._connect(open_timeout)
        self._keep_warm()
        return connection, False

    async def warm(self, count: int) -> None:
        """Open sockets until `count` are idle and keep that many from now on; raises if the
        server cannot be reached (the pool goes on trying in the background)."""
        self._bind()
        self._warm = max(self._warm, min(count, self._size))
        try:
            while len(self._idle) < self._warm:
                self._add_idle(await self._connect())
        except (OSError, InvalidHandshake, TimeoutError):
            self._keep_warm()
            raise

    def _keep_warm(self) -> None:
        if len(self._idle) < self._warm and (self._refill is None or self._refill.done()):
            self._refill = asyncio.get_running_loop().create_task(self._refill_idle())

    async def _refill_idle(self) -> None:
        failures = 0
        while len(self._idle) < self._warm:
            try:
                connection = await self._connect()
            except (OSError, InvalidHandshake, TimeoutError) as exc:
                delay = RECONNECT_DELAYS[min(failures, len(RECONNECT_DELAYS) - 1)]
                failures += 1
                logger.debug("reconnecting to %s in %.1f s: %s", self._url, delay, exc)
                await asyncio.sleep(delay)
                continue
            failures = 0
            self._add_idle(connection)

    def _add_idle(self, connection: ClientConnection) -> None:
        self._idle.append(connection)
        watch = asyncio.get_running_loop().create_task(self._replace_when_closed(connection))
        self._watches.add(watch)
        watch.add_done_callback(self._watches.discard)

    async def _replace_when_closed(self, connection: ClientConnection) -> None:
        await connection.wait_closed()
        if connection in self._idle:
            self._idle.remove(connection)
            if connection.close_code in CLOSE_CODE_ERRORS:
                # The server refused the API key: every new socket would be refused the same.
                self._warm = 0
            else:
                self._keep_warm()

    async def release(self, connection: ClientConnection, reusable: bool) -> None:
        if reusable and connection.state is State.OPEN and len(self._idle) < self._size:
            self._add_idle(connection)
        elif reusable:
            await connection.close()
        else:
            self.drop(connection)

    @staticmethod
    def drop(connection: ClientConnection) -> None:
        """Close at once, without a close handshake: unread audio queued in front of the
        server's close frame would hold a graceful close for `close_timeout`. The server
        takes a dropped socket as a disconnect and cancels its turn."""
        connection.transport.abort()

    async def close(self) -> None:
        if self._refill is not None:
            self._refill.cancel()
            await asyncio.gather(self._refill, return_exceptions=True)
            self._refill = None
        self._warm = 0
        idle, self._idle = self._idle, []
        await asyncio.gather(*(connection.close() for connection in idle))
        watches, self._watches = self._watches, set()
        for watch in watches:
            watch.cancel()
        await asyncio.gather(*watches, return_exceptions=True)
