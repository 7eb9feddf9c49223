"""`/v1/ws` on a real uvicorn server with the embedded voice: turns, cancel, formats, bad
input, concurrency and vanished clients."""

from __future__ import annotations

import asyncio
import json

import httpx
import numpy as np
import pytest
from g711_reference import G711_FORMATS, reference_decode, reference_encode
from server_harness import (
    TurnResult,
    next_json,
    receive_until_done,
    receive_until_words,
    speak,
    start_server,
    ws_connect,
)


FIRST = "Hello there, this is the first turn."
SECOND = "And here is a second one on the same socket."
LONG = (
    "This reply keeps going for a while so that the listener can interrupt it somewhere "
    "in the middle, long before the speaker reaches the end of everything it wanted to say "
)


def deltas(text: str, size: int = 3) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.fixture(scope="module")
def server():
    server = start_server()
    yield server
    server.stop()


async def test_two_turns_on_one_socket(server):
    async with ws_connect(server.ws_url) as ws:
        first = await speak(ws, deltas(FIRST))
        second = await speak(ws, deltas(SECOND), voice=None, sample_rate=16000)
    for result, text in ((first, FIRST), (second, SECOND)):
        started = result.messages[0]
        assert started["type"] == "started"
        assert result.done["stream_id"] == started["stream_id"]
        assert result.done["cancelled"] is False
        assert result.done["heard_text"] == text
        assert [w["text"] for w in result.words] == text.split()
        assert len(result.audio) > 0
        assert result.done["usage"]["characters_received"] == len(text)
    assert first.messages[0]["stream_id"] != second.messages[0]["stream_id"]
    assert second.messages[0]["sample_rate"] == 16000
    seconds = second.done["usage"]["audio_seconds"]
    assert len(second.audio) == pytest.approx(seconds * 16000 * 2, abs=2)


async def test_progress_comes_before_the_audio_it_describes(server):
    async with ws_connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start"}))
        for delta in deltas(FIRST):
            await ws.send(json.dumps({"type": "text", "text": delta}))
        await ws.send(json.dumps({"type": "stop"}))
        audio_ms_received = 0.0
        async with asyncio.timeout(60):
            while True:
                frame = await ws.recv()
                if isinstance(frame, bytes):
                    audio_ms_received += len(frame) / 2 / 24000 * 1000
                    continue
                message = json.loads(frame)
                if message["type"] == "progress":
                    # A word is announced no later than its audio: at most the audio sent so
                    # far plus what follows.
                    for word in message["words"]:
                        assert word["start_ms"] >= audio_ms_received - 1e-6
                        assert FIRST[word["raw_start"] : word["raw_end"]] == word["text"]
                if message["type"] == "done":
                    break


async def test_stop_drains_text_without_trailing_space(server):
    text = "Drain every word, even the last"
    async with ws_connect(server.ws_url) as ws:
        result = await speak(ws, [text])
    assert result.done["cancelled"] is False
    assert [w["text"] for w in result.words] == text.split()
    assert result.done["heard_text"] == text


async def test_cancel_returns_heard_text_and_no_audio_follows(server):
    async with ws_connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start"}))
        assert (await next_json(ws))["type"] == "started"
        await ws.send(json.dumps({"type": "text", "text": LONG}))
        result = await receive_until_words(ws, 6)
        words_so_far = list(result.words)
        played_ms = (words_so_far[3]["start_ms"] + words_so_far[4]["start_ms"]) / 2
        await ws.send(json.dumps({"type": "cancel", "played_ms": played_ms}))
        await receive_until_done(ws, result)
        done = result.done
        assert done["cancelled"] is True
        heard = done["heard_text"]
        assert LONG.startswith(heard)
        assert heard.split() == LONG.split()[: len(heard.split())]
        heard_words = [w for w in result.words if w["start_ms"] <= played_ms]
        assert 1 <= len(heard.split()) <= len(heard_words)
        # Nothing of the cancelled turn follows `done`: the next frame is the next turn's.
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(ws.recv(), 0.5)
        await ws.send(json.dumps({"type": "start"}))
        assert (await next_json(ws))["type"] == "started"
        await ws.send(json.dumps({"type": "cancel"}))
        assert (await next_json(ws))["type"] == "done"


@pytest.mark.parametrize("audio_format", G711_FORMATS)
async def test_g711_is_the_pcm_run_encoded(server, audio_format):
    async with ws_connect(server.ws_url) as ws:
        pcm = await speak(ws, [FIRST], sample_rate=8000, format="pcm16")
        g711 = await speak(ws, [FIRST], sample_rate=8000, format=audio_format)
    assert g711.messages[0]["format"] == audio_format
    assert len(g711.audio) == len(pcm.audio) // 2
    # The independent codec encodes the same run to the same bytes, and decodes ours back to
    # the speech (within G.711's quantization).
    assert bytes(g711.audio) == reference_encode(bytes(pcm.audio), audio_format)
    decoded = np.frombuffer(reference_decode(bytes(g711.audio), audio_format), "<i2").astype(float)
    assert np.corrcoef(decoded, np.frombuffer(bytes(pcm.audio), "<i2"))[0, 1] > 0.999


BAD_FRAMES = [
    ("malformed json", "text", "{not json", "invalid_json"),
    ("unknown type", "text", json.dumps({"type": "speak", "text": "hi"}), "unknown_message"),
    ("no type", "text", json.dumps({"text": "hi"}), "unknown_message"),
    ("not an object", "text", json.dumps(["start"]), "unknown_message"),
    ("binary frame", "bytes", b'{"type": "stop"}', "unexpected_binary"),
    ("raw bytes, not UTF-8", "bytes", b"\xff\xfe\x00\x01", "unexpected_binary"),
    ("text frame, bad UTF-8", "bad_text", b'{"type": "text", "text": "\xc3\x28"}', "invalid_utf8"),
    ("text before start", "text", json.dumps({"type": "text", "text": "hi"}), "no_active_turn"),
    ("wrong field", "text", json.dumps({"type": "start", "pitch": 2}), "invalid_message"),
    ("speed out of range", "text", json.dumps({"type": "start", "speed": 3}), "invalid_message"),
    ("bad format", "text", json.dumps({"type": "start", "format": "mp3"}), "invalid_message"),
    (
        "bad rate",
        "text",
        json.dumps({"type": "start", "sample_rate": 12345}),
        "invalid_sample_rate",
    ),
    ("unknown voice", "text", json.dumps({"type": "start", "voice": "nobody"}), "invalid_voice"),
    ("oversized", "text", json.dumps({"type": "text", "text": "a" * 70_000}), "message_too_large"),
]


async def send_frame(ws, kind: str, payload) -> None:
    if kind == "bytes":
        await ws.send(payload)
    elif kind == "bad_text":
        await ws.send(payload, text=True)  # a text frame whose bytes are not UTF-8
    else:
        await ws.send(payload)


@pytest.mark.parametrize("name,kind,payload,code", BAD_FRAMES, ids=[b[0] for b in BAD_FRAMES])
async def test_bad_message_gets_an_error_and_the_socket_keeps_serving(
    server, name, kind, payload, code
):
    async with ws_connect(server.ws_url) as ws:
        await send_frame(ws, kind, payload)
        error = await next_json(ws)
        assert error["type"] == "error"
        assert error["code"] == code, error
        assert error["message"]
        assert error["stream_id"] is None
        result = await speak(ws, [FIRST])
        assert result.done["heard_text"] == FIRST


async def test_bad_messages_during_a_turn_leave_it_running(server):
    async with ws_connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start"}))
        assert (await next_json(ws))["type"] == "started"
        await ws.send(json.dumps({"type": "text", "text": "Still "}))
        for _, kind, payload, code in BAD_FRAMES:
            if code != "no_active_turn":
                await send_frame(ws, kind, payload)
        await ws.send(json.dumps({"type": "start"}))
        await ws.send(json.dumps({"type": "text", "text": "speaking fine."}))
        await ws.send(json.dumps({"type": "stop"}))
        result = await receive_until_done(ws)
        codes = [m["code"] for m in result.of_type("error")]
        # A well-formed `start` during a turn is refused as such, whatever else is wrong with it.
        during_turn = {"invalid_sample_rate": "turn_active", "invalid_voice": "turn_active"}
        expected = [during_turn.get(c, c) for _, _, _, c in BAD_FRAMES if c != "no_active_turn"] + [
            "turn_active"
        ]
        assert sorted(codes) == sorted(expected)
        assert result.done["heard_text"] == "Still speaking fine."
        assert result.done["cancelled"] is False


async def test_text_after_stop_is_refused(server):
    async with ws_connect(server.ws_url) as ws:
        # Paused, the turn holds its `done`: the late text surely reaches a running turn.
        await ws.send(json.dumps({"type": "start"}))
        await ws.send(json.dumps({"type": "pause"}))
        await ws.send(json.dumps({"type": "text", "text": "Only this."}))
        await ws.send(json.dumps({"type": "stop"}))
        await ws.send(json.dumps({"type": "text", "text": " Not this."}))
        assert (await next_json(ws))["type"] == "started"
        error = await next_json(ws)
        await ws.send(json.dumps({"type": "resume"}))
        result = await receive_until_done(ws)
    assert (error["type"], error["code"]) == ("error", "no_active_turn")
    assert not result.of_type("error")
    assert result.done["heard_text"] == "Only this."


async def test_only_the_answer_to_start_follows_a_done(server):
    # A client's text and acks can cross the turn's `done` on the wire. They are ignored, as
    # `stop` and `cancel` are: a pooled socket's next `start` reads `started` as its answer,
    # never an error about the turn before (which it took for a refusal of its own turn,
    # leaving that turn open on a socket another turn then reused: `turn_active`).
    async with ws_connect(server.ws_url) as ws:
        first = await speak(ws, [FIRST])
        await ws.send(json.dumps({"type": "text", "text": "Crossed the done."}))
        await ws.send(json.dumps({"type": "stop"}))
        await ws.send(json.dumps({"type": "start"}))
        assert (await next_json(ws))["type"] == "started"
        await ws.send(json.dumps({"type": "text", "text": FIRST}))
        await ws.send(json.dumps({"type": "stop"}))
        second = await receive_until_done(ws)
    assert first.done["heard_text"] == second.done["heard_text"] == FIRST
    assert not second.of_type("error")


async def test_garbage_on_one_socket_does_not_disturb_another(server):
    async with ws_connect(server.ws_url) as good, ws_connect(server.ws_url) as bad:

        async def garbage() -> None:
            for _ in range(20):
                for _, kind, payload, _ in BAD_FRAMES:
                    await send_frame(bad, kind, payload)
                    await asyncio.sleep(0)

        result, _ = await asyncio.gather(speak(good, deltas(LONG)), garbage())
        assert result.done["heard_text"] in (LONG, LONG.strip())
        assert not result.of_type("error")
        assert len(result.words) == len(LONG.split())


async def test_per_turn_text_cap():
    server = start_server(max_turn_text_chars=20)
    try:
        async with ws_connect(server.ws_url) as ws:
            result = await speak(ws, ["Ten chars ", "more text!", "this is too much"])
        assert [m["code"] for m in result.of_type("error")] == ["text_too_long"]
        assert result.done["heard_text"] == "Ten chars more text!"
    finally:
        server.stop()


async def test_frame_above_the_hard_limit_closes_with_1009(server):
    async with ws_connect(server.ws_url) as ws:
        # The server may close while the client is still writing the frame: then `send` is what
        # raises, with the same close received.
        with pytest.raises(Exception) as closed:
            await ws.send("x" * (server.settings.hard_frame_limit + 1))
            await asyncio.wait_for(ws.recv(), 10)
        assert closed.value.rcvd.code == 1009
    async with ws_connect(server.ws_url) as ws:
        assert (await speak(ws, [FIRST])).done["heard_text"] == FIRST


TEXTS = [f"Stream number {i} says {' '.join(['word'] * (i % 5 + 1))} and stops." for i in range(20)]


async def test_twenty_concurrent_streams_match_their_solo_runs(server):
    solo = []
    async with ws_connect(server.ws_url) as ws:
        for text in TEXTS:
            solo.append(await speak(ws, deltas(text, 4)))

    async def one(text: str) -> TurnResult:
        async with ws_connect(server.ws_url) as ws:
            return await speak(ws, deltas(text, 4))

    together = await asyncio.gather(*(one(text) for text in TEXTS))
    for text, alone, crowded in zip(TEXTS, solo, together, strict=True):
        assert len(crowded.audio) > 0
        assert bytes(crowded.audio) == bytes(alone.audio), text
        assert crowded.done["heard_text"] == text
        assert [w["text"] for w in crowded.words] == [w["text"] for w in alone.words]


async def active_streams(server) -> int:
    async with httpx.AsyncClient() as client:
        response = await client.get(server.http_url + "/v1/capabilities")
    return response.json()["active_streams"]


async def test_vanished_client_cancels_its_stream(server):
    ws = await ws_connect(server.ws_url)
    await ws.send(json.dumps({"type": "start"}))
    assert (await next_json(ws))["type"] == "started"
    await ws.send(json.dumps({"type": "text", "text": LONG}))
    while not isinstance(await ws.recv(), bytes):
        pass
    assert await active_streams(server) == 1
    engine = server.app.state.server.engine
    assert engine.active_streams == 1
    ws.transport.abort()  # gone without a close frame
    async with asyncio.timeout(20):
        while await active_streams(server) != 0 or engine.active_streams != 0:
            await asyncio.sleep(0.05)
