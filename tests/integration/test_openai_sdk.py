"""The official `openai` SDK against a real server on 127.0.0.1: streamed speech as
server-sent events, and a Realtime session (text in, audio and transcript out, cancel,
truncate, token-level input, errors)."""

from __future__ import annotations

import base64
import json

import httpx
import pytest
from openai import OpenAI
from server_harness import start_server

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


@pytest.mark.parametrize("response_format", ["pcm", "wav"])
def test_sse_speech_through_the_sdk(client, response_format):
    with client.audio.speech.with_streaming_response.create(
        model="tts-1",
        voice="alloy",
        input=TEXT,
        response_format=response_format,
        stream_format="sse",
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_events(response.iter_lines())
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


@pytest.mark.parametrize("response_format", ["mp3", "opus", "aac", "flac"])
def test_compressed_formats_are_refused_naming_what_works(server, response_format):
    response = httpx.post(
        server.http_url + "/v1/audio/speech",
        headers={"Authorization": "Bearer k"},
        json={
            "model": "tts-1",
            "voice": "alloy",
            "input": TEXT,
            "response_format": response_format,
            "stream_format": "sse",
        },
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["param"] == "response_format" and "'pcm' or 'wav'" in error["message"]
