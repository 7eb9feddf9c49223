"""`RemoteEngine` against a real server with the embedded voice: the stream contract, socket
reuse, concurrency, cancel, auth, server restarts, and `TTSSession` over the wire."""

from __future__ import annotations

import asyncio
import json

import pytest
from g711_reference import G711_FORMATS, reference_decode, reference_encode
from server_harness import start_server, wait_ready

from engine import Engine
from voice_tts.client import RemoteEngine
from voice_tts.protocol import AudioChunk, Capabilities, Done, Error, Progress, Words
from voice_tts.session import SessionDone, TTSSession, WordsEvent

TEXT = "Remote turns sound exactly like local ones."
LONG = (
    "This answer is long enough to be interrupted, and it keeps adding words so that "
    "there is plenty left to say when the listener barges in "
)


@pytest.fixture(scope="module")
def server():
    server = start_server(api_key="k")
    yield server
    server.stop()


@pytest.fixture
async def remote(server):
    engine = RemoteEngine(server.ws_url, api_key="k")
    yield engine
    await engine.aclose()


async def collect(stream, text: str | None = None) -> list:
    if text is not None:
        stream.push_text(text)
        stream.end_input()
    events = []
    async with asyncio.timeout(60):
        async for event in stream.events():
            events.append(event)
    return events


def audio_of(events) -> bytes:
    return b"".join(e.pcm for e in events if isinstance(e, AudioChunk))


async def test_stream_contract_over_the_wire(remote):
    events = await collect(remote.open_stream(), TEXT)
    assert isinstance(events[-1], Done) and not events[-1].cancelled
    assert not [e for e in events if isinstance(e, Error)]
    chunks = [e for e in events if isinstance(e, AudioChunk)]
    assert chunks and all(c.sample_rate == 24000 for c in chunks)
    position = 0
    for chunk in chunks:  # start_sample counts this stream's samples
        assert chunk.start_sample == position
        position += chunk.num_samples
    progress = [e for e in events if isinstance(e, Progress)]
    assert 0 < progress[-1].spoken_end <= len(TEXT)
    assert [p.spoken_end for p in progress] == sorted(p.spoken_end for p in progress)
    assert events[-1].usage.audio_seconds == pytest.approx(position / 24000, abs=1e-3)


async def test_remote_audio_equals_the_in_process_engine(remote):
    local = Engine.embedded()
    try:
        expected = audio_of(await collect(local.open_stream(sample_rate=16000), TEXT))
    finally:
        await local.aclose()
    assert audio_of(await collect(remote.open_stream(sample_rate=16000), TEXT)) == expected


@pytest.mark.parametrize("audio_format", G711_FORMATS)
async def test_g711_crosses_the_wire_and_comes_out_as_pcm(remote, audio_format):
    """A turn asked for in G.711 travels in it (half the bytes) and its events carry s16le, as
    an independent codec decodes the server's encoding of the same PCM."""
    pcm = audio_of(await collect(remote.open_stream(sample_rate=8000), TEXT))
    events = await collect(remote.open_stream(sample_rate=8000, format=audio_format), TEXT)
    chunks = [e for e in events if isinstance(e, AudioChunk)]
    assert audio_of(events) == reference_decode(reference_encode(pcm, audio_format), audio_format)
    assert [c.start_sample for c in chunks] == [sum(c.num_samples for c in chunks[:i]) for i in range(len(chunks))]
    assert events[-1].usage.audio_seconds == pytest.approx(len(pcm) / 2 / 8000)


async def test_sequential_turns_share_one_socket(server, remote):
    before = connections_accepted(server)
    for _ in range(3):
        events = await collect(remote.open_stream(), TEXT)
        assert isinstance(events[-1], Done)
    assert connections_accepted(server) - before == 1


async def test_concurrent_turns_share_one_socket_as_contexts(server, remote):
    before = connections_accepted(server)
    results = await asyncio.gather(*(collect(remote.open_stream(), TEXT) for _ in range(12)))
    assert connections_accepted(server) - before == 1
    assert remote.open_sockets == 1
    assert len({audio_of(events) for events in results}) == 1
    assert all(isinstance(events[-1], Done) and not events[-1].cancelled for events in results)


async def test_a_second_socket_opens_only_past_the_contexts_per_socket(server):
    remote = RemoteEngine(server.ws_url, api_key="k", contexts_per_socket=4)
    try:
        before = connections_accepted(server)
        results = await asyncio.gather(*(collect(remote.open_stream(), TEXT) for _ in range(10)))
        assert connections_accepted(server) - before == 3
        assert len({audio_of(events) for events in results}) == 1
        # The peak over, one idle socket is kept for the next turn.
        async with asyncio.timeout(5):
            while remote.open_sockets > 1:
                await asyncio.sleep(0.01)
        await collect(remote.open_stream(), TEXT)
        assert connections_accepted(server) - before == 3 and remote.open_sockets == 1
    finally:
        await remote.aclose()


async def test_a_server_bound_below_the_clients_opens_another_socket():
    server = start_server(max_contexts_per_socket=2)
    remote = RemoteEngine(server.ws_url)
    try:
        before = connections_accepted(server)
        results = await asyncio.gather(*(collect(remote.open_stream(), TEXT) for _ in range(5)))
        assert all(isinstance(events[-1], Done) and not events[-1].cancelled for events in results)
        assert not [e for events in results for e in events if isinstance(e, Error)]
        assert connections_accepted(server) - before == 3
    finally:
        await remote.aclose()
        server.stop()


async def test_cancel_stops_audio(remote):
    stream = remote.open_stream()
    stream.push_text(LONG)
    events = []
    cancelled_at = None
    async with asyncio.timeout(60):
        async for event in stream.events():
            events.append(event)
            if isinstance(event, AudioChunk) and cancelled_at is None:
                stream.cancel()
                cancelled_at = len(events)
    assert isinstance(events[-1], Done) and events[-1].cancelled
    assert not [e for e in events[cancelled_at:] if isinstance(e, AudioChunk)]
    # The socket is clean for the next turn.
    assert isinstance((await collect(remote.open_stream(), TEXT))[-1], Done)


async def test_push_text_from_another_thread(remote):
    stream = remote.open_stream()

    def producer() -> None:
        for word in TEXT.split(" "):
            stream.push_text(word + " ")
        stream.end_input()

    consumer = asyncio.create_task(collect(stream))
    await asyncio.sleep(0.05)
    await asyncio.to_thread(producer)
    events = await consumer
    assert isinstance(events[-1], Done) and audio_of(events)


async def test_capabilities_and_voices(remote):
    capabilities = await remote.capabilities()
    assert isinstance(capabilities, Capabilities)
    assert capabilities.voices and capabilities.capacity >= 1
    assert await remote.voices() == capabilities.voices


async def test_wrong_key_is_a_clear_error(server):
    engine = RemoteEngine(server.ws_url, api_key="wrong")
    events = await collect(engine.open_stream(), TEXT)
    await engine.aclose()
    assert [type(e) for e in events] == [Error, Done]
    assert events[0].code == "forbidden" and events[0].retryable is False


async def test_refused_start_is_an_error(remote):
    events = await collect(remote.open_stream(voice="nobody"), TEXT)
    assert [type(e) for e in events] == [Error, Done]
    assert events[0].code == "invalid_voice"


async def test_session_over_remote_engine_matches_local(remote):
    text = "On 3 May 2024 we paid $12.50 for 2 tickets."

    async def run(engine, **session_options):
        session = TTSSession(engine, **session_options)
        for i in range(0, len(text), 3):
            session.push_text(text[i : i + 3])
        session.end_input()
        audio, words, done = b"", [], None
        async with asyncio.timeout(60):
            async for event in session.events():
                if isinstance(event, AudioChunk):
                    audio += event.pcm
                elif isinstance(event, WordsEvent):
                    words.extend(event.words)
                elif isinstance(event, SessionDone):
                    done = event
        return audio, words, done

    local_engine = Engine.embedded()
    try:
        local = await run(local_engine)
    finally:
        await local_engine.aclose()
    # Over the wire the server normalizes and computes the words; the session takes them.
    audio, words, done = await run(remote)
    assert audio == local[0]
    assert [w.text for w in words] == [w.text for w in local[1]] == text.split()
    assert [w.start_time for w in words] == pytest.approx(
        [w.start_time for w in local[1]], abs=1e-9
    )
    assert done.heard_text == text


async def test_a_stream_relays_the_servers_words(remote):
    text = "It's 3 pm."
    events = await collect(remote.open_stream(normalize=True), text)
    words = [word for event in events if isinstance(event, Words) for word in event.words]
    assert [(w.text, text[w.raw_start : w.raw_end]) for w in words] == [
        ("It's", "It's"),
        ("3", "3"),
        ("pm.", "pm."),
    ]


async def test_client_survives_a_server_restart(server, remote):
    assert isinstance((await collect(remote.open_stream(), TEXT))[-1], Done)
    # Lost in the middle of a turn.
    stream = remote.open_stream()
    stream.push_text(LONG)
    events = []
    async with asyncio.timeout(60):
        async for event in stream.events():
            events.append(event)
            if isinstance(event, AudioChunk) and "stopped" not in events:
                await asyncio.to_thread(server.stop)
                events.append("stopped")
    after_stop = events[events.index("stopped") + 1 :]
    assert [type(e) for e in after_stop[-2:]] == [Error, Done]
    assert after_stop[-2].code == "disconnected" and after_stop[-2].retryable
    # Down: a clear error, quickly.
    events = await collect(remote.open_stream(), TEXT)
    assert [type(e) for e in events] == [Error, Done]
    assert events[0].code == "unreachable" and not events[0].retryable  # refused: final
    # Back on the same port: works again.
    await asyncio.to_thread(server.start)
    await asyncio.to_thread(wait_ready, server)
    events = await collect(remote.open_stream(), TEXT)
    assert not [e for e in events if isinstance(e, Error)]
    assert audio_of(events)


def connections_accepted(server) -> float:
    import httpx

    metrics = httpx.get(server.http_url + "/metrics", headers={"Authorization": "Bearer k"}).text
    for line in metrics.splitlines():
        if line.startswith("voice_tts_ws_connections_total "):
            return float(line.split()[1])
    raise AssertionError("no connection counter")


# -- faults: nothing waits without a bound --------------------------------------------------

# The bounds below are the client's timeouts plus a generous margin for a loaded machine; the
# behaviour they replace waited 10 s (close handshake) to 50 s (keepalive of the WebSocket layer).


@pytest.fixture
def server_process():
    from server_harness import ServerProcess

    process = ServerProcess()
    yield process
    process.stop()


async def first_audio_then(stream, action) -> tuple[list, float]:
    """Iterate the stream; at its first audio chunk run `action`; return the events after
    it and the seconds from the action to the stream's end."""
    events, acted_at = [], None
    async with asyncio.timeout(60):
        async for event in stream.events():
            if acted_at is not None:
                events.append(event)
            elif isinstance(event, AudioChunk):
                action()
                acted_at = asyncio.get_running_loop().time()
    return events, asyncio.get_running_loop().time() - acted_at


@pytest.mark.parametrize("input_ended", [False, True], ids=["input-open", "input-ended"])
async def test_a_frozen_server_ends_the_turn_within_the_silence_timeout(
    server_process, input_ended
):
    import signal

    engine = RemoteEngine(server_process.ws_url, silence_timeout=1.0)
    stream = engine.open_stream()
    stream.push_text("First clause, then more. ")
    if input_ended:
        stream.end_input()
    try:
        events, elapsed = await first_audio_then(
            stream, lambda: server_process.signal(signal.SIGSTOP)
        )
    finally:
        server_process.signal(signal.SIGCONT)
        await engine.aclose()
    errors = [e for e in events if isinstance(e, Error)]
    assert [e.code for e in errors] == ["timeout"] and errors[0].retryable
    assert isinstance(events[-1], Done)
    assert elapsed < 4.0


async def test_a_resumable_turn_given_up_for_silence_is_cancelled_on_the_server(server_process):
    # Given up by the client, the turn must not wait on the server for a reconnect that never
    # comes (resume_timeout_s, 30 s), holding its stream slot: under load, turns that time out
    # would fill the server with parked turns and refuse the next ones.
    import signal

    import httpx

    engine = RemoteEngine(server_process.ws_url, silence_timeout=1.0)  # resumable turns
    stream = engine.open_stream()
    # More audio than the server keeps for a reconnect (resume_buffer_s, 30 s): once that is
    # full, a turn without its client stops and holds its slot until the resume timeout.
    stream.push_text(LONG * 8)
    stream.end_input()
    try:
        events, _ = await first_audio_then(stream, lambda: server_process.signal(signal.SIGSTOP))
    finally:
        server_process.signal(signal.SIGCONT)
        await engine.aclose()
    assert [e.code for e in events if isinstance(e, Error)] == ["timeout"]
    async with asyncio.timeout(10):
        while httpx.get(server_process.http_url + "/v1/capabilities").json()["active_streams"]:
            await asyncio.sleep(0.05)


@pytest.fixture
def dual_stack_localhost(monkeypatch):
    """`localhost` resolving to ::1 and 127.0.0.1, as most systems' hosts files have it (this
    one may list only 127.0.0.1); the connections made to those addresses are real."""
    import socket

    resolve = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if host != "localhost":
            return resolve(host, *args, **kwargs)
        return resolve("::1", *args, **kwargs) + resolve("127.0.0.1", *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
async def test_a_killed_server_ends_the_turn_at_once(server_process, host, dual_stack_localhost):
    import signal

    # On `localhost` every address refuses: was a plain OSError, so the turn waited out its
    # 5 s resume budget and the next was retryable.
    engine = RemoteEngine(server_process.ws_url.replace("127.0.0.1", host))
    stream = engine.open_stream()
    stream.push_text(LONG)
    try:
        events, elapsed = await first_audio_then(
            stream, lambda: server_process.signal(signal.SIGKILL)
        )
        assert [e.code for e in events if isinstance(e, Error)] == ["disconnected"]
        assert elapsed < 1.0
        began = asyncio.get_running_loop().time()
        events = await collect(engine.open_stream(), TEXT)
        assert [type(e) for e in events] == [Error, Done] and events[0].code == "unreachable"
        assert not events[0].retryable  # refused: a fallback takes over at once
        assert asyncio.get_running_loop().time() - began < 1.0
    finally:
        await engine.aclose()


async def test_closing_a_turn_mid_audio_does_not_wait_for_the_close_handshake(server, remote):
    import httpx

    stream = remote.open_stream()
    stream.push_text(LONG * 4)
    events = aiter(stream.events())
    async with asyncio.timeout(60):
        while not isinstance(await anext(events), AudioChunk):
            pass
    await asyncio.sleep(1.0)  # the server keeps sending: unread audio queues up
    began = asyncio.get_running_loop().time()
    await events.aclose()
    assert asyncio.get_running_loop().time() - began < 0.5  # was 10 s
    headers = {"Authorization": "Bearer k"}
    async with asyncio.timeout(10):  # the server frees the turn
        while httpx.get(server.http_url + "/v1/capabilities", headers=headers).json()[
            "active_streams"
        ]:
            await asyncio.sleep(0.05)


class SilentServer:
    """A WebSocket server that answers pings but not `start` (or only `started`)."""

    def __init__(self, send_started: bool) -> None:
        self.send_started = send_started

    async def __aenter__(self) -> str:
        from websockets.asyncio.server import serve

        async def handler(ws) -> None:
            async for message in ws:
                start = json.loads(message)
                if self.send_started and start["type"] == "start":
                    started = {
                        "type": "started", "stream_id": "s", "voice": None, "language": None,
                        "sample_rate": 24000, "format": "pcm16", "normalize": False,
                        "context_id": start.get("context_id"),
                    }
                    await ws.send(json.dumps(started))

        self._server = await serve(handler, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"ws://127.0.0.1:{port}/v1/ws"

    async def __aexit__(self, *exc) -> None:
        self._server.close()
        await self._server.wait_closed()


async def test_a_server_that_never_starts_the_turn_times_out():
    async with SilentServer(send_started=False) as url:
        engine = RemoteEngine(url, started_timeout=0.5)
        began = asyncio.get_running_loop().time()
        events = await collect(engine.open_stream(), TEXT)
        await engine.aclose()
    assert [type(e) for e in events] == [Error, Done] and events[0].code == "timeout"
    assert asyncio.get_running_loop().time() - began < 3.0


async def test_a_server_silent_after_stop_times_out_though_it_answers_pings():
    async with SilentServer(send_started=True) as url:
        engine = RemoteEngine(url)  # default silence_timeout: 2 s
        began = asyncio.get_running_loop().time()
        events = await collect(engine.open_stream(), TEXT)
        await engine.aclose()
    assert [type(e) for e in events] == [Error, Done] and events[0].code == "timeout"
    assert asyncio.get_running_loop().time() - began < 5.0


async def test_a_server_waiting_for_text_is_not_taken_for_frozen(remote):
    stream = remote.open_stream()
    stream.push_text("A clause with no end yet")
    consumer = asyncio.create_task(collect(stream))
    await asyncio.sleep(3.0)  # past the silence timeout: pings are answered
    stream.push_text(".")
    stream.end_input()
    events = await consumer
    assert not [e for e in events if isinstance(e, Error)] and audio_of(events)


async def test_prewarm_opens_the_socket_before_the_first_turn(server):
    engine = RemoteEngine(server.ws_url, api_key="k")
    try:
        await engine.prewarm()
        before = connections_accepted(server)
        stream = engine.open_stream()
        events = await collect(stream, TEXT)
        assert isinstance(events[-1], Done) and stream.connection_reused
        # A spare socket is opened again in the background for the next concurrent turn.
        assert connections_accepted(server) - before <= 1
    finally:
        await engine.aclose()


async def test_prewarm_of_an_unreachable_server_fails_fast():
    from voice_tts.client import RemoteEngineError

    engine = RemoteEngine("ws://127.0.0.1:9/v1/ws")
    began = asyncio.get_running_loop().time()
    with pytest.raises(RemoteEngineError):
        await engine.prewarm()
    await engine.aclose()
    assert asyncio.get_running_loop().time() - began < 1.0
