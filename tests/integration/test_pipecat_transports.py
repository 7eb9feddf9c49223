"""The Pipecat agents over real transports on 127.0.0.1: a phone call through the Twilio
serializer (8 kHz µ-law, real barge-in by voice) and a SmallWebRTC peer (aiortc)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import time

import numpy as np
import pytest
import uvicorn
from pipecat_harness import ENGINE_KINDS, RecordingEngine, open_real_engine, rms
from scripted_llm import TokenPace
from websockets.asyncio.client import connect

from voice_tts.audio import mulaw_to_pcm16, pcm16_to_mulaw
from voice_tts.protocol import AudioChunk

STREAM_SID = "MZ0123456789abcdef0123456789abcdef"
CALL_SID = "CA0123456789abcdef0123456789abcdef"
# 20 ms of µ-law at 8 kHz, as Twilio sends it.
FRAME_BYTES = 160
SILENCE = pcm16_to_mulaw(b"\x00\x00" * FRAME_BYTES)
USER_SPEECH = "Sorry to interrupt, but could you tell me about the refund instead?"
# An LLM still writing when the caller cuts in, so the barge-in reaches a live engine stream.
SLOW_LLM = TokenPace(first_token_s=0.2, tokens_per_second=8.0)


@pytest.fixture(params=ENGINE_KINDS)
async def real(request, tiny_checkpoint):
    engine = open_real_engine(request.param, tiny_checkpoint)
    yield RecordingEngine(engine)
    await engine.aclose()


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """The agents choose their LLM and engine from the environment: keep them offline."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "VOICE_TTS_URL"):
        monkeypatch.delenv(name, raising=False)


@contextlib.asynccontextmanager
async def serve(app):
    """uvicorn on 127.0.0.1, a free port, this event loop."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        await task


async def speech_at_8k(text: str) -> bytes:
    """A caller's voice (whatever engine the bot speaks with): the embedded voice saying
    `text`, as 8 kHz PCM."""
    from engine import Engine

    engine = Engine.embedded()
    stream = engine.open_stream(voice="male", sample_rate=8000)
    stream.push_text(text)
    stream.end_input()
    pcm = b"".join([e.pcm async for e in stream.events() if isinstance(e, AudioChunk)])
    await engine.aclose()
    return pcm


# ---------------------------------------------------------------------------------------------
# 11. A phone call: Twilio Media Streams over the phone agent's WebSocket
# ---------------------------------------------------------------------------------------------


async def test_twilio_call_with_barge_in(real):
    from phone_agent import create_app
    from pipecat_agent import ScriptedLLM

    user_pcm = await speech_at_8k(USER_SPEECH)
    app = create_app(engine=real, llm_factory=lambda: ScriptedLLM(pace=SLOW_LLM))
    received: list[tuple[float, dict]] = []

    async with serve(app) as port, connect(f"ws://127.0.0.1:{port}/ws") as ws:
        await ws.send(json.dumps({"event": "connected", "protocol": "Call", "version": "1.0.0"}))
        await ws.send(json.dumps(twilio_start()))

        async def receive():
            async for message in ws:
                received.append((time.monotonic(), json.loads(message)))

        async def media(seconds: float, pcm: bytes = b""):
            """Send `seconds` of caller audio in real time: `pcm`, then silence."""
            ulaw = pcm16_to_mulaw(pcm)
            start = time.monotonic()
            for i in range(int(seconds / 0.02)):
                chunk = ulaw[i * FRAME_BYTES : (i + 1) * FRAME_BYTES] or SILENCE
                await ws.send(json.dumps(twilio_media(chunk.ljust(FRAME_BYTES, SILENCE[:1]))))
                await asyncio.sleep(max(0.0, start + (i + 1) * 0.02 - time.monotonic()))

        receiver = asyncio.create_task(receive())
        # The bot greets; once a second of it has arrived, the caller talks over it.
        while sum(len(m["media"]["payload"]) for _, m in received if m["event"] == "media") < 8000:
            await media(0.1)
        barge_in = time.monotonic()
        await media(len(user_pcm) / 2 / 8000 + 3.0, user_pcm)
        await ws.close()
        await receiver

    events = [(t, m) for t, m in received if m.get("streamSid") == STREAM_SID]
    clears = [t for t, m in events if m["event"] == "clear"]
    assert clears and clears[0] > barge_in, "barge-in must clear Twilio's queued audio"
    greeting = b"".join(payload(m) for t, m in events if m["event"] == "media" and t < clears[0])
    answer = b"".join(payload(m) for t, m in events if m["event"] == "media" and t > clears[0])
    assert rms(mulaw_to_pcm16(greeting)) > 100
    assert rms(mulaw_to_pcm16(answer)) > 100, "the bot answers the caller after the barge-in"

    greeting_stream = real.streams[0]
    assert greeting_stream.options["sample_rate"] == 8000
    assert greeting_stream.cancel_calls == 1 and greeting_stream.done.cancelled
    assert len(real.streams) >= 2 and real.streams[1].text


def twilio_start() -> dict:
    return {
        "event": "start",
        "sequenceNumber": "1",
        "start": {
            "streamSid": STREAM_SID,
            "callSid": CALL_SID,
            "accountSid": "AC0123456789abcdef0123456789abcdef",
            "tracks": ["inbound"],
            "mediaFormat": {"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1},
            "customParameters": {},
        },
        "streamSid": STREAM_SID,
    }


def twilio_media(ulaw: bytes) -> dict:
    return {
        "event": "media",
        "streamSid": STREAM_SID,
        "media": {"track": "inbound", "payload": base64.b64encode(ulaw).decode()},
    }


def payload(message: dict) -> bytes:
    return base64.b64decode(message["media"]["payload"])


# ---------------------------------------------------------------------------------------------
# 12. SmallWebRTC: the agent's `bot()` answers a WebRTC peer on loopback
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("markup", [None, "cartesia"])
async def test_smallwebrtc_bot_audio(real, monkeypatch, markup):
    import aioice.ice
    import pipecat_agent
    from aiortc import RTCPeerConnection, RTCSessionDescription
    from aiortc.mediastreams import AudioStreamTrack, MediaStreamError
    from pipecat.runner.types import SmallWebRTCRunnerArguments
    from pipecat.transports.smallwebrtc.request_handler import (
        SmallWebRTCRequest,
        SmallWebRTCRequestHandler,
    )

    # aioice leaves loopback out of its host candidates; this test never leaves 127.0.0.1.
    monkeypatch.setattr(aioice.ice, "get_host_addresses", lambda use_ipv4, use_ipv6: ["127.0.0.1"])
    monkeypatch.setattr(pipecat_agent, "_engine", real)
    monkeypatch.setattr(pipecat_agent, "MARKUP", markup)  # VOICE_TTS_MARKUP

    handler = SmallWebRTCRequestHandler()
    bots: list[asyncio.Task] = []

    async def start_bot(connection):
        args = SmallWebRTCRunnerArguments(webrtc_connection=connection)
        bots.append(asyncio.create_task(pipecat_agent.bot(args)))

    peer = RTCPeerConnection()
    peer.addTrack(AudioStreamTrack())  # a silent microphone
    samples: list[np.ndarray] = []
    tracks: list[asyncio.Task] = []

    @peer.on("track")
    def on_track(track):
        async def read():
            with contextlib.suppress(MediaStreamError):
                while True:
                    samples.append((await track.recv()).to_ndarray().ravel())

        if track.kind == "audio":
            tracks.append(asyncio.create_task(read()))

    await peer.setLocalDescription(await peer.createOffer())
    answer = await handler.handle_web_request(
        request=SmallWebRTCRequest(sdp=peer.localDescription.sdp, type="offer"),
        webrtc_connection_callback=start_bot,
    )
    await peer.setRemoteDescription(RTCSessionDescription(sdp=answer["sdp"], type=answer["type"]))

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and voiced_seconds(samples) < 1.0:
        await asyncio.sleep(0.1)
    await peer.close()
    await asyncio.wait_for(asyncio.gather(*bots, *tracks), 10)
    await handler.close()

    assert voiced_seconds(samples) >= 1.0, "the bot's greeting must arrive as non-silent audio"
    if markup is None:
        assert real.streams and real.streams[0].text
    else:
        # The scripted greeting's tags acted (a segment per break, and per emotion where the
        # model takes an instruction) and none was spoken.
        assert len(real.streams) > 1 and any(stream.text for stream in real.streams)
        assert not any("<" in stream.text for stream in real.streams)


def voiced_seconds(frames: list[np.ndarray], rate: int = 48000) -> float:
    """Seconds of received audio in 20 ms frames louder than silence."""
    return sum(len(f) for f in frames if np.abs(f.astype(np.float64)).mean() > 50) / rate / 2


async def test_the_pipecat_agent_runs_as_the_readme_says():
    """`python agents/pipecat_agent.py` serves its page over SmallWebRTC; a caller on the
    runner's `/ws` route (which crashed the bot with a ValueError) is turned away cleanly."""
    import os
    import socket
    import subprocess
    import sys
    from pathlib import Path

    import httpx
    from websockets.exceptions import ConnectionClosed

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    agent = Path(__file__).resolve().parents[2] / "agents" / "pipecat_agent.py"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "VOICE_TTS_URL")}
    process = subprocess.Popen(
        [sys.executable, str(agent), "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient() as client:
            for _ in range(600):
                assert process.poll() is None, process.stderr.read().decode()[-2000:]
                with contextlib.suppress(httpx.TransportError):
                    if (await client.get(base + "/")).status_code == 200:
                        break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("the agent did not come up")
        async with connect(f"ws://127.0.0.1:{port}/ws") as ws:  # the runner's own route
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
        assert closed.value.rcvd.code == 1008  # turned away with a reason, no crash
        assert process.poll() is None
    finally:
        process.terminate()
        process.wait(20)
