"""Writes to one WebSocket from several tasks, one message at a time."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Callable

from pydantic import BaseModel
from starlette.websockets import WebSocket, WebSocketDisconnect

from voice_tts.protocol import frame_audio


# A client that stopped reading is closed with "policy violation" and a reason that says why.
WS_CLOSE_SLOW_CONSUMER = 1008


class Sender:
    """After the peer is gone every send is a no-op returning False: a vanished client must
    not turn into errors inside the turn that is being cancelled for it.

    A send that cannot go out by its deadline (by default `stall_timeout_s` from now) means the
    client is not reading: the socket is closed with 1008 `slow_consumer` and `too_slow` is set,
    so that nothing a client leaves unread holds the server's memory or a stream slot.

    Once its socket has opened a context (`framed`), every audio frame says whose it is
    (`voice_tts.protocol.frame_audio`); before that, audio goes out as it is."""

    def __init__(self, websocket: WebSocket, stall_timeout_s: float) -> None:
        self._websocket = websocket
        self._lock = asyncio.Lock()
        self._stall_timeout_s = stall_timeout_s
        self.closed = False
        self.too_slow = False
        self.framed = False

    async def message(self, message: BaseModel) -> bool:
        async with self._lock:
            return await self._send({"type": "websocket.send", "text": message.model_dump_json()})

    async def json(self, payload: dict) -> bool:
        """A JSON object that has no wire model (the Realtime protocol's events)."""
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        async with self._lock:
            return await self._send({"type": "websocket.send", "text": text})

    async def frame(self, data: str | bytes) -> bool:
        """A frame relayed as it is (a reconnect served by another API worker)."""
        key = "text" if isinstance(data, str) else "bytes"
        async with self._lock:
            return await self._send({"type": "websocket.send", key: data})

    async def audio(
        self,
        data: bytes,
        still_wanted: Callable[[], bool],
        deadline: float | None = None,
        context_id: str | None = None,
    ) -> bool:
        """Sends unless `still_wanted()` turned false while waiting for the socket; `deadline`
        (event-loop time) replaces the stall timeout; `context_id`: whose audio it is."""
        async with self._lock:
            if not still_wanted():
                return False
            if self.framed:
                data = frame_audio(context_id, data)
            return await self._send({"type": "websocket.send", "bytes": data}, deadline)

    async def close(self, code: int, reason: str) -> None:
        async with self._lock:
            await self._send({"type": "websocket.close", "code": code, "reason": reason})
            self.closed = True

    async def _send(self, message: dict, deadline: float | None = None) -> bool:
        if self.closed:
            return False
        if deadline is None:
            deadline = asyncio.get_running_loop().time() + self._stall_timeout_s
        try:
            async with asyncio.timeout_at(deadline):
                await self._websocket.send(message)
        except TimeoutError:
            await self._drop_slow_client()
            return False
        except (WebSocketDisconnect, RuntimeError, OSError):
            self.closed = True
            return False
        return True

    async def _drop_slow_client(self) -> None:
        self.too_slow = True
        self.closed = True
        reason = f"slow_consumer: fell more than {self._stall_timeout_s:g} s behind"
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            # Never waits: the server's WebSocket protocol queues a close without room.
            await self._websocket.send(
                {"type": "websocket.close", "code": WS_CLOSE_SLOW_CONSUMER, "reason": reason}
            )
