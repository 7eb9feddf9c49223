"""One WebSocket turn: an engine stream served directly, its events become wire messages.

The turn's `TurnText` normalizes the client's text when the turn asked for it and maps the
engine's progress to raw words and heard text; the client takes those as they are.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid

from engine.server.sender import Sender
from engine.server.state import ServerState
from engine.server.streams import open_text_stream
from voice_tts.audio import pcm16_to_mulaw
from voice_tts.progress import Word
from voice_tts.protocol import (
    AudioChunk,
    Done,
    DoneMessage,
    Error,
    ErrorMessage,
    Progress,
    ProgressMessage,
    StartMessage,
    UsageInfo,
    WordTiming,
)

log = logging.getLogger(__name__)


class Turn:
    """Owns one capacity slot from construction until `run()` returns."""

    def __init__(self, state: ServerState, start: StartMessage, sender: Sender) -> None:
        self.stream_id = uuid.uuid4().hex
        self.start = start
        self._state = state
        self._sender = sender
        self._stream, self.text = open_text_stream(
            state.engine,
            voice=start.voice,
            language=start.language,
            instruct=start.instruct,
            sample_rate=start.sample_rate,
            normalize=start.normalize,
        )
        self._first_text_at: float | None = None
        self._first_audio_sent = False
        # After a cancel nothing but `done` goes out for this turn.
        self._cancelled = False
        self._heard_text: str | None = None
        self._input_ended = False

    @property
    def text_chars(self) -> int:
        return self.text.raw_length

    @property
    def accepts_text(self) -> bool:
        return not self._input_ended

    def push_text(self, text: str) -> None:
        if self._first_text_at is None and text:
            self._first_text_at = time.monotonic()
        self._forward(self.text.push(text))

    def stop(self) -> None:
        if not self._input_ended:
            self._input_ended = True
            self._forward(self.text.flush())
            self._stream.end_input()

    def cancel(self, played_ms: float | None) -> None:
        if self._cancelled:
            return
        self._cancelled = True
        self._input_ended = True
        self.text.drop_held()
        self._stream.cancel()
        played = None if played_ms is None else played_ms / 1000.0
        self._heard_text = self.text.heard_text(played)

    def _forward(self, spoken: list[str]) -> None:
        for piece in spoken:
            self._stream.push_text(piece)

    def _forward_polled(self, spoken: list[str]) -> None:
        if not self._input_ended:
            self._forward(spoken)

    async def run(self) -> None:
        outcome = "error"
        try:
            events = self.text.with_polling(aiter(self._stream.events()), self._forward_polled)
            async with contextlib.aclosing(events):
                async for event in events:
                    if isinstance(event, AudioChunk):
                        await self._send_audio(event)
                    elif isinstance(event, Progress):
                        words = self.text.on_progress(event.spoken_end, event.audio_time)
                        await self._send_progress(event, words)
                    elif isinstance(event, Error):
                        await self._send_error(event)
                    elif isinstance(event, Done):
                        await self._send_done(event)
                        outcome = "cancelled" if event.cancelled else "done"
        except Exception:
            log.exception("turn %s failed", self.stream_id)
            self._stream.cancel()
            await self._send_error(
                Error(
                    code="engine_error", message="the turn failed inside the server", retryable=True
                )
            )
            await self._send_done_after_failure()
        finally:
            self._state.slots.release()
            self._state.metrics.turns.labels(route="ws", outcome=outcome).inc()

    async def _send_audio(self, chunk: AudioChunk) -> None:
        if self._cancelled or not chunk.pcm:
            return
        self.text.on_audio(chunk)
        data = pcm16_to_mulaw(chunk.pcm) if self.start.format == "mulaw" else chunk.pcm
        if not await self._sender.audio(data, still_wanted=lambda: not self._cancelled):
            return
        metrics = self._state.metrics
        metrics.audio_seconds.inc(chunk.duration)
        if not self._first_audio_sent:
            self._first_audio_sent = True
            if self._first_text_at is not None:
                metrics.ttfa.observe(time.monotonic() - self._first_text_at)

    async def _send_progress(self, progress: Progress, words: list[Word]) -> None:
        if self._cancelled:
            return
        await self._sender.message(
            ProgressMessage(
                raw_end=self.text.heard_end,
                spoken_end=progress.spoken_end,
                audio_ms=progress.audio_time * 1000.0,
                words=[
                    WordTiming(
                        text=word.text,
                        start_ms=word.start_time * 1000.0,
                        raw_start=word.raw_start,
                        raw_end=word.raw_end,
                    )
                    for word in words
                ],
            )
        )

    async def _send_error(self, error: Error) -> None:
        self._state.metrics.errors.labels(code=error.code).inc()
        await self._sender.message(
            ErrorMessage(
                code=error.code,
                message=error.message,
                retryable=error.retryable,
                stream_id=self.stream_id,
            )
        )

    async def _send_done(self, done: Done) -> None:
        heard = self._heard_text if self._heard_text is not None else self.text.heard_text(None)
        usage = self.text.usage
        await self._sender.message(
            DoneMessage(
                stream_id=self.stream_id,
                cancelled=done.cancelled,
                heard_text=heard,
                usage=UsageInfo(
                    characters_received=usage.characters_received,
                    characters_spoken=usage.characters_spoken,
                    audio_seconds=usage.audio_seconds,
                ),
            )
        )

    async def _send_done_after_failure(self) -> None:
        await self._sender.message(
            DoneMessage(
                stream_id=self.stream_id,
                cancelled=self._cancelled,
                heard_text=self._heard_text or "",
                usage=UsageInfo(characters_received=self.text.raw_length),
            )
        )
