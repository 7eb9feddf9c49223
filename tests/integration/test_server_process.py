"""`voice-tts serve` as its own process (embedded voice, 127.0.0.1): what only a real process
shows — its command line, its signals and its exit status."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

KEY = "file-kept-s3cret"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServeProcess:
    def __init__(self, *args: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/v1/ws"
        env = {k: v for k, v in os.environ.items() if k != "VOICE_TTS_API_KEY"}
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
