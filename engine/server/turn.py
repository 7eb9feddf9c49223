"""One WebSocket turn: an engine stream served directly, its events become wire messages.

The `start` becomes the turn's `StreamRequest`; the engine stream's events go through the turn's
output pipeline (`voice_tts.stream_output`: speed, encoding, words, heard text, usage), whose
text side normalizes the client's text when the turn asked for it; the client takes words and
heard text as they are, and the turn's `done` and its usage record read the same usage.

Output goes out in order through one gate:
- `pause` holds it (nothing more is sent) and keeps its place; once `pause_lookahead_s` of
  audio is held the turn stops reading the engine stream, which then waits in the engine.
  `resume` sends what was held and goes on: the client gets exactly the bytes of an unpaused
  turn. A pause longer than `pause_timeout_s` ends the turn (`done`, reason "pause_timeout").
- A resumable turn keeps what it sent since the client's last `ack` (up to `resume_buffer_s`
  of audio). When its socket drops it waits, parked, for a `reconnect` on another socket, which
  gets everything from the sample the client names onward; without a socket the turn stops
  reading the engine once that buffer is full.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import uuid

from pydantic import BaseModel

from engine.server.resume import ResumeRefused
from engine.server.sender import Sender
from engine.server.state import ServerState
from engine.server.route_stream import open_output_stream
from voice_tts.protocol import (
    DoneMessage,
    Error,
    ErrorCode,
    ErrorMessage,
    ProgressMessage,
    ReconnectedMessage,
    UsageInfo,
    WordTiming,
    push_spoken,
)
from voice_tts.request import StreamRequest
from voice_tts.stream_output import AudioOut, Finished, WordsOut

log = logging.getLogger(__name__)

# What goes out, in order: audio bytes (with their sample count) or a JSON message.
Output = tuple[bytes | BaseModel, int]


class Turn:
    """Owns one capacity slot from construction until `run()` returns. `request` carries the
    stream's priority (engine/server/stream_priority.py says which a turn gets); `traceparent`, the
    client's trace context; `cache`: the phrase cache may answer it (its engine stream is then
    opened once its text is no cached phrase's: engine/server/phrase_cache.py)."""

    def __init__(
        self,
        state: ServerState,
        request: StreamRequest,
        sender: Sender,
        traceparent: str | None = None,
        context_id: str | None = None,
        cache: bool = False,
    ) -> None:
        self.stream_id = uuid.uuid4().hex
        # The context it is on its socket (None: the socket's plain turn); every message and
        # audio frame it sends says so.
        self.context_id = context_id
        self._state = state
        self.request = request
        self.usage = state.stream_usage("ws", self.stream_id, request.voice, traceparent)
        self._stream, self.output = open_output_stream(state, request, self.usage, cache)
        self.text = self.output.text
        self.resume_token = state.resumes.add(self) if request.resumable else None
        self.task: asyncio.Task | None = None
        self.text_seq = 0  # the last numbered `text` received
        # After a cancel nothing but `done` goes out for this turn.
        self._cancelled = False
        self._input_ended = False
        self._input_flushed = False  # the normalizer was flushed and the engine's input ended
        self._dropped_slow = False  # dropped for not reading (logged and counted once)
        self._end_reason: str | None = None
        # Its `done` went out on the socket it was sending to (the client kept up to the end).
        self.done_sent = False
        # -- output gate ---------------------------------------------------------------
        self._sender: Sender | None = sender
        self._out_lock = asyncio.Lock()
        self._room = asyncio.Event()
        self._paused = False
        self._paused_at: float | None = None
        self._pause_timer: asyncio.TimerHandle | None = None
        # Loop time at which sample 0 would have played, had the client played in real time.
        self._playout_start: float | None = None
        self._held: collections.deque[Output] = collections.deque()
        self._held_samples = 0
        self._sent_samples = 0
        # Resumable turns: what was sent since the last ack, with the sample it was sent at.
        self._replay: collections.deque[tuple[int, Output]] = collections.deque()
        self._replay_samples = 0
        rate = request.sample_rate
        self._lookahead_samples = int(state.settings.pause_lookahead_s * rate)
        self._replay_limit = int(state.settings.resume_buffer_s * rate)
        self._bytes_per_sample = self.request.bytes_per_sample

    @property
    def text_chars(self) -> int:
        return self.text.raw_length

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def accepts_text(self) -> bool:
        return not self._input_ended

    # -- client commands --------------------------------------------------------------

    def push_text(self, text: str) -> None:
        """Received text is normalized by `feed`, just ahead of the engine's voice."""
        if text:
            self.usage.text_arrived()
        self.text.receive(text)

    def feed(self) -> bool:
        """Normalizes and forwards the next slice of received text if the engine needs more
        (about a ms of the server's loop). True while another slice is due now: until the
        engine has text to speak; later slices are due as its progress comes."""
        if self._cancelled:
            return False
        spoken = self.text.take_ahead()
        self._forward(spoken)
        self._end_input_once_normalized()
        return not spoken and self.text.needs_normalizing

    def _end_input_once_normalized(self) -> None:
        """After `stop`, the engine's input ends once the received text is normalized."""
        if self._input_ended and not self._input_flushed and not self._cancelled and not self.text.unnormalized:
            self._input_flushed = True
            self._forward(self.text.flush())
            self._stream.end_input()

    def stop(self) -> None:
        if not self._input_ended:
            self._input_ended = True
            self.feed()

    def set_speed(self, speed: float) -> None:
        """The speaking rate from the engine's next audio chunk on."""
        self.output.set_speed(speed)

    def cancel(self, played_ms: float | None) -> None:
        if self._cancelled:
            return
        self._cancelled = True
        self._input_ended = True
        self._stream.cancel()
        self.output.cancel(None if played_ms is None else played_ms / 1000.0)
        self._unpause()
        self._held.clear()
        self._held_samples = 0

    def pause(self) -> None:
        if self._paused or self._cancelled or self.done_sent:
            return
        self._paused = True
        self._paused_at = asyncio.get_running_loop().time()
        timeout = self._state.settings.pause_timeout_s
        self._pause_timer = asyncio.get_running_loop().call_later(
            timeout, self._end_itself, "pause_timeout"
        )

    async def resume(self) -> None:
        if not self._paused:
            return
        async with self._out_lock:
            self._unpause()
            while self._held:
                await self._send(*self._held.popleft())
            self._held_samples = 0

    def _unpause(self) -> None:
        self._paused = False
        if self._paused_at is not None and self._playout_start is not None:
            self._playout_start += asyncio.get_running_loop().time() - self._paused_at
        self._paused_at = None
        if self._pause_timer is not None:
            self._pause_timer.cancel()
            self._pause_timer = None
        self._room.set()

    def end_if_input_open(self, reason: str) -> None:
        """Ends the turn (`done` with `reason`) unless its input has ended: a context whose
        client went quiet before sending `stop`."""
        if not self._input_ended:
            self._end_itself(reason)

    def shut_down(self) -> None:
        """The server is stopping: the turn ends now, with `done` reason `shutdown`."""
        self._end_itself("shutdown")

    def _end_itself(self, reason: str) -> None:
        if self._end_reason is None and not self._cancelled:
            self._end_reason = reason
            self.cancel(None)

    def _forward(self, spoken: str) -> None:
        push_spoken(self._stream, spoken, self.text.word_end, self.text.space_follows)

    def _forward_polled(self, spoken: str) -> None:
        if not self._input_flushed and not self._cancelled:
            self._forward(spoken)
            self._end_input_once_normalized()

    # -- reconnect-resume ---------------------------------------------------------------

    def ack(self, samples: int) -> None:
        """The client has the first `samples` samples: forget what it has."""
        while self._replay:
            position, (item, count) = self._replay[0]
            if position + count > samples or (count == 0 and position >= samples):
                break
            self._replay.popleft()
            self._replay_samples -= count
        self._room.set()

    def sends_to(self, sender: Sender) -> bool:
        return self._sender is sender

    def detach(self) -> None:
        """The socket dropped: output is kept for a reconnect."""
        self._sender = None

    def expire(self) -> None:
        """No reconnect came in time."""
        self._end_itself("resume_timeout")

    async def attach(self, sender: Sender, received_samples: int, context_id: str | None = None) -> None:
        """A reconnect: everything from sample `received_samples` goes to `sender`, as the
        context `context_id` of its socket."""
        async with self._out_lock:
            oldest = self._replay[0][0] if self._replay else self._sent_samples
            if not oldest <= received_samples <= self._sent_samples:
                raise ResumeRefused(
                    ErrorCode.RESUME_GAP,
                    f"the server holds samples {oldest} to {self._sent_samples} of this turn; "
                    f"{received_samples} is outside them",
                )
            self._sender = sender
            self.context_id = context_id
            await sender.message(
                self._addressed(
                    ReconnectedMessage(
                        stream_id=self.stream_id, text_seq=self.text_seq, from_sample=received_samples
                    )
                )
            )
            for position, (item, count) in self._replay:
                if isinstance(item, bytes):
                    if position + count <= received_samples:
                        continue
                    skip = max(0, received_samples - position) * self._bytes_per_sample
                    await sender.audio(item[skip:], still_wanted=lambda: True, context_id=context_id)
                elif position >= received_samples:
                    await sender.message(self._addressed(item))
            self._room.set()

    # -- output -------------------------------------------------------------------------

    async def _emit(self, item: bytes | BaseModel, samples: int = 0) -> bool:
        """True if `item` went out now (not held by a pause, not dropped)."""
        async with self._out_lock:
            if self._paused:
                self._held.append((item, samples))
                self._held_samples += samples
                return False
            return await self._send(item, samples)

    async def _send(self, item: bytes | BaseModel, samples: int) -> bool:
        position = self._sent_samples
        self._sent_samples += samples
        if self.resume_token is not None:
            self._replay.append((position, (item, samples)))
            self._replay_samples += samples
            if self._sender is not None:
                self._forget_beyond_limit()
        sender = self._sender
        if sender is None:
            return False
        if isinstance(item, bytes):
            deadline = self._audio_deadline(position)
            sent = await sender.audio(
                item, still_wanted=lambda: not self._cancelled, deadline=deadline, context_id=self.context_id
            )
        else:
            sent = await sender.message(self._addressed(item))
        # Once per turn: its socket's reader may cancel it (the socket closed) before this.
        if sender.too_slow and not self._dropped_slow:
            self._dropped_slow = True
            log.warning("turn %s: its client stopped reading; dropped", self.stream_id)
            self._state.metrics.errors.labels(code=ErrorCode.SLOW_CONSUMER).inc()
            self._end_itself(ErrorCode.SLOW_CONSUMER)
        return sent

    def _addressed(self, message: BaseModel) -> BaseModel:
        """`message` as this turn's context sends it (kept unaddressed for a replay, since a
        reconnect may name another context)."""
        if self.context_id is None:
            return message
        return message.model_copy(update={"context_id": self.context_id})

    def _audio_deadline(self, position: int) -> float:
        """When the audio from sample `position` on must have gone out: its time on a real-time
        playout clock that starts with the turn's first audio and stops while paused (or now,
        if the engine made it later), plus the lag a client is allowed."""
        now = asyncio.get_running_loop().time()
        offset = position / self.request.sample_rate
        if self._playout_start is None:
            self._playout_start = now - offset
        return max(self._playout_start + offset, now) + self._state.settings.max_client_lag_s

    def _forget_beyond_limit(self) -> None:
        while self._replay_samples > self._replay_limit and self._replay:
            _, (_, count) = self._replay.popleft()
            self._replay_samples -= count

    def _has_room(self) -> bool:
        if self._paused and self._held_samples >= self._lookahead_samples:
            return False
        detached = self.resume_token is not None and self._sender is None
        return not (detached and self._replay_samples >= self._replay_limit)

    async def _wait_for_room(self) -> None:
        """Stop reading the engine while paused or without a socket and the buffer is full."""
        while not self._has_room() and not self._cancelled:
            self._room.clear()
            await self._room.wait()

    async def _wait_unpaused(self) -> None:
        while self._paused and not self._cancelled:
            self._room.clear()
            await self._room.wait()

    # -- the turn -----------------------------------------------------------------------

    async def run(self) -> None:
        outcome = "error"
        self._state.turns.add(self)
        try:
            events = self.text.with_polling(aiter(self._stream.events()), self._forward_polled)
            async with contextlib.aclosing(events):
                async for event in events:
                    self.usage.engine_output()
                    for out in self.output.process(event):
                        if isinstance(out, AudioOut):
                            await self._emit(out.data, out.chunk.num_samples)
                        elif isinstance(out, WordsOut):
                            self.feed()
                            await self._send_progress(out)
                        elif isinstance(out, Error):
                            await self._send_error(out)
                        elif isinstance(out, Finished):
                            await self._wait_unpaused()
                            await self._send_done(out)
                            outcome = self._end_reason or ("cancelled" if out.cancelled else "done")
                    await self._wait_for_room()
        except Exception:
            log.exception("turn %s failed", self.stream_id)
            self._stream.cancel()
            await self._send_error(
                Error(
                    code="engine_error", message="the turn failed inside the server", retryable=True
                )
            )
            await self._send_done(Finished(self._cancelled, self.output.usage, self.text.heard))
        finally:
            self._state.turns.discard(self)
            if self._pause_timer is not None:
                self._pause_timer.cancel()
            self._state.slots.release()
            self.usage.finish(outcome, self.output.usage)

    async def _send_progress(self, progress: WordsOut) -> None:
        if self._cancelled:
            return
        await self._emit(
            ProgressMessage(
                raw_end=progress.raw_end,
                spoken_end=progress.spoken_end,
                audio_ms=progress.audio_time * 1000.0,
                words=[
                    WordTiming(
                        text=word.text,
                        start_ms=word.start_time * 1000.0,
                        raw_start=word.raw_start,
                        raw_end=word.raw_end,
                    )
                    for word in progress.words
                ],
            )
        )

    async def _send_error(self, error: Error) -> None:
        self._state.metrics.errors.labels(code=error.code).inc()
        self.usage.error(error.code, error.message)
        await self._emit(
            ErrorMessage(
                code=error.code,
                message=error.message,
                retryable=error.retryable,
                stream_id=self.stream_id,
            )
        )

    async def _send_done(self, finished: Finished) -> None:
        usage = finished.usage
        self.done_sent = await self._emit(
            DoneMessage(
                stream_id=self.stream_id,
                cancelled=finished.cancelled,
                heard_text=finished.heard_text,
                usage=UsageInfo(
                    characters_received=usage.characters_received,
                    characters_spoken=usage.characters_spoken,
                    audio_seconds=usage.audio_seconds,
                    cached=self.usage.cached,
                ),
                reason=self._end_reason,
            )
        )
