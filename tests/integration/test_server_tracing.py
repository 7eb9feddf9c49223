"""The server's OpenTelemetry traces, received by a real OTLP/HTTP receiver started here (an
HTTP server that decodes the protobuf `ExportTraceServiceRequest`): one `tts.stream` span per
stream with the usage log's numbers, a `tts.engine` child with the queue wait, cancel and error
marked, and the client's `traceparent` (the `/v1/ws` start field, the HTTP header sent by the
official `openai` SDK) as the parent, so an agent's trace and the server's join. Also: the flag
and the standard `OTEL_*` variable of `voice-tts serve`, and a server without the extra."""

from __future__ import annotations

import gzip
import http.server
import json
import secrets
import threading
import time

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from server_harness import ServerProcess, receive_until_done, speak, start_server, ws_connect


TEXT = "Your table for two is booked at 7 pm."


class OtlpReceiver:
    """An OTLP/HTTP trace receiver on 127.0.0.1: keeps every span it is sent, decoded."""

    def __init__(self) -> None:
        self.spans: list = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = ExportTraceServiceRequest.FromString(body)
                for resource_spans in request.resource_spans:
                    resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
                    for scope_spans in resource_spans.scope_spans:
                        receiver.spans += [(resource, span) for span in scope_spans.spans]
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def named(self, name: str, timeout: float = 10.0) -> list:
        deadline = time.monotonic() + timeout
        while not (found := [span for _, span in self.spans if span.name == name]):
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        return found

    def close(self) -> None:
        self._server.shutdown()


def _value(value):
    return getattr(value, value.WhichOneof("value")) if value.WhichOneof("value") else None


def attributes(span) -> dict:
    return {a.key: _value(a.value) for a in span.attributes}


def new_traceparent() -> tuple[str, bytes, bytes]:
    trace_id, span_id = secrets.token_bytes(16), secrets.token_bytes(8)
    return f"00-{trace_id.hex()}-{span_id.hex()}-01", trace_id, span_id


@pytest.fixture(scope="module")
def receiver():
    receiver = OtlpReceiver()
    yield receiver
    receiver.close()


@pytest.fixture(scope="module")
def traced_server(receiver):
    with pytest.MonkeyPatch.context() as env:
        env.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")  # export within a moment, not 5 s
        server = start_server(otlp_traces_endpoint=receiver.url)
    yield server
    server.stop()


def stream_span(receiver, stream_id: str):
    for _ in range(100):
        for span in receiver.named("tts.stream"):
            if attributes(span)["voice_tts.stream_id"] == stream_id:
                return span
        time.sleep(0.05)
    raise AssertionError(f"no span for stream {stream_id}")


async def test_a_ws_turn_is_a_span_in_the_clients_trace(traced_server, receiver):
    traceparent, trace_id, parent_id = new_traceparent()
    async with ws_connect(traced_server.ws_url) as ws:
        result = await speak(ws, [TEXT[:10], TEXT[10:]], traceparent=traceparent)
    done = result.done
    span = stream_span(receiver, done["stream_id"])
    assert span.trace_id == trace_id and span.parent_span_id == parent_id  # joined
    got = attributes(span)
    assert got["voice_tts.route"] == "ws" and got["voice_tts.outcome"] == "done"
    assert got["voice_tts.characters_received"] == len(TEXT)
    assert got["voice_tts.characters_spoken"] == done["usage"]["characters_spoken"]
    assert got["voice_tts.audio_seconds"] == pytest.approx(done["usage"]["audio_seconds"], abs=1e-3)
    assert 0 < got["voice_tts.ttfa_seconds"] < 10 and got["voice_tts.cancelled"] is False
    assert "first_audio" in [event.name for event in span.events]
    [engine] = [s for s in receiver.named("tts.engine") if s.parent_span_id == span.span_id]
    assert 0 <= attributes(engine)["voice_tts.queue_wait_s"] <= got["voice_tts.ttfa_seconds"]
    assert "first_output" in [event.name for event in engine.events]
    [resource] = {r["service.name"] for r, s in receiver.spans if s is span}
    assert resource == "voice-tts"


async def test_a_cancelled_turn_and_a_refused_one_are_marked(traced_server, receiver):
    async with ws_connect(traced_server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start"}))
        await ws.send(json.dumps({"type": "text", "text": "This is long enough to cut off midway."}))
        await ws.send(json.dumps({"type": "stop"}))
        while not isinstance(await ws.recv(), bytes):
            pass
        await ws.send(json.dumps({"type": "cancel"}))
        cancelled_id = (await receive_until_done(ws)).done["stream_id"]
    async with ws_connect(traced_server.ws_url) as ws:
        refused = await speak(ws, ["Hello."], language="sw")
    cancelled = stream_span(receiver, cancelled_id)
    got = attributes(cancelled)
    assert got["voice_tts.cancelled"] is True and got["voice_tts.outcome"] == "cancelled"
    failed = stream_span(receiver, refused.done["stream_id"])
    got = attributes(failed)
    assert got["voice_tts.error_code"] == "unsupported_language" and failed.status.code == 2
    assert "'sw'" in failed.status.message and got["voice_tts.cancelled"] is False


def test_http_speech_through_the_openai_sdk_joins_the_callers_trace(traced_server, receiver):
    from openai import OpenAI

    traceparent, trace_id, parent_id = new_traceparent()
    client = OpenAI(base_url=traced_server.http_url + "/v1", api_key="none", max_retries=0)
    audio = client.audio.speech.create(
        model="tts-1", voice="alloy", input=TEXT, response_format="pcm",
        extra_headers={"traceparent": traceparent},
    ).read()
    assert audio
    for _ in range(100):
        joined = [s for s in receiver.named("tts.stream") if s.trace_id == trace_id]
        if joined:
            break
        time.sleep(0.05)
    [span] = joined
    got = attributes(span)
    assert span.parent_span_id == parent_id and got["voice_tts.route"] == "http"
    assert got["voice_tts.characters_received"] == len(TEXT) and got["voice_tts.audio_seconds"] > 0


class EngineThatCannotOpen:
    """The embedded voice with a fault injected where a stream opens (as a Qwen3 engine whose
    core has gone raises), after the warm-up's stream: everything else is the real engine's."""

    def __init__(self) -> None:
        from engine import Engine

        self._engine = Engine.embedded()
        self._warmed_up = False

    def open_stream(self, request=None, /, **settings):
        if self._warmed_up:
            raise RuntimeError("injected fault: no stream")
        self._warmed_up = True
        return self._engine.open_stream(request, **settings)

    def __getattr__(self, name: str):
        return getattr(self._engine, name)


def test_a_speech_stream_that_cannot_open_is_finished_as_an_error(receiver, monkeypatch):
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
    server = start_server(EngineThatCannotOpen(), otlp_traces_endpoint=receiver.url)
    try:
        traceparent, trace_id, _ = new_traceparent()
        response = httpx.post(
            server.http_url + "/v1/audio/speech",
            json={"input": TEXT, "response_format": "pcm"},
            headers={"traceparent": traceparent},
        )
        assert response.status_code == 500 and response.json()["error"]["code"] == "engine_error"
        assert "injected fault" in response.json()["error"]["message"]
        metrics = httpx.get(server.http_url + "/metrics").text
        assert 'voice_tts_turns_total{outcome="error",route="http"} 1.0' in metrics
        # The slot is back: the next request is refused for the same reason, not for capacity.
        again = httpx.post(server.http_url + "/v1/audio/speech", json={"input": TEXT})
        assert again.json()["error"]["code"] == "engine_error"
    finally:
        server.stop()
    for _ in range(100):
        if joined := [s for s in receiver.named("tts.stream", timeout=0) if s.trace_id == trace_id]:
            break
        time.sleep(0.05)
    [span] = joined
    got = attributes(span)
    assert got["voice_tts.route"] == "http" and got["voice_tts.outcome"] == "error"
    assert got["voice_tts.error_code"] == "engine_error" and span.status.code == 2
    assert got["voice_tts.characters_received"] == 0 and got["voice_tts.audio_seconds"] == 0


# -- voice-tts serve ---------------------------------------------------------------------------


def one_turn(url: str) -> None:
    import asyncio

    async def turn():
        async with ws_connect(url) as ws:
            await speak(ws, ["Hello there."])

    asyncio.run(turn())


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_serve_exports_to_the_flag_or_the_standard_variable(receiver, how, monkeypatch):
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "tts-eu-1")
    if how == "flag":
        extra = ["--otlp-traces-endpoint", receiver.url]
    else:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", receiver.url + "/v1/traces")
        extra = []
    before = len(receiver.named("tts.stream", timeout=0))
    process = ServerProcess(extra_args=extra)
    try:
        one_turn(process.ws_url)
        deadline = time.monotonic() + 10
        while len(receiver.named("tts.stream", timeout=0)) == before and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        process.stop()
    names = [r["service.name"] for r, s in receiver.spans if s.name == "tts.stream"]
    assert len(names) > before and names[-1] == "tts-eu-1"


def test_a_server_without_the_tracing_extra_serves_untraced(receiver, tmp_path):
    """opentelemetry made unimportable, as on an install without the extra: the server starts,
    serves, and says once that tracing is off."""
    log = tmp_path / "serve.log"
    process = ServerProcess(
        extra_args=["--otlp-traces-endpoint", receiver.url],
        python_prelude="import sys; sys.modules['opentelemetry'] = None",
        log_path=log,
    )
    try:
        one_turn(process.ws_url)
    finally:
        process.stop()
    assert "install the tracing extra" in log.read_text()


async def test_a_remote_engine_turn_joins_the_callers_current_span(traced_server, receiver):
    """What a LiveKit TTS request (run under its `tts_request` span) or an app's own span gets:
    `RemoteEngine` sends the current span's context, with nothing to configure."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider

    from voice_tts.client import RemoteEngine
    from voice_tts.session import SessionDone, TTSSession

    tracer = TracerProvider().get_tracer("agent")
    engine = RemoteEngine(traced_server.ws_url)
    try:
        with tracer.start_as_current_span("agent turn") as agent_span:
            session = TTSSession(engine)
        await session.feed("Hello there.")
        session.end_input()
        async for event in session.events():
            done = event
        assert isinstance(done, SessionDone) and not done.cancelled
    finally:
        await engine.aclose()
    agent = agent_span.get_span_context()
    for _ in range(100):
        joined = [s for s in receiver.named("tts.stream") if s.trace_id == agent.trace_id.to_bytes(16, "big")]
        if joined:
            break
        time.sleep(0.05)
    [span] = joined
    assert span.parent_span_id == agent.span_id.to_bytes(8, "big")
    assert trace.get_current_span() is trace.INVALID_SPAN  # the caller's context left as it was
