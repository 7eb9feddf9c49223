"""API-key check for every route but /health and the browser page (ASGI middleware, HTTP and
WebSocket), and the filter that keeps keys out of the server's logs. The page holds no data: it
asks for the key and presents it to the API routes."""

from __future__ import annotations

import asyncio
import hmac
import logging
import re
from urllib.parse import parse_qs

from pydantic import ValidationError
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from voice_tts.protocol import AuthMessage, ErrorCode, ErrorMessage

OPEN_PATHS = frozenset({"/health", "/"})
OPEN_PREFIXES = ("/ui/",)
# WebSocket close codes mirror the HTTP statuses (4000-4999 are free for applications).
WS_CLOSE_UNAUTHORIZED = 4401
WS_CLOSE_FORBIDDEN = 4403
# The loggers that write request lines (uvicorn's access log and its WebSocket lines).
REQUEST_LOGGERS = ("uvicorn.access", "uvicorn.error")


def presented_key(scope: Scope) -> str | None:
    """The Bearer token, or for WebSockets also `?api_key=` (kept for old browser clients; the
    first-message `auth` is the way that keeps the key out of URLs)."""
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    if scope["type"] == "websocket":
        values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("api_key")
        if values:
            return values[0]
    return None


def first_message_key(message: Message) -> str | None:
    """The key of a first WebSocket message `{"type": "auth", "api_key": KEY}`."""
    try:
        return AuthMessage.model_validate_json(message.get("text") or "").api_key
    except ValidationError:
        return None


class ApiKeyMiddleware:
    def __init__(self, app: ASGIApp, api_key: str | None, auth_timeout_s: float = 10.0) -> None:
        self.app = app
        self.api_key = api_key
        self.auth_timeout_s = auth_timeout_s

    def _valid(self, key: str) -> bool:
        return hmac.compare_digest(key.encode(), self.api_key.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.api_key is None or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if scope["path"] in OPEN_PATHS or scope["path"].startswith(OPEN_PREFIXES):
            await self.app(scope, receive, send)
            return
        key = presented_key(scope)
        if key is not None and self._valid(key):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket" and key is None:
            await self._first_message_auth(scope, receive, send)
            return
        await self._refuse(scope, receive, send, key is not None)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, wrong: bool) -> None:
        code = ErrorCode.FORBIDDEN if wrong else ErrorCode.UNAUTHORIZED
        message = "the API key is not valid" if wrong else "an API key is required"
        if scope["type"] == "http":
            response = JSONResponse(
                {
                    "error": {
                        "message": message,
                        "type": "authentication_error",
                        "param": None,
                        "code": code,
                    }
                },
                status_code=403 if wrong else 401,
                headers={"WWW-Authenticate": "Bearer"},
            )
            await response(scope, receive, send)
            return
        # Accept, then close with a code a browser can read (a refused handshake shows as 1006).
        await receive()
        await send({"type": "websocket.accept"})
        await refuse_websocket(send, wrong, message)

    async def _first_message_auth(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Accept, read one message (within the timeout) and go on only if it is a valid `auth`;
        the app then sees a fresh connection whose accept was already sent."""
        connect = await receive()
        await send({"type": "websocket.accept"})
        try:
            first = await asyncio.wait_for(receive(), self.auth_timeout_s)
        except TimeoutError:
            first = {"type": "websocket.receive", "text": ""}
        if first["type"] == "websocket.disconnect":
            return
        key = first_message_key(first)
        if key is None:
            message = (
                "an API key is required: send it as a Bearer header or as the first message "
                '{"type": "auth", "api_key": ...}'
            )
            await refuse_websocket(send, False, message)
            return
        if not self._valid(key):
            await refuse_websocket(send, True, "the API key is not valid")
            return
        replayed = False

        async def app_receive() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return connect
            return await receive()

        async def app_send(message: Message) -> None:
            if message["type"] != "websocket.accept":
                await send(message)

        await self.app(scope, app_receive, app_send)


async def refuse_websocket(send: Send, wrong: bool, message: str) -> None:
    """One `error` event on an accepted socket, then close 4403 (wrong key) or 4401 (none)."""
    code = ErrorCode.FORBIDDEN if wrong else ErrorCode.UNAUTHORIZED
    error = ErrorMessage(code=code, message=message)
    await send({"type": "websocket.send", "text": error.model_dump_json()})
    close_code = WS_CLOSE_FORBIDDEN if wrong else WS_CLOSE_UNAUTHORIZED
    await send({"type": "websocket.close", "code": close_code, "reason": code})


class RedactSecrets(logging.Filter):
    """Replaces the value of `api_key=` in request lines (an old client may put the key in a
    WebSocket URL) before anything writes them."""

    PATTERN = re.compile(r"(api_key=)[^&\s\"']*", re.IGNORECASE)

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = self.PATTERN.sub(r"\1***", record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(
                self.PATTERN.sub(r"\1***", arg) if isinstance(arg, str) else arg
                for arg in record.args
            )
        return True


def redact_request_logs() -> None:
    for name in REQUEST_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSecrets) for f in logger.filters):
            logger.addFilter(RedactSecrets())
