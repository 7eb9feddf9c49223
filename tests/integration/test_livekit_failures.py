"""The LiveKit plugin when things go wrong: every close, error, retry and fallback completes at
once (no wait on a timeout), a silent engine fails within the silence timeout, a refused
connection fails fast enough for `FallbackAdapter` to switch in well under a second, and the
transcript holds only the words whose audio was produced.

Bounds carry a wide margin for a loaded 2-core machine; the behaviour they replace took 3 to
32 s (a cancel lost by `asyncio.wait_for` on Python 3.11, then the full `conn_options.timeout`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest
from livekit.agents import APIConnectionError, APIError, APITimeoutError, tts
from livekit.agents.metrics import TTSMetrics
from livekit.agents.types import USERDATA_TIMED_TRANSCRIPT, APIConnectOptions
from livekit_harness import (  # noqa: F401  (fixtures)
    ObservedEngine,
    RecordingAgent,
    converse,
    engine_server,
)
from loop_watch import watch_loop
from test_livekit_plugin import Failure, ScriptedEngine, Spoken, collect, speak

from voice_tts.client import RemoteEngine
from voice_tts.livekit import Qwen3StreamingTTS
from voice_tts.protocol import ErrorCode

# The options an agent has by default: 10 s timeout, 3 retries 2 s apart.
DEFAULT = APIConnectOptions()
WORDS = ["Hello", " brave", " new", " world."]


def unreachable_url() -> str:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"ws://127.0.0.1:{port}/v1/ws"  # nothing listens once the probe is closed


async def test_aclose_after_end_input_is_immediate(embedded_engine) -> None:
    plugin = Qwen3StreamingTTS(engine=embedded_engine)
    for _ in range(10):
        stream = plugin.stream()
        stream.push_text("A sentence long enough to still be speaking when it is closed. " * 3)
        stream.end_input()
        async for _ in stream:
            break
        began = time.monotonic()
        await stream.aclose()
        assert time.monotonic() - began < 0.5  # was 3 s in half the tries
    await plugin.aclose()


async def test_an_error_after_the_last_text_surfaces_at_once() -> None:
    engine = ScriptedEngine([Failure(retryable=False, after_audio=True)])
    plugin = Qwen3StreamingTTS(engine=engine, normalize=False)
    began = time.monotonic()
    with pytest.raises(APIError, match="scripted failure"):
        async with plugin.stream(conn_options=DEFAULT) as stream:
            await speak(stream, WORDS)
    assert time.monotonic() - began < 1.0  # was 5 s
    await plugin.aclose()


async def test_an_unknown_voice_fails_at_once(embedded_engine) -> None:
    plugin = Qwen3StreamingTTS(engine=embedded_engine, voice="nobody")
    began = time.monotonic()
    with pytest.raises(APIError, match="invalid_voice") as raised:
        async with plugin.stream(conn_options=DEFAULT) as stream:
            await speak(stream, WORDS)
    assert not raised.value.retryable
    assert time.monotonic() - began < 1.0  # was 5 s
    await plugin.aclose()


async def test_a_retry_costs_no_timeout() -> None:
    engine = ScriptedEngine([Failure(retryable=True), None])
    plugin = Qwen3StreamingTTS(engine=engine, normalize=False)
    began = time.monotonic()
    options = APIConnectOptions(max_retry=1, retry_interval=0.0, timeout=DEFAULT.timeout)
    async with plugin.stream(conn_options=options) as stream:
        spoken = await speak(stream, WORDS)
    assert "".join(spoken.pieces) == "Hello brave new world."
    assert time.monotonic() - began < 1.5  # was 5 s per retry
    await plugin.aclose()


async def test_a_silent_engine_fails_within_the_default_silence_timeout() -> None:
    engine = ScriptedEngine(["silent"])
    plugin = Qwen3StreamingTTS(engine=engine, normalize=False)
    began = time.monotonic()
    with pytest.raises(APITimeoutError):
        async with plugin.stream(conn_options=APIConnectOptions(max_retry=0)) as stream:
            await speak(stream, WORDS)
    assert time.monotonic() - began < 4.0  # 2 s silence timeout; was the 10 s API timeout
    assert engine.streams[0].cancelled
    await plugin.aclose()


async def test_an_error_keeps_only_the_words_spoken_before_it() -> None:
    engine = ScriptedEngine([Failure(retryable=False, after_audio=True)])
    plugin = Qwen3StreamingTTS(engine=engine, normalize=False)
    spoken = Spoken()
    with pytest.raises(APIError):
        async with plugin.stream(conn_options=DEFAULT) as stream:
            for token in WORDS:
                stream.push_text(token)
            stream.end_input()
            async for ev in stream:
                spoken.frames.append(ev.frame)
                spoken.pieces.extend(ev.frame.userdata.get("lk.timed_transcripts", []))
    # Only the word whose audio came before the error, and only if its audio got out.
    assert "".join(spoken.pieces) == ("Hello" if spoken.frames else "")
    await plugin.aclose()


class RefusingEngine:
    """`open_stream` raises as a client library that connects eagerly would."""

    def open_stream(self, *args, **kwargs):
        raise ConnectionRefusedError(111, "Connection refused")

    async def aclose(self) -> None:
        pass


async def test_open_stream_refused_is_a_connection_error() -> None:
    plugin = Qwen3StreamingTTS(engine=RefusingEngine())
    with pytest.raises(APIConnectionError):
        async with plugin.stream(conn_options=APIConnectOptions(max_retry=0)) as stream:
            await speak(stream, WORDS)
    await plugin.aclose()


async def test_fallback_adapter_switches_after_the_primarys_retries(embedded_engine) -> None:
    """The refused primary is retried as the adapter's options say (FallbackAdapter gives each
    instance `max_retry_per_tts` retries at the stream's `retry_interval`), then the backup
    speaks at once: no wait on a timeout."""
    down = RemoteEngine(unreachable_url())
    primary = Qwen3StreamingTTS(engine=down)
    backup = Qwen3StreamingTTS(engine=embedded_engine)
    fallback = tts.FallbackAdapter([primary, backup])
    options = APIConnectOptions(max_retry=0, retry_interval=0.2)
    availability: list[bool] = []
    fallback.on("tts_availability_changed", lambda event: availability.append(event.available))
    began = time.monotonic()
    first_audio = None
    async with fallback.stream(conn_options=options) as stream:
        for token in WORDS:
            stream.push_text(token)
        stream.end_input()
        async for _ in stream:
            first_audio = first_audio or time.monotonic() - began
    assert availability[:1] == [False]  # the primary, after its three attempts
    # LiveKit's two waits (0.1 s, then retry_interval) and a second for the rest; was 32 s
    # before connections were refused at once.
    assert first_audio is not None and first_audio < 0.1 + options.retry_interval + 1.0
    await fallback.aclose()
    await down.aclose()


class Silent127:
    """A real server on 127.0.0.1 that accepts connections and never answers: a hung host."""

    async def __aenter__(self) -> "Silent127":
        self._peers: list[asyncio.StreamWriter] = []

        async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self._peers.append(writer)

        self._server = await asyncio.start_server(hold, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.ws_url = f"ws://127.0.0.1:{port}/v1/ws"
        return self

    async def __aexit__(self, *exc_info) -> None:
        for writer in self._peers:
            writer.transport.abort()
        self._server.close()


async def speak_with_input_open(stream: tts.SynthesizeStream, tokens: list[str]) -> None:
    """The LLM is still writing: tokens pushed, the input not ended, the stream read."""
    for token in tokens:
        stream.push_text(token)
    async for _ in stream:
        pass


@pytest.mark.parametrize("server", ["refusing", "silent"])
@pytest.mark.parametrize("call", ["stream", "stream_input_open", "synthesize"])
async def test_an_unreachable_server_gets_livekits_retries(call, server) -> None:
    """APIConnectOptions(max_retry=2): three attempts, each reported as an error event, the
    first two recoverable, within the options' timing (LiveKit waits 0.1 s before the first
    retry, retry_interval before the next; an attempt lasts at most `timeout`). With the input
    still open nothing is owed yet, so only the connect timeout bounds a silent server."""
    options = APIConnectOptions(max_retry=2, retry_interval=0.2, timeout=1.0)
    async with contextlib.AsyncExitStack() as stack:
        url = unreachable_url() if server == "refusing" else (await stack.enter_async_context(Silent127())).ws_url
        engine = ObservedEngine(RemoteEngine(url))
        plugin = Qwen3StreamingTTS(engine=engine)
        errors: list[tts.TTSError] = []
        plugin.on("error", errors.append)
        began = time.monotonic()
        with pytest.raises(APIConnectionError):
            # Far above the bound below: the engine's own 5 s connect timeout, tried three
            # times per attempt, took 45 s with the input open.
            async with asyncio.timeout(60):
                if call == "stream":
                    async with plugin.stream(conn_options=options) as stream:
                        await speak(stream, WORDS)
                elif call == "stream_input_open":
                    async with plugin.stream(conn_options=options) as stream:
                        await speak_with_input_open(stream, WORDS)
                else:
                    await collect(plugin.synthesize("".join(WORDS), conn_options=options))
        elapsed = time.monotonic() - began
        await plugin.aclose()
        await engine.aclose()
    # Was one error, not recoverable, after a single attempt (refusing) or 15 s (silent).
    assert len(engine.streams) == 3
    assert [e.recoverable for e in errors] == [True, True, False]
    assert all(isinstance(e.error, APIConnectionError) for e in errors)
    # (with half a second for the work itself on a loaded machine)
    assert elapsed < 0.1 + options.retry_interval + 3 * options.timeout + 0.5


async def test_every_word_carries_its_start_and_end(embedded_engine) -> None:
    plugin = Qwen3StreamingTTS(engine=embedded_engine)
    async with plugin.stream() as stream:
        spoken = await speak(stream, ["One small step. For", " a robot, one giant", " leap."])
    pieces = spoken.pieces
    assert "".join(pieces) == "One small step. For a robot, one giant leap."
    # Each word ends where the next one starts (was: only the words reported together).
    for piece, following in zip(pieces, pieces[1:]):
        assert piece.start_time <= piece.end_time == following.start_time, pieces
    assert pieces[-1].end_time == pytest.approx(spoken.duration, abs=0.02)
    await plugin.aclose()


async def test_a_failed_speech_ends_its_last_word_where_its_audio_ends() -> None:
    plugin = Qwen3StreamingTTS(engine=ScriptedEngine([Failure(retryable=False, after_audio=True)]))
    spoken = Spoken()
    with pytest.raises(APIError):
        async with plugin.stream() as stream:
            for token in WORDS:
                stream.push_text(token)
            stream.end_input()
            async for ev in stream:
                spoken.frames.append(ev.frame)
                spoken.pieces.extend(ev.frame.userdata.get(USERDATA_TIMED_TRANSCRIPT, []))
    assert spoken.pieces == ["Hello"]  # the one word spoken before the failure
    assert spoken.pieces[-1].end_time == pytest.approx(spoken.duration, abs=0.02)
    await plugin.aclose()


async def test_synthesize_reports_one_metrics_event(embedded_engine) -> None:
    plugin = Qwen3StreamingTTS(engine=embedded_engine)
    metrics: list[TTSMetrics] = []
    plugin.on("metrics_collected", metrics.append)
    await collect(plugin.synthesize("Good morning, and welcome."))
    await asyncio.sleep(0.1)
    assert len(metrics) == 1 and metrics[0].audio_duration > 0.5
    assert metrics[0].characters_count == len("Good morning, and welcome.")
    assert plugin.model == "eSpeak NG"
    await plugin.aclose()


async def test_prewarm_opens_the_connection_and_metrics_say_it_was_reused(engine_server) -> None:
    remote = RemoteEngine(engine_server.ws_url)
    plugin = Qwen3StreamingTTS(engine=remote)
    metrics: list[TTSMetrics] = []
    plugin.on("metrics_collected", metrics.append)
    plugin.prewarm()
    await asyncio.sleep(0.5)
    async with plugin.stream() as stream:
        await speak(stream, WORDS)
    await asyncio.sleep(0.1)
    assert metrics and metrics[0].connection_reused and metrics[0].acquire_time < 0.1
    await plugin.aclose()
    await remote.aclose()


async def test_language_codes_work_on_the_embedded_engine(embedded_engine) -> None:
    for language in ("en", "en-US", "en-GB", "english"):
        plugin = Qwen3StreamingTTS(engine=embedded_engine, language=language, voice="ryan")
        async with plugin.stream() as stream:
            spoken = await speak(stream, WORDS)
        assert spoken.duration > 0.3, language
        await plugin.aclose()


def test_timeout_error_code_is_a_livekit_timeout() -> None:
    from voice_tts.livekit.tts import _api_error
    from voice_tts.protocol import Error

    assert isinstance(_api_error(Error(ErrorCode.TIMEOUT, "x", True)), APITimeoutError)
    assert isinstance(_api_error(Error(ErrorCode.UNREACHABLE, "x", True)), APIConnectionError)


@pytest.mark.parametrize("token", ["word " * 4000, "x" * 20000], ids=["words", "no_spaces"])
async def test_a_huge_token_does_not_hold_the_event_loop(embedded_engine, token) -> None:
    plugin = Qwen3StreamingTTS(engine=embedded_engine)
    async with plugin.stream() as stream:  # everything loaded before the watch
        await speak(stream, ["Hello there."])
    async with watch_loop() as loop:
        async with plugin.stream() as stream:
            stream.push_text(token)  # one 20,000-character token
            stream.end_input()
            started = time.monotonic()
            async for _ in stream:
                if time.monotonic() - started > 1.0:
                    break
    await plugin.aclose()
    # Was 0.4 s in one piece, 40 ms without spaces; a few ms on a quiet machine now
    # (docs/benchmarks.md).
    assert loop.longest_cpu < 0.03, loop.longest_cpu



class BringsTheServerBack(RecordingAgent):
    """Starts the stopped server again when the user asks for it, before the reply; `spoke` is
    set once a reply has had audio."""

    def __init__(self, server_process) -> None:
        super().__init__()
        self._server = server_process
        self.spoke = asyncio.Event()

    async def on_user_turn_completed(self, turn_ctx, new_message) -> None:
        if new_message.text_content == "Try again.":
            await asyncio.to_thread(self._server.start)  # the same port

    async def tts_node(self, text, model_settings):
        async for frame in super().tts_node(text, model_settings):
            yield frame
        if self.speeches[-1].audio_seconds > 0:
            self.spoke.set()


class TimedEngine(ObservedEngine):
    """Notes when each stream is opened."""

    def __init__(self, engine) -> None:
        super().__init__(engine)
        self.opened_at: list[float] = []

    def open_stream(self, *args, **kwargs):
        self.opened_at.append(time.monotonic())
        return super().open_stream(*args, **kwargs)


async def test_a_speech_while_the_server_is_down_is_a_connection_error_within_the_timeout() -> None:
    """As an app meets it: the server is down and a reply is spoken with the app's connect
    options: its first attempt fails as `APIConnectionError` within the options' timeout (and
    LiveKit's retry likewise), and the same session speaks once the server is back."""
    from livekit_harness import said
    from server_harness import ServerProcess

    server_process = ServerProcess()
    server_process.kill()
    remote = RemoteEngine(server_process.ws_url)
    engine = TimedEngine(remote)
    options = APIConnectOptions(max_retry=1, retry_interval=0.2, timeout=2.0)
    errors: list[tuple[float, tts.TTSError]] = []
    try:
        plugin = Qwen3StreamingTTS(engine=engine)
        plugin.on("error", lambda error: errors.append((time.monotonic(), error)))
        agent = BringsTheServerBack(server_process)
        replies = {"Are you there?": "Yes, I am here.", "Try again.": "All good now."}
        conversation = await converse(
            plugin,
            [said(0.5, 1.5, "Are you there?"), said(5.0, 6.0, "Try again.")],
            replies,
            agent=agent,
            tts_conn_options=options,
            timeout=90,
            agent_done=agent.spoke,
        )
    finally:
        await remote.aclose()
        server_process.stop()
    (first_at, first), *_ = errors
    assert isinstance(first.error, APIConnectionError) and first_at - engine.opened_at[0] < options.timeout
    assert [e.recoverable for _, e in errors] == [True, False]  # the retry, then the reply ends
    assert [m.text_content for m in conversation.assistant_messages() if m.text_content] == ["All good now."]
