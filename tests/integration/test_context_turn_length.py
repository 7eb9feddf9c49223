"""Whether a turn's length depends on how it reached `/v1/ws`: the same text as the socket's plain
turn, as a context (`context_id` on start, text and stop), and through `RemoteEngine` (which
carries every turn as a context) ends the same way, with as many frames, on a real server with
the tiny Qwen3-TTS checkpoint.

The runaway guard (`--max-frames-per-text-token`) decides the length: at 0.5 frames a text
token the guard's floor (`min_frame_cap` frames) comes well before the model has read its text,
and the end token is barred until it has, so every turn whose input ended in time has exactly
that many frames, however the model samples. A context whose end of input reached the engine
late, or whose text reached it twice, would run longer."""

from __future__ import annotations

import asyncio
import json

import pytest
from server_harness import speak, start_server, ws_connect

from engine.runtime.loop import LoopSettings
from engine.runtime.stream import FRAME_SECONDS
from engine.server.engine_loader import load_engine
from voice_tts.bench.deltas import deltas_for, push_at_pace
from voice_tts.client import RemoteEngine
from voice_tts.protocol import AudioChunk, Done, unframe_audio

TEXT = (
    "Thanks for calling. Your order shipped this morning and should arrive on Friday, and I can "
    "text you the tracking link if that would help you keep an eye on it."
)
START = {"voice": "ryan", "language": "english", "normalize": True}
SAMPLE_RATE = 24000


@pytest.fixture(scope="module")
def engine(tiny_checkpoint):
    return load_engine(str(tiny_checkpoint), "cpu", max_streams=2, max_frames_per_text_token=0.5)


@pytest.fixture(scope="module")
def text_tokens(engine) -> int:
    tokens = len(engine.model.tokenizer.encode(TEXT))
    # The text outlasts the guard's floor (the end token cannot come first), and the floor
    # is above 0.5 frames a token.
    assert 0.5 * tokens < LoopSettings().min_frame_cap < tokens
    return tokens


@pytest.fixture(scope="module")
def server(engine):
    server = start_server(engine)
    yield server
    server.stop()


def guard_seconds() -> float:
    return LoopSettings().min_frame_cap * FRAME_SECONDS


async def plain_turn(server) -> tuple[float, dict]:
    async with ws_connect(server.ws_url) as ws:
        result = await speak(ws, [TEXT], **START)
    return len(result.audio) / 2 / SAMPLE_RATE, result.done


async def context_turn(server) -> tuple[float, dict]:
    async with ws_connect(server.ws_url) as ws:
        for message in ({"type": "start", **START}, {"type": "text", "text": TEXT}, {"type": "stop"}):
            await ws.send(json.dumps({**message, "context_id": "t1"}))
        audio = 0
        async with asyncio.timeout(60):
            async for frame in ws:
                if isinstance(frame, bytes):
                    context_id, data = unframe_audio(frame)
                    assert context_id == "t1"
                    audio += len(data)
                    continue
                message = json.loads(frame)
                assert message.get("context_id") == "t1", message
                if message["type"] == "done":
                    return audio / 2 / SAMPLE_RATE, message
    raise AssertionError("the context's socket closed before its done")


async def remote_engine_turn(server, paced: bool) -> tuple[float, Done]:
    engine = RemoteEngine(server.ws_url)
    try:
        stream = engine.open_stream(**START)
        if paced:
            # As an LLM sends it: token-sized deltas at 30 a second, then the end of input.
            feeder = asyncio.create_task(push_at_pace(stream, deltas_for("llm", TEXT, 0), 30.0))
        else:
            stream.push_text(TEXT)
            stream.end_input()
        audio = 0.0
        async with asyncio.timeout(60):
            async for event in stream.events():
                if isinstance(event, AudioChunk):
                    audio += event.duration
                elif isinstance(event, Done):
                    done = event
        if paced:
            await feeder
    finally:
        await engine.aclose()
    return audio, done


async def test_a_context_turn_is_as_long_as_the_plain_turn(server, text_tokens):
    plain_seconds, plain_done = await plain_turn(server)
    context_seconds, context_done = await context_turn(server)
    assert plain_seconds == pytest.approx(guard_seconds(), abs=FRAME_SECONDS)
    assert context_seconds == plain_seconds
    assert context_done["usage"] == plain_done["usage"]
    assert context_done["reason"] == plain_done["reason"]
    assert context_done["heard_text"] == plain_done["heard_text"]


async def test_a_remote_engine_turn_is_as_long_as_the_plain_turn(server, text_tokens):
    plain_seconds, plain_done = await plain_turn(server)
    seconds, done = await remote_engine_turn(server, paced=False)
    assert seconds == pytest.approx(plain_seconds, abs=1e-6)
    assert done.usage.characters_received == plain_done["usage"]["characters_received"] == len(TEXT)
    assert done.usage.audio_seconds == pytest.approx(plain_done["usage"]["audio_seconds"], abs=1e-3)


async def test_an_llm_paced_remote_engine_turn_ends_once_its_text_is_read(server, text_tokens):
    """Deltas at an LLM's pace: the model reads text as it arrives, so the guard, which counts
    from the end of input, ends the turn at once if more frames than its floor are out by then.
    Either way no frame is made past the last text token: more would mean the end of input
    reached the engine late, or the text twice."""
    seconds, done = await remote_engine_turn(server, paced=True)
    assert guard_seconds() - FRAME_SECONDS <= seconds <= text_tokens * FRAME_SECONDS + 1e-6
    assert done.usage.characters_received == len(TEXT) and not done.cancelled
