"""Resumable turns waiting for their client to come back (`reconnect` on a new socket).

A token names this server process (`instance`) and one turn. The registry keeps a turn whose
socket dropped for `resume_timeout_s`, then ends it; it remembers the tokens it let expire (a
bounded number) so that a late client hears "expired" rather than "unknown". A token of
another instance means the turn lived in another process (this server restarted since it began,
or a load balancer sent the reconnect to another replica): the turn is lost, and the client is
told so at once.
"""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections import OrderedDict
from typing import TYPE_CHECKING

from voice_tts.protocol import ErrorCode

if TYPE_CHECKING:
    from engine.server.turn import Turn

# Expired tokens remembered for a clear answer; older ones become "unknown".
REMEMBERED_EXPIRED = 4096


class ResumeRefused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class ResumeRegistry:
    def __init__(self, timeout_s: float) -> None:
        self.instance = uuid.uuid4().hex[:16]
        self._timeout_s = timeout_s
        self._parked: dict[str, tuple[Turn, asyncio.TimerHandle]] = {}
        self._expired: OrderedDict[str, ResumeRefused] = OrderedDict()

    def new_token(self) -> str:
        return f"{self.instance}.{secrets.token_urlsafe(18)}"

    def park(self, token: str, turn: Turn) -> None:
        """Keep `turn` for a reconnect; it ends if none comes in time."""
        timer = asyncio.get_running_loop().call_later(self._timeout_s, self._expire, token)
        self._parked[token] = (turn, timer)

    def take(self, token: str) -> Turn:
        parked = self._parked.pop(token, None)
        if parked is not None:
            turn, timer = parked
            timer.cancel()
            return turn
        if token in self._expired:
            raise self._expired[token]
        if token.partition(".")[0] != self.instance:
            raise ResumeRefused(
                ErrorCode.RESUME_LOST,
                "this turn lived in another server process (restarted since it began, or another "
                "replica behind a load balancer): the turn is lost; start it again",
            )
        raise ResumeRefused(ErrorCode.RESUME_UNKNOWN, "no resumable turn has this token")

    def _expire(self, token: str, refusal: ResumeRefused | None = None) -> None:
        parked = self._parked.pop(token, None)
        if parked is None:
            return
        turn, timer = parked
        timer.cancel()
        self._expired[token] = refusal or ResumeRefused(
            ErrorCode.RESUME_EXPIRED,
            f"the turn waited {self._timeout_s:g} s for a reconnect and ended",
        )
        while len(self._expired) > REMEMBERED_EXPIRED:
            self._expired.popitem(last=False)
        turn.expire()

    def close(self) -> None:
        """The server is stopping: every waiting turn ends, and its token says why."""
        for token in list(self._parked):
            self._expire(
                token,
                ResumeRefused(
                    ErrorCode.RESUME_LOST,
                    "the server shut down since this turn began: the turn is lost",
                ),
            )
