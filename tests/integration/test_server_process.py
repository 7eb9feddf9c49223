"""`voice-tts serve` as its own process (embedded voice, 127.0.0.1): what only a real process
shows — its command line, its signals and its exit status."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from hub_cache import lay_out_hub_cache
from server_harness import free_port, ws_connect

KEY = "file-kept-s3cret"




class ServeProcess:
    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/v1/ws"
        env = {k: v for k, v in os.environ.items() if k != "VOICE_TTS_API_KEY"} | (env or {})
        self.process = subprocess.Popen(
            [sys.executable, "-m", "voice_tts.cli", "serve", "--port", str(self.port), *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def wait_ready(self, headers: dict[str, str] | None = None, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.process.stdout.read()
            try:
                if httpx.get(self.url + "/ready", headers=headers).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise TimeoutError("the server did not get ready")

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.kill()
        output, _ = self.process.communicate(timeout=30)
        return output


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "key"
    path.write_text(KEY + "\n")
    path.chmod(0o600)
    return path


def test_the_key_from_a_file_is_not_on_the_command_line(key_file):
    server = ServeProcess("--api-key-file", str(key_file))
    try:
        server.wait_ready({"Authorization": f"Bearer {KEY}"})
        cmdline = Path(f"/proc/{server.process.pid}/cmdline").read_bytes()
        assert KEY.encode() not in cmdline
        assert httpx.get(server.url + "/v1/voices").status_code == 401
        bearer = {"Authorization": f"Bearer {KEY}"}
        assert httpx.get(server.url + "/v1/voices", headers=bearer).status_code == 200
    finally:
        server.stop()


def test_an_unreadable_key_file_is_a_clear_error(tmp_path):
    server = ServeProcess("--api-key-file", str(tmp_path / "missing"))
    assert server.process.wait(timeout=60) == 2
    assert "cannot read the API key file" in server.stop()


@pytest.mark.parametrize("model", [False, True], ids=["embedded", "qwen3"])
def test_max_streams_sets_the_capacity_the_server_reports(model, tiny_checkpoint):
    engine = ["--model", str(tiny_checkpoint), "--device", "cpu", "--max-context", "256"] if model else []
    server = ServeProcess(*engine, "--max-streams", "3")
    try:
        server.wait_ready(timeout=120)
        capabilities = httpx.get(server.url + "/v1/capabilities").json()
        assert capabilities["capacity"] == 3
        assert capabilities["backend"] == ("qwen3" if model else "espeak-ng")
    finally:
        server.stop()


async def test_settings_reach_the_server_from_flags_and_environment_variables():
    server = ServeProcess("--ws-idle-timeout-s", "0.5", env={"VOICE_TTS_MAX_TURN_TEXT_CHARS": "10"})
    try:
        server.wait_ready()
        async with ws_connect(server.ws_url) as ws:
            await ws.send(json.dumps({"type": "start"}))
            assert (await next_json(ws))["type"] == "started"
            await ws.send(json.dumps({"type": "text", "text": "More than ten characters."}))
            assert (await next_json(ws))["code"] == "text_too_long"
        async with ws_connect(server.ws_url) as idle:
            await asyncio.wait_for(idle.wait_closed(), 30)
            assert idle.close_code == 4408
    finally:
        server.stop()


HUB_ID = "voice-tts-tests/Qwen3-TTS-tiny-CustomVoice"


def test_a_hub_id_serves_offline_from_a_prepared_cache(tiny_checkpoint, tmp_path):
    lay_out_hub_cache(tmp_path, HUB_ID, tiny_checkpoint)
    offline = {"HF_HUB_CACHE": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    server = ServeProcess("--model", HUB_ID, "--device", "cpu", "--max-context", "256", "--max-streams", "2", env=offline)
    try:
        server.wait_ready(timeout=120)
        capabilities = httpx.get(server.url + "/v1/capabilities").json()
        assert (capabilities["backend"], capabilities["model"]) == ("qwen3", "Qwen3-TTS-12Hz-1.7B-CustomVoice")
        speech = httpx.post(
            server.url + "/v1/audio/speech",
            json={"model": "tts-1", "input": "Hello there.", "voice": "ryan", "response_format": "pcm"},
            timeout=60,
        )
        assert speech.status_code == 200 and len(speech.content) > 0
    finally:
        server.stop()


def test_a_hub_id_missing_offline_is_a_clear_error(tmp_path):
    offline = {"HF_HUB_CACHE": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    server = ServeProcess("--model", "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice", "--revision", "v2", env=offline)
    assert server.process.wait(timeout=60) == 2
    output = server.stop()
    assert "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice (revision v2): not in the Hugging Face cache" in output
    assert "HF_HUB_OFFLINE is set" in output and "Traceback" not in output


async def next_json(ws) -> dict:
    while isinstance(frame := await asyncio.wait_for(ws.recv(), 30), bytes):
        pass
    return json.loads(frame)


async def test_sigterm_drains_running_turns_then_exits_0():
    server = ServeProcess("--drain-timeout-s", "30")
    try:
        server.wait_ready()
        async with ws_connect(server.ws_url) as ws, ws_connect(server.ws_url) as late:
            await ws.send(json.dumps({"type": "start"}))
            assert (await next_json(ws))["type"] == "started"
            await ws.send(json.dumps({"type": "text", "text": "A turn that is running "}))
            server.process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 10
            while httpx.get(server.url + "/ready").status_code != 503:
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
            await late.send(json.dumps({"type": "start"}))
            refused = await next_json(late)
            assert refused["code"] == "shutting_down" and refused["retryable"] is True
            # The running turn is not cut: it takes more text and finishes normally.
            await ws.send(json.dumps({"type": "text", "text": "when the server is told to stop."}))
            await ws.send(json.dumps({"type": "stop"}))
            done = await next_json(ws)
            while done["type"] != "done":
                done = await next_json(ws)
        assert done["cancelled"] is False and done.get("reason") is None
        assert done["heard_text"] == "A turn that is running when the server is told to stop."
        assert server.process.wait(timeout=30) == 0
        assert "engine closed" in server.stop()
    finally:
        server.stop()


async def test_turns_still_running_at_the_drain_timeout_end_with_shutdown():
    server = ServeProcess("--drain-timeout-s", "1")
    try:
        server.wait_ready()
        async with ws_connect(server.ws_url) as ws:
            await ws.send(json.dumps({"type": "start"}))
            assert (await next_json(ws))["type"] == "started"
            await ws.send(json.dumps({"type": "text", "text": "Text that never gets its end"}))
            server.process.send_signal(signal.SIGINT)
            done = await next_json(ws)
            while done["type"] != "done":
                done = await next_json(ws)
        assert done["reason"] == "shutdown" and done["cancelled"] is True
        assert server.process.wait(timeout=30) == 0
    finally:
        server.stop()
