"""Speaking rate through a real server on 127.0.0.1: `start.speed`, a `speed` message mid-turn
(words and heard text in played time), `speed` on `/v1/audio/speech` through the official
`openai` SDK, a Realtime session's `audio.output.speed`, and a `TTSSession` over `RemoteEngine`
sending `start.speed` and the message."""

from __future__ import annotations

import asyncio
import base64
import json

import openai
import pytest
from openai import AsyncOpenAI, OpenAI
from server_harness import TurnResult, next_json, receive_until_done, speak, start_server, ws_connect
from session_turns import run_turn

from voice_tts.client import RemoteEngine
from voice_tts.session import TTSSession

TEXT = "Please call me back at five five five, one two three four, before noon tomorrow."
LONG = " ".join(["Thank you for calling the front desk, how can I help you today?"] * 6)


@pytest.fixture(scope="module")
def server():
    server = start_server()
    yield server
    server.stop()


def seconds(result: TurnResult) -> float:
    return len(result.audio) / 2 / 24000


async def test_a_turn_at_a_speed_is_shorter_and_its_words_and_usage_are_in_played_time(server):
    async with ws_connect(server.ws_url) as ws:
        normal = await speak(ws, [TEXT])
        fast = await speak(ws, [TEXT], speed=1.5)
    assert seconds(fast) == pytest.approx(seconds(normal) / 1.5, rel=0.03)
    assert [w["text"] for w in fast.words] == [w["text"] for w in normal.words] == TEXT.split()
    for quick, plain in zip(fast.words[1:], normal.words[1:]):
        assert quick["start_ms"] == pytest.approx(plain["start_ms"] / 1.5, abs=25)
    assert fast.done["usage"]["audio_seconds"] == pytest.approx(seconds(fast), abs=0.01)
    assert fast.done["heard_text"] == TEXT


SENTENCE_WORDS = 13  # LONG repeats one 13-word sentence


async def test_a_speed_change_mid_turn_keeps_heard_text_exact_at_a_barge_in(server):
    async with ws_connect(server.ws_url) as ws:
        reference = await speak(ws, [" ".join(LONG.split()[: 2 * SENTENCE_WORDS])])
        sentence_ms = reference.words[SENTENCE_WORDS]["start_ms"] - reference.words[0]["start_ms"]
        await ws.send(json.dumps({"type": "start"}))
        assert (await next_json(ws))["type"] == "started"
        await ws.send(json.dumps({"type": "text", "text": LONG}))
        result = TurnResult()
        changed_at_ms = None
        async with asyncio.timeout(60):
            while len(result.words) < 30:
                frame = await ws.recv()
                if isinstance(frame, bytes):
                    result.audio.extend(frame)
                    continue
                result.messages.append(json.loads(frame))
                if changed_at_ms is None and len(result.words) >= 5:
                    changed_at_ms = seconds(result) * 1000
                    await ws.send(json.dumps({"type": "speed", "speed": 2.0}))
        words = result.words
        # The second sentence was made after the change: in played time it takes half as long.
        second_ms = words[2 * SENTENCE_WORDS]["start_ms"] - words[SENTENCE_WORDS]["start_ms"]
        assert words[SENTENCE_WORDS]["start_ms"] > changed_at_ms
        assert second_ms == pytest.approx(sentence_ms / 2, rel=0.03)
        later = [w for w in words if w["start_ms"] > changed_at_ms]
        played_ms = (later[2]["start_ms"] + later[3]["start_ms"]) / 2
        await ws.send(json.dumps({"type": "cancel", "played_ms": played_ms}))
        await receive_until_done(ws, result)
    heard = result.done["heard_text"]
    expected = [w for w in result.words if w["start_ms"] <= played_ms]
    assert heard == LONG[: expected[-1]["raw_end"]]
    assert result.done["cancelled"] is True


async def test_a_speed_message_out_of_range_is_refused_and_the_turn_goes_on(server):
    async with ws_connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start"}))
        assert (await next_json(ws))["type"] == "started"
        await ws.send(json.dumps({"type": "speed", "speed": 4}))
        error = await next_json(ws)
        assert (error["type"], error["code"]) == ("error", "invalid_message")
        await ws.send(json.dumps({"type": "text", "text": TEXT}))
        await ws.send(json.dumps({"type": "stop"}))
        result = await receive_until_done(ws)
        assert result.done["heard_text"] == TEXT


def test_openai_sdk_speed_on_speech(server):
    client = OpenAI(base_url=server.http_url + "/v1", api_key="none", max_retries=0)

    def pcm(speed: float) -> bytes:
        return client.audio.speech.create(
            model="tts-1", voice="alloy", input=TEXT, response_format="pcm", speed=speed
        ).content

    normal = pcm(1.0)
    for speed in (0.5, 1.5, 2.0):
        assert len(pcm(speed)) / len(normal) == pytest.approx(1 / speed, rel=0.03)
    with pytest.raises(openai.BadRequestError) as refused:
        pcm(4.0)
    assert refused.value.body["code"] == "unsupported_speed"
    assert "0.5 to 2.0" in refused.value.body["message"]


async def test_a_remote_session_sends_its_speed_and_its_changes_to_the_server(server):
    remote = RemoteEngine(server.ws_url)
    try:
        normal_seconds, normal, _ = await run_turn(TTSSession(remote), TEXT)
        seconds, words, done = await run_turn(TTSSession(remote, speed=1.5), TEXT)
        assert seconds == pytest.approx(normal_seconds / 1.5, rel=0.03)
        assert [w.text for w in words] == TEXT.split()
        assert words[-1].start_time == pytest.approx(normal[-1].start_time / 1.5, abs=0.025)
        assert done.usage.audio_seconds == pytest.approx(seconds, abs=0.01)
        changed = TTSSession(remote)
        changed.set_speed(1.5)  # a `speed` message before any text: all of the turn at 1.5
        changed_seconds, _, _ = await run_turn(changed, TEXT)
        assert changed_seconds == pytest.approx(seconds, rel=0.01)

        heard: list[str] = []

        def change_then_barge_in(session: TTSSession, words) -> None:
            if session.speed == 1.0 and len(words) >= 3:
                session.set_speed(2.0)
            elif len(words) >= 20 and not heard:
                heard.append(session.cancel((words[17].start_time + words[18].start_time) / 2))

        session = TTSSession(remote)
        _, words, done = await run_turn(session, LONG, change_then_barge_in)
        assert session.speed == 2.0
        assert done.cancelled and done.heard_text == LONG[: words[17].raw_end]
    finally:
        await remote.aclose()


async def test_realtime_session_speed_and_a_truncate_in_played_time(server):
    async with ws_connect(server.ws_url) as ws:
        normal = await speak(ws, [TEXT])
        fast = await speak(ws, [TEXT], speed=1.5)
    client = AsyncOpenAI(base_url=server.http_url + "/v1", api_key="none", max_retries=0)
    async with client.realtime.connect(model="voice-tts") as connection:
        await connection.recv()  # session.created

        async def update(speed) -> object:
            output = {"speed": speed}
            await connection.send({"type": "session.update", "session": {"type": "realtime", "audio": {"output": output}}})
            return await connection.recv()

        refused = await update(4.0)
        assert refused.type == "error" and refused.error.param == "session.audio.output.speed"
        assert "0.5 to 2.0" in refused.error.message
        updated = await update(1.5)
        assert updated.type == "session.updated" and updated.session.audio.output.speed == 1.5
        await connection.send(
            {
                "type": "conversation.item.create",
                "item": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": TEXT}]},
            }
        )
        await connection.send({"type": "response.create"})
        audio = bytearray()
        async with asyncio.timeout(60):
            async for event in connection:
                if event.type == "response.output_audio.delta":
                    audio += base64.b64decode(event.delta)
                elif event.type == "response.done":
                    break
        assert len(audio) / 2 / 24000 == pytest.approx(seconds(normal) / 1.5, rel=0.03)
        assert len(audio) == len(fast.audio)
        # A truncate between two words' starts in the audio as played keeps exactly the first.
        audio_end_ms = round((fast.words[5]["start_ms"] + fast.words[6]["start_ms"]) / 2)
        item_id = event.response.output[0].id
        await connection.send(
            {"type": "conversation.item.truncate", "item_id": item_id, "content_index": 0, "audio_end_ms": audio_end_ms}
        )
        async with asyncio.timeout(10):
            async for event in connection:
                if event.type == "conversation.item.truncated":
                    break
        await connection.send({"type": "conversation.item.retrieve", "item_id": item_id})
        retrieved = await connection.recv()
    assert retrieved.item.content[0].transcript == TEXT[: fast.words[5]["raw_end"]]
