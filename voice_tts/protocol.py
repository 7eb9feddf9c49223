"""The engine stream contract (events, stream shape) and, below it, the wire protocol.

Every engine (the Qwen3 runtime, the embedded eSpeak NG voice, the remote client) yields
exactly these events, so callers never branch on the backend (see ARCHITECTURE.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import AsyncIterator, Protocol, Union


@dataclass(frozen=True)
class AudioChunk:
    """Mono s16le PCM; `start_sample` counts this stream's samples before this chunk."""

    pcm: bytes
    sample_rate: int
    start_sample: int

    @property
    def num_samples(self) -> int:
        return len(self.pcm) // 2

    @property
    def duration(self) -> float:
        return self.num_samples / self.sample_rate


@dataclass(frozen=True)
class Progress:
    """Everything before `spoken_end` (characters of the spoken text pushed to this stream)
    starts at or before `audio_time` seconds of this stream's audio.

    Emitted no later than the audio chunk it describes; never moves backwards.
    """

    spoken_end: int
    audio_time: float


@dataclass(frozen=True)
class Usage:
    characters_received: int = 0
    characters_spoken: int = 0
    audio_seconds: float = 0.0


@dataclass(frozen=True)
class Done:
    """Always the last event of a stream, also of one that produced no audio."""

    cancelled: bool = False
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class Error:
    """A per-stream failure; a `Done` always follows."""

    code: str
    message: str
    retryable: bool = False


Event = Union[AudioChunk, Progress, Done, Error]


class EngineStream(Protocol):
    """One assistant turn on an engine."""

    def push_text(self, text: str) -> None:
        """Append normalized spoken text; thread-safe, never blocks."""

    def end_input(self) -> None:
        """No more text: the engine drains, then emits `Done`."""

    def cancel(self) -> None:
        """Barge-in: stop within one engine step; no audio follows; `Done(cancelled=True)`."""

    def events(self) -> AsyncIterator[Event]:
        """The stream's events, ending with `Done`."""


class StreamingEngine(Protocol):
    """What adapters and the server need of an engine (in-process, embedded or remote)."""

    def open_stream(
        self,
        voice: str | None = None,
        language: str | None = None,
        instruct: str | None = None,
        sample_rate: int = 24000,
        **options,
    ) -> EngineStream: ...

    async def aclose(self) -> None: ...
