"""Hostile and broken clients against a real server on 127.0.0.1 (embedded voice): every bound
answers with a clear error, in time, and the server goes on serving everyone else."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import httpx
import pytest
from server_harness import next_json, receive_until_done, speak, start_server, ws_connect
from synthesis_hold import SynthesisHold
from websockets.exceptions import ConnectionClosed

from engine import Engine

TEXT = "Hello there, this turn goes on."
LONG = "This answer goes on and on, far longer than anyone would listen to. " * 40
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
        for _ in range(400):  # 40 MB if it were read whole: past the body and a ref_audio recording
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


@pytest.fixture(scope="module")
def tight_server():
    """Short timeouts and a small connection cap, so that the bounds show within a test."""
    server = start_server(header_timeout_s=1.0, ws_idle_timeout_s=1.0, max_connections=40)
    yield server
    server.stop()


def open_sockets(server, count: int, first_bytes: bytes) -> list[socket.socket]:
    sockets = []
    for _ in range(count):
        sock = socket.create_connection((server.host, server.port))
        sock.sendall(first_bytes)
        sock.settimeout(10.0)
        sockets.append(sock)
    return sockets


def read_to_end(sock: socket.socket) -> bytes:
    answer = b""
    try:
        while chunk := sock.recv(65536):
            answer += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return answer


def test_half_sent_requests_are_closed_after_the_header_timeout(tight_server):
    sockets = open_sockets(tight_server, 30, b"GET /health HTTP/1.1\r\nHost: te")
    began = time.monotonic()
    try:
        answers = [read_to_end(sock) for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()
    assert all(answer.startswith(b"HTTP/1.1 408 ") for answer in answers)
    assert time.monotonic() - began < 8.0  # 1 s timeout; the old server never closed them
    assert httpx.get(tight_server.http_url + "/health").status_code == 200


def test_connections_past_the_cap_are_refused_at_once(tight_server):
    # Each holds its connection with a body that does not arrive (for the 10 s body timeout).
    held = open_sockets(tight_server, 40, speech_head(1000))
    try:
        time.sleep(0.2)  # the server has accepted them all
        extra = open_sockets(tight_server, 5, b"GET /health HTTP/1.1\r\nHost: test\r\n\r\n")
        answers = [read_to_end(sock) for sock in extra]
        for sock in extra:
            sock.close()
    finally:
        for sock in held:
            sock.close()
    assert all(answer.startswith(b"HTTP/1.1 503 ") for answer in answers)
    assert json.loads(answers[0].partition(b"\r\n\r\n")[2])["error"]["code"] == "capacity"
    deadline = time.monotonic() + 10
    while httpx.get(tight_server.http_url + "/health").status_code != 200:
        assert time.monotonic() < deadline
        time.sleep(0.1)


async def test_an_idle_websocket_is_closed_but_a_running_turn_is_not(tight_server):
    async with ws_connect(tight_server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start"}))
        assert (await next_json(ws))["type"] == "started"
        await asyncio.sleep(2.0)  # longer than the idle timeout, inside a turn
        await ws.send(json.dumps({"type": "text", "text": TEXT}))
        await ws.send(json.dumps({"type": "stop"}))
        result = await receive_until_done(ws)
        assert result.done["heard_text"] == TEXT
        began = time.monotonic()
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10.0)
    assert closed.value.rcvd.code == 4408
    assert closed.value.rcvd.reason.startswith("idle_timeout")
    assert time.monotonic() - began < 8.0


async def test_a_flooding_socket_is_slowed_down_and_others_are_not():
    server = start_server(max_messages_per_s=50.0, message_burst=50)
    try:
        async with ws_connect(server.ws_url) as flooder, ws_connect(server.ws_url) as other:
            began = time.monotonic()
            await flooder.send(json.dumps({"type": "start", "normalize": False}))
            for _ in range(250):  # 200 past the burst: 4 s at 50 a second
                await flooder.send(json.dumps({"type": "text", "text": " "}))
            await flooder.send(json.dumps({"type": "stop"}))
            flood_done = asyncio.create_task(receive_until_done(flooder))
            result = await speak(other, [TEXT])
            assert not flood_done.done()  # the other socket's whole turn fitted in the flood
            flooded = await flood_done
        assert result.done["heard_text"] == TEXT
        assert flooded.done["usage"]["characters_received"] == 250  # nothing was dropped
        assert time.monotonic() - began >= 3.0  # read at the budget, not as fast as sent
    finally:
        server.stop()


@pytest.fixture(scope="module")
def impatient_server():
    """Drops a client one second behind real time, with small socket buffers."""
    server = start_server(max_client_lag_s=1.0, ws_send_buffer_bytes=16 * 1024)
    yield server
    server.stop()


def active_streams(server) -> int:
    return httpx.get(server.http_url + "/v1/capabilities").json()["active_streams"]


async def test_a_client_that_never_reads_is_dropped_and_its_slot_freed(impatient_server):
    async with ws_connect(impatient_server.ws_url, max_queue=1) as ws:
        await ws.send(json.dumps({"type": "start"}))
        await ws.send(json.dumps({"type": "text", "text": LONG}))
        await ws.send(json.dumps({"type": "stop"}))
        deadline = time.monotonic() + 30  # the old server held the slot for good
        while active_streams(impatient_server) > 0:
            assert time.monotonic() < deadline, "the slot of a client that never reads is held"
            await asyncio.sleep(0.2)
        with pytest.raises(ConnectionClosed) as closed:
            async with asyncio.timeout(10):
                while True:
                    await ws.recv()  # the audio queued before the close frame
    assert closed.value.rcvd.code == 1008
    assert closed.value.rcvd.reason.startswith("slow_consumer")
    async with ws_connect(impatient_server.ws_url) as ws:  # everyone else is served
        assert (await speak(ws, [TEXT])).done["heard_text"] == TEXT


async def test_a_client_reading_in_real_time_is_not_dropped(impatient_server):
    async with ws_connect(impatient_server.ws_url, max_queue=1) as ws:
        await ws.send(json.dumps({"type": "start", "sample_rate": 8000}))
        await ws.send(json.dumps({"type": "text", "text": LONG[:70]}))
        await ws.send(json.dumps({"type": "stop"}))
        began, played = None, 0.0
        async with asyncio.timeout(60):
            while True:
                frame = await ws.recv()
                if isinstance(frame, str):
                    message = json.loads(frame)
                    if message["type"] == "done":
                        break
                    continue
                began = began or time.monotonic()
                played += len(frame) / 2 / 8000
                # Take the next frame only when this one has played, as a speaker would.
                await asyncio.sleep(max(0.0, began + played - time.monotonic()))
    assert message["cancelled"] is False and message.get("reason") is None
    assert played > 3.0  # long enough that the turn outlasted the allowed lag several times


class CountingEngine:
    """The embedded voice, counting the spoken characters each stream is given."""

    def __init__(self) -> None:
        self._engine = Engine.embedded()
        self.pushed: list[int] = []

    def __getattr__(self, name: str):
        return getattr(self._engine, name)

    def open_stream(self, request=None, /, **options):
        stream = self._engine.open_stream(request, **options)
        index = len(self.pushed)
        self.pushed.append(0)
        push = stream.push_text

        def counted(text: str) -> None:
            self.pushed[index] += len(text)
            push(text)

        stream.push_text = counted
        return stream


@pytest.mark.slow
async def test_the_text_of_a_client_that_never_reads_is_not_normalized_ahead_of_its_audio():
    engine = CountingEngine()
    server = start_server(engine, max_client_lag_s=1.0, ws_send_buffer_bytes=16 * 1024)
    text = LONG * 15  # 40,800 characters, about 40 minutes of speech
    try:
        async with ws_connect(server.ws_url, max_queue=1) as ws:
            await ws.send(json.dumps({"type": "start"}))
            await ws.send(json.dumps({"type": "text", "text": text}))
            await ws.send(json.dumps({"type": "stop"}))
            deadline = time.monotonic() + 30
            while active_streams(server) > 0:
                assert time.monotonic() < deadline, "the client that never reads was not dropped"
                await asyncio.sleep(0.2)
        # The old server normalized and pushed all of it at once; now only what was needed
        # ahead of the audio the client left unread.
        assert engine.pushed[-1] < len(text) // 4
        async with ws_connect(server.ws_url) as ws:  # a client that reads gets every word
            long_turn = await speak(ws, [LONG])
        assert long_turn.done["heard_text"] == LONG.strip()
    finally:
        server.stop()


@pytest.mark.parametrize("stream_format", ["audio", "sse"])
def test_a_speech_client_that_never_reads_frees_its_slot(impatient_server, stream_format):
    request = {"model": "tts-1", "input": LONG * 3, "voice": "alloy", "response_format": "pcm"}
    body = json.dumps({**request, "stream_format": stream_format}).encode()
    with socket.create_connection((impatient_server.host, impatient_server.port)) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(speech_head(len(body)) + body)  # and never read a byte
        deadline = time.monotonic() + 60  # the old server held the slot for good
        time.sleep(0.5)
        while active_streams(impatient_server) > 0:
            assert time.monotonic() < deadline, "a speech client that never reads holds its slot"
            time.sleep(0.2)


async def test_a_socket_that_finished_a_turn_gets_first_audio_ahead_of_new_sockets(server):
    async with ws_connect(server.ws_url) as known:
        await speak(known, [TEXT])  # its `done` went out: the socket is established
        hold = SynthesisHold()
        await hold.hold()
        sockets = {f"new {i}": await ws_connect(server.ws_url) for i in range(6)}
        sockets["known"] = known  # its turn starts after all of theirs
        try:
            for ws in sockets.values():
                await ws.send(json.dumps({"type": "start"}))
                assert (await next_json(ws))["type"] == "started"
                await ws.send(json.dumps({"type": "text", "text": TEXT}))
                await ws.send(json.dumps({"type": "stop"}))
                # Answered after the text and stop were handled: the stream has its text.
                await ws.send(json.dumps({"type": "start"}))
                assert (await next_json(ws))["code"] == "turn_active"
            order: list[str] = []

            async def first_audio(name: str, ws) -> None:
                while not isinstance(await ws.recv(), bytes):
                    pass
                order.append(name)
                await receive_until_done(ws)

            readers = asyncio.gather(*(first_audio(name, ws) for name, ws in sockets.items()))
            hold.release()
            await readers
        finally:
            hold.release()
            for name, ws in sockets.items():
                if name != "known":
                    await ws.close()
    assert order[0] == "known", order
