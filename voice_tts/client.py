"""`RemoteEngine`: the engine stream contract over a server's `/v1/ws` (docs/protocol.md).

Adapters cannot tell it from an in-process engine. The server computes words and heard text
(and normalizes, when asked): a `TTSSession` over a `RemoteEngine` sends the raw LLM text as it
is, opens the turn with its own `normalize` setting, and takes the server's words (`Words`
events) unchanged. A stream opened directly takes spoken text (`normalize=False`) unless
`open_stream(..., normalize=True)` asks the server to normalize; `Progress` then counts raw-text
characters.

Turns share one socket per server, each its own context (docs/protocol.md, "Contexts"):
concurrent turns, a turn opened while another still plays, and turn after turn all go on it; a
second socket opens only once `contexts_per_socket` turns run on the first. A turn's engine
priority is the server's to give, from its socket's history (a socket that finished a turn
before goes first; docs/protocol.md, "Priority"), so keeping the socket is also what keeps a
conversation ahead of new connections under load; `open_stream` sends no priority. `prewarm()`
opens the socket ahead of the first turn and keeps it open from then on, reconnecting with
backoff while the server is away, so a turn never waits for a handshake. Cancelling a turn
cancels its context; the socket and the other turns on it go on. A lost socket ends the turn with
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
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import replace
from urllib.parse import urlsplit, urlunsplit

from websockets.exceptions import InvalidHandshake

from voice_tts.context_sockets import ContextSockets
from voice_tts.protocol import Capabilities, CreatedVoice, ErrorCode, StartMessage, VoiceInfo, VoiceList
from voice_tts.remote_stream import RemoteStream, StreamTimeouts, current_traceparent
from voice_tts.request import StreamRequest


class RemoteEngineError(Exception):
    """An HTTP call to the server (capabilities, voices) failed, or `prewarm` could not reach
    it. `code` says why, where known: `unreachable`, or `unauthorized` / `forbidden` for a
    missing or wrong API key (which no retry fixes)."""

    def __init__(self, message: str, code: ErrorCode | None = None) -> None:
        super().__init__(message)
        self.code = code


# The error code of an HTTP status the server answers with.
HTTP_STATUS_ERRORS = {401: ErrorCode.UNAUTHORIZED, 403: ErrorCode.FORBIDDEN}


class RemoteEngine:
    backend = "remote"
    # Streams send `Words` computed by the server; `TTSSession` uses them as they are.
    reports_words = True

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        contexts_per_socket: int = 64,
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
            contexts_per_socket: turns one socket carries at once before another opens (the
                server may allow fewer: its `max_contexts_per_socket`).
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
        self._timeouts = StreamTimeouts(
            started_timeout, silence_timeout, keepalive_interval, resume_budget
        )
        # The server's model, once `prewarm()` has asked.
        self.model_name: str | None = None
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._sockets = ContextSockets(url, headers, contexts_per_socket, open_timeout)

    async def prewarm(self, connections: int = 1) -> None:
        """Open `connections` sockets now and keep that many open from then on, so that no
        turn waits for a handshake. Raises `RemoteEngineError` if the server cannot be
        reached; the engine keeps trying in the background, with backoff. Also learns the
        server's `model_name`."""
        try:
            await self._sockets.warm(connections)
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            raise RemoteEngineError(f"cannot reach {self.url}: {exc}", ErrorCode.UNREACHABLE) from exc
        # Asked on every prewarm: a wrong API key shows here (the server accepts the socket,
        # then refuses it), not as a server that cannot be reached.
        self.model_name = (await self.capabilities()).model

    @property
    def reachable(self) -> bool | None:
        """Whether the server answered the last connection attempt (None: none made yet)."""
        return self._sockets.reachable

    async def wait_reachable(self, reachable: bool) -> None:
        """Return once the server can (or cannot) be reached. After `prewarm()` the pool
        follows it: a server that dies is noticed when its socket closes and the next
        connection is refused, and it is reconnected to, with backoff, when it comes back."""
        await self._sockets.wait_reachable(reachable)

    @property
    def open_sockets(self) -> int:
        """Sockets open to the server now (each carrying up to `contexts_per_socket` turns)."""
        return self._sockets.open_sockets

    def open_stream(
        self,
        request: StreamRequest | None = None,
        /,
        *,
        connect_timeout: float | None = None,
        traceparent: str | None = None,
        **settings,
    ) -> "RemoteStream":
        """A turn on the server (`StreamRequest.of(request, **settings)`). `connect_timeout`:
        seconds the turn may take to connect and start, retries included (None: the engine's
        `open_timeout` and `started_timeout` each); a caller with its own retry timing
        (LiveKit's `APIConnectOptions.timeout`) passes it here. `traceparent`: the W3C trace
        context the server's span of the turn joins (None: the caller's current OpenTelemetry
        span, if any)."""
        if connect_timeout is not None and not connect_timeout > 0:
            raise ValueError(
                f"connect_timeout must be a positive number of seconds, got {connect_timeout!r}"
            )
        request = StreamRequest.of(request, **settings)
        # The audio crosses the wire in the request's format (G.711: half the bytes of s16le)
        # and comes out of the stream as s16le, as every engine stream's does; whether a turn
        # survives a dropped socket is this engine's setting.
        start = StartMessage.of(
            replace(request, resumable=self._timeouts.resume_budget > 0),
            traceparent or current_traceparent(),
        )
        return RemoteStream(self._sockets, start, self.url, self._timeouts, connect_timeout)

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
        await self._sockets.close()

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
