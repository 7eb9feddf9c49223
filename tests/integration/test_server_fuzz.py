"""Fuzzing every handler of a real server (embedded voice, 127.0.0.1) with Hypothesis: message
shapes, truncated and oversized frames, random HTTP bodies. Whatever comes in, the server
answers with a client error, keeps the socket and its turn, logs no exception, and still serves.
"""

from __future__ import annotations

import asyncio
import json
import logging

import httpx
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from server_harness import receive_until_done, start_server, ws_connect
from websockets.exceptions import ConnectionClosed

MAX_MESSAGE = 2048  # the fuzzed server's message limit; its frame limit is 16 times that

FIELDS = [
    "type", "text", "voice", "language", "instruct", "sample_rate", "format", "normalize",
    "played_ms", "api_key", "lexicon", "resumable", "seq", "samples", "resume_token", "session",
    "item", "response", "event_id", "delta", "audio_end_ms", "content", "role", "modalities",
]
WS_TYPES = ["start", "text", "stop", "cancel", "auth", "pause", "resume", "ack", "reconnect"]
REALTIME_TYPES = [
    "session.update", "conversation.item.create", "response.create", "response.cancel",
    "conversation.item.truncate", "input_audio_buffer.append", "input_text_buffer.append",
    "input_text_buffer.commit", "conversation.item.delete",
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(FIELDS), inner, max_size=4),
    max_leaves=12,
)


def messages(types: list[str]):
    return st.builds(
        lambda kind, fields: {**fields, "type": kind},
        st.sampled_from(types) | st.text(max_size=12),
        st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=5),
    )


def frames(types: list[str]):
    """What a broken or hostile client sends, one WebSocket frame each."""
    whole = messages(types).map(json.dumps)
    return st.one_of(
        whole,
        st.tuples(whole, st.floats(0, 1)).map(lambda t: t[0][: int(len(t[0]) * t[1])]),  # truncated
        st.integers(MAX_MESSAGE + 1, MAX_MESSAGE * 8).map(lambda n: json.dumps({"type": "text", "text": "x" * n})),
        st.integers(150, 3000).map(lambda depth: '{"type": "text", "text": ' + "[" * depth + "]" * depth + "}"),
        st.binary(max_size=64),
        st.text(max_size=30),
    )


class ErrorLog(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(self.format(record))


@pytest.fixture(scope="module")
def server():
    errors = ErrorLog()
    loggers = [logging.getLogger(), logging.getLogger("uvicorn")]
    for logger in loggers:
        logger.addHandler(errors)
    server = start_server(max_message_bytes=MAX_MESSAGE)
    server.errors = errors
    yield server
    server.stop()
    for logger in loggers:
        logger.removeHandler(errors)


FUZZ = settings(
    max_examples=30,
    deadline=None,
    # Each example is real traffic to a real server: shrinking one would take minutes.
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


async def drain(ws, quiet_s: float = 0.3) -> list:
    """Everything the server sends until it has been quiet for `quiet_s` (ends a turn first)."""
    received = []
    async with asyncio.timeout(60):
        while True:
            try:
                received.append(await asyncio.wait_for(ws.recv(), quiet_s))
            except TimeoutError:
                return received


async def start_when_free(ws) -> None:
    """`start` a turn once the one the fuzz may have left running has sent its `done`; every
    answer on the way is well-formed JSON."""
    # Messages are answered in order: past the marker's answer, nothing answers the fuzz.
    await ws.send(json.dumps({"type": "end-of-fuzz"}))
    async with asyncio.timeout(60):
        while True:
            frame = await ws.recv()
            if isinstance(frame, str) and "end-of-fuzz" in json.loads(frame).get("message", ""):
                break
        while True:
            await ws.send(json.dumps({"type": "start"}))
            waiting_for_done = False
            while True:
                frame = await ws.recv()
                if isinstance(frame, bytes):
                    continue
                message = json.loads(frame)
                if message["type"] == "started":
                    return
                if message["type"] == "error" and message["code"] == "turn_active":
                    waiting_for_done = True
                if message["type"] == "done" and waiting_for_done:
                    break  # the old turn is over: start again


@FUZZ
@given(sent=st.lists(frames(WS_TYPES), min_size=1, max_size=12))
def test_native_websocket_survives_any_frames(server, sent):
    async def run() -> None:
        async with ws_connect(server.ws_url) as ws:
            for frame in sent:
                await ws.send(frame)
            await ws.send(json.dumps({"type": "cancel"}))  # whatever turn the fuzz started
            await start_when_free(ws)
            await ws.send(json.dumps({"type": "text", "text": "Still here."}))
            await ws.send(json.dumps({"type": "stop"}))
            result = await receive_until_done(ws)
            assert result.done["heard_text"] == "Still here."

    asyncio.run(run())
    assert server.errors.records == []


@FUZZ
@given(sent=st.lists(frames(REALTIME_TYPES), min_size=1, max_size=12))
def test_realtime_websocket_survives_any_frames(server, sent):
    async def run() -> None:
        url = server.ws_url.replace("/v1/ws", "/v1/realtime?model=tts")
        async with ws_connect(url) as ws:
            for frame in sent:
                await ws.send(frame)
            await drain(ws)
            await ws.send(json.dumps({"type": "no.such.event"}))
            replies = [json.loads(r) for r in await drain(ws) if isinstance(r, str)]
            assert any(r["type"] == "error" for r in replies)

    try:
        asyncio.run(run())
    except ConnectionClosed as closed:  # only a frame past the hard limit may close it
        assert closed.rcvd is not None and closed.rcvd.code == 1009
    assert server.errors.records == []


ROUTES = [
    ("POST", "/v1/audio/speech"),
    ("POST", "/v1/voices"),
    ("DELETE", "/v1/voices/fuzz"),
    ("GET", "/v1/capabilities"),
    ("GET", "/v1/voices"),
    ("PUT", "/v1/audio/speech"),
]
speech_bodies = st.builds(
    lambda fields: fields,
    st.fixed_dictionaries(
        {},
        optional={
            "model": json_values,
            "input": st.text(max_size=60) | json_values,
            "voice": st.sampled_from(["alloy", "default", "nobody"]) | json_values,
            "response_format": st.sampled_from(["wav", "pcm", "mp3", "flac", "opus"]) | json_values,
            "speed": st.floats(0, 4) | json_values,
            "language": st.sampled_from(["en", "zh", "klingon", "auto"]) | json_values,
            "stream": st.booleans() | json_values,
            "stream_format": st.sampled_from(["audio", "sse", "x"]) | json_values,
            "instructions": json_values,
        },
    ),
)
bodies = st.one_of(
    speech_bodies.map(lambda b: json.dumps(b).encode()),
    speech_bodies.map(json.dumps).flatmap(lambda s: st.integers(0, len(s)).map(lambda n: s[:n].encode())),
    st.binary(max_size=200),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(route=st.sampled_from(ROUTES), body=bodies, content_type=st.sampled_from(["application/json", "multipart/form-data; boundary=x", "text/plain"]))
def test_http_routes_answer_any_body_with_a_client_error(server, route, body, content_type):
    method, path = route
    with httpx.Client(timeout=60) as client:
        response = client.request(method, server.http_url + path, content=body, headers={"Content-Type": content_type})
        response.read()
    assert response.status_code < 500, response.text[:300]
    if response.status_code >= 400:
        error = response.json()["error"]
        assert set(error) == {"message", "type", "param", "code"}
    assert server.errors.records == []
