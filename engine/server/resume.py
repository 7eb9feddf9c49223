"""Resumable turns waiting for their client to come back (`reconnect` on a new socket).

A token names this server process (`instance`) and one turn. The registry knows every resumable
turn from its start, so that a reconnect can take a turn over even before the server has noticed
that its old socket died; it keeps a turn whose socket dropped for `resume_timeout_s`, then ends
it, and forgets a finished turn once its socket starts another; it remembers the tokens it let expire (a
bounded number) so that a late client hears "expired" rather than "unknown". A token of
another instance means the turn lived in another process: another API worker of the same server
(`voice-tts serve --workers N`), whose socket `ResumeRelay` finds, or a process that is gone (this
server restarted since the turn began, or a load balancer sent the reconnect to another
replica): then the turn is lost, and the client is told so at once.
"""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Protocol

from voice_tts.protocol import ErrorCode, ReconnectMessage

# Expired tokens remembered for a clear answer; older ones become "unknown".
REMEMBERED_EXPIRED = 4096


class ResumableTurn(Protocol):
    """What the registry needs of a turn (engine/server/turn.py's `Turn`)."""

    def expire(self) -> None:
        """No reconnect came in time: the turn ends."""


class ResumeRefused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class ResumeRegistry:
    def __init__(self, timeout_s: float) -> None:
        self.instance = uuid.uuid4().hex[:16]
        self._timeout_s = timeout_s
        self._turns: dict[str, ResumableTurn] = {}
        self._waiting: dict[str, asyncio.TimerHandle] = {}  # tokens of turns without a socket
        self._expired: OrderedDict[str, ResumeRefused] = OrderedDict()

    def add(self, turn: ResumableTurn) -> str:
        """A new resumable turn; returns its token."""
        token = f"{self.instance}.{secrets.token_urlsafe(18)}"
        self._turns[token] = turn
        return token

    def park(self, token: str) -> None:
        """The turn's socket dropped: it ends unless a reconnect takes it in time."""
        if token in self._turns and token not in self._waiting:
            loop = asyncio.get_running_loop()
            self._waiting[token] = loop.call_later(self._timeout_s, self._expire, token)

    def discard(self, token: str) -> None:
        """A finished turn whose client has moved on."""
        self._turns.pop(token, None)
        if (timer := self._waiting.pop(token, None)) is not None:
            timer.cancel()

    def take(self, token: str) -> ResumableTurn:
        """The turn of `token` for a reconnect (it stays known: its socket may drop again)."""
        turn = self._turns.get(token)
        if turn is not None:
            if (timer := self._waiting.pop(token, None)) is not None:
                timer.cancel()
            return turn
        if token in self._expired:
            raise self._expired[token]
        if token_instance(token) != self.instance:
            raise ResumeRefused(
                ErrorCode.RESUME_LOST,
                "this turn lived in another server process (restarted since it began, or another "
                "replica behind a load balancer): the turn is lost; start it again",
            )
        raise ResumeRefused(ErrorCode.RESUME_UNKNOWN, "no resumable turn has this token")

    def _expire(self, token: str, refusal: ResumeRefused | None = None) -> None:
        turn = self._turns.pop(token, None)
        if (timer := self._waiting.pop(token, None)) is not None:
            timer.cancel()
        if turn is None:
            return
        self._expired[token] = refusal or ResumeRefused(
            ErrorCode.RESUME_EXPIRED,
            f"the turn waited {self._timeout_s:g} s for a reconnect and ended",
        )
        while len(self._expired) > REMEMBERED_EXPIRED:
            self._expired.popitem(last=False)
        turn.expire()

    def close(self) -> None:
        """The server is stopping: every resumable turn ends, and its token says why."""
        for token in list(self._turns):
            self._expire(
                token,
                ResumeRefused(
                    ErrorCode.RESUME_LOST,
                    "the server shut down since this turn began: the turn is lost",
                ),
            )


def token_instance(token: str) -> str:
    """The registry (server process) that issued a resume token."""
    return token.partition(".")[0]


class ResumeRelay:
    """How the API workers of one server reach one another's turns: each listens on a Unix
    socket named after its registry's instance in one folder, and a reconnect whose turn lives
    in another worker is relayed to that worker's socket, which serves it as its own."""

    def __init__(self, directory: str | Path, api_key: str | None) -> None:
        self.directory = Path(directory)
        self._api_key = api_key

    def socket_path(self, instance: str) -> Path:
        return self.directory / f"{instance}.sock"

    def worker_of(self, token: str) -> Path | None:
        """The socket of the worker that holds `token`'s turn (None: no worker of this server)."""
        path = self.socket_path(token_instance(token))
        return path if path.exists() else None

    async def connect(self, path: Path, reconnect: ReconnectMessage):
        """A WebSocket to that worker, its reconnect sent (a `websockets` client connection)."""
        from websockets.asyncio.client import unix_connect

        headers = None if self._api_key is None else {"Authorization": f"Bearer {self._api_key}"}
        upstream = await unix_connect(
            str(path), "ws://worker/v1/ws", additional_headers=headers, max_size=None, compression=None
        )
        await upstream.send(reconnect.model_dump_json())
        return upstream
