"""Cached phrases (`--phrase-cache-mb`) through a real server on 127.0.0.1, the official `openai`
SDK and raw `/v1/ws` sockets: a speech request or a socket turn (plain or on a context) equal to
one that finished, on either door, is answered from memory with the same bytes, words and usage,
its usage marked `cached`, without opening an engine stream; `cache: false`, other settings or
other text (also one that begins as a phrase does) go to the engine."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from openai import OpenAI
from server_harness import TURN_TIMEOUT_S, TurnResult, speak, start_server, ws_connect

from engine import Engine
from voice_tts.protocol import unframe_audio

GREETING = "Thanks for calling Acme. Your call is 2 minutes from the front of the queue."
# The greeting as an LLM streams it, a few characters a message.
GREETING_DELTAS = [GREETING[i : i + 7] for i in range(0, len(GREETING), 7)]


class CountingEngine:
    """The embedded voice, counting the streams opened on it."""

    def __init__(self) -> None:
        self.engine = Engine.embedded()
        self.opened = 0

    def open_stream(self, *args, **kwargs):
        self.opened += 1
        return self.engine.open_stream(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self.engine, name)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    log = tmp_path_factory.mktemp("usage") / "usage.jsonl"
    engine = CountingEngine()
    server = start_server(engine, phrase_cache_mb=4, usage_log=str(log))
    yield server, engine, log
    server.stop()


@pytest.fixture
def client(served):
    server, _, _ = served
    return OpenAI(base_url=server.http_url + "/v1", api_key="none", max_retries=0)


def sse_speech(client: OpenAI, **body) -> tuple[bytes, dict]:
    """(the audio of a speech request's events, its `speech.audio.done` usage)."""
    with client.audio.speech.with_streaming_response.create(
        stream_format="sse", **body
    ) as response:
        events = [json.loads(line[6:]) for line in response.iter_lines() if line.startswith("data: ")]
    assert events[-1]["type"] == "speech.audio.done"
    return b"".join(base64.b64decode(e["audio"]) for e in events[:-1]), events[-1]["usage"]


def usage_records(log) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_a_repeated_phrase_is_the_same_bytes_from_memory(served, client):
    _, engine, log = served
    body = {"model": "tts-1", "voice": "alloy", "input": GREETING, "response_format": "wav"}
    opened = engine.opened
    first = client.audio.speech.create(**body).content
    assert engine.opened == opened + 1
    again = client.audio.speech.create(**body).content
    assert again == first and engine.opened == opened + 1  # no engine stream
    audio, usage = sse_speech(client, **body)
    assert audio == first and usage["cached"] is True and engine.opened == opened + 1
    assert usage["input_tokens"] == len(GREETING) and usage["output_tokens"] > 0
    *_, original, replayed, replayed_sse = usage_records(log)
    assert [original["cached"], replayed["cached"], replayed_sse["cached"]] == [False, True, True]
    for record in (replayed, replayed_sse):  # the same usage, counted where every turn's is
        for name in ("characters_received", "characters_spoken", "audio_seconds"):
            assert record[name] == original[name]


def test_cache_false_other_settings_and_other_text_go_to_the_engine(served, client):
    _, engine, _ = served
    body = {"model": "tts-1", "voice": "alloy", "input": GREETING, "response_format": "pcm"}
    cached = client.audio.speech.create(**body).content
    opened = engine.opened
    fresh, usage = sse_speech(client, **body, extra_body={"cache": False})
    assert "cached" not in usage and engine.opened == opened + 1
    assert fresh == cached  # the embedded voice says a text one way
    for changed in ({"voice": "female"}, {"speed": 1.5}, {"input": GREETING + " Thanks."}):
        _, usage = sse_speech(client, **(body | changed))
        assert "cached" not in usage
    assert engine.opened == opened + 4
    # Each of those finished, and is kept too.
    _, usage = sse_speech(client, **(body | {"voice": "female"}))
    assert usage["cached"] is True and engine.opened == opened + 4


def test_a_cancelled_phrase_is_not_kept(served):
    import httpx

    server, engine, _ = served
    text = "This reply is cut off by its client before the end, so it is never kept. " * 3
    with httpx.stream("POST", server.http_url + "/v1/audio/speech", json={"input": text, "response_format": "pcm"}) as response:
        next(response.iter_bytes())  # the first audio, then the client leaves
    opened = engine.opened
    answer = httpx.post(server.http_url + "/v1/audio/speech", json={"input": text, "response_format": "pcm"}, timeout=60)
    assert answer.status_code == 200 and engine.opened == opened + 1


def test_a_deleted_cloned_voice_drops_its_phrases(base_checkpoint, tmp_path):
    """A phrase of a cloned voice is kept; once the voice is deleted (and a new voice is made
    under its name) the next request or socket turn speaks with the new voice, through the
    engine."""
    import httpx
    from test_server_voices import greedy_engine

    engine = greedy_engine(base_checkpoint, tmp_path / "voices")
    server = start_server(engine, phrase_cache_mb=4, max_voice_upload_bytes=2 * 1024 * 1024)
    reference = (base_checkpoint / "golden" / "ref_c.wav").read_bytes()

    def clone() -> None:
        made = httpx.post(
            server.http_url + "/v1/voices", data={"name": "calm"}, files={"audio_sample": ("ref.wav", reference)}, timeout=60
        )
        assert made.status_code == 201, made.text

    def say() -> tuple[bytes, dict]:
        with httpx.stream(
            "POST", server.http_url + "/v1/audio/speech", timeout=60,
            json={"input": "Hello.", "voice": "calm", "response_format": "pcm", "stream_format": "sse", "max_new_tokens": 8},
        ) as response:
            events = [json.loads(line[6:]) for line in response.iter_lines() if line.startswith("data: ")]
        return b"".join(base64.b64decode(e["audio"]) for e in events[:-1]), events[-1]["usage"]

    def socket_say() -> dict:
        async def turn() -> TurnResult:
            async with ws_connect(server.ws_url) as ws:
                return await speak(ws, ["Hello."], voice="calm", max_new_tokens=8)

        return asyncio.run(turn()).done["usage"]

    try:
        clone()
        first, usage = say()
        assert "cached" not in usage
        again, usage = say()
        assert again == first and usage["cached"] is True
        assert socket_say()["cached"] is True  # the speech request's phrase, on /v1/ws
        assert httpx.delete(server.http_url + "/v1/voices/calm", timeout=60).status_code == 200
        clone()
        assert "cached" not in socket_say()
        _, usage = say()  # the socket turn's phrase, of the new voice
        assert usage["cached"] is True
    finally:
        server.stop()
        engine.close()


# -- /v1/ws ------------------------------------------------------------------------------------


def assert_served_again(original: TurnResult, again: TurnResult) -> None:
    """`again` is `original` from memory: the same audio, progress and words, the same usage
    marked `cached`."""
    assert len(original.audio) > 0 and bytes(again.audio) == bytes(original.audio)
    assert again.of_type("progress") == original.of_type("progress") and again.words
    assert again.done["heard_text"] == original.done["heard_text"]
    assert "cached" not in original.done["usage"]
    assert again.done["usage"] == original.done["usage"] | {"cached": True}


async def test_a_phrase_said_twice_on_a_socket_is_served_from_memory(served):
    server, engine, log = served
    text = "Good morning, this is the front desk of the Harbor Hotel."
    deltas = [text[i : i + 5] for i in range(0, len(text), 5)]
    opened = engine.opened
    async with ws_connect(server.ws_url) as ws:
        first = await speak(ws, deltas)
        assert engine.opened == opened + 1
        again = await speak(ws, deltas)
        assert engine.opened == opened + 1  # no engine stream
        assert_served_again(first, again)
        # In other pieces, it is the same phrase.
        assert_served_again(first, await speak(ws, [text]))
    assert engine.opened == opened + 1
    *_, original, replayed, whole = usage_records(log)
    assert [original["cached"], replayed["cached"], whole["cached"]] == [False, True, True]
    assert original["route"] == replayed["route"] == "ws"
    for name in ("characters_received", "characters_spoken", "audio_seconds"):
        assert replayed[name] == original[name]


async def test_cache_false_on_start_asks_for_the_engine(served):
    server, engine, _ = served
    async with ws_connect(server.ws_url) as ws:
        cached = await speak(ws, GREETING_DELTAS)
        opened = engine.opened
        fresh = await speak(ws, GREETING_DELTAS, cache=False)
    assert engine.opened == opened + 1 and "cached" not in fresh.done["usage"]
    assert bytes(fresh.audio) == bytes(cached.audio)  # the embedded voice says a text one way


async def test_either_door_serves_the_others_phrase(served, client):
    server, engine, _ = served
    text = "Your table for four is ready; please come to the host stand."
    opened = engine.opened
    async with ws_connect(server.ws_url) as ws:
        spoken = await speak(ws, [text[:20], text[20:]])
    audio, usage = sse_speech(client, model="tts-1", voice="alloy", input=text, response_format="pcm")
    assert usage["cached"] is True and audio == bytes(spoken.audio) and engine.opened == opened + 1
    said = "Press one for reservations, two for the restaurant, or stay on the line."
    sse_speech(client, model="tts-1", voice="alloy", input=said, response_format="pcm")
    async with ws_connect(server.ws_url) as ws:
        again = await speak(ws, [said])
    assert again.done["usage"]["cached"] is True and engine.opened == opened + 2


async def test_a_text_that_only_begins_as_a_phrase_goes_to_the_engine(served):
    server, engine, _ = served
    longer = GREETING.replace("Your call is", "Your call, the one you made, is")
    async with ws_connect(server.ws_url) as ws:
        await speak(ws, GREETING_DELTAS)
        alone = await speak(ws, [longer], cache=False)
        opened = engine.opened
        # Its first words are the greeting's: held until the text leaves it, then all to the engine.
        went_on = await speak(ws, [longer[i : i + 7] for i in range(0, len(longer), 7)])
        assert engine.opened == opened + 1 and "cached" not in went_on.done["usage"]
        assert bytes(went_on.audio) == bytes(alone.audio) and went_on.words == alone.words
        # The greeting's beginning alone is not the greeting.
        cut = await speak(ws, ["Thanks for calling Acme."])
    assert engine.opened == opened + 2 and "cached" not in cut.done["usage"]
    assert cut.done["heard_text"] == "Thanks for calling Acme."


async def test_remote_engine_turns_hit_the_cache(served):
    """`RemoteEngine` (under the Pipecat and LiveKit adapters) runs each turn as a context of its
    socket: a phrase it spoke before comes from memory, with the same audio and words."""
    from voice_tts.client import RemoteEngine
    from voice_tts.protocol import AudioChunk, Words

    server, engine, _ = served
    text = "Hi, you have reached the after-hours line of Northside Dental."
    remote = RemoteEngine(server.ws_url)

    async def turn() -> tuple[bytes, list]:
        stream = remote.open_stream(normalize=True)
        for piece in (text[:15], text[15:40], text[40:]):
            stream.push_text(piece)
        stream.end_input()
        events = [event async for event in stream.events()]
        audio = b"".join(e.pcm for e in events if isinstance(e, AudioChunk))
        return audio, [w for e in events if isinstance(e, Words) for w in e.words]

    try:
        first = await turn()
        opened = engine.opened
        again = await turn()
    finally:
        await remote.aclose()
    assert engine.opened == opened and len(first[0]) > 0 and first[1]
    assert again == first


async def read_context(ws, context_id: str) -> TurnResult:
    """Everything the context sends up to its `done` (framed audio)."""
    result = TurnResult()
    async with asyncio.timeout(TURN_TIMEOUT_S):
        while True:
            frame = await ws.recv()
            if isinstance(frame, bytes):
                named, audio = unframe_audio(frame)
                assert named == context_id
                result.audio.extend(audio)
                continue
            message = json.loads(frame)
            assert message.get("context_id") == context_id
            result.messages.append({k: v for k, v in message.items() if k != "context_id"})
            if message["type"] == "done":
                return result


async def test_a_context_turn_is_served_from_memory(served):
    server, engine, _ = served
    async with ws_connect(server.ws_url) as ws:
        original = await speak(ws, GREETING_DELTAS, cache=False)
        opened = engine.opened
        await ws.send(json.dumps({"type": "start", "context_id": "greeting"}))
        for delta in GREETING_DELTAS:
            await ws.send(json.dumps({"type": "text", "text": delta, "context_id": "greeting"}))
        await ws.send(json.dumps({"type": "stop", "context_id": "greeting"}))
        again = await read_context(ws, "greeting")
    assert again.of_type("started") and engine.opened == opened
    again.messages = again.messages[1:]  # past its `started`
    assert_served_again(original, again)


async def test_a_held_turn_cancelled_never_reaches_the_engine(served):
    server, engine, log = served
    async with ws_connect(server.ws_url) as ws:
        await speak(ws, GREETING_DELTAS)
        opened = engine.opened
        await ws.send(json.dumps({"type": "start"}))
        await ws.send(json.dumps({"type": "text", "text": "Thanks for calling"}))
        await ws.send(json.dumps({"type": "cancel"}))
        result = TurnResult()
        async with asyncio.timeout(TURN_TIMEOUT_S):
            while not result.of_type("done"):
                result.messages.append(json.loads(await ws.recv()))
    assert result.done["cancelled"] is True and result.done["heard_text"] == ""
    assert engine.opened == opened and usage_records(log)[-1]["outcome"] == "cancelled"


async def test_a_long_phrase_or_a_pause_goes_to_the_engine_without_waiting(served):
    """A socket's text is normalized only so far ahead of its engine: a phrase longer than that
    is spoken by the engine again, not held for good; text that begins as a phrase and then
    pauses (no `stop`) is spoken without waiting for the rest."""
    server, engine, _ = served
    long = " ".join(f"Item {n} of the terms and conditions applies to every caller." for n in range(30))
    async with ws_connect(server.ws_url) as ws:
        first = await speak(ws, [long])
        opened = engine.opened
        again = await speak(ws, [long])
        assert engine.opened == opened + 1 and "cached" not in again.done["usage"]
        assert bytes(again.audio) == bytes(first.audio)
        await ws.send(json.dumps({"type": "start"}))
        await ws.send(json.dumps({"type": "text", "text": GREETING[:25]}))
        async with asyncio.timeout(TURN_TIMEOUT_S):
            while not isinstance(await ws.recv(), bytes):
                pass  # its `started`, then audio, before any stop
        await ws.send(json.dumps({"type": "stop"}))
        rest = TurnResult()
        async with asyncio.timeout(TURN_TIMEOUT_S):
            while not rest.of_type("done"):
                frame = await ws.recv()
                if isinstance(frame, str):
                    rest.messages.append(json.loads(frame))
    assert "cached" not in rest.done["usage"] and rest.done["heard_text"] == GREETING[:24]


async def test_socket_phrases_are_bounded_in_bytes_least_recently_used_first_out():
    """A cache that holds two of three phrases: the least recently used goes."""
    engine = CountingEngine()
    texts = [
        "Welcome to the museum; the east wing is open until six tonight.",
        "Our gift shop offers a ten percent discount to every member today.",
        "Guided tours leave from the main hall at the top of every hour.",
    ]
    probe = start_server(engine)
    try:
        async with ws_connect(probe.ws_url) as ws:
            sizes = [len((await speak(ws, [text])).audio) for text in texts]
    finally:
        probe.stop()
    # Two phrases and half of the third (each phrase's events cost a few kB beside their audio).
    megabytes = (sizes[0] + sizes[1] + sizes[2] // 2) / (1024 * 1024)
    server = start_server(engine, phrase_cache_mb=megabytes)

    async def cached(ws, text: str) -> bool:
        return (await speak(ws, [text])).done["usage"].get("cached", False)

    try:
        async with ws_connect(server.ws_url) as ws:
            assert [await cached(ws, text) for text in texts[:2]] == [False, False]
            assert await cached(ws, texts[0])  # used: the second is now the least recent
            assert not await cached(ws, texts[2])  # kept, and the second goes
            opened = engine.opened
            assert await cached(ws, texts[0]) and await cached(ws, texts[2])
            assert engine.opened == opened
            assert not await cached(ws, texts[1])
            assert engine.opened == opened + 1
    finally:
        server.stop()
