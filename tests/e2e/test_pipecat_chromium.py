"""Headless Chromium opens the offline page served by `agents/pipecat_agent.py`, talks with the
bot over WebRTC, hears it, sees its words lit, and interrupts it by speaking.

Server and browser run in a private network namespace that has only loopback
(`unshare -n`), so every packet stays on 127.0.0.1 and nothing can come from the internet.
Inside it this file runs as a script: it starts the agent the way users do
(`pipecat_agent.py -t webrtc`), starts Chromium with remote debugging and a fake microphone
that plays a recording (silence, then a spoken sentence, in a loop), opens the page at `/`,
presses Connect, and reads WebRTC `inbound-rtp` audio statistics and the page's conversation
over the DevTools protocol; the result is printed as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from chromium_harness import first_page, free_port, start_chromium, stop, wait_http

REPO_ROOT = Path(__file__).resolve().parents[2]
AGENT = REPO_ROOT / "agents" / "pipecat_agent.py"
RESULT_PREFIX = "E2E-RESULT "
# The microphone: this long silent, then the sentence (the bot's greeting is still playing),
# then silent again until the loop starts over.
LEAD_SILENCE_S = 6.0
TAIL_SILENCE_S = 6.0
USER_SENTENCE = "Wait, hold on a second. I have a question about that."

# Keeps every RTCPeerConnection the page creates, so its statistics can be read.
RECORD_PEER_CONNECTIONS = """
(() => {
  const Native = window.RTCPeerConnection;
  window.__peerConnections = [];
  window.RTCPeerConnection = function (...args) {
    const pc = new Native(...args);
    window.__peerConnections.push(pc);
    return pc;
  };
  window.RTCPeerConnection.prototype = Native.prototype;
})();
"""
INBOUND_AUDIO = """
(async () => {
  const result = {energy: 0, samples: 0, states: []};
  for (const pc of window.__peerConnections) {
    result.states.push(pc.connectionState);
    (await pc.getStats()).forEach(report => {
      if (report.type === 'inbound-rtp' && report.kind === 'audio') {
        result.energy += report.totalAudioEnergy || 0;
        result.samples += report.totalSamplesReceived || 0;
      }
    });
  }
  return result;
})()
"""
REPLIES = """
[...document.querySelectorAll('#log li.bot')].map(li => ({
  text: li.textContent, spoken: li.dataset.spoken || '',
  interrupted: li.classList.contains('interrupted'),
}))
"""


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_offline_page_talks_with_the_bot(chromium, private_network):
    env = {k: v for k, v in os.environ.items() if k not in {"OPENAI_API_KEY", "VOICE_TTS_URL"}}
    run = subprocess.run(
        [
            "unshare",
            "-n",
            "bash",
            "-c",
            'ip link set lo up && exec "$0" "$1"',
            sys.executable,
            __file__,
        ],
        capture_output=True,
        text=True,
        timeout=260,
        env=env,
        cwd=REPO_ROOT,
    )
    lines = [line for line in run.stdout.splitlines() if line.startswith(RESULT_PREFIX)]
    assert lines, f"no result (rc={run.returncode}):\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    result = json.loads(lines[-1][len(RESULT_PREFIX) :])
    audio = result["audio"]
    assert "connected" in audio["states"], result
    assert audio["samples"] > 48000, result  # more than a second of bot audio received
    assert audio["energy"] > 0, result  # ...and it is not silence
    replies = result["replies"]
    assert replies, result
    # Words are lit in the order of the reply's text, and only words of it.
    for reply in replies:
        assert reply["text"].startswith(reply["spoken"]), reply
    assert any(reply["spoken"] for reply in replies), result
    # Speaking over the bot cut a reply short: part of it lit, the rest never played.
    cut = [reply for reply in replies if reply["interrupted"]]
    assert cut, result
    assert all(len(reply["spoken"]) < len(reply["text"].strip()) for reply in cut), result


# ---------------------------------------------------------------------------------------------
# Inside the private network namespace
# ---------------------------------------------------------------------------------------------


def write_microphone_recording(path: Path) -> None:
    """Silence, the user's sentence (spoken by the embedded voice), silence: 48 kHz WAV."""
    from engine import Engine
    from voice_tts.audio import write_wav
    from voice_tts.cli import speak_streaming

    async def speak() -> bytes:
        engine = Engine.embedded()
        try:
            result = await speak_streaming(
                engine, USER_SENTENCE, sample_rate=48000, tokens_per_second=1000
            )
        finally:
            await engine.aclose()
        return result.pcm

    speech = asyncio.run(speak())
    silence = lambda seconds: bytes(2 * int(48000 * seconds))  # noqa: E731
    write_wav(str(path), silence(LEAD_SILENCE_S) + speech + silence(TAIL_SILENCE_S), 48000)


def start_agent(port: int) -> subprocess.Popen:
    """The agent as users run it, with one change for loopback-only ICE: aioice leaves
    127.0.0.1 out of its host candidates, and this namespace has no other address."""
    launch = (
        "import runpy, sys, aioice.ice\n"
        "aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ['127.0.0.1']\n"
        f"sys.path.insert(0, {str(AGENT.parent)!r})\n"
        f"sys.argv = [{str(AGENT)!r}, '-t', 'webrtc', '--host', '127.0.0.1', '--port', '{port}']\n"
        f"runpy.run_path({str(AGENT)!r}, run_name='__main__')\n"
    )
    return subprocess.Popen([sys.executable, "-c", launch], cwd=REPO_ROOT)


async def talk_with_the_bot(agent_port: int, debug_port: int) -> dict:
    async with first_page(debug_port) as devtools:
        await devtools.call("Page.addScriptToEvaluateOnNewDocument", source=RECORD_PEER_CONNECTIONS)
        await devtools.call("Page.navigate", url=f"http://127.0.0.1:{agent_port}/")
        await devtools.wait_for("!!document.getElementById('connect')", 30, "the page")
        await devtools.evaluate("document.getElementById('connect').click(); true")
        deadline = time.monotonic() + 90
        while True:
            audio = await devtools.evaluate(INBOUND_AUDIO)
            replies = await devtools.evaluate(REPLIES)
            heard = audio["energy"] > 0 and audio["samples"] > 96000
            if heard and any(reply["interrupted"] for reply in replies):
                break
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.5)
        return {"audio": audio, "replies": replies}


def main() -> None:
    agent_port, debug_port = free_port(), free_port()
    profile = tempfile.mkdtemp(prefix="chromium-e2e-")
    microphone = Path(profile) / "microphone.wav"
    write_microphone_recording(microphone)
    agent = start_agent(agent_port)
    browser = None
    try:
        wait_http(f"http://127.0.0.1:{agent_port}/", timeout=90)
        browser = start_chromium(
            debug_port, profile, f"--use-file-for-fake-audio-capture={microphone}"
        )
        wait_http(f"http://127.0.0.1:{debug_port}/json/version", timeout=60)
        result = asyncio.run(talk_with_the_bot(agent_port, debug_port))
        print(RESULT_PREFIX + json.dumps(result), flush=True)
    finally:
        for process in (browser, agent):
            stop(process)
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
