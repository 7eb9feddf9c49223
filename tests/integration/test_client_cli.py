"""`voice-tts speak/voices --url` against a real server, and `make demo`'s program end to end."""

from __future__ import annotations

import subprocess
import sys
import wave
from pathlib import Path

import pytest
from server_harness import start_server

from voice_tts.cli import main

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server():
    server = start_server(api_key="cli-key")
    yield server
    server.stop()


def test_speak_through_the_server(server, tmp_path, capsys):
    output = tmp_path / "remote.wav"
    status = main(
        [
            "speak",
            "Booked for 4 people at 7 pm.",
            "-o",
            str(output),
            "--url",
            server.ws_url,
            "--api-key",
            "cli-key",
            "--tokens-per-second",
            "200",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    with wave.open(str(output)) as wav:
        assert wav.getframerate() == 24000 and wav.getnframes() > 12000
    timeline = out.split("word timeline:")[1].split()
    assert "Booked" in timeline and "pm." in timeline


def test_voices_from_the_server(server, capsys):
    assert main(["voices", "--url", server.ws_url, "--api-key", "cli-key"]) == 0
    assert "default" in capsys.readouterr().out


def test_voices_without_the_key_is_one_clear_line(server, capsys):
    assert main(["voices", "--url", server.ws_url, "--api-key", "wrong"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("voice-tts: error:") and "403" in err and "Traceback" not in err


@pytest.mark.slow
def test_demo_serves_speaks_and_stops(tmp_path):
    """What `make demo` runs: a `voice-tts serve` subprocess, a paragraph, out.wav."""
    demo = subprocess.run(
        [sys.executable, "-m", "voice_tts.demo"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    for line in (
        "serve --host 127.0.0.1 --port",
        "server ready",
        "TTFA",
        "word timeline:",
        "server stopped",
    ):
        assert line in demo.stdout
    with wave.open(str(tmp_path / "out.wav")) as wav:
        assert wav.getnframes() / wav.getframerate() > 5.0
