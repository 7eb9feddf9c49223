"""`RemoteStream`: one turn on a server's `/v1/ws`, a context on a socket the engine's turns
share (voice_tts/context_sockets.py): its commands queued from any thread and sent by its
`events()` task, the server's messages turned into engine events, a refused start retried on a
fresh socket, a resumable turn's reconnect after a dropped socket, and a bound on every wait
(voice_tts/client.py says which)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from dataclasses import dataclass
from typing import AsyncIterator

from websockets.exceptions import ConnectionClosed, InvalidHandshake

from voice_tts.audio import decode_to_pcm16
from voice_tts.context_sockets import CLOSE_CODE_ERRORS, CLOSE_TIMEOUT, ContextChannel, ContextSockets
from voice_tts.protocol import (
    AudioChunk,
    AckMessage,
    CancelMessage,
    Done,
    DoneMessage,
    Error,
    ErrorCode,
    ErrorMessage,
    Event,
    Progress,
    PauseMessage,
    ProgressMessage,
    ReconnectedMessage,
    ReconnectMessage,
    ResumeMessage,
    StartedMessage,
    StartMessage,
    SpeedMessage,
    StopMessage,
    TextMessage,
    Usage,
    Word,
    WireModel,
    Words,
)
from voice_tts.request import checked_speed

# A turn refused for a passing reason before it started is tried again on a fresh socket after
# each of these delays; behind a load balancer (Ray Serve) that socket reaches another replica.
START_RETRY_DELAYS = (0.05, 0.2)
# Starts a turn may make at once on other sockets when the server refuses one more context on
# a socket (`too_many_contexts`: its bound is below this engine's `contexts_per_socket`).
FULL_SOCKET_RETRIES = 4


@dataclass(frozen=True)
class StreamTimeouts:
    """A remote engine's bounds on a turn's waits, in seconds (`RemoteEngine` says which)."""

    started: float
    silence: float
    keepalive: float
    resume_budget: float


class _SocketLost(Exception):
    """The socket of a resumable turn dropped: try to resume before reporting it."""

    def __init__(self, error: Error) -> None:
        super().__init__(error.message)
        self.error = error


class _Frozen(TimeoutError):
    """The server did not answer a ping: nothing on its socket will move."""


def current_traceparent() -> str | None:
    """The W3C `traceparent` of the caller's current OpenTelemetry span (a LiveKit TTS request's,
    an app's own); None without a span or without OpenTelemetry."""
    try:
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
    except ImportError:
        return None
    carrier: dict[str, str] = {}
    TraceContextTextMapPropagator().inject(carrier)
    return carrier.get("traceparent")


class RemoteStream:
    """One turn on the server. `push_text`, `end_input`, `cancel`, `pause` and `resume` are
    thread-safe and never block: they queue commands that the `events()` task sends.

    A resumable turn (`resume_budget` > 0) numbers its text and acknowledges the audio it
    received; when its socket drops it reconnects and resumes the same engine stream from the
    next sample (no audio repeated or lost), within the budget. A resume the server refuses
    (expired, or the server restarted) ends the turn with that error.

    After the turn has started, `acquire_time` is the seconds it took to get a socket and
    `connection_reused` whether that socket was open before (other turns share it)."""

    def __init__(
        self,
        sockets: ContextSockets,
        start: StartMessage,
        url: str,
        timeouts: StreamTimeouts,
        connect_timeout: float | None = None,
    ) -> None:
        self._sockets = sockets
        self._start = start
        self._url = url
        self._timeouts = timeouts
        self._connect_timeout = connect_timeout
        self.acquire_time = 0.0
        self.connection_reused = False
        self._commands: collections.deque[WireModel] = collections.deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wakeup: asyncio.Event | None = None
        self._input_ended = False
        self._cancelled = False
        self._audio_samples = 0
        self._characters_sent = 0
        self._paused = False
        self._speed = start.speed
        # Reconnect-resume: the token, every numbered text, audio acknowledged, words relayed.
        self._resume_token: str | None = None
        self._texts: list[TextMessage] = []
        self._acked_samples = 0
        self._words_end = 0

    def push_text(self, text: str) -> None:
        if text and not self._input_ended:
            self._characters_sent += len(text)
            if self._start.resumable:
                message = TextMessage(text=text, seq=len(self._texts) + 1)
                self._texts.append(message)
            else:
                message = TextMessage(text=text)
            self._command(message)

    def end_input(self) -> None:
        if not self._input_ended:
            self._input_ended = True
            self._command(StopMessage())

    def cancel(self) -> None:
        if not self._cancelled:
            self._cancelled = True
            self._input_ended = True
            self._command(CancelMessage())

    def pause(self) -> None:
        """Duplex pause: the server sends no more audio of this turn and keeps its place."""
        if not self._paused and not self._cancelled:
            self._paused = True
            self._command(PauseMessage())

    def resume(self) -> None:
        """Audio continues from the exact next sample."""
        if self._paused:
            self._paused = False
            self._command(ResumeMessage())

    @property
    def speed(self) -> float:
        return self._speed

    def set_speed(self, speed: float) -> None:
        """The speaking rate from the server's next audio chunk on (the server stretches)."""
        speed = checked_speed(speed)
        if speed != self._speed and not self._cancelled:
            self._speed = speed
            self._command(SpeedMessage(speed=speed))

    def _command(self, command: WireModel) -> None:
        self._commands.append(command)
        loop, wakeup = self._loop, self._wakeup
        if loop is None or wakeup is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            wakeup.set()
        elif not loop.is_closed():
            loop.call_soon_threadsafe(wakeup.set)

    async def events(self) -> AsyncIterator[Event]:
        self._loop = asyncio.get_running_loop()
        self._wakeup = asyncio.Event()
        if self._cancelled:
            yield Done(cancelled=True, usage=self._usage())
            return
        opened = await self._open()
        if isinstance(opened, Error):
            yield opened
            yield Done(cancelled=self._cancelled, usage=self._usage())
            return
        channel = opened
        while True:
            sender = asyncio.create_task(self._send_commands(channel))
            finished = lost = False
            try:
                async for event in self._receive(channel):
                    if isinstance(event, Done):
                        finished = True
                    yield event
            except _SocketLost as socket_lost:
                lost = True
                error = socket_lost.error
            finally:
                sender.cancel()
                await asyncio.gather(sender, return_exceptions=True)
                if not (finished or lost):
                    # The consumer left: the turn ends at the server; the socket goes on.
                    await self._cancel_left_turn(channel)
                channel.close()
            if not lost:
                return
            resumed = await self._reconnect(error)
            if isinstance(resumed, Error):
                yield resumed
                yield Done(cancelled=self._cancelled, usage=self._usage())
                return
            channel = resumed

    async def _open(self) -> ContextChannel | Error:
        """Open the turn; one refused for a passing reason (capacity, not ready, a lost or
        unreachable server: retryable, before `started`) is tried again on fresh sockets, all
        within the stream's connect timeout."""
        deadline = None
        if self._connect_timeout is not None:
            deadline = time.monotonic() + self._connect_timeout
        opened = await self._open_once(False, deadline)
        for delay in START_RETRY_DELAYS:
            passing = isinstance(opened, Error) and opened.retryable
            if not passing or opened.code == ErrorCode.TIMEOUT or self._cancelled:
                break
            if deadline is not None and time.monotonic() + delay >= deadline:
                break
            await asyncio.sleep(delay)
            opened = await self._open_once(True, deadline)
        return opened

    async def _open_once(self, fresh: bool, deadline: float | None) -> ContextChannel | Error:
        """Send `start` on a shared socket (connected if none has room), by `deadline` if one is
        set; a shared socket that turns out dead, or full at the server, is replaced once,
        since nothing of the turn has happened yet."""
        dead_retries, full_retries = 1, FULL_SOCKET_RETRIES
        while True:
            began = time.monotonic()
            left = None if deadline is None else max(deadline - began, 0.001)
            try:
                channel, reused = await self._sockets.channel(fresh, open_timeout=left)
            except (OSError, InvalidHandshake, TimeoutError) as exc:
                # Refused: nothing listens there, and a retry a moment later meets the same;
                # reporting it as final lets a fallback service take over at once.
                refused = isinstance(exc, ConnectionRefusedError)
                return Error(ErrorCode.UNREACHABLE, f"cannot reach {self._url}: {exc}", not refused)
            self.acquire_time, self.connection_reused = time.monotonic() - began, reused
            started_timeout = self._timeouts.started
            if deadline is not None:
                started_timeout = min(started_timeout, max(deadline - time.monotonic(), 0.001))
            try:
                async with asyncio.timeout(started_timeout):
                    await channel.send(self._start)
                    reply = await channel.recv()
            except ConnectionClosed as exc:
                channel.close()
                if reused and dead_retries:
                    dead_retries -= 1
                    continue
                return self._closed_error(exc)
            except TimeoutError:
                # A late `started` finds no context; the cancel ends the turn it started.
                await self._cancel_quietly(channel)
                channel.close()
                return Error(
                    ErrorCode.TIMEOUT,
                    f"{self._url} did not start the turn within {started_timeout:g} s",
                    True,
                )
            if isinstance(reply, StartedMessage):
                self._resume_token = reply.resume_token
                channel.mark_started()
                return channel
            if isinstance(reply, ErrorMessage) and reply.code == ErrorCode.TOO_MANY_CONTEXTS and full_retries:
                full_retries -= 1
                self._sockets.refused_one_more(channel)
                continue
            if isinstance(reply, ErrorMessage) and reply.code == ErrorCode.SHUTTING_DOWN:
                self._sockets.retire(channel)  # the retry below goes to a fresh socket
            channel.close()
            if isinstance(reply, ErrorMessage):
                return Error(reply.code, reply.message, reply.retryable)
            return Error(
                ErrorCode.INVALID_MESSAGE, f"expected 'started', got {reply!r:.200}", False
            )

    async def _reconnect(self, lost: Error) -> ContextChannel | Error:
        """A context on a new socket in which the server resumes this turn, or the error that
        ends it."""
        budget = self._timeouts.resume_budget
        deadline = time.monotonic() + budget
        delay = 0.05
        while True:
            try:
                async with asyncio.timeout(max(0.01, deadline - time.monotonic())):
                    channel, _ = await self._sockets.channel()
                    try:
                        reply = await self._resume_on(channel)
                        channel.mark_started()
                    except BaseException:
                        channel.close()
                        raise
            except ConnectionRefusedError:
                # Nothing listens there any more: the server process and its turns are gone.
                return Error(
                    ErrorCode.DISCONNECTED,
                    f"{lost.message}; the server refuses connections: the turn is lost",
                    True,
                )
            except (OSError, InvalidHandshake, TimeoutError, ConnectionClosed):
                if time.monotonic() + delay >= deadline:
                    return Error(
                        ErrorCode.DISCONNECTED,
                        f"{lost.message}; could not resume the turn within {budget:g} s",
                        True,
                    )
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            if isinstance(reply, Error):
                channel.close()
                return reply
            return channel

    async def _resume_on(self, channel: ContextChannel) -> Error | None:
        """Takes the turn over in `channel` and resends what the server lacks."""
        await channel.send(
            ReconnectMessage(resume_token=self._resume_token, received_samples=self._audio_samples)
        )
        message = await channel.recv()
        if isinstance(message, ErrorMessage):
            return Error(message.code, message.message, message.retryable)
        if not isinstance(message, ReconnectedMessage):
            return Error(ErrorCode.INVALID_MESSAGE, "expected 'reconnected'", False)
        for text in self._texts[message.text_seq :]:
            await channel.send(text)
        if self._speed != self._start.speed and not self._cancelled:
            # A change in flight when the socket dropped may not have arrived; resending is harmless.
            await channel.send(SpeedMessage(speed=self._speed))
        if self._cancelled:
            await channel.send(CancelMessage())
        elif self._input_ended:
            await channel.send(StopMessage())
        if self._paused:
            await channel.send(PauseMessage())
        return None

    async def _send_commands(self, channel: ContextChannel) -> None:
        assert self._wakeup is not None
        try:
            while True:
                while self._commands:
                    command = self._commands.popleft()
                    await channel.send(command)
                await self._wakeup.wait()
                self._wakeup.clear()
        except ConnectionClosed:
            return  # the receiving side reports the loss

    async def _receive(self, channel: ContextChannel) -> AsyncIterator[Event]:
        rate, audio_format = self._start.sample_rate, self._start.format
        while True:
            try:
                message = await self._next_frame(channel)
            except ConnectionClosed as exc:
                error = self._closed_error(exc, mid_turn=True)
                if self._resume_token is not None and error.code == ErrorCode.DISCONNECTED:
                    raise _SocketLost(error) from None
                yield error
                yield Done(cancelled=self._cancelled, usage=self._usage())
                return
            except TimeoutError as exc:
                await self._give_up(channel, frozen=isinstance(exc, _Frozen))
                yield Error(ErrorCode.TIMEOUT, f"{self._url}: {exc}", True)
                yield Done(cancelled=self._cancelled, usage=self._usage())
                return
            if isinstance(message, bytes):
                # After cancel() no audio reaches the caller, even what was already in flight.
                if message:
                    pcm = message if audio_format == "pcm16" else decode_to_pcm16(message, audio_format)
                    if not self._cancelled:
                        yield AudioChunk(pcm, rate, self._audio_samples)
                    # Counted also after a cancel: a reconnect names the sample to go on from.
                    self._audio_samples += len(pcm) // 2
                    self._acknowledge()
                continue
            if isinstance(message, ProgressMessage):
                if not self._cancelled:
                    # After a reconnect the server may repeat words this side has relayed.
                    words = [w for w in message.words if w.raw_start >= self._words_end]
                    if words:
                        self._words_end = words[-1].raw_end
                        yield Words(
                            tuple(
                                Word(w.text, w.start_ms / 1000.0, w.raw_start, w.raw_end)
                                for w in words
                            )
                        )
                    end = message.raw_end if self._start.normalize else message.spoken_end
                    yield Progress(spoken_end=end, audio_time=message.audio_ms / 1000.0)
            elif isinstance(message, ErrorMessage):
                yield Error(message.code, message.message, message.retryable)
            elif isinstance(message, DoneMessage):
                usage = message.usage
                yield Done(
                    # A turn cancelled here ends cancelled, also when the server finished it
                    # before the cancel arrived (its `done` was still unread: a busy client).
                    cancelled=message.cancelled or self._cancelled,
                    usage=Usage(
                        characters_received=usage.characters_received,
                        characters_spoken=usage.characters_spoken,
                        audio_seconds=usage.audio_seconds,
                    ),
                )
                return
            elif message is None:
                yield Error(ErrorCode.INVALID_MESSAGE, "unreadable server message")

    def _acknowledge(self) -> None:
        """Every half second of audio, tell a resumable turn's server what arrived."""
        rate = self._start.sample_rate
        if self._resume_token is not None and self._audio_samples - self._acked_samples >= rate / 2:
            self._acked_samples = self._audio_samples
            self._command(AckMessage(samples=self._audio_samples))

    async def _next_frame(self, channel: ContextChannel):
        """The next frame; raises TimeoutError when the server owes one and stays silent, or
        does not answer a ping (frozen) while the turn waits for text."""
        timeouts = self._timeouts
        while True:
            # A paused turn owes nothing until it is resumed.
            owed = self._input_ended and not self._paused
            try:
                async with asyncio.timeout(timeouts.silence if owed else timeouts.keepalive):
                    return await channel.recv()
            except TimeoutError:
                if owed:
                    raise TimeoutError(f"sent nothing for {timeouts.silence} s") from None
            pong = await channel.ping()
            done, _ = await asyncio.wait({pong}, timeout=timeouts.silence)
            if not done:
                raise _Frozen(f"did not answer a ping within {timeouts.silence} s")

    async def _give_up(self, channel: ContextChannel, frozen: bool) -> None:
        """The turn ends here (the server went silent): it is cancelled, or the server would
        keep it (a resumable one waiting for a reconnect that never comes). A server that
        answers no ping is frozen: its socket is closed behind the cancel (the server reads both
        once it runs again; at most CLOSE_TIMEOUT, then the socket is dropped), so that no
        later turn waits on it."""
        await self._cancel_quietly(channel)
        channel.close()
        if frozen:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await channel.socket.connection.close()
            channel.socket.drop()

    async def _cancel_left_turn(self, channel: ContextChannel) -> None:
        """The consumer left before `done`: the turn is cancelled at the server."""
        if not self._cancelled:
            await self._cancel_quietly(channel)

    @staticmethod
    async def _cancel_quietly(channel: ContextChannel) -> None:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await channel.send(CancelMessage())

    def _closed_error(self, exc: ConnectionClosed, mid_turn: bool = False) -> Error:
        received = exc.rcvd
        if received is not None and received.code in CLOSE_CODE_ERRORS:
            return Error(CLOSE_CODE_ERRORS[received.code], received.reason or "refused", False)
        detail = (
            f" (close code {received.code}{': ' + received.reason if received.reason else ''})"
            if received
            else ""
        )
        ended = (
            "; the turn ended with it (a turn lives in the server process that ran it): "
            "start it again"
            if mid_turn
            else ""
        )
        return Error(
            ErrorCode.DISCONNECTED, f"connection to {self._url} lost{detail}{ended}", True
        )

    def _usage(self) -> Usage:
        return Usage(
            characters_received=self._characters_sent,
            audio_seconds=self._audio_samples / self._start.sample_rate,
        )
