"""Opening sessions on the served engine: capacity slots and the progress tap.

The server speaks through `TTSSession` (TN, word progress, heard text), but its wire `progress`
also carries the engine's own spoken-text positions, which the session consumes; the tap watches
the engine stream underneath the session and keeps every `Progress` until the server relays it
(a client's own `TTSSession` needs each one to time its words).
"""

from __future__ import annotations

from typing import AsyncIterator

from engine.server.metrics import ServerMetrics
from voice_tts.protocol import EngineStream, Event, Progress, StreamingEngine
from voice_tts.session import TTSSession


class StreamSlots:
    """Counts streams against the server's capacity (WebSocket turns and HTTP requests)."""

    def __init__(self, capacity: int, metrics: ServerMetrics) -> None:
        self.capacity = capacity
        self.active = 0
        self._metrics = metrics

    def acquire(self) -> bool:
        if self.active >= self.capacity:
            return False
        self.active += 1
        self._metrics.active_streams.set(self.active)
        return True

    def release(self) -> None:
        self.active -= 1
        self._metrics.active_streams.set(self.active)


class _TappedStream:
    def __init__(self, stream: EngineStream, tap: "ProgressTap") -> None:
        self._stream = stream
        self._tap = tap

    def push_text(self, text: str) -> None:
        self._stream.push_text(text)

    def end_input(self) -> None:
        self._stream.end_input()

    def cancel(self) -> None:
        self._stream.cancel()

    async def events(self) -> AsyncIterator[Event]:
        async for event in self._stream.events():
            if isinstance(event, Progress):
                self._tap.pending.append(event)
                self._tap.latest = event
            yield event


class ProgressTap:
    """An engine view whose streams record their `Progress` events here."""

    def __init__(self, engine: StreamingEngine) -> None:
        self._engine = engine
        self.latest = Progress(spoken_end=0, audio_time=0.0)
        self.pending: list[Progress] = []

    def take_pending(self) -> list[Progress]:
        pending, self.pending = self.pending, []
        return pending

    def open_stream(self, **kwargs) -> _TappedStream:
        return _TappedStream(self._engine.open_stream(**kwargs), self)

    async def aclose(self) -> None:
        """The tap never owns the engine."""


def open_session(
    engine: StreamingEngine,
    *,
    voice: str | None,
    language: str | None,
    instruct: str | None,
    sample_rate: int,
    normalize: bool,
) -> tuple[TTSSession, ProgressTap]:
    tap = ProgressTap(engine)
    session = TTSSession(
        tap,
        voice=voice,
        language=language,
        instruct=instruct,
        sample_rate=sample_rate,
        normalize=normalize,
    )
    return session, tap
