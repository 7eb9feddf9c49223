"""The LiveKit worker in agents/livekit_agent.py: its load function follows the engine's open
streams (in-process and through a server), and its offline session answers."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import time
from pathlib import Path

import pytest
from livekit.agents import JobExecutorType
from livekit_harness import engine_server  # noqa: F401  (fixtures)

from voice_tts.client import RemoteEngine

AGENT_FILE = Path(__file__).resolve().parents[2] / "agents" / "livekit_agent.py"


@pytest.fixture(scope="module")
def agent_module(monkeypatch_module):
    monkeypatch_module.delenv("VOICE_TTS_URL", raising=False)
    monkeypatch_module.delenv("OPENAI_API_KEY", raising=False)
    # Run as a script, the worker imports its sibling `scripted_llm` from its own folder.
    monkeypatch_module.syspath_prepend(str(AGENT_FILE.parent))
    spec = importlib.util.spec_from_file_location("livekit_agent", AGENT_FILE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["livekit_agent"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("livekit_agent", None)
    if module._shared_engine is not None:
        asyncio.run(module._shared_engine.aclose())


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def test_worker_without_a_server_shares_one_in_process_engine(agent_module) -> None:
    assert agent_module.server.load_fnc is agent_module.engine_load
    assert agent_module.server._job_executor_type is JobExecutorType.THREAD
    assert agent_module.shared_engine() is agent_module.shared_engine()
    assert agent_module.engine_load() == 0.0


async def test_in_process_load_counts_open_streams(agent_module, embedded_engine) -> None:  # noqa: F811
    load = agent_module.InProcessEngineLoad(embedded_engine)
    capacity = embedded_engine.capacity
    assert load() == 0.0
    streams = [embedded_engine.open_stream() for _ in range(2)]
    for stream in streams:
        stream.push_text("Speaking for a while, so that the stream stays open.")
    assert load() == pytest.approx(2 / capacity)
    for stream in streams:
        stream.cancel()
        async for _ in stream.events():
            pass
    assert load() == 0.0


async def test_remote_load_follows_the_server(agent_module, engine_server) -> None:  # noqa: F811
    load = agent_module.RemoteEngineLoad(engine_server.ws_url, interval=0.05, stale_after=1.0)
    client = RemoteEngine(engine_server.ws_url)
    try:
        assert load() == 1.0  # nothing heard from the server yet: take no rooms
        await _until(lambda: load() == 0.0)
        capacity = (await client.capabilities()).capacity
        streams = [client.open_stream() for _ in range(2)]
        consumers = [asyncio.create_task(_drain(s)) for s in streams]
        for stream in streams:
            stream.push_text("Speaking for a while, so that the stream stays open.")
        await _until(lambda: load() == pytest.approx(2 / capacity))
        for stream in streams:
            stream.cancel()
        await asyncio.gather(*consumers)
        await _until(lambda: load() == 0.0)
    finally:
        load.close()
        await client.aclose()


async def test_remote_load_is_full_when_the_server_is_gone(agent_module) -> None:
    load = agent_module.RemoteEngineLoad("ws://127.0.0.1:9/v1/ws", interval=0.05, stale_after=0.2)
    try:
        load()
        await asyncio.sleep(0.5)
        assert load() == 1.0
    finally:
        load.close()


async def test_offline_session_answers_from_its_script(agent_module) -> None:
    from livekit.agents import Agent

    tts = agent_module.qwen3_tts.TTS(engine=agent_module.shared_engine())
    session = agent_module.build_session(agent_module.silero.VAD.load(), tts)
    await session.start(Agent(instructions=agent_module.INSTRUCTIONS))
    try:
        result = await session.run(user_input="Hello?", input_modality="text")
        result.expect.next_event().is_message(role="assistant")
        [reply] = [
            item
            for item in session.history.items
            if item.type == "message" and item.role == "assistant"
        ]
        assert reply.text_content == agent_module.ScriptedReplies().next_reply()
    finally:
        await session.aclose()
        await tts.aclose()


async def test_expressive_session_teaches_and_writes_markers(agent_module, monkeypatch) -> None:
    from voice_tts.markup import EXPR_INSTRUCTIONS, strip_markup

    monkeypatch.setattr(agent_module, "MARKUP", "expr")
    tts = agent_module.qwen3_tts.TTS(engine=agent_module.shared_engine(), markup=agent_module.MARKUP)
    agent = agent_module.build_agent(tts)
    assert agent.instructions.endswith(EXPR_INSTRUCTIONS)
    session = agent_module.build_session(agent_module.silero.VAD.load(), tts)
    await session.start(agent)
    try:
        await session.run(user_input="Hello?", input_modality="text")
        [reply] = [
            item
            for item in session.history.items
            if item.type == "message" and item.role == "assistant"
        ]
        # The LLM wrote markers; the chat history keeps the words without them.
        assert reply.text_content == strip_markup(agent_module.EXPR_REPLIES[0], "expr")
    finally:
        await session.aclose()
        await tts.aclose()


async def _drain(stream) -> None:
    async for _ in stream.events():
        pass


async def _until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.05)


@pytest.fixture(scope="module")
def openai_compatible_server():
    """A local stand-in for an OpenAI-compatible endpoint: streamed chat completions and
    transcriptions, recording what it was sent."""
    import threading

    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route

    seen: dict = {}

    async def chat(request):
        body = seen["chat"] = await request.json()

        async def chunks():
            reply = "It is half past three."
            for i in range(0, len(reply), 4):
                delta = {"content": reply[i : i + 4]}
                chunk = {
                    "id": "chat-1",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": body["model"],
                    "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                }
                yield f"data: {json.dumps(chunk)}\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(chunks(), media_type="text/event-stream")

    async def transcribe(request):
        form = await request.form()
        seen["stt_model"] = form["model"]
        seen["audio"] = await form["file"].read()
        return JSONResponse({"text": "What time is it?"})

    app = Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/v1/audio/transcriptions", transcribe, methods=["POST"]),
        ]
    )
    # A third party's endpoint, so plain uvicorn rather than our server's runner.
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "the stand-in endpoint did not start"
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/v1", seen
    finally:
        server.should_exit = True
        thread.join(10)


async def test_with_an_api_key_the_session_listens_and_thinks_through_openai(
    agent_module, openai_compatible_server, monkeypatch
) -> None:
    from livekit.agents import Agent

    from livekit import rtc

    base_url, seen = openai_compatible_server
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    monkeypatch.setenv("OPENAI_MODEL", "local-model")
    tts = agent_module.qwen3_tts.TTS(engine=agent_module.shared_engine())
    session = agent_module.build_session(agent_module.silero.VAD.load(), tts)

    speech = rtc.AudioFrame(b"\0\0" * 16000, 16000, 1, 16000)
    heard = await session.stt.recognize(speech)
    assert heard.alternatives[0].text == "What time is it?"
    assert seen["stt_model"] == "whisper-1" and seen["audio"].startswith(b"RIFF")

    await session.start(Agent(instructions=agent_module.INSTRUCTIONS))
    try:
        await session.run(user_input="What time is it?", input_modality="text")
        [reply] = [
            item
            for item in session.history.items
            if item.type == "message" and item.role == "assistant"
        ]
        assert reply.text_content == "It is half past three."
        assert seen["chat"]["model"] == "local-model" and seen["chat"]["stream"] is True
        assert seen["chat"]["messages"][-1] == {"role": "user", "content": "What time is it?"}
    finally:
        await session.aclose()
        await tts.aclose()


@pytest.mark.parametrize("command", ["dev", "start"])
def test_serving_without_a_livekit_server_exits_non_zero_with_a_clear_message(command) -> None:
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.startswith("LIVEKIT_")}
    done = subprocess.run(
        [sys.executable, str(AGENT_FILE), command],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0  # was 0, after logging "ws_url is required"
    assert "LIVEKIT_URL" in done.stderr and "console" in done.stderr


def test_console_needs_no_livekit_server(agent_module) -> None:
    assert agent_module.missing_server_settings(["console"]) == []
    assert agent_module.missing_server_settings(
        ["dev", "--url", "ws://x", "--api-key=k", "--api-secret", "s"]
    ) == []
