"""`GET /v1/audio/speech/stream`: vLLM-Omni's streaming-input speech socket, served by the turns
of `/v1/ws`.

The client configures the session (`session.config`: the fields of a speech request, plus
`stream_audio`, and `word_progress` for word timings), streams text (`input.text`), and flushes
an utterance with `input.done`; the socket stays open for the next one, with the same
configuration unless a new `session.config` comes between utterances. `session.close` ends the
session once a flushed utterance has been spoken (text not yet flushed is dropped).

Each utterance is one turn (engine/server/turn.py) whose text goes to the engine as its words
end, normalized as on `/v1/ws`: its first audio comes after its first words, not after its
first sentence, and it is one generation however many sentences it has. The turn's output is
written in vLLM-Omni's events: `audio.start`, the audio (binary frames as it is produced with
`stream_audio: true`; one frame, a whole file of `response_format`, at the end otherwise),
`audio.done`, `session.done`, and `error` (`{"type": "error", "message", "code"}`). With
`word_progress: true`, `voice_tts.word_progress` events carry each word as its audio starts.

Barge-in: `input.cancel` (an extension) stops the utterance within one engine step, as closing
the socket does, and drops text sent for later utterances; its `session.done` has
`"cancelled": true` and the socket stays open.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Callable, Literal

import pydantic_core
from pydantic import BaseModel, ValidationError
from starlette.websockets import WebSocket

from engine.server.encoders import FORMATS, StreamEncoder
from engine.server.sender import Sender
from engine.server.speech_settings import SAMPLE_RATE, SpeechRefused, SpeechSettings, StreamChoice, check_speed, resolve, stream_request
from engine.server.state import ServerState
from engine.server.stream_priority import stream_priority
from engine.server.turn import Turn
from engine.server.websocket import ABANDON_TIMEOUT_S, WS_CLOSE_IDLE, Budget, receive_unless_idle
from voice_tts.audio import wav_bytes
from voice_tts.protocol import (
    DoneMessage,
    ErrorCode,
    ErrorMessage,
    ProgressMessage,
)

log = logging.getLogger(__name__)

# Audio an utterance without `stream_audio` may hold until its end (then it fails: stream it).
MAX_HELD_SECONDS = 600.0


class SessionConfig(SpeechSettings):
    stream_audio: bool = False
    word_progress: bool = False
    # vLLM-Omni's choice of where to cut text into requests: no effect here, where the text of
    # an utterance goes to one generation token by token.
    split_granularity: Literal["none", "sentence", "clause"] = "none"


class SessionError(Exception):
    def __init__(self, message: str, code: str = ErrorCode.INVALID_MESSAGE) -> None:
        super().__init__(message)
        self.code = code


def _error(message: str, code: str) -> dict:
    return {"type": "error", "message": message, "code": code}


class UtteranceSender:
    """What a turn sends, written as vLLM-Omni's events for one utterance."""

    def __init__(self, sender: Sender, config: SessionConfig, index: int) -> None:
        self._sender = sender
        self._config = config
        self.index = index
        self.text = ""  # what the client sent of this utterance
        self.turn: Turn | None = None
        self._started = False
        self._held = bytearray()
        self._total_bytes = 0
        self._failed = False

    @property
    def too_slow(self) -> bool:
        return self._sender.too_slow

    async def audio(
        self, data: bytes, still_wanted: Callable[[], bool], deadline: float | None = None, context_id: str | None = None
    ) -> bool:
        # `context_id` is always None: an utterance is the socket's one turn, never a context.
        if not self._started and not await self._start():
            return False
        if not self._config.stream_audio:
            if len(self._held) + len(data) > MAX_HELD_SECONDS * SAMPLE_RATE * 2:
                if not self._failed:
                    self._failed = True
                    self.turn.cancel(None)
                    await self._sender.json(_error(
                        f"the utterance is longer than {MAX_HELD_SECONDS:g} s: use stream_audio: true", ErrorCode.TEXT_TOO_LONG
                    ))
                return False
            self._held += data
            return True
        self._total_bytes += len(data)
        return await self._sender.audio(data, still_wanted, deadline)

    async def message(self, message: BaseModel) -> bool:
        if isinstance(message, ProgressMessage):
            if not self._config.word_progress or not message.words:
                return True
            if not self._started and not await self._start():
                return False
            words = [word.model_dump() for word in message.words]
            return await self._sender.json(
                {"type": "voice_tts.word_progress", "utterance_index": self.index, "audio_ms": message.audio_ms, "words": words}
            )
        if isinstance(message, ErrorMessage):
            self._failed = True
            return await self._sender.json(_error(message.message, message.code))
        if isinstance(message, DoneMessage):
            return await self._done(message)
        return True

    async def _start(self) -> bool:
        self._started = True
        return await self._sender.json(
            {
                "type": "audio.start",
                "utterance_index": self.index,
                "sentence_index": 0,
                "sentence_text": self.text,
                "format": self._config.response_format,
                "sample_rate": SAMPLE_RATE,
            }
        )

    async def _done(self, done: DoneMessage) -> bool:
        spoken = self._started or bool(self.text.strip())
        if spoken and not self._started:
            await self._start()
        if spoken and not self._config.stream_audio and not self._failed:
            body = _audio_file(bytes(self._held), self._config.response_format)
            self._held.clear()
            self._total_bytes = len(body)
            if body:
                await self._sender.audio(body, still_wanted=lambda: True)
        if spoken:
            await self._sender.json(
                {
                    "type": "audio.done",
                    "utterance_index": self.index,
                    "sentence_index": 0,
                    "total_bytes": self._total_bytes,
                    "error": self._failed,
                }
            )
        session_done = {"type": "session.done", "utterance_index": self.index, "total_sentences": int(spoken)}
        if done.cancelled:
            session_done["cancelled"] = True
        return await self._sender.json(session_done)


def _audio_file(pcm: bytes, response_format: str) -> bytes:
    if response_format == "pcm":
        return pcm
    if response_format == "wav":
        return wav_bytes(pcm, SAMPLE_RATE)
    encoder = StreamEncoder(response_format, SAMPLE_RATE)
    return encoder.encode(pcm) + encoder.finish()


class OmniConnection:
    def __init__(self, websocket: WebSocket, state: ServerState) -> None:
        self._websocket = websocket
        self._state = state
        self._sender = Sender(websocket, state.settings.max_client_lag_s)
        self._budget = Budget(state.settings.max_messages_per_s, state.settings.message_burst)
        self._config: SessionConfig | None = None
        self._choice: StreamChoice | None = None
        self._turn: Turn | None = None
        self._utterance: UtteranceSender | None = None
        self._next_index = 0
        self._idle_since = 0.0
        self._inbox: asyncio.Queue[dict] = asyncio.Queue(maxsize=state.settings.message_burst)
        self._handling = False  # the worker is acting on a message
        self._cancels = 0  # input.cancel messages so far

    async def serve(self) -> None:
        await self._websocket.accept()
        metrics = self._state.metrics
        metrics.connections.inc()
        metrics.open_connections.inc()
        self._idle_since = asyncio.get_running_loop().time()
        # Messages are acted on in order by one worker, which waits for an utterance to end
        # before the next starts; the socket is read meanwhile, so that a cancel acts at once.
        worker = asyncio.create_task(self._work())
        try:
            while not worker.done():
                message = await self._receive()
                if message is None:
                    timeout = self._state.settings.ws_idle_timeout_s
                    await self._sender.close(WS_CLOSE_IDLE, f"{ErrorCode.IDLE_TIMEOUT}: no utterance for {timeout:g} s")
                    break
                if message["type"] == "websocket.disconnect":
                    break
                await self._budget.take()
                await asyncio.sleep(0)
                try:
                    payload = self._parse(message)
                except SessionError as e:
                    await self._refuse(e)
                    continue
                if payload.get("type") == "input.cancel":
                    self._cancel()
                else:
                    await self._inbox.put(payload)
        finally:
            self._sender.closed = True
            worker.cancel()
            await self._abandon()
            metrics.open_connections.dec()

    async def _work(self) -> None:
        while True:
            payload = await self._inbox.get()
            self._handling = True
            try:
                if await self._handle(payload):
                    return
            except SessionError as e:
                await self._refuse(e)
            except Exception:
                # A bug, not the client's fault; the socket and its utterance outlive it.
                log.exception("could not handle a client message")
                await self._refuse(SessionError("the server failed on this message; it was dropped", ErrorCode.ENGINE_ERROR))
            finally:
                self._handling = False

    async def _refuse(self, error: SessionError) -> None:
        self._state.metrics.errors.labels(code=error.code).inc()
        await self._sender.json(_error(str(error), error.code))

    def _cancel(self) -> None:
        """Barge-in: the utterance being spoken stops, and text queued behind it is dropped."""
        self._cancels += 1
        if self._running():
            self._turn.cancel(None)
        queued = [self._inbox.get_nowait() for _ in range(self._inbox.qsize())]
        for message in queued:
            if message.get("type") not in ("input.text", "input.done"):
                self._inbox.put_nowait(message)

    async def _receive(self) -> dict | None:
        """The next message, or None once no utterance has run for `ws_idle_timeout_s`."""
        return await receive_unless_idle(
            self._websocket, self._state.settings.ws_idle_timeout_s, self._busy, lambda: self._idle_since
        )

    def _busy(self) -> bool:
        return self._running() or self._handling or not self._inbox.empty()

    def _running(self) -> bool:
        return self._turn is not None and not self._turn.task.done()

    def _parse(self, message: dict) -> dict:
        text = message.get("text")
        if text is None:
            raise SessionError("binary frames are not accepted: send JSON messages as text frames", ErrorCode.UNEXPECTED_BINARY)
        try:
            payload = pydantic_core.from_json(text, allow_inf_nan=False)
        except ValueError as e:
            raise SessionError(f"Invalid JSON message: {e}", ErrorCode.INVALID_JSON) from None
        if not isinstance(payload, dict):
            raise SessionError("WebSocket messages must be JSON objects", ErrorCode.INVALID_JSON)
        return payload

    async def _handle(self, message: dict) -> bool:
        """Act on one message; True when the session ends."""
        kind = message.get("type")
        if kind == "session.config":
            await self._configure(message)
        elif kind == "input.text":
            await self._text(message)
        elif kind == "input.done":
            await self._flush()
        elif kind == "session.close":
            if self._running() and self._turn.accepts_text:
                self._turn.cancel(None)
            await self._wait_for_turn()
            await self._sender.close(1000, "session.close")
            return True
        else:
            raise SessionError(
                f"Unknown message type: {kind!r}; expected session.config, input.text, input.done, input.cancel or session.close",
                ErrorCode.UNKNOWN_MESSAGE,
            )
        return False

    async def _configure(self, message: dict) -> None:
        if self._running() and self._turn.accepts_text:
            raise SessionError("session.config while text is buffered: send input.done first", ErrorCode.TURN_ACTIVE)
        try:
            config = SessionConfig.model_validate({k: v for k, v in message.items() if k != "type"})
        except ValidationError as e:
            details = "; ".join(
                f"{'.'.join(str(p) for p in error['loc']) or 'session.config'}: {error['msg']}" for error in e.errors()
            )
            raise SessionError(f"Invalid session config: {details}") from None
        if config.stream_audio and config.response_format != "pcm":
            raise SessionError("stream_audio: true sends raw PCM: it needs response_format 'pcm'")
        if config.response_format not in ("pcm", "wav", *FORMATS):
            raise SessionError(f"response_format {config.response_format!r} is not supported; use pcm, wav or one of {list(FORMATS)}")
        try:
            check_speed(config)
        except SpeechRefused as e:
            raise SessionError(str(e), e.code) from None
        try:
            choice = await resolve(self._state, config)
        except SpeechRefused as e:
            raise SessionError(f"Invalid session config: {e}", e.code) from None
        self._config, self._choice = config, choice

    async def _text(self, message: dict) -> None:
        text = message.get("text")
        if not isinstance(text, str):
            raise SessionError("input.text requires a string 'text'")
        if self._config is None:
            raise SessionError("send session.config before input.text", ErrorCode.NO_ACTIVE_TURN)
        if not (self._running() and self._turn.accepts_text):
            cancels = self._cancels
            await self._wait_for_turn()  # the previous utterance's last audio goes out first
            if self._cancels != cancels:
                return  # a barge-in while it waited drops it
            self._start_utterance()
        turn = self._turn
        cap = self._state.settings.max_turn_text_chars
        if turn.text_chars + len(text) > cap:
            raise SessionError(f"the utterance would exceed {cap} characters of text; this text was dropped", ErrorCode.TEXT_TOO_LONG)
        self._utterance.text += text
        turn.push_text(text)
        while turn.feed():  # as on /v1/ws: other sockets go between slices of normalization
            await asyncio.sleep(0)

    def _start_utterance(self) -> None:
        state, config, choice = self._state, self._config, self._choice
        if (refusal := state.readiness.refusal()) is not None:
            raise SessionError(refusal[1], refusal[0])
        if not state.slots.acquire():
            raise SessionError(f"all {state.slots.capacity} streams are busy", ErrorCode.CAPACITY)
        utterance = UtteranceSender(self._sender, config, self._next_index)
        try:
            turn = Turn(state, stream_request(config, choice, stream_priority(self._next_index > 0)), utterance)
        except ValueError as e:
            state.slots.release()
            raise SessionError(str(e), getattr(e, "code", ErrorCode.INVALID_MESSAGE)) from None
        self._next_index += 1
        utterance.turn = turn
        self._turn, self._utterance = turn, utterance
        turn.task = asyncio.create_task(turn.run())
        turn.task.add_done_callback(self._mark_idle)

    def _mark_idle(self, _task: asyncio.Task) -> None:
        self._idle_since = asyncio.get_running_loop().time()

    async def _flush(self) -> None:
        if self._running() and self._turn.accepts_text:
            self._turn.stop()
            return
        if self._config is None:
            raise SessionError("send session.config before input.done", ErrorCode.NO_ACTIVE_TURN)
        # Nothing buffered: an empty utterance.
        cancels = self._cancels
        await self._wait_for_turn()
        if self._cancels != cancels:
            return
        await self._sender.json({"type": "session.done", "utterance_index": self._next_index, "total_sentences": 0})
        self._next_index += 1

    async def _wait_for_turn(self) -> None:
        if self._turn is not None and not self._turn.task.done():
            await asyncio.wait({self._turn.task})

    async def _abandon(self) -> None:
        """The client left: its utterance stops (barge-in by closing the socket)."""
        if not self._running():
            return
        self._turn.cancel(None)
        try:
            await asyncio.wait_for(asyncio.shield(self._turn.task), ABANDON_TIMEOUT_S)
        except TimeoutError:
            log.error("utterance %s did not end after its client left", self._turn.stream_id)
            self._turn.task.cancel()
