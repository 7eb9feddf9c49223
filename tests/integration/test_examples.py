"""The examples run as users run them, and write the speech they promise."""

from __future__ import annotations

import os
import subprocess
import sys
import wave
from pathlib import Path

import pytest
from server_harness import start_server, wait_ready

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def server():
    server = start_server()
    wait_ready(server)
    yield server
    server.stop()


def run_example(name: str, *args: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def speech_seconds(path: Path) -> float:
    with wave.open(str(path)) as wav:
        return wav.getnframes() / wav.getframerate()


def test_pipecat_to_wav(tmp_path):
    out = tmp_path / "out.wav"
    printed = run_example("pipecat_to_wav.py", str(out))
    assert speech_seconds(out) > 2.0
    assert "then!" in printed  # the word timeline reaches the last word


def test_pipecat_remote_engine(server, tmp_path):
    out = tmp_path / "out.wav"
    printed = run_example("pipecat_remote_engine.py", str(out), server.ws_url)
    assert speech_seconds(out) > 2.0 and server.ws_url in printed


def test_livekit_plugin_alone(tmp_path):
    out = tmp_path / "out.wav"
    env = {"VOICE_TTS_URL": ""}
    printed = run_example("livekit_plugin_alone.py", str(out), env=env)
    assert speech_seconds(out) > 1.0
    assert "transcript: The meeting moved to 3:30 pm on May 4th. See you there!\n" in printed


def test_openai_sdk_speaks_through_speech_sse_and_realtime(server, tmp_path):
    speech, realtime = tmp_path / "speech.pcm", tmp_path / "realtime.pcm"
    printed = run_example(
        "openai_sdk.py", server.http_url + "/v1", str(speech), str(realtime)
    )
    assert speech.stat().st_size > 2 * 24000 * 2  # over two seconds of audio
    assert realtime.stat().st_size > speech.stat().st_size
    assert "speech usage: {'input_tokens'" in printed
    assert "Tokens stream in as the model writes them." in printed
    assert printed.count("realtime response completed") == 2


def test_clone_voice(base_checkpoint, tmp_path):
    out, voices = tmp_path / "cloned.wav", tmp_path / "voices"
    args = (str(base_checkpoint), str(base_checkpoint / "golden" / "ref_c.wav"), "A calm voice reads a short line.",
            str(out), "--voices-dir", str(voices))
    first = run_example("clone_voice.py", *args)
    assert "made voice me (icl)" in first and speech_seconds(out) > 0.5
    again = run_example("clone_voice.py", *args)  # the stored voice is reused
    assert "made voice" not in again and "in voice me" in again
