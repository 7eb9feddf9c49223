"""A fault inside the engine's loop, injected into a real server (embedded voice, 127.0.0.1):
the running turn ends with `engine_error`, `/health` says why, and the server stops with
status 70 for its supervisor to restart it (the engine does not recover in place)."""

from __future__ import annotations

import json
import time

import httpx
from server_harness import next_json, receive_until_done, start_server, ws_connect

from engine.backends.espeak import EmbeddedEngine
from engine.backends.espeak_scheduler import SynthesisScheduler
from engine.server.runner import EXIT_ENGINE_FAILED


def fail_inside_the_loop() -> None:
    raise RuntimeError("injected fault")


async def test_an_engine_loop_fault_fails_turns_shows_on_health_and_stops_the_server():
    scheduler = SynthesisScheduler()  # its own loop: the fault must not reach other tests
    server = start_server(EmbeddedEngine(scheduler=scheduler))
    try:
        async with ws_connect(server.ws_url) as ws:
            await ws.send(json.dumps({"type": "start"}))
            assert (await next_json(ws))["type"] == "started"
            await ws.send(json.dumps({"type": "text", "text": "A turn that is running when"}))
            # Not one stream's step (that stays the stream's own error): the loop itself.
            scheduler._next_job = fail_inside_the_loop
            scheduler.wake()
            deadline = time.monotonic() + 10
            while (health := httpx.get(server.http_url + "/health")).status_code == 200:
                assert time.monotonic() < deadline
                time.sleep(0.01)
            result = await receive_until_done(ws)
        assert health.status_code == 503
        assert health.json()["status"] == "failed" and "injected fault" in health.json()["detail"]
        errors = result.of_type("error")
        assert errors and errors[0]["code"] == "engine_error" and errors[0]["stream_id"]
        assert server.wait(timeout=30) == EXIT_ENGINE_FAILED
    finally:
        server.stop()
