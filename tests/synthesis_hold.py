"""Holding the embedded voice's synthesis thread, so that streams opened meanwhile are all
waiting when its scheduler next chooses (tests of the order it serves them in)."""

from __future__ import annotations

import asyncio
import threading

from engine.backends.espeak_scheduler import shared_scheduler
from voice_tts.protocol import PRIORITY_NORMAL


class SynthesisHold:
    """A job of the process's synthesis scheduler whose one turn lasts until `release()`."""

    priority = PRIORITY_NORMAL
    has_audio = False

    def __init__(self) -> None:
        self._holding, self._release, self.finished = threading.Event(), threading.Event(), False

    async def hold(self) -> None:
        """Returns once the synthesis thread is held."""
        shared_scheduler().add(self)
        assert await asyncio.to_thread(self._holding.wait, 30)

    def release(self) -> None:
        self._release.set()

    def ready(self) -> bool:
        return not self.finished

    def due_at(self) -> float | None:
        return None

    def step(self, library) -> None:
        self._holding.set()
        self._release.wait(30)
        self.finished = True

    def fail(self, code: str, message: str) -> None:
        self.finished = True
