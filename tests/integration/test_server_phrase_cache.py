"""Cached phrases (`--phrase-cache-mb`) through a real server on 127.0.0.1 and the official
`openai` SDK: a speech request equal to one that finished is answered from memory with the same
bytes, its usage marked `cached`, without opening an engine stream; `cache: false`, other
settings or other text go to the engine."""

from __future__ import annotations

import base64
import json

import pytest
from openai import OpenAI
from server_harness import start_server

from engine import Engine

GREETING = "Thanks for calling Acme. Your call is 2 minutes from the front of the queue."


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
    under its name) the next request speaks with the new voice, through the engine."""
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

    try:
        clone()
        first, usage = say()
        assert "cached" not in usage
        again, usage = say()
        assert again == first and usage["cached"] is True
        assert httpx.delete(server.http_url + "/v1/voices/calm", timeout=60).status_code == 200
        clone()  # a new voice under the same name (within the same second, as like as not)
        _, usage = say()
        assert "cached" not in usage
    finally:
        server.stop()
        engine.close()
