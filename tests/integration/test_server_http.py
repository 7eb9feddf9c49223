"""The HTTP routes on a real uvicorn server with the embedded voice: OpenAI speech, auth,
readiness, capabilities, voices and metrics."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import time
import wave

import httpx
import pytest
from server_harness import next_json, speak, start_server, ws_connect
from websockets.exceptions import ConnectionClosed

from engine import Engine
from engine.server.app import create_app
from engine.server.http_server import BackgroundServer
from engine.server.settings import ServerSettings
from voice_tts.protocol import Capabilities, Error, VoiceList

TEXT = "The quick brown fox jumps over 2 lazy dogs."
KEY = "s3cret-key"


@pytest.fixture(scope="module")
def server():
    server = start_server()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def locked_server():
    server = start_server(api_key=KEY)
    yield server
    server.stop()


def speech(server, **body) -> httpx.Response:
    request = {"model": "tts-1", "input": TEXT, "voice": "alloy", **body}
    return httpx.post(server.http_url + "/v1/audio/speech", json=request, timeout=60)


def test_speech_streams_pcm_in_chunks(server):
    request = {"model": "tts-1", "input": TEXT, "voice": "alloy", "response_format": "pcm"}
    chunks = []
    with httpx.stream(
        "POST", server.http_url + "/v1/audio/speech", json=request, timeout=60
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"] == "audio/pcm"
        assert response.headers.get("transfer-encoding") == "chunked"
        assert "content-length" not in response.headers
        chunks = [chunk for chunk in response.iter_raw()]
    pcm = b"".join(chunks)
    assert len(pcm) > 24000  # more than half a second of speech
    assert len(pcm) % 2 == 0


async def test_speech_pcm_is_the_websocket_turns_audio(server):
    pcm = speech(server, response_format="pcm", stream=False).content
    async with ws_connect(server.ws_url) as ws:
        turn = await speak(ws, [TEXT])
    assert pcm == bytes(turn.audio)


def test_speech_wav_is_a_valid_wav(server):
    response = speech(server, response_format="wav", stream=False)
    assert response.status_code == 200
    assert response.headers["content-type"] == "audio/wav"
    assert int(response.headers["content-length"]) == len(response.content)
    with wave.open(io.BytesIO(response.content)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 24000)
        frames = wav.readframes(wav.getnframes())
    assert len(frames) == wav.getnframes() * 2 > 24000
    assert frames == speech(server, response_format="pcm", stream=False).content


def test_streamed_wav_has_an_open_ended_header(server):
    response = speech(server, response_format="wav")
    assert response.status_code == 200
    body = response.content
    assert body[4:8] == b"\xff\xff\xff\xff"  # RIFF size unknown while streaming
    with wave.open(io.BytesIO(body)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 24000)
        frames = wav.readframes(10**9)
    assert frames == speech(server, response_format="pcm", stream=False).content


@pytest.mark.parametrize(
    "body,status,code",
    [
        ({"response_format": "ogg"}, 400, "unsupported_response_format"),
        ({"speed": 3.0}, 400, "unsupported_speed"),
        ({"speed": 0.25}, 400, "unsupported_speed"),
        ({"voice": "nobody"}, 400, "invalid_voice"),
        ({"input": ""}, 400, "invalid_message"),
        ({"stream_format": "jsonl"}, 400, "invalid_message"),
        ({"unknown": 1}, 400, "invalid_message"),
    ],
)
def test_speech_refuses_what_it_cannot_do(server, body, status, code):
    response = speech(server, **body)
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"]


def test_speech_text_cap():
    server = start_server(max_turn_text_chars=10)
    try:
        response = speech(server)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "text_too_long"
    finally:
        server.stop()


def test_voices_capabilities_health(server):
    voices = VoiceList.model_validate_json(httpx.get(server.http_url + "/v1/voices").content)
    assert voices.voices
    capabilities = Capabilities.model_validate_json(
        httpx.get(server.http_url + "/v1/capabilities").content
    )
    assert capabilities.backend
    assert capabilities.voices == voices.voices
    assert {"en", "zh"} <= set(capabilities.languages)
    assert 24000 in capabilities.sample_rates and 8000 in capabilities.sample_rates
    assert capabilities.formats == ["pcm16", "mulaw", "alaw"]
    assert capabilities.capacity >= 1
    assert capabilities.active_streams == 0
    assert httpx.get(server.http_url + "/health").json() == {"status": "ok"}
    ready = httpx.get(server.http_url + "/ready")
    assert ready.status_code == 200 and ready.json()["ready"] is True


async def test_a_voice_from_the_list_speaks(server):
    voice = httpx.get(server.http_url + "/v1/voices").json()["voices"][0]["name"]
    async with ws_connect(server.ws_url) as ws:
        result = await speak(ws, [TEXT], voice=voice)
    assert result.messages[0]["voice"] == voice
    assert result.audio


async def test_metrics_after_a_turn(server):
    async with ws_connect(server.ws_url) as ws:
        await speak(ws, [TEXT])
        await ws.send("{broken")
        assert (await next_json(ws))["code"] == "invalid_json"
    text = httpx.get(server.http_url + "/metrics").text
    samples = {
        line.split(" ")[0]: float(line.split(" ")[1])
        for line in text.splitlines()
        if line and not line.startswith("#")
    }
    assert samples["voice_tts_active_streams"] == 0
    assert samples["voice_tts_ttfa_seconds_count"] >= 1
    assert samples["voice_tts_audio_seconds_total"] > 1.0
    assert samples['voice_tts_errors_total{code="invalid_json"}'] >= 1
    assert samples['voice_tts_turns_total{outcome="done",route="ws"}'] >= 1
    assert samples["voice_tts_ws_connections_total"] >= 1


class GatedEngine:
    """The embedded engine whose streams start only once `gate_open` is set (a slow warm-up),
    optionally failing then (a broken device)."""

    def __init__(self, fail: bool = False) -> None:
        self._engine = Engine.embedded()
        self.gate_open = False
        self.fail = fail

    def open_stream(self, request=None, /, **kwargs):
        stream = self._engine.open_stream(request, **kwargs)
        outer = self

        class Gated:
            push_text = stream.push_text
            end_input = stream.end_input
            cancel = stream.cancel

            async def events(self):
                while not outer.gate_open:
                    await asyncio.sleep(0.01)
                if outer.fail:
                    stream.cancel()
                    yield Error("engine_error", "no device", False)
                async for event in stream.events():
                    yield event

        return Gated()

    async def aclose(self) -> None:
        await self._engine.aclose()


def test_ready_only_after_the_warm_up():
    engine = GatedEngine()
    settings = ServerSettings(port=0, log_level="warning")
    with BackgroundServer(create_app(engine, settings=settings), settings) as server:
        not_ready = httpx.get(server.http_url + "/ready")
        assert not_ready.status_code == 503
        assert not_ready.json()["ready"] is False
        assert httpx.get(server.http_url + "/health").status_code == 200
        refused = speech(server)
        assert refused.status_code == 503 and refused.json()["error"]["code"] == "not_ready"
        engine.gate_open = True
        for _ in range(500):
            if httpx.get(server.http_url + "/ready").status_code == 200:
                break
            time.sleep(0.02)
        assert httpx.get(server.http_url + "/ready").json() == {"ready": True, "detail": "ready"}


def test_failed_warm_up_stays_not_ready():
    engine = GatedEngine(fail=True)
    engine.gate_open = True
    settings = ServerSettings(port=0, log_level="critical")
    with BackgroundServer(create_app(engine, settings=settings), settings) as server:
        for _ in range(200):
            detail = httpx.get(server.http_url + "/ready").json()["detail"]
            if detail != "warming up":
                break
            time.sleep(0.02)
        response = httpx.get(server.http_url + "/ready")
        assert response.status_code == 503
        assert "no device" in response.json()["detail"]


# Authentication -------------------------------------------------------------------------------


def test_http_auth(locked_server):
    url = locked_server.http_url
    assert httpx.get(url + "/health").status_code == 200
    for path in ("/ready", "/v1/voices", "/v1/capabilities", "/metrics"):
        missing = httpx.get(url + path)
        assert missing.status_code == 401, path
        assert missing.headers["www-authenticate"] == "Bearer"
        assert missing.json()["error"]["code"] == "unauthorized"
        wrong = httpx.get(url + path, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 403, path
        assert wrong.json()["error"]["code"] == "forbidden"
        assert httpx.get(url + path, headers={"Authorization": f"Bearer {KEY}"}).status_code == 200
    # The query parameter is for WebSockets only (browsers cannot set headers there).
    assert httpx.get(url + f"/v1/voices?api_key={KEY}").status_code == 401
    assert speech(locked_server).status_code == 401
    authorized = httpx.post(
        url + "/v1/audio/speech",
        json={"model": "tts-1", "input": TEXT, "voice": "alloy", "response_format": "pcm"},
        headers={"Authorization": f"Bearer {KEY}"},
        timeout=60,
    )
    assert authorized.status_code == 200 and authorized.content


@pytest.mark.parametrize(
    "query,headers,first,code,close_code",
    [
        ("", {}, {"type": "start"}, "unauthorized", 4401),
        ("", {}, {"type": "auth", "api_key": "nope"}, "forbidden", 4403),
        ("?api_key=nope", {}, None, "forbidden", 4403),
        ("", {"Authorization": "Bearer nope"}, None, "forbidden", 4403),
    ],
)
async def test_websocket_refused_without_the_key(
    locked_server, query, headers, first, code, close_code
):
    async with ws_connect(locked_server.ws_url + query, additional_headers=headers) as ws:
        if first is not None:
            await ws.send(json.dumps(first))
        error = await next_json(ws)
        assert error["type"] == "error" and error["code"] == code
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10)
    assert closed.value.rcvd.code == close_code


@pytest.mark.parametrize(
    "query,headers,first",
    [
        (f"?api_key={KEY}", {}, None),
        ("", {"Authorization": f"Bearer {KEY}"}, None),
        ("", {}, {"type": "auth", "api_key": KEY}),
    ],
)
async def test_websocket_with_the_key(locked_server, query, headers, first):
    async with ws_connect(locked_server.ws_url + query, additional_headers=headers) as ws:
        if first is not None:
            await ws.send(json.dumps(first))
        result = await speak(ws, [TEXT])
    assert result.done["heard_text"] == TEXT
    assert result.done["cancelled"] is False


def test_no_key_means_open(server):
    assert httpx.get(server.http_url + "/v1/voices").status_code == 200
    assert httpx.get(server.http_url + "/metrics").status_code == 200


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


async def test_keys_never_reach_the_logs():
    lines = Lines()
    loggers = [logging.getLogger(name) for name in ("uvicorn.access", "uvicorn.error")]
    server = start_server(api_key=KEY, log_level="info")
    for logger in loggers:
        logger.addHandler(lines)
    try:
        async with ws_connect(f"{server.ws_url}?api_key={KEY}") as ws:
            await speak(ws, [TEXT])
        bearer = {"Authorization": f"Bearer {KEY}"}
        httpx.get(f"{server.http_url}/v1/voices?api_key={KEY}", headers=bearer)
    finally:
        for logger in loggers:
            logger.removeHandler(lines)
        server.stop()
    logged = "\n".join(lines.lines)
    assert "api_key=***" in logged  # the request lines are there, redacted
    assert KEY not in logged
