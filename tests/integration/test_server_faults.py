"""A fault inside the engine's loop, injected into a real server process (embedded voice,
127.0.0.1): the running turn ends with `engine_error`, `/health` says why, and the process exits
with status 70 for its supervisor to restart it (the engine does not recover in place).

The server runs in its own process (this file run as a script): libespeak-ng is one per
process, so a second synthesis loop must not share the test process with the others."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import httpx
from server_harness import free_port, next_json, receive_until_done, ws_connect

from engine.server.http_server import EXIT_ENGINE_FAILED


def serve_with_a_fault_on_sigusr1(port: int) -> int:
    from engine.backends.espeak import EmbeddedEngine
    from engine.backends.espeak_scheduler import SynthesisScheduler
    from engine.server.app import create_app
    from engine.server.http_server import serve
    from engine.server.settings import ServerSettings

    scheduler = SynthesisScheduler()

    def fail_inside_the_loop() -> None:
        raise RuntimeError("injected fault")

    def inject(*_) -> None:
        # Not one stream's step (that stays the stream's own error): the loop itself.
        scheduler._next_job = fail_inside_the_loop
        scheduler.wake()

    signal.signal(signal.SIGUSR1, inject)
    settings = ServerSettings(port=port, log_level="warning")
    return serve(create_app(EmbeddedEngine(scheduler=scheduler), settings=settings), settings)


async def test_an_engine_loop_fault_fails_turns_shows_on_health_and_exits_70():
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen([sys.executable, __file__, str(port)])
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None and time.monotonic() < deadline
            try:
                if httpx.get(url + "/ready").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        async with ws_connect(f"ws://127.0.0.1:{port}/v1/ws") as ws:
            await ws.send(json.dumps({"type": "start"}))
            assert (await next_json(ws))["type"] == "started"
            await ws.send(json.dumps({"type": "text", "text": "A turn that is running when"}))
            process.send_signal(signal.SIGUSR1)
            deadline = time.monotonic() + 10
            while (health := httpx.get(url + "/health")).status_code == 200:
                assert time.monotonic() < deadline
                time.sleep(0.01)
            result = await receive_until_done(ws)
        assert health.status_code == 503
        assert health.json()["status"] == "failed" and "injected fault" in health.json()["detail"]
        errors = result.of_type("error")
        assert errors and errors[0]["code"] == "engine_error" and errors[0]["stream_id"]
        assert process.wait(timeout=30) == EXIT_ENGINE_FAILED
    finally:
        if process.poll() is None:
            process.kill()


if __name__ == "__main__":
    sys.exit(serve_with_a_fault_on_sigusr1(int(sys.argv[1])))
