"""`RemoteEngine`: the engine stream contract over a server's `/v1/ws` (docs/protocol.md).

Adapters cannot tell it from an in-process engine. By default the text pushed to a stream is
spoken form already (the client's `TTSSession` normalizes), so turns are opened with
`normalize=false`. A thin client that sends raw LLM text and lets the server normalize uses
`RemoteEngine(url, normalize_on_server=True)` with `TTSSession(..., normalize=False)`; progress
then counts raw-text characters.

Sequential turns reuse one socket; concurrent turns open more, and up to `pool_size` idle
sockets are kept for later turns. A lost socket ends the turn with
`Error(code="disconnected", retryable=True)` then `Done`; the next turn connects afresh.
"""

from __future__ import annotations

import asyncio
import collections
import json
import urllib.error
import urllib.request
from typing import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

from pydantic import ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.protocol import State

from voice_tts.protocol import (
    AudioChunk,
    CancelMessage,
    Capabilities,
    Done,
    DoneMessage,
    Error,
    ErrorCode,
    ErrorMessage,
    Event,
    Progress,
    ProgressMessage,
    StartedMessage,
    StartMessage,
    StopMessage,
    TextMessage,
    Usage,
    VoiceInfo,
    VoiceList,
    server_message_adapter,
)

# Close codes the server uses for a missing / wrong API key.
CLOSE_CODE_ERRORS = {4401: ErrorCode.UNAUTHORIZED, 4403: ErrorCode.FORBIDDEN}
# Audio frames can hold seconds of PCM; far above the server's client-message limit.
MAX_FRAME_BYTES = 16 * 1024 * 1024


class RemoteEngineError(Exception):
    """An HTTP call to the server (capabilities, voices) failed."""


class _ConnectionPool:
    """Idle sockets to one server, bound to the event loop that opened them."""

    def __init__(self, url: str, headers: dict[str, str], size: int, open_timeout: float) -> None:
        self._url = url
        self._headers = headers
        self._size = size
        self._open_timeout = open_timeout
        self._idle: list[ClientConnection] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    async def acquire(self) -> tuple[ClientConnection, bool]:
        """An open socket and whether it was reused (a reused one may have died unnoticed)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            # Sockets of another (possibly finished) loop cannot be used here.
            self._idle, self._loop = [], loop
        while self._idle:
            connection = self._idle.pop()
            if connection.state is State.OPEN:
                return connection, True
        connection = await connect(
            self._url,
            additional_headers=self._headers,
            open_timeout=self._open_timeout,
            max_size=MAX_FRAME_BYTES,
            compression=None,
            proxy=None,
        )
        return connection, False

    async def release(self, connection: ClientConnection, reusable: bool) -> None:
        if reusable and connection.state is State.OPEN and len(self._idle) < self._size:
            self._idle.append(connection)
        else:
            await connection.close()

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.close()


class RemoteEngine:
    backend = "remote"

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        normalize_on_server: bool = False,
        pool_size: int = 4,
        open_timeout: float = 10.0,
    ) -> None:
        self.url = url
        self.normalize_on_server = normalize_on_server
        self._api_key = api_key
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._pool = _ConnectionPool(url, headers, pool_size, open_timeout)

    def open_stream(
        self,
        voice: str | None = None,
        language: str | None = None,
        instruct: str | None = None,
        sample_rate: int = 24000,
        **options,
    ) -> "RemoteStream":
        start = StartMessage(
            voice=voice,
            language=language,
            instruct=instruct,
            sample_rate=sample_rate,
            format="pcm16",
            normalize=self.normalize_on_server,
        )
        return RemoteStream(self._pool, start, self.url)

    async def capabilities(self) -> Capabilities:
        return Capabilities.model_validate_json(await self._get("/v1/capabilities"))

    async def voices(self) -> list[VoiceInfo]:
        return VoiceList.model_validate_json(await self._get("/v1/voices")).voices

    async def aclose(self) -> None:
        await self._pool.close()

    def http_url(self, path: str) -> str:
        """The server's HTTP URL for `path`, from the WebSocket URL (ws→http, wss→https)."""
        parts = urlsplit(self.url)
        scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
        base = parts.path.removesuffix("/v1/ws").rstrip("/")
        return urlunsplit((scheme, parts.netloc, base + path, "", ""))

    async def _get(self, path: str) -> bytes:
        request = urllib.request.Request(self.http_url(path))
        if self._api_key:
            request.add_header("Authorization", f"Bearer {self._api_key}")

        def fetch() -> bytes:
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    return response.read()
            except urllib.error.HTTPError as exc:
                body = exc.read().decode(errors="replace")
                raise RemoteEngineError(f"GET {request.full_url}: HTTP {exc.code}: {body}") from exc
            except OSError as exc:
                raise RemoteEngineError(f"GET {request.full_url}: {exc}") from exc

        return await asyncio.to_thread(fetch)


class RemoteStream:
    """One turn on the server. `push_text`, `end_input` and `cancel` are thread-safe and never
    block: they queue commands that the `events()` task sends."""

    def __init__(self, pool: _ConnectionPool, start: StartMessage, url: str) -> None:
        self._pool = pool
        self._start = start
        self._url = url
        self._commands: collections.deque[TextMessage | StopMessage | CancelMessage] = (
            collections.deque()
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wakeup: asyncio.Event | None = None
        self._input_ended = False
        self._cancelled = False
        self._audio_samples = 0
        self._characters_sent = 0

    def push_text(self, text: str) -> None:
        if text and not self._input_ended:
            self._command(TextMessage(text=text))

    def end_input(self) -> None:
        if not self._input_ended:
            self._input_ended = True
            self._command(StopMessage())

    def cancel(self) -> None:
        if not self._cancelled:
            self._cancelled = True
            self._input_ended = True
            self._command(CancelMessage())

    def _command(self, command: TextMessage | StopMessage | CancelMessage) -> None:
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
        sender = asyncio.create_task(self._send_commands(connection))
        finished = False
        try:
            async for event in self._receive(connection):
                if isinstance(event, Done):
                    finished = True
                yield event
        finally:
            sender.cancel()
            await asyncio.gather(sender, return_exceptions=True)
            # A turn left unfinished (consumer gone, socket lost) cannot share a socket any
            # more; closing it makes the server cancel the turn.
            await self._pool.release(connection, reusable=finished)

    async def _open(self) -> ClientConnection | Error:
        """Connect (or reuse) and send `start`; a reused socket that turns out dead is
        replaced once, since nothing of the turn has happened yet."""
        for attempt in range(2):
            try:
                connection, reused = await self._pool.acquire()
            except (OSError, InvalidHandshake, asyncio.TimeoutError) as exc:
                return Error(ErrorCode.UNREACHABLE, f"cannot reach {self._url}: {exc}", True)
            try:
                await connection.send(self._start.model_dump_json())
                reply = await connection.recv()
            except ConnectionClosed as exc:
                await self._pool.release(connection, reusable=False)
                if reused and attempt == 0:
                    continue
                return self._closed_error(exc)
            message = self._parse(reply)
            if isinstance(message, StartedMessage):
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

    async def _send_commands(self, connection: ClientConnection) -> None:
        assert self._wakeup is not None
        try:
            while True:
                while self._commands:
                    command = self._commands.popleft()
                    if isinstance(command, TextMessage):
                        self._characters_sent += len(command.text)
                    await connection.send(command.model_dump_json())
                await self._wakeup.wait()
                self._wakeup.clear()
        except ConnectionClosed:
            return  # the receiving side reports the loss

    async def _receive(self, connection: ClientConnection) -> AsyncIterator[Event]:
        rate = self._start.sample_rate
        while True:
            try:
                frame = await connection.recv()
            except ConnectionClosed as exc:
                yield self._closed_error(exc)
                yield Done(cancelled=self._cancelled, usage=self._usage())
                return
            if isinstance(frame, bytes):
                # After cancel() no audio reaches the caller, even what was already in flight.
                if not self._cancelled and frame:
                    yield AudioChunk(pcm=frame, sample_rate=rate, start_sample=self._audio_samples)
                    self._audio_samples += len(frame) // 2
                continue
            message = self._parse(frame)
            if isinstance(message, ProgressMessage):
                if not self._cancelled:
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

    @staticmethod
    def _parse(frame: str | bytes):
        if isinstance(frame, bytes):
            return None
        try:
            return server_message_adapter.validate_json(frame)
        except (ValidationError, json.JSONDecodeError):
            return None

    def _closed_error(self, exc: ConnectionClosed) -> Error:
        received = exc.rcvd
        if received is not None and received.code in CLOSE_CODE_ERRORS:
            return Error(CLOSE_CODE_ERRORS[received.code], received.reason or "refused", False)
        detail = (
            f" (close code {received.code}{': ' + received.reason if received.reason else ''})"
            if received
            else ""
        )
        return Error(ErrorCode.DISCONNECTED, f"connection to {self._url} lost{detail}", True)

    def _usage(self) -> Usage:
        return Usage(
            characters_received=self._characters_sent,
            audio_seconds=self._audio_samples / self._start.sample_rate,
        )
