"""A LiveKit voice agent that speaks through voice-tts, run the LiveKit way:

    python agents/livekit_agent.py console   # talk to it in this terminal (`console --text` to type)
    python agents/livekit_agent.py dev       # serve rooms of the LiveKit server at LIVEKIT_URL
    python agents/livekit_agent.py start     # the same, production settings

Speech: `VOICE_TTS_URL` (ws://host:8000/v1/ws, one engine server per GPU) if set, else the
embedded voice in this process. Listening and thinking: with `OPENAI_API_KEY` set, an
OpenAI-compatible endpoint (`OPENAI_BASE_URL`, `OPENAI_MODEL`, `OPENAI_STT_MODEL`) transcribes
and answers; without it the agent runs offline with a scripted reply and no speech recognition
(type to it with `console --text`).

Expressive: with `VOICE_TTS_MARKUP=expr` the LLM directs the delivery with LiveKit's `expr`
markers (an expression per sentence, breaks, prosody, spelling): the session runs in
expressive mode, the agent's instructions carry the plugin's marker guide
(`tts.markup.llm_instructions()`), the engine acts on the markers, and transcripts and the
chat context after a barge-in never show them. Offline, the script is written in markers too.

Dispatch follows the engine, not the CPU: the worker reports the share of the engine's stream
capacity in use as its load, so LiveKit sends new rooms to hosts whose GPU has room. Behind Ray
Serve (`voice-tts serve --replicas`, deploy/) the server's capabilities are the fleet's, so the
load is the fleet's share of busy streams.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import threading
import time
from typing import Any

from livekit.agents import (
    DEFAULT_API_CONNECT_OPTIONS,
    NOT_GIVEN,
    Agent,
    AgentServer,
    AgentSession,
    APIConnectionError,
    APIConnectOptions,
    APIStatusError,
    APITimeoutError,
    JobContext,
    JobExecutorType,
    JobProcess,
    LanguageCode,
    NotGivenOr,
    cli,
    llm,
    stt,
)

from livekit import rtc
from livekit.plugins import qwen3_tts, silero
from scripted_llm import EXPR_REPLIES, ScriptedReplies, TokenPace, stream_tokens
from voice_tts.protocol import StreamingEngine

logger = logging.getLogger("voice-tts-agent")

ENGINE_URL = os.environ.get("VOICE_TTS_URL")
# "expr": the LLM writes LiveKit's expressive markers and the engine acts on them.
MARKUP = os.environ.get("VOICE_TTS_MARKUP") or None
INSTRUCTIONS = (
    "You are a friendly voice assistant. Answer in short spoken sentences, without lists, "
    "markdown or emoji."
)


# --- engine load, for LiveKit's dispatcher -----------------------------------------------------


class InProcessEngineLoad:
    """Load of an engine running in this worker process: open streams over stream capacity."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine

    def __call__(self) -> float:
        return min(1.0, self._engine.active_streams / max(1, self._engine.capacity))


class RemoteEngineLoad:
    """Load of an engine server, from its capabilities (`active_streams`, `capacity`): one
    server's, or behind Ray Serve the whole fleet's (both summed over the live replicas).

    LiveKit calls `load_fnc` synchronously every half second, so a background thread polls the
    server and the call only reads the last answer. A server that has not answered for
    `stale_after` seconds counts as full: no new rooms are sent to a host whose engine is down.
    """

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        interval: float = 1.0,
        stale_after: float = 5.0,
    ) -> None:
        self._url, self._api_key = url, api_key
        self._interval, self._stale_after = interval, stale_after
        self._load = 1.0
        self._updated_at: float | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def __call__(self) -> float:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._poll_forever, name="voice-tts-load", daemon=True
                )
                self._thread.start()
            if self._updated_at is None or time.monotonic() - self._updated_at > self._stale_after:
                return 1.0
            return self._load

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _poll_forever(self) -> None:
        asyncio.run(self._poll())

    async def _poll(self) -> None:
        from voice_tts.client import RemoteEngine, RemoteEngineError

        engine = RemoteEngine(self._url, api_key=self._api_key)
        try:
            while not self._stop.is_set():
                try:
                    caps = await engine.capabilities()
                except (RemoteEngineError, ValueError) as e:  # down, restarting: stay "full"
                    logger.warning("voice-tts engine capabilities unavailable: %s", e)
                else:
                    with self._lock:
                        self._load = min(1.0, caps.active_streams / max(1, caps.capacity))
                        self._updated_at = time.monotonic()
                await asyncio.to_thread(self._stop.wait, self._interval)
        finally:
            await engine.aclose()


_engine_lock = threading.Lock()
_shared_engine: StreamingEngine | None = None


def shared_engine() -> StreamingEngine:
    """The one in-process engine of this worker; every room (a thread of it) speaks with it."""
    global _shared_engine
    with _engine_lock:
        if _shared_engine is None:
            from engine import Engine

            _shared_engine = Engine.embedded()
        return _shared_engine


_remote_engine_load = (
    RemoteEngineLoad(ENGINE_URL, api_key=os.environ.get("VOICE_TTS_API_KEY"))
    if ENGINE_URL
    else None
)


def engine_load() -> float:
    """The worker's `load_fnc`."""
    if _remote_engine_load is not None:
        return _remote_engine_load()
    return InProcessEngineLoad(shared_engine())()


# --- listening and thinking ----------------------------------------------------------------------


class _StreamingLLM(llm.LLM):
    """An LLM whose `chat` opens one stream of its own kind (`stream`) over LiveKit's arguments."""

    def chat(
        self,
        *,
        chat_ctx: llm.ChatContext,
        tools: list[llm.Tool] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        **_: Any,
    ) -> llm.LLMStream:
        return self.stream(chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options)

    def stream(self, **arguments: Any) -> llm.LLMStream:
        raise NotImplementedError


class OpenAICompatibleLLM(_StreamingLLM):
    """Chat completions, streamed, from any OpenAI-compatible endpoint."""

    def __init__(
        self, *, model: str, base_url: str | None = None, api_key: str | None = None
    ) -> None:
        super().__init__()
        import openai

        self._model = model
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key)

    @property
    def model(self) -> str:
        return self._model

    @property
    def provider(self) -> str:
        return str(self._client.base_url)

    def stream(self, **arguments: Any) -> llm.LLMStream:
        return _OpenAICompatibleStream(self, **arguments)


class _OpenAICompatibleStream(llm.LLMStream):
    _llm: OpenAICompatibleLLM

    async def _run(self) -> None:
        import openai

        messages, _ = self.chat_ctx.to_provider_format("openai")
        try:
            chunks = await self._llm._client.chat.completions.create(
                model=self._llm.model,
                messages=messages,
                stream=True,
                timeout=self._conn_options.timeout,
            )
            async for chunk in chunks:
                for choice in chunk.choices:
                    if choice.delta.content:
                        self._event_ch.send_nowait(
                            llm.ChatChunk(
                                id=chunk.id,
                                delta=llm.ChoiceDelta(
                                    role="assistant", content=choice.delta.content
                                ),
                            )
                        )
        except openai.APITimeoutError as e:
            raise APITimeoutError() from e
        except openai.APIConnectionError as e:
            raise APIConnectionError(str(e)) from e
        except openai.APIStatusError as e:
            raise APIStatusError(e.message, status_code=e.status_code, body=e.body) from e


class OpenAICompatibleSTT(stt.STT):
    """Transcribes each user utterance (cut by the VAD) with an OpenAI-compatible endpoint."""

    def __init__(
        self, *, model: str, base_url: str | None = None, api_key: str | None = None
    ) -> None:
        super().__init__(capabilities=stt.STTCapabilities(streaming=False, interim_results=False))
        import openai

        self._model = model
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key)

    @property
    def model(self) -> str:
        return self._model

    async def _recognize_impl(
        self,
        buffer: Any,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions,
    ) -> stt.SpeechEvent:
        import openai

        wav = rtc.combine_audio_frames(buffer).to_wav_bytes()
        try:
            result = await self._client.audio.transcriptions.create(
                model=self._model,
                file=("speech.wav", wav, "audio/wav"),
                timeout=conn_options.timeout,
            )
        except openai.APIConnectionError as e:
            raise APIConnectionError(str(e)) from e
        except openai.APIStatusError as e:
            raise APIStatusError(e.message, status_code=e.status_code, body=e.body) from e
        return stt.SpeechEvent(
            type=stt.SpeechEventType.FINAL_TRANSCRIPT,
            alternatives=[
                stt.SpeechData(language=LanguageCode(language or "en"), text=result.text)
            ],
        )


class ScriptedLLM(_StreamingLLM):
    """The offline stand-in: says the next canned reply token by token at an LLM's pace, so
    speech starts before the sentence is complete."""

    def __init__(self, replies: ScriptedReplies | None = None, pace: TokenPace = TokenPace()) -> None:
        super().__init__()
        self._replies = replies or ScriptedReplies()
        self._pace = pace

    @property
    def model(self) -> str:
        return "scripted"

    def stream(self, **arguments: Any) -> llm.LLMStream:
        return _ScriptedStream(self, reply=self._replies.next_reply(), pace=self._pace, **arguments)


class _ScriptedStream(llm.LLMStream):
    def __init__(self, llm_: ScriptedLLM, *, reply: str, pace: TokenPace, **kwargs: Any) -> None:
        super().__init__(llm_, **kwargs)
        self._reply = reply
        self._pace = pace

    async def _run(self) -> None:
        async for token in stream_tokens(self._reply, self._pace):
            self._event_ch.send_nowait(
                llm.ChatChunk(id="scripted", delta=llm.ChoiceDelta(role="assistant", content=token))
            )


def build_session(vad: Any, tts: qwen3_tts.TTS) -> AgentSession:
    """The session of one room."""
    if api_key := os.environ.get("OPENAI_API_KEY"):
        base_url = os.environ.get("OPENAI_BASE_URL")
        stt_: Any = OpenAICompatibleSTT(
            model=os.environ.get("OPENAI_STT_MODEL", "whisper-1"),
            base_url=base_url,
            api_key=api_key,
        )
        llm_: llm.LLM = OpenAICompatibleLLM(
            model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"), base_url=base_url, api_key=api_key
        )
    else:
        stt_, llm_ = NOT_GIVEN, ScriptedLLM(ScriptedReplies(EXPR_REPLIES) if MARKUP else None)
    return AgentSession(
        vad=vad,
        stt=stt_,
        llm=llm_,
        tts=tts,
        # With the engine's word timings, an interrupted reply is kept as the words played.
        use_tts_aligned_transcript=True,
        expressive=MARKUP is not None,
    )


def build_agent(tts: qwen3_tts.TTS) -> Agent:
    """The agent of one room. Expressive, its instructions carry the marker guide: livekit-agents
    1.8 injects a TTS's guide only for TTSs whose input the framework lowers itself (not a
    natively streaming plugin), so the agent gives it to the LLM."""
    if tts.markup.llm_instructions() is None or MARKUP is None:
        return Agent(instructions=INSTRUCTIONS)
    return Agent(instructions=f"{INSTRUCTIONS}\n\n{tts.markup.llm_instructions()}")


# --- the worker -------------------------------------------------------------------------------


def prewarm(proc: JobProcess) -> None:
    proc.userdata["vad"] = silero.VAD.load()
    if not ENGINE_URL:
        shared_engine()


server = AgentServer(
    setup_fnc=prewarm,
    load_fnc=engine_load,
    # An in-process engine is shared by all rooms, so rooms run as threads of this process;
    # with an engine server each room gets its own process, as LiveKit does by default.
    job_executor_type=JobExecutorType.PROCESS if ENGINE_URL else JobExecutorType.THREAD,
)


@server.rtc_session()
async def entrypoint(ctx: JobContext) -> None:
    # With an engine server the TTS opens (and on shutdown closes) its own client.
    tts = qwen3_tts.TTS(engine=None if ENGINE_URL else shared_engine(), markup=MARKUP)
    ctx.add_shutdown_callback(tts.aclose)
    session = build_session(ctx.proc.userdata["vad"], tts)
    await session.start(agent=build_agent(tts), room=ctx.room)
    await session.generate_reply(instructions="Greet the user in one short sentence.")


# The commands that serve a LiveKit server's rooms, and what they need to reach it.
_SERVER_COMMANDS = ("dev", "start", "connect")
_SERVER_SETTINGS = {"--url": "LIVEKIT_URL", "--api-key": "LIVEKIT_API_KEY", "--api-secret": "LIVEKIT_API_SECRET"}


def missing_server_settings(argv: list[str]) -> list[str]:
    """The LiveKit server settings a `dev`/`start`/`connect` command line lacks (neither the
    option nor its environment variable given); none for `console` and other commands."""
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    if command not in _SERVER_COMMANDS:
        return []
    return [
        env
        for flag, env in _SERVER_SETTINGS.items()
        if not os.environ.get(env) and not any(a == flag or a.startswith(flag + "=") for a in argv)
    ]


if __name__ == "__main__":
    import sys

    if missing := missing_server_settings(sys.argv[1:]):
        # LiveKit's CLI logs "ws_url is required" and exits 0: a supervisor would not notice.
        sys.exit(
            f"livekit_agent.py: `{sys.argv[1]}` serves the rooms of a LiveKit server; set "
            f"{', '.join(missing)} (or pass --url, --api-key, --api-secret). "
            "`console` runs without one."
        )
    # Everything imported so far lives as long as the process: out of the collector's sight, a
    # full collection takes milliseconds instead of ~0.1 s with Pipecat/LiveKit loaded.
    gc.freeze()
    cli.run_app(server)
