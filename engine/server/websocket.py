"""`GET /v1/ws`: one connection, one turn after another, and beside it any number of contexts
(turns addressed by `context_id`, up to `max_contexts_per_socket`), each its own turn.

Every bad message is answered with an `error` event and dropped; the connection and any running
turn go on. A client that vanishes cancels its turn, which frees the engine slot, unless the
turn is resumable: then it waits for a `reconnect` on another socket (engine/server/resume.py).
A reconnect whose turn lives in another API worker of the same server makes this socket a relay
to that worker for the rest of its life: every frame passes through unchanged both ways.

A context is a turn like the plain one, with its own slot and priority; every message it sends
carries its `context_id`, and once a socket has opened one its audio frames are framed
(`voice_tts.protocol.frame_audio`). A context whose input is open and whose client sent it
nothing for `context_idle_timeout_s` ends itself. Without `context_id` nothing changes.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import re
import time
from typing import Callable

import pydantic_core
from pydantic import ValidationError
from starlette.websockets import WebSocket

from engine.server.resume import ResumeRefused
from engine.server.sender import Sender
from engine.server.state import ServerState
from engine.server.stream_priority import stream_priority
from engine.server.turn import Turn
from voice_tts.segmented_stream import ignored_marks
from voice_tts.protocol import (
    CLIENT_MESSAGE_TYPES,
    CONTEXT_ID_PATTERN,
    CONTEXT_IDLE_TIMEOUT,
    SUPPORTED_SAMPLE_RATES,
    AckMessage,
    CancelMessage,
    ErrorCode,
    ErrorMessage,
    PauseMessage,
    ReconnectMessage,
    ResumeMessage,
    SpeedMessage,
    StartedMessage,
    StartMessage,
    StopMessage,
    TextMessage,
    client_message_adapter,
)

log = logging.getLogger(__name__)

# Closing a socket for idleness mirrors HTTP 408 (4000-4999 are free for applications).
WS_CLOSE_IDLE = 4408
# How long a cancelled turn of a vanished client may take to end before its task is cancelled.
ABANDON_TIMEOUT_S = 10.0
# Close codes a server may send (1005 and 1006 only describe a close, they are never sent).
SENDABLE_CLOSE_CODES = range(1000, 5000)
NOT_SENDABLE_CLOSE_CODES = (1005, 1006, 1015)
# Contexts that ended are remembered (this many per socket) so that a message crossing their
# `done` is ignored, as for the plain turn, rather than answered with an error.
REMEMBERED_ENDED_CONTEXTS = 256


class RejectedMessage(Exception):
    def __init__(
        self, code: str, message: str, retryable: bool = False, context_id: str | None = None
    ) -> None:
        super().__init__(message)
        self.error = ErrorMessage(code=code, message=message, retryable=retryable, context_id=context_id)

    def about(self, context_id: str | None) -> RejectedMessage:
        """This refusal, addressed to the context whose message it answers."""
        if context_id is not None and self.error.context_id is None:
            self.error = self.error.model_copy(update={"context_id": context_id})
        return self


async def receive_unless_idle(
    websocket: WebSocket, timeout_s: float, busy: Callable[[], bool], idle_since: Callable[[], float]
) -> dict | None:
    """The next message of `websocket`, or None once it has not been `busy()` for `timeout_s`
    since `idle_since()` (loop time); while busy it waits however long it takes."""
    loop = asyncio.get_running_loop()
    while True:
        left = timeout_s if busy() else idle_since() + timeout_s - loop.time()
        if left <= 0:
            return None
        try:
            return await asyncio.wait_for(websocket.receive(), left)
        except TimeoutError:
            continue


class Budget:
    """A token bucket: `rate` tokens a second on average, `burst` at once, for each of `turns`
    (the turns a socket carries: its contexts are as many clients). The socket's reader waits
    for tokens instead of refusing the message, so a client sending faster is slowed down by
    TCP flow control and loses nothing."""

    def __init__(self, rate: float, burst: int) -> None:
        self._rate = rate
        self._burst = burst
        self._tokens = float(burst)
        self._updated = time.monotonic()

    async def take(self, turns: int = 1) -> None:
        now = time.monotonic()
        rate = self._rate * turns
        self._tokens = min(self._burst * turns, self._tokens + (now - self._updated) * rate)
        self._updated = now
        if self._tokens < 1:
            wait = (1 - self._tokens) / rate
            await asyncio.sleep(wait)
            self._updated += wait
            self._tokens = 1.0
        self._tokens -= 1


class Connection:
    def __init__(self, websocket: WebSocket, state: ServerState) -> None:
        self._websocket = websocket
        self._state = state
        self._sender = Sender(websocket, state.settings.max_client_lag_s)
        self._turn: Turn | None = None
        self._turn_task: asyncio.Task | None = None
        self._idle_since = 0.0
        # A turn on this socket went out to `done`: later turns are opened ahead of new
        # sockets' (engine/server/stream_priority.py).
        self._established = False
        settings = state.settings
        self._budget = Budget(settings.max_messages_per_s, settings.message_burst)
        # The worker that holds the turn this socket reconnected to (a `websockets` client
        # connection), and the task relaying its frames to the client.
        self._upstream = None
        self._relay_task: asyncio.Task | None = None
        # Contexts by id, from `start` until their task ends, and the last ended ones (a
        # resumable one stays resumable, as the plain turn does, until its id starts again).
        self._contexts: dict[str, Turn] = {}
        self._ended_contexts: collections.OrderedDict[str, Turn] = collections.OrderedDict()
        # Each context's idle clock: loop time of its client's last message, and its timer.
        self._heard: dict[str, float] = {}
        self._idle_timers: dict[str, asyncio.TimerHandle] = {}

    async def serve(self) -> None:
        await self._websocket.accept()
        self._mark_idle()
        metrics = self._state.metrics
        metrics.connections.inc()
        metrics.open_connections.inc()
        read_in_a_row = 0
        try:
            while True:
                message = await self._receive()
                if message is None:
                    await self._close_idle()
                    break
                if message["type"] == "websocket.disconnect":
                    break
                # Each socket waits for its own budget, then lets every other ready socket
                # have a go before its next message (a socket carrying several turns, before
                # its next one per turn): a flood slows only its sender.
                turns = max(1, len(self._contexts) + self._plain_turn_busy())
                await self._budget.take(turns)
                read_in_a_row += 1
                if read_in_a_row >= turns:
                    read_in_a_row = 0
                    await asyncio.sleep(0)
                if self._upstream is not None:
                    await self._relay_up(message)
                    continue
                try:
                    parsed = self._parse(message)
                    context_id = getattr(parsed, "context_id", None)
                    try:
                        if context_id is None:
                            await self._handle(parsed)
                        else:
                            await self._handle_context(context_id, parsed)
                    except RejectedMessage as rejected:
                        raise rejected.about(context_id) from None
                except RejectedMessage as rejected:
                    self._state.metrics.errors.labels(code=rejected.error.code).inc()
                    await self._sender.message(rejected.error)
                except Exception:
                    # A bug, not the client's fault; the socket and its turn outlive it.
                    log.exception("could not handle a client message")
                    self._state.metrics.errors.labels(code=ErrorCode.ENGINE_ERROR).inc()
                    await self._sender.message(
                        ErrorMessage(
                            code=ErrorCode.ENGINE_ERROR,
                            message="the server failed on this message; it was dropped",
                        )
                    )
        finally:
            self._sender.closed = True
            if self._upstream is not None:
                self._relay_task.cancel()
                await self._upstream.close()
            contexts = [*self._contexts.values(), *self._ended_contexts.values()]
            await asyncio.gather(
                self._abandon_turn(self._turn, self._turn_task),
                *(self._abandon_turn(turn, turn.task) for turn in contexts),
            )
            metrics.open_connections.dec()

    async def _receive(self) -> dict | None:
        """The next client message, or None once the socket has been idle (no running turn)
        for `ws_idle_timeout_s`; a running turn keeps it open however long it takes."""
        return await receive_unless_idle(
            self._websocket, self._state.settings.ws_idle_timeout_s, self._busy, lambda: self._idle_since
        )

    async def _close_idle(self) -> None:
        # Only a close frame, no `error` event: a client that pooled the socket sees it closed
        # and opens another, instead of reading an error as the answer to its next `start`.
        self._state.metrics.errors.labels(code=ErrorCode.IDLE_TIMEOUT).inc()
        timeout = self._state.settings.ws_idle_timeout_s
        reason = f"{ErrorCode.IDLE_TIMEOUT}: no turn for {timeout:g} s"
        await self._sender.close(WS_CLOSE_IDLE, reason)

    def _mark_idle(self, _task: asyncio.Task | None = None) -> None:
        self._idle_since = asyncio.get_running_loop().time()

    def _parse(self, message: dict):
        text = message.get("text")
        if text is None:
            raise RejectedMessage(
                ErrorCode.UNEXPECTED_BINARY,
                "binary frames are not accepted: send JSON messages as text frames",
            )
        try:
            size = len(text.encode("utf-8"))
        except UnicodeEncodeError:
            # The server's WebSocket layer passes invalid UTF-8 on as surrogate escapes.
            raise RejectedMessage(
                ErrorCode.INVALID_UTF8, "the text frame is not valid UTF-8"
            ) from None
        limit = self._state.settings.max_message_bytes
        if size > limit:
            raise RejectedMessage(
                ErrorCode.MESSAGE_TOO_LARGE, f"the message has {size} bytes; the limit is {limit}"
            )
        try:
            # pydantic's parser bounds nesting (200 levels) instead of recursing until Python's
            # stack runs out, and refuses NaN and Infinity, which JSON does not have.
            payload = pydantic_core.from_json(text, allow_inf_nan=False)
        except ValueError as exc:
            raise RejectedMessage(
                ErrorCode.INVALID_JSON, f"the message is not JSON: {exc}"
            ) from None
        kind = payload.get("type") if isinstance(payload, dict) else None
        if kind not in CLIENT_MESSAGE_TYPES:
            raise RejectedMessage(
                ErrorCode.UNKNOWN_MESSAGE,
                f"unknown message type {kind!r}; expected one of {', '.join(CLIENT_MESSAGE_TYPES)}",
            )
        try:
            return client_message_adapter.validate_python(payload)
        except ValidationError as exc:
            details = "; ".join(
                f"{'.'.join(str(p) for p in error['loc'][1:]) or kind}: {error['msg']}"
                for error in exc.errors()
            )
            context_id = payload.get("context_id")
            if not (isinstance(context_id, str) and re.fullmatch(CONTEXT_ID_PATTERN, context_id)):
                context_id = None  # an error names only a context a client can have opened
            raise RejectedMessage(
                ErrorCode.INVALID_MESSAGE, f"invalid {kind!r} message: {details}", context_id=context_id
            ) from None

    async def _handle(self, message) -> None:
        if isinstance(message, StartMessage):
            await self._start(message)
        elif isinstance(message, TextMessage):
            await self._text(message)
        elif isinstance(message, ReconnectMessage):
            await self._reconnect(message)
        elif isinstance(message, AckMessage):
            if self._turn is not None:
                if self._turn.resume_token is None:
                    raise RejectedMessage(
                        ErrorCode.NOT_RESUMABLE, "ack is for turns started with resumable: true"
                    )
                self._turn.ack(message.samples)
        elif self._running():
            # With no running turn these are ignored: they can cross a `done` on the wire.
            await self._command(self._turn, message)

    @staticmethod
    async def _command(turn: Turn, message) -> None:
        """`stop`, `cancel`, `pause`, `resume` or `speed` for a running turn."""
        if isinstance(message, StopMessage):
            turn.stop()
        elif isinstance(message, CancelMessage):
            turn.cancel(message.played_ms)
        elif isinstance(message, PauseMessage):
            turn.pause()
        elif isinstance(message, ResumeMessage):
            await turn.resume()
        elif isinstance(message, SpeedMessage):
            try:
                turn.set_speed(message.speed)
            except ValueError as exc:
                raise RejectedMessage(getattr(exc, "code", ErrorCode.INVALID_MESSAGE), str(exc)) from None

    def _busy(self) -> bool:
        """Not idle: a turn's or a context's task has not ended, or the socket relays another
        worker's turn."""
        if self._upstream is not None:
            return True  # the relayed turn's worker says when it is idle
        return bool(self._contexts) or self._plain_turn_busy()

    def _plain_turn_busy(self) -> bool:
        return self._turn_task is not None and not self._turn_task.done()

    def _running(self) -> bool:
        """The plain turn runs on this socket until its `done` went out here; after that its
        task only closes its engine stream and releases its slot."""
        if self._upstream is not None:
            return True
        if not self._plain_turn_busy():
            return False
        return not (self._turn.done_sent and self._turn.sends_to(self._sender))

    async def _start(self, start: StartMessage) -> None:
        state = self._state
        if self._running():
            raise RejectedMessage(
                ErrorCode.TURN_ACTIVE, "a turn is running: send stop or cancel and wait for done"
            )
        if self._turn_task is not None and not self._turn_task.done():
            # A client that starts its next turn as soon as `done` arrives can overtake the
            # last steps of the previous one (a loaded server's loop): they take no time, and
            # the new turn must not count the old one's slot.
            await asyncio.wait({self._turn_task})
        previous = self._turn
        if previous is not None and previous.resume_token is not None:
            state.resumes.discard(previous.resume_token)  # its client has moved on
        turn = self._open_turn(start)
        self._turn = turn
        await self._sender.message(self._started_message(turn, self._state))
        turn.task = asyncio.create_task(turn.run())
        self._adopt(turn)

    def _open_turn(self, start: StartMessage, context_id: str | None = None) -> Turn:
        """A turn for `start` holding a stream slot, or the refusal that says why not."""
        state = self._state
        if start.sample_rate not in SUPPORTED_SAMPLE_RATES:
            raise RejectedMessage(
                ErrorCode.INVALID_SAMPLE_RATE,
                f"sample_rate {start.sample_rate} is not one of {list(SUPPORTED_SAMPLE_RATES)}",
            )
        if not state.description.knows_voice(start.voice):
            names = [voice.name for voice in state.description.listed_voices]
            raise RejectedMessage(
                ErrorCode.INVALID_VOICE, f"unknown voice {start.voice!r}; voices: {names}"
            )
        if (refusal := state.readiness.refusal()) is not None:
            raise RejectedMessage(*refusal, retryable=True)
        if not state.slots.acquire():
            raise RejectedMessage(
                ErrorCode.CAPACITY,
                f"all {state.slots.capacity} streams are busy",
                retryable=True,
            )
        try:
            request = start.stream_request(stream_priority(self._established))
            return Turn(state, request, self._sender, start.traceparent, context_id, start.cache)
        except ValueError as exc:
            # Engines refuse bad options (an unsupported language, ...) with a coded ValueError.
            state.slots.release()
            raise RejectedMessage(
                getattr(exc, "code", ErrorCode.INVALID_MESSAGE), str(exc)
            ) from None
        except Exception as exc:
            state.slots.release()
            log.exception("could not open a stream")
            raise RejectedMessage(
                ErrorCode.ENGINE_ERROR, f"could not open a stream: {exc}"
            ) from exc

    def _adopt(self, turn: Turn) -> None:
        self._turn, self._turn_task = turn, turn.task
        self._turn_task.add_done_callback(self._mark_idle)
        self._turn_task.add_done_callback(lambda _task: self._turn_ended(turn))

    def _turn_ended(self, turn: Turn) -> None:
        if turn.done_sent and turn.sends_to(self._sender):
            self._established = True

    async def _reconnect(self, message: ReconnectMessage) -> None:
        if self._running():
            raise RejectedMessage(
                ErrorCode.TURN_ACTIVE, "a turn is running on this socket: reconnect on a new one"
            )
        turn = await self._resume(message, None)
        if turn is not None:
            self._adopt(turn)

    async def _resume(self, message: ReconnectMessage, context_id: str | None) -> Turn | None:
        """The turn `message` reconnects, now sending to this socket (as the context
        `context_id`, or as its plain turn), or None where another API worker holds it and this
        socket became the relay to it (a plain turn's reconnect only: a relayed socket carries
        nothing of its own); else the refusal that says why not."""
        resumes = self._state.resumes
        try:
            turn = resumes.take(message.resume_token)
            if turn.sends_to(self._sender):
                code = ErrorCode.TURN_ACTIVE if context_id is None else ErrorCode.CONTEXT_ACTIVE
                raise ResumeRefused(code, "this turn runs on this socket already")
            if context_id is not None:
                self._sender.framed = True
            try:
                await turn.attach(self._sender, message.received_samples, context_id)
            except ResumeRefused:
                resumes.discard(message.resume_token)
                turn.expire()
                raise
        except ResumeRefused as refused:
            lost = refused.code == ErrorCode.RESUME_LOST
            relay = self._state.resume_relay
            if lost and relay is not None and (worker := relay.worker_of(message.resume_token)) is not None:
                if context_id is not None or self._contexts or self._busy():
                    raise RejectedMessage(
                        ErrorCode.RESUME_LOST,
                        "another server process holds this turn: reconnect it on a socket of its own",
                        retryable=True,
                    ) from None
                await self._relay_to(relay, worker, message)
                return None
            # A lost turn can be started again (on this server or, behind a load balancer,
            # wherever the new socket lands).
            raise RejectedMessage(refused.code, str(refused), retryable=lost) from None
        return turn

    # -- contexts ---------------------------------------------------------------------------

    async def _handle_context(self, context_id: str, message) -> None:
        turn = self._contexts.get(context_id)
        if isinstance(message, (StartMessage, ReconnectMessage)):
            if turn is not None and turn.done_sent and turn.sends_to(self._sender):
                # Its `done` went out and the client opens the id again at once: the old
                # turn's last steps take no time.
                await asyncio.wait({turn.task})
                turn = None
            if turn is not None:
                raise RejectedMessage(
                    ErrorCode.CONTEXT_ACTIVE,
                    f"context {context_id!r} is running: send stop or cancel and wait for its done",
                )
            limit = self._state.settings.max_contexts_per_socket
            if len(self._contexts) >= limit:
                raise RejectedMessage(
                    ErrorCode.TOO_MANY_CONTEXTS,
                    f"this socket has {limit} contexts open (max_contexts_per_socket); "
                    "end one or open another socket",
                )
            if isinstance(message, StartMessage):
                await self._start_context(context_id, message)
            else:
                self._adopt_context(context_id, await self._resume(message, context_id))
            return
        if turn is None or (turn.done_sent and turn.sends_to(self._sender)):
            # As for the plain turn, messages that crossed a context's `done` are ignored.
            if isinstance(message, TextMessage) and turn is None and context_id not in self._ended_contexts:
                raise RejectedMessage(
                    ErrorCode.NO_ACTIVE_TURN, f"context {context_id!r} is not open: send start with it first"
                )
            return
        self._heard[context_id] = asyncio.get_running_loop().time()
        if isinstance(message, TextMessage):
            await self._text_to(turn, message)
        elif isinstance(message, AckMessage):
            if turn.resume_token is None:
                raise RejectedMessage(ErrorCode.NOT_RESUMABLE, "ack is for turns started with resumable: true")
            turn.ack(message.samples)
        else:
            await self._command(turn, message)

    async def _start_context(self, context_id: str, start: StartMessage) -> None:
        turn = self._open_turn(start, context_id)
        previous = self._ended_contexts.pop(context_id, None)
        if previous is not None and previous.resume_token is not None:
            self._state.resumes.discard(previous.resume_token)  # its client has moved on
        self._sender.framed = True
        await self._sender.message(self._started_message(turn, self._state))
        turn.task = asyncio.create_task(turn.run())
        self._adopt_context(context_id, turn)

    def _adopt_context(self, context_id: str, turn: Turn) -> None:
        self._contexts[context_id] = turn
        self._ended_contexts.pop(context_id, None)
        self._heard[context_id] = asyncio.get_running_loop().time()
        self._arm_idle_timer(context_id, turn, self._state.settings.context_idle_timeout_s)
        turn.task.add_done_callback(lambda _task: self._context_ended(context_id, turn))

    def _arm_idle_timer(self, context_id: str, turn: Turn, delay: float) -> None:
        loop = asyncio.get_running_loop()
        self._idle_timers[context_id] = loop.call_later(delay, self._check_idle, context_id, turn)

    def _check_idle(self, context_id: str, turn: Turn) -> None:
        """A context whose client went quiet with its input open ends; one whose input ended
        runs to its end however long that takes (its audio is owed), and a paused one has its
        own bound (`pause_timeout_s`)."""
        timeout = self._state.settings.context_idle_timeout_s
        left = self._heard[context_id] + timeout - asyncio.get_running_loop().time()
        if left > 0 or turn.paused:
            self._arm_idle_timer(context_id, turn, max(left, 0.1 * timeout))
            return
        turn.end_if_input_open(CONTEXT_IDLE_TIMEOUT)

    def _context_ended(self, context_id: str, turn: Turn) -> None:
        if self._contexts.get(context_id) is turn:
            del self._contexts[context_id]
            del self._heard[context_id]
            self._idle_timers.pop(context_id).cancel()
            if turn.sends_to(self._sender):
                self._ended_contexts[context_id] = turn
            while len(self._ended_contexts) > REMEMBERED_ENDED_CONTEXTS:
                _, forgotten = self._ended_contexts.popitem(last=False)
                if forgotten.resume_token is not None:
                    self._state.resumes.discard(forgotten.resume_token)
        self._mark_idle()
        self._turn_ended(turn)

    # -- a turn of another API worker ----------------------------------------------------

    async def _relay_to(self, relay, worker, message: ReconnectMessage) -> None:
        try:
            self._upstream = await relay.connect(worker, message)
        except OSError as exc:  # that worker has stopped since: the turn is gone with it
            raise RejectedMessage(
                ErrorCode.RESUME_LOST, f"the server process holding this turn is gone ({exc}): start it again", retryable=True
            ) from None
        self._relay_task = asyncio.create_task(self._relay_down())

    async def _relay_up(self, message: dict) -> None:
        from websockets.exceptions import ConnectionClosed

        data = message.get("text")
        try:
            await self._upstream.send(message.get("bytes") if data is None else data)
        except ConnectionClosed:
            pass  # `_relay_down` closes the client's socket

    async def _relay_down(self) -> None:
        from websockets.exceptions import ConnectionClosed

        upstream = self._upstream
        try:
            async for frame in upstream:
                if not await self._sender.frame(frame):
                    return
        except ConnectionClosed:
            pass
        await upstream.wait_closed()
        code = upstream.close_code
        if code not in SENDABLE_CLOSE_CODES or code in NOT_SENDABLE_CLOSE_CODES:
            code = 1011
        await self._sender.close(code, upstream.close_reason or "")

    async def _text(self, message: TextMessage) -> None:
        turn = self._turn
        if not self._running():
            if turn is not None:
                # Text that crossed the turn's `done` on the wire, as `stop` and `cancel` can:
                # ignored, so that nothing but the answer to the next `start` follows a `done`
                # (a pooled socket's next turn would read an error here as its answer).
                return
            raise RejectedMessage(ErrorCode.NO_ACTIVE_TURN, "send start before text")
        await self._text_to(turn, message)

    async def _text_to(self, turn: Turn, message: TextMessage) -> None:
        if message.seq is not None and message.seq <= turn.text_seq:
            # Resent across a reconnect: the turn has it already, also when its stop came too.
            return
        if not turn.accepts_text:
            raise RejectedMessage(
                ErrorCode.NO_ACTIVE_TURN, "this turn's input has ended (stop or cancel was sent)"
            )
        cap = self._state.settings.max_turn_text_chars
        if message.seq is not None:
            turn.text_seq = message.seq
        if turn.text_chars + len(message.text) > cap:
            raise RejectedMessage(
                ErrorCode.TEXT_TOO_LONG,
                f"the turn would exceed {cap} characters of text; this text was dropped",
            )
        # Normalizing text costs the server's loop CPU: a long text goes in slices, as far as
        # the engine needs it now (the turn normalizes the rest as its audio is produced), and
        # every other socket and turn has a go between slices.
        turn.push_text(message.text)
        while turn.feed():
            await asyncio.sleep(0)

    @staticmethod
    def _started_message(turn: Turn, state: ServerState) -> StartedMessage:
        return StartedMessage(
            stream_id=turn.stream_id,
            voice=turn.request.voice,
            language=turn.request.language,
            sample_rate=turn.request.sample_rate,
            format=turn.request.format,
            normalize=turn.request.normalize,
            resume_token=turn.resume_token,
            context_id=turn.context_id,
            markup=turn.request.markup,
            markup_ignored=ignored_marks(state.engine, turn.request) or None,
        )

    async def _abandon_turn(self, turn: Turn | None, task: asyncio.Task | None) -> None:
        if turn is not None and turn.resume_token is not None:
            # Kept for a reconnect (also when finished: its `done` may not have arrived),
            # unless a reconnect on another socket has taken it over already.
            if turn.sends_to(self._sender):
                turn.detach()
                self._state.resumes.park(turn.resume_token)
            return
        if task is None or task.done():
            return
        turn.cancel(None)
        try:
            await asyncio.wait_for(asyncio.shield(task), ABANDON_TIMEOUT_S)
        except asyncio.TimeoutError:
            log.error("turn %s did not end after its client left", turn.stream_id)
            task.cancel()
