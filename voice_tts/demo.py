"""`make demo`: start `voice-tts serve` on the embedded voice, speak a paragraph through it
token by token into out.wav, print the timings and the word timeline, stop the server."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from voice_tts.audio import write_wav
from voice_tts.cli import print_report, speak_streaming
from voice_tts.client import RemoteEngine

PARAGRAPH = (
    "Hi! I'm your voice agent. While the language model is still writing this sentence, "
    "I'm already speaking it, word by word. Your order of 3 items, $42.50 in total, ships on "
    "May 5th. If you interrupt me, I will know exactly which words you heard."
)
OUTPUT = "out.wav"
READY_TIMEOUT_S = 120.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve_command(port: int) -> list[str]:
    """`voice-tts serve` as an operator runs it: the console script beside this Python."""
    script = Path(sys.executable).with_name("voice-tts")
    if not script.exists():
        found = shutil.which("voice-tts")
        script = Path(found) if found else None
    prefix = [str(script)] if script else [sys.executable, "-m", "voice_tts.cli"]
    return prefix + ["serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]


def wait_ready(base_url: str, server: subprocess.Popen) -> float:
    started = time.monotonic()
    while time.monotonic() - started < READY_TIMEOUT_S:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with status {server.returncode}")
        try:
            with urllib.request.urlopen(base_url + "/ready", timeout=2) as response:
                if response.status == 200:
                    return time.monotonic() - started
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)
    raise TimeoutError(f"the server was not ready after {READY_TIMEOUT_S:.0f} s")


async def speak_through(url: str) -> None:
    engine = RemoteEngine(url)
    try:
        result = await speak_streaming(engine, PARAGRAPH, tokens_per_second=30)
    finally:
        await engine.aclose()
    write_wav(OUTPUT, result.pcm, result.sample_rate)
    print_report(result, OUTPUT)
    if result.errors:
        raise RuntimeError("the turn reported errors")


def main() -> int:
    port = free_port()
    command = serve_command(port)
    print("$ " + " ".join(command))
    server = subprocess.Popen(command, env=dict(os.environ))
    try:
        ready_after = wait_ready(f"http://127.0.0.1:{port}", server)
        print(f"server ready after {ready_after:.1f} s (warm-up included)")
        url = f"ws://127.0.0.1:{port}/v1/ws"
        print(f"speaking through {url}, 30 LLM tokens per second:\n  {PARAGRAPH}\n")
        asyncio.run(speak_through(url))
    except (RuntimeError, TimeoutError) as exc:
        print(f"demo failed: {exc}", file=sys.stderr)
        return 1
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    print("server stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
