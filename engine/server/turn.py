"""One WebSocket turn: a `TTSSession` whose events become wire messages."""

from __future__ import annotations

import logging
import time
import uuid
from typing import TYPE_CHECKING

from engine.server.sender import Sender
from engine.server.state import ServerState
from engine.server.streams import open_session
from voice_tts.audio import pcm16_to_mulaw
from voice_tts.protocol import (
    AudioChunk,
    DoneMessage,
    Error,
    ErrorMessage,
    ProgressMessage,
    StartMessage,
    UsageInfo,
    WordTiming,
)
from voice_tts.session import SessionDone, WordsEvent

if TYPE_CHECKING:
    from voice_tts.progress import Word

log = logging.getLogger(__name__)


class Turn:
    """Owns one capacity slot from construction until `run()` returns."""

    def __init__(self, state: ServerState, start: StartMessage, sender: Sender) -> None:
        self.stream_id = uuid.uuid4().hex
        self.start = start
        self._state = state
        self._sender = sender
        self.session, self._tap = open_session(
            state.engine,
            voice=start.voice,
            language=start.language,
            instruct=start.instruct,
            sample_rate=start.sample_rate,
            normalize=start.normalize,
        )
        self._text_chars = 0
        self._first_text_at: float | None = None
        self._first_audio_sent = False
        # After a cancel nothing but `done` goes out for this turn.
        self._cancelled = False
        self._heard_text: str | None = None
        self._sent_raw_end = 0
        self._input_ended = False

    @property
    def text_chars(self) -> int:
        return self._text_chars

    @property
    def accepts_text(self) -> bool:
        return not self._input_ended

    def push_text(self, text: str) -> None:
        if self._first_text_at is None and text:
            self._first_text_at = time.monotonic()
        self._text_chars += len(text)
        self.session.push_text(text)

    def stop(self) -> None:
        if not self._input_ended:
            self._input_ended = True
            self.session.end_input()

    def cancel(self, played_ms: float | None) -> None:
        if self._cancelled:
            return
        self._cancelled = True
        self._input_ended = True
        played = None if played_ms is None else played_ms / 1000.0
        self._heard_text = self.session.cancel(played)

    async def run(self) -> None:
        outcome = "error"
        try:
            async for event in self.session.events():
                if isinstance(event, AudioChunk):
                    await self._send_progress([])
                    await self._send_audio(event)
                elif isinstance(event, WordsEvent):
                    await self._send_progress(event.words)
                elif isinstance(event, Error):
                    await self._send_error(event)
                elif isinstance(event, SessionDone):
                    await self._send_progress([])
                    await self._send_done(event)
                    outcome = "cancelled" if event.cancelled else "done"
        except Exception:
            log.exception("turn %s failed", self.stream_id)
            self.session.cancel()
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
        data = pcm16_to_mulaw(chunk.pcm) if self.start.format == "mulaw" else chunk.pcm
        if not await self._sender.audio(data, still_wanted=lambda: not self._cancelled):
            return
        metrics = self._state.metrics
        metrics.audio_seconds.inc(chunk.duration)
        if not self._first_audio_sent:
            self._first_audio_sent = True
            if self._first_text_at is not None:
                metrics.ttfa.observe(time.monotonic() - self._first_text_at)

    async def _send_progress(self, words: list[Word]) -> None:
        """Relays every engine `Progress` seen since the last call, in order; new words ride
        on the last one."""
        if self._cancelled:
            return
        pending = self._tap.take_pending()
        if not pending and not words:
            return
        if not pending:
            pending = [self._tap.latest]
        raw_end = max([self._sent_raw_end] + [word.raw_end for word in words])
        for index, progress in enumerate(pending):
            last = index == len(pending) - 1
            await self._sender.message(
                ProgressMessage(
                    raw_end=raw_end if last else self._sent_raw_end,
                    spoken_end=progress.spoken_end,
                    audio_ms=progress.audio_time * 1000.0,
                    words=[
                        WordTiming(
                            text=word.text,
                            start_ms=word.start_time * 1000.0,
                            raw_start=word.raw_start,
                            raw_end=word.raw_end,
                        )
                        for word in (words if last else [])
                    ],
                )
            )
        self._sent_raw_end = raw_end

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

    async def _send_done(self, done: SessionDone) -> None:
        heard = self._heard_text if self._heard_text is not None else done.heard_text
        await self._sender.message(
            DoneMessage(
                stream_id=self.stream_id,
                cancelled=done.cancelled,
                heard_text=heard,
                usage=UsageInfo(
                    characters_received=done.usage.characters_received,
                    characters_spoken=done.usage.characters_spoken,
                    audio_seconds=done.usage.audio_seconds,
                ),
            )
        )

    async def _send_done_after_failure(self) -> None:
        await self._sender.message(
            DoneMessage(
                stream_id=self.stream_id,
                cancelled=self._cancelled,
                heard_text=self._heard_text or "",
                usage=UsageInfo(characters_received=self._text_chars),
            )
        )
