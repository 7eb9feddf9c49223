"""Runs a real LiveKit `AgentSession` without a room: scripted VAD, STT and LLM on a shared
clock, a speaker that plays audio in real time, and an observer around the real engine.

Only the framework's inputs and the audio sink are stand-ins; the TTS plugin, the session,
the transcript synchronizer and the engine are the real ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any, Callable

import pytest
from livekit.agents import (
    Agent,
    AgentFalseInterruptionEvent,
    AgentSession,
    ErrorEvent,
    LanguageCode,
    llm,
    stt,
    utils,
    vad,
)
from livekit.agents.types import (
    DEFAULT_API_CONNECT_OPTIONS,
    NOT_GIVEN,
    USERDATA_TIMED_TRANSCRIPT,
    APIConnectOptions,
    NotGivenOr,
    TimedString,
)
from livekit.agents.voice import io
from livekit.agents.voice.agent_session import SessionConnectOptions
from livekit.agents.voice.agent import ModelSettings
from livekit.agents.voice.transcription import TranscriptSynchronizer

from livekit import rtc
from voice_tts.protocol import Done, Event, StreamingEngine
from tests.engine_requests import recorded_options

# --- the user: what they say, when, and what the STT makes of it ---------------------------


@dataclass(frozen=True)
class UserSpeech:
    """Voice activity from `start` to `end` and the final transcripts the STT reports, each at
    its own time (none for a noise): seconds after the first audio frame, or, with a `cue`,
    after the moment the cue first holds (the conversation so far in hand), so that a user can
    speak at a point of the agent's speech rather than at a time a loaded machine may miss."""

    start: float
    end: float
    finals: tuple[tuple[float, str], ...] = ()
    cue: Callable[["Conversation"], bool] | None = None


def said(
    start: float, end: float, text: str, stt_delay: float = 0.2, cue: Callable[["Conversation"], bool] | None = None
) -> UserSpeech:
    return UserSpeech(start, end, ((end + stt_delay, text),), cue)


def noise(start: float, end: float) -> UserSpeech:
    return UserSpeech(start, end)


class _Clock:
    """Seconds since the first audio frame reached the session's VAD/STT."""

    # How often a speech's cue is looked at: the user's reaction time, far below a word.
    CUE_POLL_S = 0.02

    def __init__(self) -> None:
        self._origin: float | None = None
        self.conversation: Conversation | None = None
        self._cued: dict[int, asyncio.Future[float]] = {}  # a speech's cue → when it held

    def start(self) -> None:
        if self._origin is None:
            self._origin = time.perf_counter()

    def now(self) -> float:
        assert self._origin is not None
        return time.perf_counter() - self._origin

    async def sleep_until(self, t: float) -> None:
        await asyncio.sleep(max(0.0, t - self.now()))

    async def timeline(self, speech: UserSpeech) -> float:
        """Where `speech`'s times count from: 0, or when its cue first held (the VAD and the
        STT wait for the same moment)."""
        if speech.cue is None:
            return 0.0
        cued = self._cued.get(id(speech))
        if cued is None:
            cued = self._cued[id(speech)] = asyncio.ensure_future(self._wait_for_cue(speech.cue))
        return await asyncio.shield(cued)

    async def _wait_for_cue(self, cue: Callable[["Conversation"], bool]) -> float:
        while self.conversation is None or not cue(self.conversation):
            await asyncio.sleep(self.CUE_POLL_S)
        return self.now()


class ScriptedVAD(vad.VAD):
    def __init__(
        self,
        speeches: list[UserSpeech],
        clock: _Clock,
        *,
        min_speech: float = 0.05,
        min_silence: float = 0.5,
    ) -> None:
        super().__init__(capabilities=vad.VADCapabilities(update_interval=0.05))
        self.speeches, self.clock = speeches, clock
        self.min_speech, self.min_silence = min_speech, min_silence

    def stream(self) -> vad.VADStream:
        return _ScriptedVADStream(self)


class _ScriptedVADStream(vad.VADStream):
    _vad: ScriptedVAD

    async def _main_task(self) -> None:
        await self._input_ch.recv()
        clock = self._vad.clock
        clock.start()
        for speech in self._vad.speeches:
            origin = await clock.timeline(speech)
            await clock.sleep_until(origin + speech.start + self._vad.min_speech)
            self._send(vad.VADEventType.START_OF_SPEECH, speech, origin)
            eos_at = origin + speech.end + self._vad.min_silence
            while clock.now() < eos_at - 0.1:
                await asyncio.sleep(0.05)
                self._send(vad.VADEventType.INFERENCE_DONE, speech, origin)
            await clock.sleep_until(eos_at)
            self._send(vad.VADEventType.END_OF_SPEECH, speech, origin)
        async for _ in self._input_ch:
            pass

    def _send(self, type: vad.VADEventType, speech: UserSpeech, origin: float) -> None:
        now = self._vad.clock.now()
        start, end = origin + speech.start, origin + speech.end
        silence = max(0.0, now - end)
        self._event_ch.send_nowait(
            vad.VADEvent(
                type=type,
                samples_index=0,
                timestamp=now,
                speech_duration=min(now, end) - start,
                silence_duration=silence,
                speaking=silence == 0.0,
                probability=1.0 if silence == 0.0 else 0.0,
                raw_accumulated_silence=silence,
            )
        )


class ScriptedSTT(stt.STT):
    def __init__(self, speeches: list[UserSpeech], clock: _Clock) -> None:
        super().__init__(capabilities=stt.STTCapabilities(streaming=True, interim_results=False))
        self.speeches, self.clock = speeches, clock
        self.done = asyncio.Event()

    async def _recognize_impl(
        self, buffer: Any, *, language: Any = NOT_GIVEN, conn_options: Any = None
    ):
        raise NotImplementedError("the scripted STT only streams")

    def stream(
        self,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
    ) -> stt.RecognizeStream:
        return _ScriptedRecognizeStream(stt=self, conn_options=conn_options)


class _ScriptedRecognizeStream(stt.RecognizeStream):
    _stt: ScriptedSTT

    async def _run(self) -> None:
        await self._input_ch.recv()
        clock = self._stt.clock
        clock.start()
        for speech in self._stt.speeches:
            origin = await clock.timeline(speech)
            for at, text in speech.finals:
                await clock.sleep_until(origin + at)
                self._event_ch.send_nowait(
                    stt.SpeechEvent(
                        type=stt.SpeechEventType.FINAL_TRANSCRIPT,
                        alternatives=[stt.SpeechData(language=LanguageCode("en"), text=text)],
                    )
                )
            await clock.sleep_until(origin + speech.end + 0.2)
        self._stt.done.set()
        async for _ in self._input_ch:
            pass


class ScriptedLLM(llm.LLM):
    """Answers the latest user message from a script, in 3-character chunks (LLM-like deltas
    that split words), after `ttft` seconds, at `chars_per_second`."""

    def __init__(
        self,
        replies: dict[str, str],
        *,
        ttft: float = 0.1,
        chars_per_second: float = 300.0,
        chunk_chars: int = 3,
    ) -> None:
        super().__init__()
        self.replies, self.ttft, self.chars_per_second = replies, ttft, chars_per_second
        self.chunk_chars = chunk_chars

    def chat(
        self,
        *,
        chat_ctx: llm.ChatContext,
        tools: list | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        **_: Any,
    ) -> llm.LLMStream:
        return _ScriptedLLMStream(
            self, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options
        )


class _ScriptedLLMStream(llm.LLMStream):
    _llm: ScriptedLLM

    async def _run(self) -> None:
        user = [m for m in self.chat_ctx.items if m.type == "message" and m.role == "user"]
        reply = self._llm.replies.get(user[-1].text_content if user else "", "")
        await asyncio.sleep(self._llm.ttft)
        size = self._llm.chunk_chars
        for i in range(0, len(reply), size):
            self._event_ch.send_nowait(
                llm.ChatChunk(
                    id="scripted", delta=llm.ChoiceDelta(role="assistant", content=reply[i : i + size])
                )
            )
            await asyncio.sleep(size / self._llm.chars_per_second)


# --- the room: microphone in, a real-time speaker and a transcript out ----------------------


class SilentMicrophone(io.AudioInput):
    def __init__(self) -> None:
        super().__init__(label="SilentMicrophone")
        self._ch = utils.aio.Chan[rtc.AudioFrame]()

    async def __anext__(self) -> rtc.AudioFrame:
        return await self._ch.__anext__()

    def push(self, seconds: float, sample_rate: int = 16000) -> None:
        n = int(seconds * sample_rate)
        self._ch.send_nowait(rtc.AudioFrame(b"\0\0" * n, sample_rate, 1, n))


@dataclass
class PlayedSegment:
    received: float  # seconds of audio the speaker was given
    position: float  # seconds actually played
    interrupted: bool


class RealtimeSpeaker(io.AudioOutput):
    """An audio sink that plays like a loudspeaker: a segment's playback position advances
    with the wall clock, never past the audio received and not while paused."""

    def __init__(self, *, can_pause: bool) -> None:
        super().__init__(
            label="RealtimeSpeaker", capabilities=io.AudioOutputCapabilities(pause=can_pause)
        )
        self.segments: list[PlayedSegment] = []
        self.pauses = 0
        self._reset()

    def _reset(self) -> None:
        self._received = 0.0
        self._anchor_position = 0.0
        self._anchor_time: float | None = None  # None while idle or paused
        self._started = False
        self._flushed = False
        self._paused = False
        self._finish_timer: asyncio.TimerHandle | None = None

    def position(self) -> float:
        if self._anchor_time is None:
            return self._anchor_position
        played = self._anchor_position + time.monotonic() - self._anchor_time
        return min(self._received, played)

    def _reanchor(self, running: bool) -> None:
        self._anchor_position = self.position()
        self._anchor_time = time.monotonic() if running else None

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        await super().capture_frame(frame)
        if not self._started:
            self._started = True
            self.on_playback_started(created_at=time.time())
        # re-anchoring also restarts a clock that ran dry (underrun) from where it stopped
        self._reanchor(running=not self._paused)
        self._received += frame.duration

    def flush(self) -> None:
        super().flush()
        if not self._started:
            return
        self._flushed = True
        self._schedule_finish()

    def _schedule_finish(self) -> None:
        if self._finish_timer is not None:
            self._finish_timer.cancel()
        delay = self._received - self.position()
        self._finish_timer = asyncio.get_running_loop().call_later(delay, self._check_finish)

    def _check_finish(self) -> None:
        self._finish_timer = None
        if self._paused:
            return
        if self.position() >= self._received - 1e-6:
            self._finish(self._received, interrupted=False)
        else:
            self._schedule_finish()

    def clear_buffer(self) -> None:
        if not self._started:
            return
        self._finish(self.position(), interrupted=True)

    def _finish(self, position: float, *, interrupted: bool) -> None:
        if self._finish_timer is not None:
            self._finish_timer.cancel()
        self.segments.append(PlayedSegment(self._received, position, interrupted))
        paused = self._paused
        self._reset()
        self._paused = paused
        self.on_playback_finished(playback_position=position, interrupted=interrupted)

    def pause(self) -> None:
        self.pauses += 1
        self._reanchor(running=False)
        self._paused = True
        if self._finish_timer is not None:
            self._finish_timer.cancel()
            self._finish_timer = None

    def resume(self) -> None:
        self._paused = False
        if self._started:
            self._reanchor(running=True)
            if self._flushed:
                self._schedule_finish()


class TranscriptLog(io.TextOutput):
    def __init__(self) -> None:
        super().__init__(label="TranscriptLog", next_in_chain=None)
        self.current = ""
        self.segments: list[str] = []

    async def capture_text(self, text: str) -> None:
        self.current += text

    def flush(self) -> None:
        self.segments.append(self.current)
        self.current = ""


# --- the agent side: what the TTS was given and what it returned ----------------------------


@dataclass
class SpeechRecord:
    text: str = ""  # the text the TTS node received
    audio_seconds: float = 0.0
    pieces: list[TimedString] = field(default_factory=list)


class RecordingAgent(Agent):
    """The default TTS node, recording each speech's text, audio length and timed pieces."""

    def __init__(self) -> None:
        super().__init__(instructions="You are a helpful voice assistant.")
        self.speeches: list[SpeechRecord] = []

    async def tts_node(
        self, text: AsyncIterable[str], model_settings: ModelSettings
    ) -> AsyncIterator[rtc.AudioFrame]:
        record = SpeechRecord()
        self.speeches.append(record)

        async def _recorded() -> AsyncIterator[str]:
            async for delta in text:
                record.text += delta
                yield delta

        async for frame in Agent.default.tts_node(self, _recorded(), model_settings):
            record.audio_seconds += frame.duration
            record.pieces.extend(frame.userdata.get(USERDATA_TIMED_TRANSCRIPT, []))
            yield frame


@dataclass
class ObservedStream:
    """An engine stream with a record of what happened to it."""

    inner: Any
    options: dict[str, Any] = field(default_factory=dict)
    remote: bool = False  # a remote engine: its server normalizes the text it is given
    text: str = ""
    cancelled: bool = False
    done: Done | None = None

    def push_text(self, text: str) -> None:
        self.text += text
        self.inner.push_text(text)

    def end_input(self) -> None:
        self.inner.end_input()

    def cancel(self) -> None:
        self.cancelled = True
        self.inner.cancel()

    async def events(self) -> AsyncIterator[Event]:
        # closing this generator closes the engine's, as if the caller held it directly
        async with contextlib.aclosing(self.inner.events()) as events:
            async for ev in events:
                if isinstance(ev, Done):
                    self.done = ev
                yield ev

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class ObservedEngine:
    """Delegates to a real engine and keeps an `ObservedStream` per stream opened."""

    def __init__(self, engine: StreamingEngine) -> None:
        self.engine = engine
        self.streams: list[ObservedStream] = []

    def open_stream(self, *args: Any, **kwargs: Any) -> ObservedStream:
        stream = ObservedStream(
            self.engine.open_stream(*args, **kwargs),
            options=recorded_options(args[0] if args else None, kwargs),
            remote=getattr(self.engine, "reports_words", False),
        )
        self.streams.append(stream)
        return stream

    async def aclose(self) -> None:
        await self.engine.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


# --- one conversation ----------------------------------------------------------------------


@dataclass
class Conversation:
    agent: RecordingAgent
    speaker: RealtimeSpeaker
    transcript: TranscriptLog
    playback: list[io.PlaybackFinishedEvent]
    false_interruptions: list[AgentFalseInterruptionEvent]
    errors: list[ErrorEvent] = field(default_factory=list)

    def assistant_messages(self) -> list[llm.ChatMessage]:
        return [
            item
            for item in self.agent.chat_ctx.items
            if item.type == "message" and item.role == "assistant"
        ]


async def converse(
    tts: Any,
    speeches: list[UserSpeech],
    replies: dict[str, str],
    *,
    can_pause: bool = False,
    interruption: dict[str, Any] | None = None,
    preemptive_generation: dict[str, Any] | None = None,
    llm_chars_per_second: float = 300.0,
    llm_chunk_chars: int = 3,
    expressive: bool = False,
    timeout: float = 60.0,
    agent: RecordingAgent | None = None,
    tts_conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
    agent_done: asyncio.Event | None = None,
) -> Conversation:
    """Plays the user's speeches to an `AgentSession` speaking through `tts`, waits until the
    agent (a `RecordingAgent` by default) has said everything it is going to say (and, if
    given, until `agent_done` is set: an agent that waits between its speeches), and closes
    the session."""
    clock = _Clock()
    stt_ = ScriptedSTT(speeches, clock)
    session = AgentSession(
        vad=ScriptedVAD(speeches, clock),
        stt=stt_,
        llm=ScriptedLLM(replies, chars_per_second=llm_chars_per_second, chunk_chars=llm_chunk_chars),
        expressive=expressive,
        tts=tts,
        turn_handling={
            "turn_detection": "vad",
            "endpointing": {"min_delay": 0.5, "max_delay": 3.0},
            "interruption": {
                "mode": "vad",
                "min_duration": 0.5,
                "resume_false_interruption": False,
                "false_interruption_timeout": None,
                **(interruption or {}),
            },
            "preemptive_generation": preemptive_generation or {"enabled": False},
        },
        use_tts_aligned_transcript=True,
        aec_warmup_duration=None,
        user_away_timeout=None,
        conn_options=SessionConnectOptions(tts_conn_options=tts_conn_options),
    )
    speaker = RealtimeSpeaker(can_pause=can_pause)
    log = TranscriptLog()
    sync = TranscriptSynchronizer(next_in_chain_audio=speaker, next_in_chain_text=log)
    mic = SilentMicrophone()
    session.input.audio = mic
    session.output.audio = sync.audio_output
    session.output.transcription = sync.text_output

    conversation = Conversation(agent or RecordingAgent(), speaker, log, [], [])
    clock.conversation = conversation
    sync.audio_output.on("playback_finished", conversation.playback.append)
    session.on("agent_false_interruption", conversation.false_interruptions.append)
    session.on("error", conversation.errors.append)

    async def _until_quiet() -> None:
        await stt_.done.wait()
        if agent_done is not None:
            await agent_done.wait()
        quiet_since: float | None = None
        while True:
            busy = session.current_speech is not None or session.agent_state == "speaking"
            if busy:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since > 0.5:
                return
            await asyncio.sleep(0.05)

    await session.start(conversation.agent)
    try:
        mic.push(0.1)
        await asyncio.wait_for(_until_quiet(), timeout)
    finally:
        await session.aclose()
        await sync.aclose()
    return conversation


# --- engines -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def engine_server(embedded_engine: Any) -> Iterator[Any]:
    """The engine server on 127.0.0.1 (a free port), serving the embedded voice, once ready."""
    from server_harness import start_server

    server = start_server(embedded_engine)
    yield server
    server.stop()


@pytest.fixture(params=["in-process", "remote"])
async def speech_engine(
    request: pytest.FixtureRequest, embedded_engine: Any
) -> AsyncIterator[tuple[ObservedEngine, Any]]:
    """(engine handed to the plugin, engine doing the work): the embedded voice in-process, or
    the same voice behind the server through `RemoteEngine`."""
    if request.param == "in-process":
        yield ObservedEngine(embedded_engine), embedded_engine
        return
    from voice_tts.client import RemoteEngine

    server = request.getfixturevalue("engine_server")
    # The server runs in this process: on a loaded machine it may answer a keep-alive ping
    # later than the default 2 s, and a conversation's turn would fail and be retried. What
    # these conversations test is the words; a frozen server's bounds are tested on their own
    # (test_client_remote.py, test_livekit_failures.py).
    remote = RemoteEngine(server.ws_url, silence_timeout=10.0)
    yield ObservedEngine(remote), embedded_engine
    await remote.aclose()
