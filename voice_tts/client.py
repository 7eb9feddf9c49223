"""`RemoteEngine`: the engine stream contract over a server's `/v1/ws` (docs/protocol.md).

Adapters cannot tell it from an in-process engine. The server computes words and heard text
(and normalizes, when asked): a `TTSSession` over a `RemoteEngine` sends the raw LLM text as it
is, opens the turn with its own `normalize` setting, and takes the server's words (`Words`
events) unchanged. A stream opened directly takes spoken text (`normalize=False`) unless
`open_stream(..., normalize=True)` asks the server to normalize; `Progress` then counts raw-text
characters.

Sequential turns reuse one socket; concurrent turns open more, and up to `pool_size` idle
sockets are kept for later turns. A turn's engine priority is the server's to give, from its
socket's history (a socket that finished a turn before goes first; docs/protocol.md,
"Priority"), so reusing sockets is also what keeps a conversation ahead of new connections under
load; `open_stream` sends no priority. `prewarm()` opens a socket ahead of the first turn and keeps
one idle socket ready from then on, reconnecting with backoff while the server is away, so a
turn never waits for a handshake. A lost socket ends the turn with
`Error(code="disconnected", retryable=True)` then `Done`; a refused connection ends it at once
with `unreachable`, not retryable, so that a fallback service takes over without delay.

Nothing waits without a bound: `started` must come within `started_timeout`; once a turn's
input has ended the server must send something every `silence_timeout` seconds; while input is
still open (the server may rightly wait for text) a server that sends nothing is pinged, and one
that does not answer within `silence_timeout` is taken for frozen. Both end the turn with
`Error(code="timeout", retryable=True)`, a resumable one after sending its cancel (at most
`CLOSE_TIMEOUT` more) so that the server does not keep it for a reconnect. A turn left unfinished
drops its socket at once rather than waiting for a close handshake behind unread audio.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import errno
import json
import logging
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

from pydantic import ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.protocol import State
from websockets.uri import parse_uri

from voice_tts.protocol import (
    AudioChunk,
    AckMessage,
    CancelMessage,
    Capabilities,
    CreatedVoice,
    Done,
    DoneMessage,
    Error,
    ErrorCode,
    ErrorMessage,
    Event,
    Progress,
    PauseMessage,
    ProgressMessage,
    ReconnectedMessage,
    ReconnectMessage,
    ResumeMessage,
    StartedMessage,
    StartMessage,
    SpeedMessage,
    StopMessage,
    TextMessage,
    Usage,
    VoiceInfo,
    VoiceList,
    Word,
    WireModel,
    Words,
    server_message_adapter,
)
from voice_tts.request import StreamRequest, checked_speed

logger = logging.getLogger(__name__)

# Close codes the server uses for a missing / wrong API key.
CLOSE_CODE_ERRORS = {4401: ErrorCode.UNAUTHORIZED, 4403: ErrorCode.FORBIDDEN}
# Audio frames can hold seconds of PCM; far above the server's client-message limit.
MAX_FRAME_BYTES = 16 * 1024 * 1024


class RemoteEngineError(Exception):
    """An HTTP call to the server (capabilities, voices) failed, or `prewarm` could not reach
    it. `code` says why, where known: `unreachable`, or `unauthorized` / `forbidden` for a
    missing or wrong API key (which no retry fixes)."""

    def __init__(self, message: str, code: ErrorCode | None = None) -> None:
        super().__init__(message)
        self.code = code


# The error code of an HTTP status the server answers with.
HTTP_STATUS_ERRORS = {401: ErrorCode.UNAUTHORIZED, 403: ErrorCode.FORBIDDEN}


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
# A turn refused for a passing reason before it started is tried again on a fresh socket after
# each of these delays; behind a load balancer (Ray Serve) that socket reaches another replica.
START_RETRY_DELAYS = (0.05, 0.2)


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


class _ConnectionPool:
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


class RemoteEngine:
    backend = "remote"
    # Streams send `Words` computed by the server; `TTSSession` uses them as they are.
    reports_words = True

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        pool_size: int = 4,
        open_timeout: float = 5.0,
        started_timeout: float = 5.0,
        silence_timeout: float = 2.0,
        keepalive_interval: float = 0.5,
        resume_budget: float = 5.0,
    ) -> None:
        """
        Args:
            url: the server's WebSocket URL (`ws://host:port/v1/ws`).
            api_key: the server's key, if it has one.
            pool_size: idle sockets kept for later turns.
            open_timeout: seconds to connect (TCP and WebSocket handshake).
            started_timeout: seconds from `start` to the server's `started`.
            silence_timeout: seconds a turn whose input has ended may go without a message,
                and seconds a ping may wait for its answer.
            keepalive_interval: seconds without a message, while input is open, before the
                server is pinged.
            resume_budget: seconds a turn whose socket drops may spend reconnecting and
                resuming on the server (0: turns are not resumable).
        """
        self.url = url
        self._api_key = api_key
        self._timeouts = _Timeouts(
            started_timeout, silence_timeout, keepalive_interval, resume_budget
        )
        # The server's model, once `prewarm()` has asked.
        self.model_name: str | None = None
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._pool = _ConnectionPool(url, headers, pool_size, open_timeout)

    async def prewarm(self, connections: int = 1) -> None:
        """Open `connections` sockets now and keep that many idle from then on, so that no
        turn waits for a handshake. Raises `RemoteEngineError` if the server cannot be
        reached; the pool keeps trying in the background, with backoff. Also learns the
        server's `model_name`."""
        try:
            await self._pool.warm(connections)
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            raise RemoteEngineError(f"cannot reach {self.url}: {exc}", ErrorCode.UNREACHABLE) from exc
        # Asked on every prewarm: a wrong API key shows here (the server accepts the socket,
        # then refuses it), not as a server that cannot be reached.
        self.model_name = (await self.capabilities()).model

    @property
    def reachable(self) -> bool | None:
        """Whether the server answered the last connection attempt (None: none made yet)."""
        return self._pool.reachable

    async def wait_reachable(self, reachable: bool) -> None:
        """Return once the server can (or cannot) be reached. After `prewarm()` the pool
        follows it: a server that dies is noticed when its idle socket closes and the next
        connection is refused, and it is reconnected to, with backoff, when it comes back."""
        await self._pool.wait_reachable(reachable)

    def open_stream(
        self, request: StreamRequest | None = None, /, *, connect_timeout: float | None = None, **settings
    ) -> "RemoteStream":
        """A turn on the server (`StreamRequest.of(request, **settings)`; its `resumable` is
        this engine's: whether it keeps turns through a dropped socket). `connect_timeout`:
        seconds the turn may take to connect and start, retries included (None: the engine's
        `open_timeout` and `started_timeout` each); a caller with its own retry timing
        (LiveKit's `APIConnectOptions.timeout`) passes it here."""
        if connect_timeout is not None and not connect_timeout > 0:
            raise ValueError(
                f"connect_timeout must be a positive number of seconds, got {connect_timeout!r}"
            )
        request = StreamRequest.of(request, **settings, resumable=self._timeouts.resume_budget > 0)
        start = StartMessage.of(request)
        return RemoteStream(self._pool, start, self.url, self._timeouts, connect_timeout)

    async def capabilities(self) -> Capabilities:
        return Capabilities.model_validate_json(await self._get("/v1/capabilities"))

    async def voices(self) -> list[VoiceInfo]:
        return VoiceList.model_validate_json(await self._get("/v1/voices")).voices

    async def create_voice(
        self, name: str, audio_file: bytes, text: str | None = None, filename: str = "reference.wav"
    ) -> CreatedVoice:
        """Upload a reference recording (WAV, FLAC or OGG file contents) as a new cloned voice;
        with its transcript `text` the voice is in-context (ICL), else x-vector only."""
        fields = {"name": name} if text is None else {"name": name, "ref_text": text}
        body, content_type = _multipart(fields, "audio_sample", filename, audio_file)
        answer = await self._send("POST", "/v1/voices", body, {"Content-Type": content_type}, timeout=120)
        return CreatedVoice.model_validate_json(answer)

    async def delete_voice(self, voice: str) -> None:
        await self._send("DELETE", f"/v1/voices/{urllib.parse.quote(voice, safe='')}")

    async def aclose(self) -> None:
        await self._pool.close()

    def http_url(self, path: str) -> str:
        """The server's HTTP URL for `path`, from the WebSocket URL (ws→http, wss→https)."""
        parts = urlsplit(self.url)
        scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
        base = parts.path.removesuffix("/v1/ws").rstrip("/")
        return urlunsplit((scheme, parts.netloc, base + path, "", ""))

    async def _get(self, path: str) -> bytes:
        return await self._send("GET", path)

    async def _send(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None,
        timeout: float = 10,
    ) -> bytes:
        request = urllib.request.Request(self.http_url(path), data=body, headers=headers or {}, method=method)
        if self._api_key:
            request.add_header("Authorization", f"Bearer {self._api_key}")

        def fetch() -> bytes:
            try:
                with urllib.request.urlopen(request, timeout=timeout) as response:
                    return response.read()
            except urllib.error.HTTPError as exc:
                body = exc.read().decode(errors="replace")
                raise RemoteEngineError(
                    f"{method} {request.full_url}: HTTP {exc.code}: {body}",
                    HTTP_STATUS_ERRORS.get(exc.code),
                ) from exc
            except OSError as exc:
                raise RemoteEngineError(
                    f"{method} {request.full_url}: {exc}", ErrorCode.UNREACHABLE
                ) from exc

        return await asyncio.to_thread(fetch)


def _multipart(fields: dict[str, str], file_field: str, filename: str, content: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body: text fields, then one file; returns (body, content type)."""
    boundary = f"voice-tts-{uuid.uuid4().hex}"
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    safe_name = filename.replace('"', "_").replace("\r", "_").replace("\n", "_")
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{safe_name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + content
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


@dataclass(frozen=True)
class _Timeouts:
    started: float
    silence: float
    keepalive: float
    resume_budget: float


class _SocketLost(Exception):
    """The socket of a resumable turn dropped: try to resume before reporting it."""

    def __init__(self, error: Error) -> None:
        super().__init__(error.message)
        self.error = error


class RemoteStream:
    """One turn on the server. `push_text`, `end_input`, `cancel`, `pause` and `resume` are
    thread-safe and never block: they queue commands that the `events()` task sends.

    A resumable turn (`resume_budget` > 0) numbers its text and acknowledges the audio it
    received; when its socket drops it reconnects and resumes the same engine stream from the
    next sample (no audio repeated or lost), within the budget. A resume the server refuses
    (expired, or the server restarted) ends the turn with that error.

    After the turn has started, `acquire_time` is the seconds it took to get a socket and
    `connection_reused` whether that socket came from the pool."""

    def __init__(
        self,
        pool: _ConnectionPool,
        start: StartMessage,
        url: str,
        timeouts: _Timeouts,
        connect_timeout: float | None = None,
    ) -> None:
        self._pool = pool
        self._start = start
        self._url = url
        self._timeouts = timeouts
        self._connect_timeout = connect_timeout
        self.acquire_time = 0.0
        self.connection_reused = False
        self._commands: collections.deque[WireModel] = collections.deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wakeup: asyncio.Event | None = None
        self._input_ended = False
        self._cancelled = False
        self._audio_samples = 0
        self._characters_sent = 0
        self._paused = False
        self._speed = start.speed
        # Reconnect-resume: the token, every numbered text, audio acknowledged, words relayed.
        self._resume_token: str | None = None
        self._texts: list[TextMessage] = []
        self._acked_samples = 0
        self._words_end = 0

    def push_text(self, text: str) -> None:
        if text and not self._input_ended:
            self._characters_sent += len(text)
            if self._start.resumable:
                message = TextMessage(text=text, seq=len(self._texts) + 1)
                self._texts.append(message)
            else:
                message = TextMessage(text=text)
            self._command(message)

    def end_input(self) -> None:
        if not self._input_ended:
            self._input_ended = True
            self._command(StopMessage())

    def cancel(self) -> None:
        if not self._cancelled:
            self._cancelled = True
            self._input_ended = True
            self._command(CancelMessage())

    def pause(self) -> None:
        """Duplex pause: the server sends no more audio of this turn and keeps its place."""
        if not self._paused and not self._cancelled:
            self._paused = True
            self._command(PauseMessage())

    def resume(self) -> None:
        """Audio continues from the exact next sample."""
        if self._paused:
            self._paused = False
            self._command(ResumeMessage())

    @property
    def speed(self) -> float:
        return self._speed

    def set_speed(self, speed: float) -> None:
        """The speaking rate from the server's next audio chunk on (the server stretches)."""
        speed = checked_speed(speed)
        if speed != self._speed and not self._cancelled:
            self._speed = speed
            self._command(SpeedMessage(speed=speed))

    def _command(self, command: WireModel) -> None:
        self._commands.append(command)
        loop, wakeup = self._loop, self._wakeup
        if loop is None or wakeup is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            wakeup.set()
        elif not loop.is_closed():
            loop.call_soon_threadsafe(wakeup.set)

    async def events(self) -> AsyncIterator[Event]:
        self._loop = asyncio.get_running_loop()
        self._wakeup = asyncio.Event()
        if self._cancelled:
            yield Done(cancelled=True, usage=self._usage())
            return
        opened = await self._open()
        if isinstance(opened, Error):
            yield opened
            yield Done(cancelled=self._cancelled, usage=self._usage())
            return
        connection = opened
        while True:
            sender = asyncio.create_task(self._send_commands(connection))
            finished = lost = False
            try:
                async for event in self._receive(connection):
                    if isinstance(event, Done):
                        finished = True
                    yield event
            except _SocketLost as socket_lost:
                lost = True
                error = socket_lost.error
            finally:
                sender.cancel()
                await asyncio.gather(sender, return_exceptions=True)
                if not (finished or lost) and self._start.resumable:
                    # The consumer left: a resumable turn would wait for a reconnect.
                    await self._cancel_left_turn(connection)
                # A turn left unfinished (consumer gone, socket lost) cannot share a socket
                # any more; closing it makes the server cancel the turn.
                await self._pool.release(connection, reusable=finished)
            if not lost:
                return
            resumed = await self._reconnect(error)
            if isinstance(resumed, Error):
                yield resumed
                yield Done(cancelled=self._cancelled, usage=self._usage())
                return
            connection = resumed

    async def _open(self) -> ClientConnection | Error:
        """Open the turn; one refused for a passing reason (capacity, not ready, a lost or
        unreachable server: retryable, before `started`) is tried again on fresh sockets, all
        within the stream's connect timeout."""
        deadline = None
        if self._connect_timeout is not None:
            deadline = time.monotonic() + self._connect_timeout
        opened = await self._open_once(False, deadline)
        for delay in START_RETRY_DELAYS:
            passing = isinstance(opened, Error) and opened.retryable
            if not passing or opened.code == ErrorCode.TIMEOUT or self._cancelled:
                break
            if deadline is not None and time.monotonic() + delay >= deadline:
                break
            await asyncio.sleep(delay)
            opened = await self._open_once(True, deadline)
        return opened

    async def _open_once(self, fresh: bool, deadline: float | None) -> ClientConnection | Error:
        """Connect (or reuse) and send `start`, by `deadline` if one is set; a reused socket
        that turns out dead is replaced once, since nothing of the turn has happened yet."""
        for attempt in range(2):
            began = time.monotonic()
            left = None if deadline is None else max(deadline - began, 0.001)
            try:
                connection, reused = await self._pool.acquire(fresh, open_timeout=left)
            except (OSError, InvalidHandshake, TimeoutError) as exc:
                # Refused: nothing listens there, and a retry a moment later meets the same;
                # reporting it as final lets a fallback service take over at once.
                refused = isinstance(exc, ConnectionRefusedError)
                return Error(ErrorCode.UNREACHABLE, f"cannot reach {self._url}: {exc}", not refused)
            self.acquire_time, self.connection_reused = time.monotonic() - began, reused
            started_timeout = self._timeouts.started
            if deadline is not None:
                started_timeout = min(started_timeout, max(deadline - time.monotonic(), 0.001))
            try:
                async with asyncio.timeout(started_timeout):
                    await connection.send(self._start.model_dump_json())
                    reply = await connection.recv()
            except ConnectionClosed as exc:
                self._pool.drop(connection)
                if reused and attempt == 0:
                    continue
                return self._closed_error(exc)
            except TimeoutError:
                self._pool.drop(connection)
                return Error(
                    ErrorCode.TIMEOUT,
                    f"{self._url} did not start the turn within {started_timeout:g} s",
                    True,
                )
            message = self._parse(reply)
            if isinstance(message, StartedMessage):
                self._resume_token = message.resume_token
                return connection
            refused = isinstance(message, ErrorMessage) and message.code not in (
                ErrorCode.UNAUTHORIZED,
                ErrorCode.FORBIDDEN,
            )
            await self._pool.release(connection, reusable=refused)
            if isinstance(message, ErrorMessage):
                return Error(message.code, message.message, message.retryable)
            return Error(
                ErrorCode.INVALID_MESSAGE, f"expected 'started', got {reply!r:.200}", False
            )
        raise AssertionError("unreachable")

    async def _reconnect(self, lost: Error) -> ClientConnection | Error:
        """A new socket on which the server resumes this turn, or the error that ends it."""
        budget = self._timeouts.resume_budget
        deadline = time.monotonic() + budget
        delay = 0.05
        while True:
            try:
                async with asyncio.timeout(max(0.01, deadline - time.monotonic())):
                    connection, _ = await self._pool.acquire()
                    try:
                        reply = await self._resume_on(connection)
                    except BaseException:
                        self._pool.drop(connection)
                        raise
            except ConnectionRefusedError:
                # Nothing listens there any more: the server process and its turns are gone.
                return Error(
                    ErrorCode.DISCONNECTED,
                    f"{lost.message}; the server refuses connections: the turn is lost",
                    True,
                )
            except (OSError, InvalidHandshake, TimeoutError, ConnectionClosed):
                if time.monotonic() + delay >= deadline:
                    return Error(
                        ErrorCode.DISCONNECTED,
                        f"{lost.message}; could not resume the turn within {budget:g} s",
                        True,
                    )
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            if isinstance(reply, Error):
                self._pool.drop(connection)
                return reply
            return connection

    async def _resume_on(self, connection: ClientConnection) -> Error | None:
        """Takes the turn over on `connection` and resends what the server lacks."""
        await connection.send(
            ReconnectMessage(
                resume_token=self._resume_token, received_samples=self._audio_samples
            ).model_dump_json()
        )
        message = self._parse(await connection.recv())
        if isinstance(message, ErrorMessage):
            return Error(message.code, message.message, message.retryable)
        if not isinstance(message, ReconnectedMessage):
            return Error(ErrorCode.INVALID_MESSAGE, "expected 'reconnected'", False)
        for text in self._texts[message.text_seq :]:
            await connection.send(text.model_dump_json())
        if self._speed != self._start.speed and not self._cancelled:
            # A change in flight when the socket dropped may not have arrived; resending is harmless.
            await connection.send(SpeedMessage(speed=self._speed).model_dump_json())
        if self._cancelled:
            await connection.send(CancelMessage().model_dump_json())
        elif self._input_ended:
            await connection.send(StopMessage().model_dump_json())
        if self._paused:
            await connection.send(PauseMessage().model_dump_json())
        return None

    async def _send_commands(self, connection: ClientConnection) -> None:
        assert self._wakeup is not None
        try:
            while True:
                while self._commands:
                    command = self._commands.popleft()
                    await connection.send(command.model_dump_json())
                await self._wakeup.wait()
                self._wakeup.clear()
        except ConnectionClosed:
            return  # the receiving side reports the loss

    async def _receive(self, connection: ClientConnection) -> AsyncIterator[Event]:
        rate = self._start.sample_rate
        while True:
            try:
                frame = await self._next_frame(connection)
            except ConnectionClosed as exc:
                error = self._closed_error(exc, mid_turn=True)
                if self._resume_token is not None and error.code == ErrorCode.DISCONNECTED:
                    raise _SocketLost(error) from None
                yield error
                yield Done(cancelled=self._cancelled, usage=self._usage())
                return
            except TimeoutError as exc:
                await self._give_up(connection)
                yield Error(ErrorCode.TIMEOUT, f"{self._url}: {exc}", True)
                yield Done(cancelled=self._cancelled, usage=self._usage())
                return
            if isinstance(frame, bytes):
                # After cancel() no audio reaches the caller, even what was already in flight.
                if frame:
                    if not self._cancelled:
                        yield AudioChunk(frame, rate, self._audio_samples)
                    # Counted also after a cancel: a reconnect names the sample to go on from.
                    self._audio_samples += len(frame) // 2
                    self._acknowledge()
                continue
            message = self._parse(frame)
            if isinstance(message, ProgressMessage):
                if not self._cancelled:
                    # After a reconnect the server may repeat words this side has relayed.
                    words = [w for w in message.words if w.raw_start >= self._words_end]
                    if words:
                        self._words_end = words[-1].raw_end
                        yield Words(
                            tuple(
                                Word(w.text, w.start_ms / 1000.0, w.raw_start, w.raw_end)
                                for w in words
                            )
                        )
                    end = message.raw_end if self._start.normalize else message.spoken_end
                    yield Progress(spoken_end=end, audio_time=message.audio_ms / 1000.0)
            elif isinstance(message, ErrorMessage):
                yield Error(message.code, message.message, message.retryable)
            elif isinstance(message, DoneMessage):
                usage = message.usage
                yield Done(
                    cancelled=message.cancelled,
                    usage=Usage(
                        characters_received=usage.characters_received,
                        characters_spoken=usage.characters_spoken,
                        audio_seconds=usage.audio_seconds,
                    ),
                )
                return
            elif message is None:
                yield Error(ErrorCode.INVALID_MESSAGE, f"unreadable server message {frame!r:.200}")

    def _acknowledge(self) -> None:
        """Every half second of audio, tell a resumable turn's server what arrived."""
        rate = self._start.sample_rate
        if self._resume_token is not None and self._audio_samples - self._acked_samples >= rate / 2:
            self._acked_samples = self._audio_samples
            self._command(AckMessage(samples=self._audio_samples))

    async def _next_frame(self, connection: ClientConnection) -> str | bytes:
        """The next frame; raises TimeoutError when the server owes one and stays silent, or
        does not answer a ping (frozen) while the turn waits for text."""
        timeouts = self._timeouts
        while True:
            # A paused turn owes nothing until it is resumed.
            owed = self._input_ended and not self._paused
            try:
                async with asyncio.timeout(timeouts.silence if owed else timeouts.keepalive):
                    return await connection.recv()
            except TimeoutError:
                if owed:
                    raise TimeoutError(f"sent nothing for {timeouts.silence} s") from None
            pong = await connection.ping()
            done, _ = await asyncio.wait({pong}, timeout=timeouts.silence)
            if not done:
                raise TimeoutError(f"did not answer a ping within {timeouts.silence} s")

    async def _give_up(self, connection: ClientConnection) -> None:
        """The turn ends here (the server went silent). A resumable one is cancelled first,
        with a close behind it (the server reads both once it runs again), or the server would
        keep it, and its stream slot, waiting for a reconnect that never comes; at most
        CLOSE_TIMEOUT, then the socket is dropped."""
        if self._resume_token is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await connection.send(CancelMessage().model_dump_json())
                    await connection.close()
        self._pool.drop(connection)

    async def _cancel_left_turn(self, connection: ClientConnection) -> None:
        """Cancel the turn and read on until its `done` (at most 0.5 s). The server takes the
        cancel only once it reads it; a close that reached it first (the server's send failing
        on the closed socket) parked the turn for a reconnect instead of ending it."""
        with contextlib.suppress(Exception):
            async with asyncio.timeout(0.5):
                await connection.send(CancelMessage().model_dump_json())
                while not isinstance(self._parse(await connection.recv()), DoneMessage):
                    pass

    @staticmethod
    def _parse(frame: str | bytes):
        if isinstance(frame, bytes):
            return None
        try:
            return server_message_adapter.validate_json(frame)
        except (ValidationError, json.JSONDecodeError):
            return None

    def _closed_error(self, exc: ConnectionClosed, mid_turn: bool = False) -> Error:
        received = exc.rcvd
        if received is not None and received.code in CLOSE_CODE_ERRORS:
            return Error(CLOSE_CODE_ERRORS[received.code], received.reason or "refused", False)
        detail = (
            f" (close code {received.code}{': ' + received.reason if received.reason else ''})"
            if received
            else ""
        )
        ended = (
            "; the turn ended with it (a turn lives in the server process that ran it): "
            "start it again"
            if mid_turn
            else ""
        )
        return Error(
            ErrorCode.DISCONNECTED, f"connection to {self._url} lost{detail}{ended}", True
        )

    def _usage(self) -> Usage:
        return Usage(
            characters_received=self._characters_sent,
            audio_seconds=self._audio_samples / self._start.sample_rate,
        )
