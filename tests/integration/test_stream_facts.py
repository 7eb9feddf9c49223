"""One source per fact on a real server: a turn's `done`, its usage-log line and `/metrics` read
the same usage (the stream's output pipeline), for turns that end every way a turn can end."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from server_harness import TurnResult, next_json, receive_until_done, start_server, ws_connect

LONG = (
    "This reply keeps going for a while, so that the listener can interrupt it somewhere. "
    "It goes on in the middle, long before the speaker reaches the end of what it wanted to say."
)


def audio_seconds_total(server) -> float:
    for line in httpx.get(server.http_url + "/metrics").text.splitlines():
        if line.startswith("voice_tts_audio_seconds_total "):
            return float(line.rpartition(" ")[2])
    return 0.0


async def start(ws, **settings) -> str:
    await ws.send(json.dumps({"type": "start", **settings}))
    started = await next_json(ws)
    assert started["type"] == "started", started
    await ws.send(json.dumps({"type": "text", "text": LONG}))
    return started["stream_id"]


async def first_audio(ws, result: TurnResult) -> None:
    while not result.audio:
        frame = await ws.recv()
        if isinstance(frame, bytes):
            result.audio.extend(frame)
        else:
            result.messages.append(json.loads(frame))


async def done_turn(ws, **settings) -> TurnResult:
    await start(ws, **settings)
    await ws.send(json.dumps({"type": "stop"}))
    return await receive_until_done(ws)


async def cancelled_turn(ws) -> TurnResult:
    await start(ws)
    result = TurnResult()
    await first_audio(ws, result)
    await ws.send(json.dumps({"type": "cancel", "played_ms": 300}))
    return await receive_until_done(ws, result)


async def paused_then_resumed_turn(ws) -> TurnResult:
    await start(ws)
    result = TurnResult()
    await first_audio(ws, result)
    await ws.send(json.dumps({"type": "pause"}))
    await asyncio.sleep(0.3)
    await ws.send(json.dumps({"type": "resume"}))
    await ws.send(json.dumps({"type": "stop"}))
    return await receive_until_done(ws, result)


async def paused_then_cancelled_turn(ws) -> TurnResult:
    await start(ws)
    result = TurnResult()
    await first_audio(ws, result)
    await ws.send(json.dumps({"type": "pause"}))
    await asyncio.sleep(0.3)
    await ws.send(json.dumps({"type": "cancel"}))
    return await receive_until_done(ws, result)


async def sped_up_turn(ws) -> TurnResult:
    await start(ws)
    result = TurnResult()
    await first_audio(ws, result)
    await ws.send(json.dumps({"type": "speed", "speed": 1.5}))
    await ws.send(json.dumps({"type": "stop"}))
    return await receive_until_done(ws, result)


async def failed_turn(ws) -> TurnResult:
    """A language the embedded voice does not speak: the engine stream fails, `done` follows."""
    return await done_turn(ws, language="klingon")


@pytest.mark.slow
async def test_done_the_usage_log_and_metrics_agree_for_every_ending(tmp_path):
    log = tmp_path / "usage.jsonl"
    server = start_server(usage_log=str(log))
    endings = [done_turn, cancelled_turn, paused_then_resumed_turn, paused_then_cancelled_turn, failed_turn]
    try:
        import pylibrb  # noqa: F401

        endings.append(sped_up_turn)
    except ImportError:
        pass
    try:
        results = {}
        async with ws_connect(server.ws_url) as ws:
            for ending in endings:
                results[ending.__name__] = await ending(ws)
        async with asyncio.timeout(10):
            while len(log.read_text().splitlines()) < len(endings):
                await asyncio.sleep(0.05)
        metric = audio_seconds_total(server)
    finally:
        server.stop()
    records = {r["stream_id"]: r for r in map(json.loads, log.read_text().splitlines())}
    assert results["failed_turn"].of_type("error")
    assert records[results["cancelled_turn"].done["stream_id"]]["outcome"] == "cancelled"
    for name, result in results.items():
        done, record = result.done, records[result.done["stream_id"]]
        usage = done["usage"]
        assert (record["characters_received"], record["characters_spoken"]) == (
            usage["characters_received"],
            usage["characters_spoken"],
        ), name
        assert record["audio_seconds"] == pytest.approx(usage["audio_seconds"], abs=1e-6), name
        assert usage["characters_spoken"] == len(done["heard_text"]), name
        if name in ("done_turn", "paused_then_resumed_turn", "sped_up_turn"):
            # Everything produced went out: the usage is the audio the client got.
            assert usage["audio_seconds"] == pytest.approx(len(result.audio) / 2 / 24000, abs=1e-6), name
            assert usage["characters_received"] == usage["characters_spoken"] == len(LONG), name
    assert metric == pytest.approx(sum(r["audio_seconds"] for r in records.values()), abs=1e-3)
