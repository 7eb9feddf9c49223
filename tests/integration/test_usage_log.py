"""The usage log against a real server: one flushed JSON line per stream, whatever its end,
and the same counts as `/metrics`."""

from __future__ import annotations

import asyncio
import json
import random

import httpx
import pytest
from server_harness import next_json, start_server, ws_connect

TURNS = 1000
SENTENCES = ["Hi.", "Yes, of course.", "It is 3 pm.", "Thanks, see you soon."]


def metric_samples(server, name: str) -> dict[tuple, float]:
    samples = {}
    for line in httpx.get(server.http_url + "/metrics").text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            key, _, value = line.rpartition(" ")
            samples[key] = float(value)
    return samples


async def one_turn(url: str, rng: random.Random) -> None:
    ending = rng.choice(["stop", "stop", "cancel", "kill"])
    async with ws_connect(url) as ws:
        await ws.send(json.dumps({"type": "start"}))
        await next_json(ws)  # started
        await ws.send(json.dumps({"type": "text", "text": rng.choice(SENTENCES)}))
        if ending == "kill":
            ws.transport.abort()
            return
        await ws.send(json.dumps({"type": ending}))
        async with asyncio.timeout(60):
            while True:
                frame = await ws.recv()
                if isinstance(frame, str) and json.loads(frame)["type"] == "done":
                    return


async def other_routes(server) -> None:
    """One HTTP speech request and one Realtime response: they are streams too."""
    speech = {"model": "tts-1", "voice": "alloy", "input": "Hi.", "response_format": "pcm"}
    async with httpx.AsyncClient() as client:
        response = await client.post(server.http_url + "/v1/audio/speech", json=speech)
        assert response.status_code == 200
    url = server.http_url.replace("http", "ws") + "/v1/realtime"
    async with ws_connect(url) as ws:
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi."}]}
        await ws.send(json.dumps({"type": "conversation.item.create", "item": item}))
        await ws.send(json.dumps({"type": "response.create"}))
        async with asyncio.timeout(60):
            while json.loads(await ws.recv())["type"] != "response.done":
                pass


@pytest.mark.slow
async def test_one_line_per_turn_matching_the_metrics(tmp_path):
    log = tmp_path / "usage.jsonl"
    server = start_server(usage_log=str(log))
    try:
        rng = random.Random(15)
        for _ in range(TURNS // 10):
            await asyncio.gather(*(one_turn(server.ws_url, rng) for _ in range(10)))
        await other_routes(server)
        async with asyncio.timeout(30):  # killed sockets' turns end on the server's side
            while metric_samples(server, "voice_tts_active_streams").get(
                "voice_tts_active_streams", 1
            ):
                await asyncio.sleep(0.05)
        records = [json.loads(line) for line in log.read_text().splitlines()]
        turns = metric_samples(server, "voice_tts_turns_total")
        audio = metric_samples(server, "voice_tts_audio_seconds_total")
    finally:
        server.stop()
    ws_records = [r for r in records if r["route"] == "ws"]
    assert len(ws_records) == TURNS
    assert len({r["stream_id"] for r in ws_records}) == TURNS
    outcomes = {r["outcome"] for r in ws_records}
    assert outcomes <= {"done", "cancelled"} and len(outcomes) == 2
    for record in records:
        key = f'voice_tts_turns_total{{outcome="{record["outcome"]}",route="{record["route"]}"}}'
        assert key in turns
    for key, count in turns.items():
        route = key.split('route="')[1].split('"')[0]
        outcome = key.split('outcome="')[1].split('"')[0]
        assert count == sum(1 for r in records if (r["route"], r["outcome"]) == (route, outcome))
    assert sum(r["audio_seconds"] for r in records) == pytest.approx(
        audio["voice_tts_audio_seconds_total"], abs=1e-3
    )
    done = [r for r in ws_records if r["outcome"] == "done"]
    assert all(r["characters_spoken"] == r["characters_received"] > 0 for r in done)
    assert all(r["ttfa_seconds"] is not None and r["audio_seconds"] > 0 for r in done)
    assert {r["api_key"] for r in records} == {None} and {r["voice"] for r in records} == {None}
    assert [(r["route"], r["outcome"]) for r in records if r["route"] != "ws"] == [
        ("http", "done"),
        ("realtime", "done"),
    ]
