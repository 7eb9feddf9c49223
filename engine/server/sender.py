"""Writes to one WebSocket from several tasks, one message at a time."""

from __future__ import annotations

import asyncio
import json
from typing import Callable

from pydantic import BaseModel
from starlette.websockets import WebSocket, WebSocketDisconnect


class Sender:
    """After the peer is gone every send is a no-op returning False: a vanished client must
    not turn into errors inside the turn that is being cancelled for it."""

    def __init__(self, websocket: WebSocket) -> None:
        self._websocket = websocket
        self._lock = asyncio.Lock()
        self.closed = False

    async def message(self, message: BaseModel) -> bool:
        async with self._lock:
            return await self._send({"type": "websocket.send", "text": message.model_dump_json()})

    async def json(self, payload: dict) -> bool:
        """A JSON object that has no wire model (the Realtime protocol's events)."""
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        async with self._lock:
            return await self._send({"type": "websocket.send", "text": text})

    async def audio(self, data: bytes, still_wanted: Callable[[], bool]) -> bool:
        """Sends unless `still_wanted()` turned false while waiting for the socket."""
        async with self._lock:
            if not still_wanted():
                return False
            return await self._send({"type": "websocket.send", "bytes": data})

    async def close(self, code: int, reason: str) -> None:
        async with self._lock:
            await self._send({"type": "websocket.close", "code": code, "reason": reason})
            self.closed = True

    async def _send(self, message: dict) -> bool:
        if self.closed:
            return False
        try:
            await self._websocket.send(message)
        except (WebSocketDisconnect, RuntimeError, OSError):
            self.closed = True
            return False
        return True
