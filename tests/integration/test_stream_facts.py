"""One source per fact on a real server: a turn's `done` (a Realtime `response.done`), its
usage-log line and `/metrics` read the same usage (the stream's output pipeline), for turns that
end every way a turn can end."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from server_harness import TurnResult, next_json, receive_until_done, start_server, ws_connect

from engine.server.realtime import APPEND, COMMIT
from engine.server.realtime_response import OUTPUT_TOKENS_PER_SECOND

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


STOP = {"type": "stop"}
HOLD = None  # a pause of the client's, 0.3 s
# How each turn ends: the client's messages after the turn's first audio (a turn that starts
# with `stop` sends it at once), and the turn's settings.
ENDINGS = {
    "done": ([STOP], {}),
    "cancelled": ([{"type": "cancel", "played_ms": 300}], {}),
    "paused_then_resumed": ([{"type": "pause"}, HOLD, {"type": "resume"}, STOP], {}),
    "paused_then_cancelled": ([{"type": "pause"}, HOLD, {"type": "cancel"}], {}),
    "sped_up": ([{"type": "speed", "speed": 1.5}, STOP], {}),
    # A language the embedded voice does not speak: the engine stream fails, `done` follows.
    "failed": ([STOP], {"language": "klingon"}),
}


async def turn(ws, commands: list, settings: dict) -> TurnResult:
    await start(ws, **settings)
    result = TurnResult()
    if commands[0] is not STOP:
        await first_audio(ws, result)
    for command in commands:
        if command is HOLD:
            await asyncio.sleep(0.3)
        else:
            await ws.send(json.dumps(command))
    return await receive_until_done(ws, result)


async def realtime_response(url: str, cancel: bool) -> dict:
    """One Realtime response of LONG (cancelled at its first audio if `cancel`): its `response`."""
    async with ws_connect(url) as ws:
        await ws.send(json.dumps({"type": APPEND, "delta": LONG}))
        await ws.send(json.dumps({"type": COMMIT}))
        async with asyncio.timeout(60):
            while True:
                event = json.loads(await ws.recv())
                if cancel and event["type"] == "response.output_audio.delta":
                    await ws.send(json.dumps({"type": "response.cancel"}))
                    cancel = False
                if event["type"] == "response.done":
                    return event["response"]


@pytest.mark.slow
async def test_done_the_usage_log_and_metrics_agree_for_every_ending(tmp_path):
    log = tmp_path / "usage.jsonl"
    server = start_server(usage_log=str(log))
    endings = dict(ENDINGS)
    try:
        import pylibrb  # noqa: F401
    except ImportError:
        del endings["sped_up"]
    try:
        results = {}
        async with ws_connect(server.ws_url) as ws:
            for name, (commands, settings) in endings.items():
                results[name] = await turn(ws, commands, settings)
        realtime_url = server.http_url.replace("http", "ws") + "/v1/realtime"
        responses = [await realtime_response(realtime_url, cancel) for cancel in (False, True)]
        async with asyncio.timeout(10):
            while len(log.read_text().splitlines()) < len(endings) + len(responses):
                await asyncio.sleep(0.05)
        metric = audio_seconds_total(server)
    finally:
        server.stop()
    records = {r["stream_id"]: r for r in map(json.loads, log.read_text().splitlines())}
    assert results["failed"].of_type("error")
    assert records[results["cancelled"].done["stream_id"]]["outcome"] == "cancelled"
    for name, result in results.items():
        done, record = result.done, records[result.done["stream_id"]]
        usage = done["usage"]
        assert (record["characters_received"], record["characters_spoken"]) == (
            usage["characters_received"],
            usage["characters_spoken"],
        ), name
        assert record["audio_seconds"] == pytest.approx(usage["audio_seconds"], abs=1e-6), name
        assert usage["characters_spoken"] == len(done["heard_text"]), name
        if name in ("done", "paused_then_resumed", "sped_up"):
            # Everything produced went out: the usage is the audio the client got.
            assert usage["audio_seconds"] == pytest.approx(len(result.audio) / 2 / 24000, abs=1e-6), name
            assert usage["characters_received"] == usage["characters_spoken"] == len(LONG), name
    assert [response["status"] for response in responses] == ["completed", "cancelled"]
    for response in responses:
        record, usage = records[response["id"]], response["usage"]
        assert usage["input_tokens"] == record["characters_received"] == len(LONG)
        assert usage["output_tokens"] == round(record["audio_seconds"] * OUTPUT_TOKENS_PER_SECOND + 0.4999)
        transcript = response["output"][0]["content"][0]["transcript"]
        assert record["characters_spoken"] == len(transcript)
    assert metric == pytest.approx(sum(r["audio_seconds"] for r in records.values()), abs=1e-3)
