"""API-key check for every route but /health and the browser page (ASGI middleware, HTTP and
WebSocket). The page holds no data: it asks for the key and presents it to the API routes."""

from __future__ import annotations

import hmac
from urllib.parse import parse_qs

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from voice_tts.protocol import ErrorCode, ErrorMessage

OPEN_PATHS = frozenset({"/health", "/"})
OPEN_PREFIXES = ("/ui/",)
# WebSocket close codes mirror the HTTP statuses (4000-4999 are free for applications).
WS_CLOSE_UNAUTHORIZED = 4401
WS_CLOSE_FORBIDDEN = 4403


def presented_key(scope: Scope) -> str | None:
    """The Bearer token, or for WebSockets also `?api_key=` (browsers cannot set headers)."""
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


class ApiKeyMiddleware:
    def __init__(self, app: ASGIApp, api_key: str | None) -> None:
        self.app = app
        self.api_key = api_key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.api_key is None or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if scope["path"] in OPEN_PATHS or scope["path"].startswith(OPEN_PREFIXES):
            await self.app(scope, receive, send)
            return
        key = presented_key(scope)
        if key is not None and hmac.compare_digest(key.encode(), self.api_key.encode()):
            await self.app(scope, receive, send)
            return
        code = ErrorCode.UNAUTHORIZED if key is None else ErrorCode.FORBIDDEN
        message = "an API key is required" if key is None else "the API key is not valid"
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
                status_code=401 if key is None else 403,
                headers={"WWW-Authenticate": "Bearer"},
            )
            await response(scope, receive, send)
            return
        # Accept, then close with a code a browser can read (a refused handshake shows as 1006).
        await receive()
        await send({"type": "websocket.accept"})
        error = ErrorMessage(code=code, message=message)
        await send({"type": "websocket.send", "text": error.model_dump_json()})
        close_code = WS_CLOSE_UNAUTHORIZED if key is None else WS_CLOSE_FORBIDDEN
        await send({"type": "websocket.close", "code": close_code, "reason": code})
