"""The official `openai` SDK against a real server on 127.0.0.1: streamed speech as
server-sent events, and a Realtime session (text in, audio and transcript out, cancel,
truncate, token-level input, errors, priority of an established session)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json

import httpx
import pytest
from openai import OpenAI
from websockets.exceptions import ConnectionClosed
from g711_reference import G711_FORMATS, reference_encode
from server_harness import receive_until_done, start_server, ws_connect
from synthesis_hold import SynthesisHold

TEXT = "The quick brown fox jumps over 2 lazy dogs."


@pytest.fixture(scope="module")
def server():
    server = start_server(api_key="k")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def client(server):
    return OpenAI(base_url=server.http_url + "/v1", api_key="k", max_retries=0)


def sse_events(lines) -> list[dict]:
    return [json.loads(line[len("data: ") :]) for line in lines if line.startswith("data: ")]


def sse_speech(client, response_format: str) -> list[dict]:
    """Every event of a speech request with `stream_format="sse"`, read through the SDK."""
    with client.audio.speech.with_streaming_response.create(
        model="tts-1",
        voice="alloy",
        input=TEXT,
        response_format=response_format,
        stream_format="sse",
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        return sse_events(response.iter_lines())


@pytest.mark.parametrize("response_format", ["pcm", "wav"])
def test_sse_speech_through_the_sdk(client, response_format):
    events = sse_speech(client, response_format)
    deltas, done = events[:-1], events[-1]
    assert len(deltas) > 1 and all(e["type"] == "speech.audio.delta" for e in deltas)
    assert done["type"] == "speech.audio.done"
    assert set(done["usage"]) == {"input_tokens", "output_tokens", "total_tokens"}
    assert done["usage"]["input_tokens"] == len(TEXT)
    usage = done["usage"]
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] > len(TEXT)
    audio = b"".join(base64.b64decode(e["audio"]) for e in deltas)
    # The deltas joined are exactly the `audio` stream's body.
    plain = client.audio.speech.create(
        model="tts-1", voice="alloy", input=TEXT, response_format=response_format
    )
    assert audio == plain.content


def test_sse_through_create_returns_the_event_stream(client):
    response = client.audio.speech.create(
        model="tts-1", voice="alloy", input=TEXT, response_format="pcm", stream_format="sse"
    )
    events = sse_events(response.text.splitlines())
    assert events[-1]["type"] == "speech.audio.done"


def decoded_seconds(data: bytes) -> float:
    import io

    import av

    with av.open(io.BytesIO(data)) as container:
        frames = list(container.decode(audio=0))
    return sum(frame.samples for frame in frames) / frames[0].sample_rate


@pytest.mark.parametrize("response_format", ["mp3", "opus", "aac", "flac"])
def test_compressed_formats_stream_as_audio_and_as_events(client, response_format):
    pcm = client.audio.speech.create(
        model="tts-1", voice="alloy", input=TEXT, response_format="pcm"
    ).content
    seconds = len(pcm) / 2 / 24000
    encoded = client.audio.speech.create(
        model="tts-1", voice="alloy", input=TEXT, response_format=response_format
    ).content
    # Encoders pad to whole frames and add their delay: a few frames at most.
    assert decoded_seconds(encoded) == pytest.approx(seconds, abs=0.1)
    events = sse_speech(client, response_format)
    assert len(events) > 3  # encoded as the audio streams, not at the end
    joined = b"".join(base64.b64decode(e["audio"]) for e in events[:-1])
    assert decoded_seconds(joined) == pytest.approx(seconds, abs=0.1)


async def pcm_on_ws(server, text: str, sample_rate: int) -> bytes:
    """The same words' s16le audio over `/v1/ws` at `sample_rate`."""
    async with ws_connect(server.ws_url, additional_headers={"Authorization": "Bearer k"}) as ws:
        await ws.send(json.dumps({"type": "start", "sample_rate": sample_rate}))
        await ws.send(json.dumps({"type": "text", "text": text}))
        await ws.send(json.dumps({"type": "stop"}))
        return bytes((await receive_until_done(ws)).audio)


@pytest.mark.parametrize("audio_format", G711_FORMATS)
async def test_g711_speech_is_the_8khz_run_encoded(server, client, audio_format):
    # Not in OpenAI's list of formats, so not in the SDK's types; the SDK sends it as it is.
    response = await asyncio.to_thread(
        client.audio.speech.create, model="tts-1", voice="alloy", input=TEXT, response_format=audio_format
    )
    assert response.response.headers["content-type"] == {"mulaw": "audio/PCMU", "alaw": "audio/PCMA"}[audio_format]
    # One byte a sample at 8 kHz, as an independent G.711 codec encodes the same words' PCM.
    assert response.content == reference_encode(await pcm_on_ws(server, TEXT, 8000), audio_format)
    events = await asyncio.to_thread(sse_speech, client, audio_format)
    assert b"".join(base64.b64decode(e["audio"]) for e in events[:-1]) == response.content


def test_an_unknown_format_is_refused_naming_what_works(server):
    response = httpx.post(
        server.http_url + "/v1/audio/speech",
        headers={"Authorization": "Bearer k"},
        json={"model": "tts-1", "voice": "alloy", "input": TEXT, "response_format": "ogg"},
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["param"] == "response_format"
    assert "'pcm', 'wav', 'mulaw', 'alaw', 'mp3', 'opus', 'aac', 'flac'" in error["message"]


# -- Realtime ------------------------------------------------------------------------------

STORY = (
    "Once upon a time there was a small robot who loved to paint the sky. "
    "Every evening it climbed the hill behind the old town and waited for the sun to go down."
)


@pytest.fixture
async def realtime(server):
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=server.http_url + "/v1", api_key="k", max_retries=0)
    async with client.realtime.connect(model="voice-tts") as connection:
        created = await connection.recv()
        assert created.type == "session.created"
        yield connection


async def until(connection, kind: str, seen: list | None = None):
    async with asyncio.timeout(60):
        async for event in connection:
            if seen is not None:
                seen.append(event)
            if event.type == kind:
                return event


def audio_of(events) -> bytes:
    return b"".join(
        base64.b64decode(e.delta) for e in events if e.type == "response.output_audio.delta"
    )


async def test_realtime_speaks_a_conversation_item(realtime, client):
    await realtime.session.update(
        session={
            "type": "realtime",
            "instructions": "",
            "audio": {"output": {"voice": "alloy", "format": {"type": "audio/pcm", "rate": 24000}}},
        }
    )
    updated = await until(realtime, "session.updated")
    assert updated.session.audio.output.format.rate == 24000
    await realtime.conversation.item.create(
        item={
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": TEXT}],
        }
    )
    await realtime.response.create()
    events: list = []
    done = await until(realtime, "response.done", events)
    kinds = [e.type for e in events]
    assert kinds.index("response.created") < kinds.index("response.output_audio.delta")
    assert kinds.index("response.output_audio.done") < kinds.index("response.done")
    transcript = "".join(
        e.delta for e in events if e.type == "response.output_audio_transcript.delta"
    )
    assert transcript == TEXT
    # A word's transcript delta comes before the audio it starts in.
    assert kinds.index("response.output_audio_transcript.delta") < kinds.index(
        "response.output_audio.delta"
    )
    assert done.response.status == "completed"
    assert done.response.usage.input_tokens == len(TEXT)
    assert done.response.output[0].content[0].transcript == TEXT
    plain = client.audio.speech.create(
        model="tts-1", voice="alloy", input=TEXT, response_format="pcm"
    )
    assert audio_of(events) == plain.content


@pytest.mark.parametrize("audio_format, kind", [("mulaw", "audio/pcmu"), ("alaw", "audio/pcma")])
async def test_realtime_g711_is_the_8khz_run_encoded(realtime, server, audio_format, kind):
    await realtime.session.update(session={"type": "realtime", "audio": {"output": {"format": {"type": kind}}}})
    updated = await until(realtime, "session.updated")
    assert updated.session.audio.output.format.type == kind
    await realtime.conversation.item.create(
        item={"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": TEXT}]}
    )
    await realtime.response.create()
    events: list = []
    await until(realtime, "response.done", events)
    assert audio_of(events) == reference_encode(await pcm_on_ws(server, TEXT, 8000), audio_format)


async def test_realtime_cancel_and_truncate(realtime, server):
    await realtime.conversation.item.create(
        item={"type": "message", "role": "user", "content": [{"type": "input_text", "text": STORY}]}
    )
    await realtime.response.create()
    events: list = []
    async with asyncio.timeout(60):
        async for event in realtime:
            events.append(event)
            if len(audio_of(events)) >= 2 * 24000 * 1.5:  # 1.5 s of audio
                break
    await realtime.response.cancel()
    done = await until(realtime, "response.done", events)
    assert done.response.status == "cancelled"
    assert done.response.status_details.reason == "client_cancelled"
    item_id = done.response.output[0].id
    words = "".join(e.delta for e in events if e.type == "response.output_audio_transcript.delta")
    assert STORY.startswith(words) and len(words) < len(STORY)
    await realtime.conversation.item.truncate(item_id=item_id, content_index=0, audio_end_ms=700)
    truncated = await until(realtime, "conversation.item.truncated")
    assert (truncated.item_id, truncated.audio_end_ms) == (item_id, 700)
    await realtime.send({"type": "conversation.item.retrieve", "item_id": item_id})
    retrieved = await until(realtime, "conversation.item.retrieved")
    heard = retrieved.item.content[0].transcript
    # Exactly the words heard in 700 ms: what /v1/ws says for the same text and position.
    assert heard and words.startswith(heard) and heard == await heard_on_ws(server, STORY, 700)
    # Past the item's audio: OpenAI's error shape.
    await realtime.conversation.item.truncate(item_id=item_id, content_index=0, audio_end_ms=10**7)
    error = await until(realtime, "error")
    assert error.error.code == "invalid_value" and error.error.param == "audio_end_ms"


async def heard_on_ws(server, text: str, played_ms: int) -> str:
    """The heard text of the same words over `/v1/ws`, from its word timings."""
    async with ws_connect(server.ws_url, additional_headers={"Authorization": "Bearer k"}) as ws:
        await ws.send(json.dumps({"type": "start"}))
        await ws.send(json.dumps({"type": "text", "text": text}))
        await ws.send(json.dumps({"type": "stop"}))
        result = await receive_until_done(ws)
    words = [w for w in result.words if w["start_ms"] <= played_ms]
    return text[: words[-1]["raw_end"]]


async def test_realtime_token_level_input(realtime):
    """An LLM's tokens stream in through the vendor extension events."""
    tokens = [STORY[i : i + 4] for i in range(0, len(STORY), 4)]
    await realtime.send({"type": "voice_tts.input_text_buffer.append", "delta": tokens[0]})
    events: list = []
    created = await until(realtime, "response.created", events)
    for token in tokens[1:]:
        await realtime.send({"type": "voice_tts.input_text_buffer.append", "delta": token})
    await realtime.send({"type": "voice_tts.input_text_buffer.commit"})
    done = await until(realtime, "response.done", events)
    assert done.response.id == created.response.id and done.response.status == "completed"
    assert done.response.output[0].content[0].transcript == STORY
    assert len(audio_of(events)) > 2 * 24000 * 3


def session_update(**session) -> dict:
    return {"type": "session.update", "session": {"type": "realtime", **session}}


G729 = {"output": {"format": {"type": "audio/g729"}}}
TRUNCATE_NOTHING = {"item_id": "nope", "content_index": 0, "audio_end_ms": 0}


@pytest.mark.parametrize(
    "event, code",
    [
        ({"type": "input_audio_buffer.append", "audio": "AAAA"}, "unsupported_event"),
        (session_update(tools=[{"type": "function", "name": "f"}]), "unsupported_value"),
        (session_update(output_modalities=["text"]), "unsupported_value"),
        (session_update(audio=G729), "unsupported_value"),
        (
            {"type": "conversation.item.create", "item": {"type": "function_call", "name": "f"}},
            "unsupported_value",
        ),
        ({"type": "conversation.item.truncate", **TRUNCATE_NOTHING}, "item_not_found"),
        ({"type": "response.cancel"}, "response_cancel_not_active"),
        ({"type": "voice_tts.input_text_buffer.commit"}, "input_text_buffer_empty"),
        ({"type": "no.such.event"}, "unknown_event"),
    ],
)
async def test_realtime_errors_have_openais_shape(realtime, event, code):
    await realtime.send({**event, "event_id": "evt_client_1"})
    error = await until(realtime, "error")
    assert error.error.code == code
    assert error.error.type == "invalid_request_error" and error.error.message
    assert error.error.event_id == "evt_client_1"


class FailsAfterFirstAudio:
    """The embedded engine whose streams (after the warm-up's) fail once their first audio is
    out, as a device that breaks mid-request would."""

    def __init__(self) -> None:
        from engine import Engine

        self._engine = Engine.embedded()
        self._streams = 0

    def open_stream(self, request=None, /, **kwargs):
        from voice_tts.protocol import AudioChunk, Done, Error

        stream = self._engine.open_stream(request, **kwargs)
        self._streams += 1
        healthy = self._streams == 1

        class Failing:
            push_text = stream.push_text
            end_input = stream.end_input
            cancel = stream.cancel

            async def events(self):
                async for event in stream.events():
                    yield event
                    if isinstance(event, AudioChunk) and not healthy:
                        stream.cancel()
                        yield Error("engine_error", "the device failed", True)
                        yield Done(cancelled=True)
                        return

        return Failing()

    async def aclose(self) -> None:
        await self._engine.aclose()


def test_sse_speech_that_fails_after_audio_ends_with_an_error_event():
    server = start_server(FailsAfterFirstAudio())
    try:
        client = OpenAI(base_url=server.http_url + "/v1", api_key="none", max_retries=0)
        with client.audio.speech.with_streaming_response.create(
            model="tts-1", voice="alloy", input=TEXT, response_format="pcm", stream_format="sse"
        ) as response:
            events = sse_events(response.iter_lines())
    finally:
        server.stop()
    assert [e["type"] for e in events] == ["speech.audio.delta", "error"]
    assert events[-1]["error"]["code"] == "engine_error"
    assert events[-1]["error"]["type"] == "server_error"


async def test_realtime_bounds_held_text_and_idle_sockets():
    small = start_server(max_turn_text_chars=50, ws_idle_timeout_s=1.0)
    try:
        url = small.http_url.replace("http", "ws") + "/v1/realtime"
        async with ws_connect(url) as ws:
            assert json.loads(await ws.recv())["type"] == "session.created"
            part = {"type": "input_text", "text": "x" * 30}
            item = {"type": "message", "role": "user", "content": [part]}
            for _ in range(2):
                await ws.send(json.dumps({"type": "conversation.item.create", "item": item}))
            kinds = [json.loads(await ws.recv()) for _ in range(3)]
            assert [k["type"] for k in kinds] == [
                "conversation.item.added",
                "conversation.item.done",
                "error",
            ]
            assert kinds[-1]["error"]["code"] == "text_too_long"
            async with asyncio.timeout(10):  # no response and no event: closed as idle
                with pytest.raises(ConnectionClosed) as closed:
                    while True:
                        await ws.recv()
            assert closed.value.rcvd.code == 4408
    finally:
        small.stop()


async def speak_item(connection, text: str) -> None:
    await connection.conversation.item.create(
        item={"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
    )
    await connection.response.create()


async def test_a_session_that_finished_a_response_gets_first_audio_ahead_of_new_sessions(realtime, server):
    from openai import AsyncOpenAI

    await speak_item(realtime, TEXT)
    await until(realtime, "response.done")  # it went out: the session is established
    client = AsyncOpenAI(base_url=server.http_url + "/v1", api_key="k", max_retries=0)
    hold = SynthesisHold()
    async with contextlib.AsyncExitStack() as stack:
        sessions = {}
        for i in range(4):
            sessions[f"new {i}"] = await stack.enter_async_context(client.realtime.connect(model="voice-tts"))
            assert (await sessions[f"new {i}"].recv()).type == "session.created"
        sessions["known"] = realtime  # its response starts after all of theirs
        await hold.hold()
        try:
            for connection in sessions.values():
                await speak_item(connection, TEXT)
                # Refused once the first response's text is in the engine.
                await connection.response.create()
                assert (await until(connection, "error")).error.code == "conversation_already_has_active_response"
            order: list[str] = []

            async def first_audio(name: str, connection) -> None:
                await until(connection, "response.output_audio.delta")
                order.append(name)
                await until(connection, "response.done")

            readers = asyncio.gather(*(first_audio(name, c) for name, c in sessions.items()))
            hold.release()
            await readers
        finally:
            hold.release()
    assert order[0] == "known", order
