"""Hostile and broken clients against a real server on 127.0.0.1 (embedded voice): every bound
answers with a clear error, in time, and the server goes on serving everyone else."""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest
from server_harness import next_json, receive_until_done, speak, start_server, ws_connect

TEXT = "Hello there, this turn goes on."
DEEP = "[" * 5000 + "]" * 5000


@pytest.fixture(scope="module")
def server():
    server = start_server(body_timeout_s=1.0)
    yield server
    server.stop()


def raw_request(server, head: bytes, timeout: float = 10.0) -> tuple[float, bytes]:
    """Send `head` on a fresh socket; the seconds until the server answered and its answer."""
    with socket.create_connection((server.host, server.port)) as sock:
        sock.settimeout(timeout)
        began = time.monotonic()
        sock.sendall(head)
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except TimeoutError:
            pass
        return time.monotonic() - began, answer


def speech_head(length: int) -> bytes:
    return (
        b"POST /v1/audio/speech HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {length}\r\n\r\n".encode()
    )


async def test_deeply_nested_json_is_invalid_json_and_the_turn_goes_on(server):
    async with ws_connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start"}))
        assert (await next_json(ws))["type"] == "started"
        await ws.send(json.dumps({"type": "text", "text": TEXT}))
        await ws.send('{"type": "text", "text": ' + DEEP + "}")
        await ws.send(json.dumps({"type": "stop"}))
        result = await receive_until_done(ws)
    errors = result.of_type("error")
    assert [error["code"] for error in errors] == ["invalid_json"]
    assert "recursion limit" in errors[0]["message"]
    assert result.done["heard_text"] == TEXT


@pytest.mark.parametrize("frame", ['{"type": "cancel", "played_ms": NaN}', '{"type": "cancel", "played_ms": Infinity}'])
async def test_json_without_nan_or_infinity(server, frame):
    async with ws_connect(server.ws_url) as ws:
        await ws.send(frame)
        error = await next_json(ws)
        assert error["code"] == "invalid_json"
        result = await speak(ws, [TEXT])
    assert result.done["heard_text"] == TEXT


def test_an_announced_huge_body_gets_413_before_it_is_sent(server):
    seconds, answer = raw_request(server, speech_head(100_000_000))
    assert answer.startswith(b"HTTP/1.1 413 ")
    body = json.loads(answer.partition(b"\r\n\r\n")[2])
    assert body["error"]["code"] == "request_too_large"
    assert seconds < 5.0  # answered at once, not after reading (or waiting for) 100 MB


def test_a_chunked_body_is_cut_at_the_limit(server):
    def chunks():
        for _ in range(200):  # 20 MB if it were read whole
            yield b" " * 100_000

    response = httpx.post(server.http_url + "/v1/audio/speech", content=chunks())
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request_too_large"


def test_a_body_that_never_arrives_gets_408(server):
    seconds, answer = raw_request(server, speech_head(1000) + b'{"model": ')
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["error"]["code"] == "request_timeout"
    assert seconds < 8.0  # the body timeout here is 1 s; the old server held it for good


@pytest.mark.parametrize(
    "content, status, code",
    [
        (b'{"model": ' + DEEP.encode() + b"}", 400, "invalid_json"),
        (b"not json", 400, "invalid_json"),
        (json.dumps({"model": "tts-1", "input": "Hi", "voice": "alloy", "language": "klingon"}).encode(), 400, "unsupported_language"),
    ],
)
def test_client_errors_are_4xx_in_openai_shape(server, content, status, code):
    response = httpx.post(server.http_url + "/v1/audio/speech", content=content)
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code
    assert error["type"] == "invalid_request_error"
    assert set(error) == {"message", "type", "param", "code"}


@pytest.mark.parametrize("method, path, status", [("GET", "/v1/audio/speech", 405), ("GET", "/v1/nothing", 404)])
def test_routing_errors_in_openai_shape(server, method, path, status):
    response = httpx.request(method, server.http_url + path)
    assert response.status_code == status
    assert set(response.json()["error"]) == {"message", "type", "param", "code"}
