"""Headless Chromium opens the Pipecat prebuilt client served by `agents/pipecat_agent.py`,
connects to the agent over WebRTC, and hears the bot.

Server and browser run in a private network namespace that has only loopback
(`unshare -n`), so every packet stays on 127.0.0.1. Inside it this file runs as a script: it
starts the agent the way users do (`pipecat_agent.py -t webrtc`), starts Chromium with
remote debugging, opens the prebuilt client, and reads WebRTC `inbound-rtp` audio statistics
over the DevTools protocol; the result is printed as JSON.

The prebuilt client's own Connect cannot work offline: its media manager loads Daily's call
machine from Daily's CDN when it connects (no package ships it). So the page connects the way
that client does, without it: `POST /start` for a session, then the SDP offer to
`/sessions/{id}/api/offer` through the runner's session route, with Chromium's own WebRTC and
its fake microphone.
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
HAS_CONNECT_BUTTON = """
[...document.querySelectorAll('button')].some(b => b.textContent.trim() === 'Connect')
"""
# The prebuilt client's SmallWebRTC flow: a session from /start, audio then video transceivers,
# the offer once ICE gathering is complete, the answer from the session's offer route.
CONNECT = """
(async () => {
  const post = async (url, body) => (await fetch(url, {
    method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body),
  })).json();
  const session = await post('/start', {transport: 'webrtc'});
  const microphone = await navigator.mediaDevices.getUserMedia({audio: true});
  const pc = new RTCPeerConnection();
  pc.addTransceiver(microphone.getAudioTracks()[0], {direction: 'sendrecv'});
  pc.addTransceiver('video', {direction: 'sendrecv'});
  const speaker = new Audio();
  pc.ontrack = event => {
    if (event.track.kind !== 'audio') return;
    speaker.srcObject = new MediaStream([event.track]);
    speaker.play();
  };
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise(resolve => {
    if (pc.iceGatheringState === 'complete') return resolve();
    pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve();
  });
  const answer = await post(`/sessions/${session.sessionId}/api/offer`,
                            {sdp: pc.localDescription.sdp, type: 'offer'});
  await pc.setRemoteDescription(answer);
  return session.sessionId;
})()
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


@pytest.mark.e2e
@pytest.mark.timeout(240)
def test_prebuilt_client_hears_the_bot(chromium, private_network):
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
        timeout=200,
        env=env,
        cwd=REPO_ROOT,
    )
    lines = [line for line in run.stdout.splitlines() if line.startswith(RESULT_PREFIX)]
    assert lines, f"no result (rc={run.returncode}):\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    result = json.loads(lines[-1][len(RESULT_PREFIX) :])
    assert "connected" in result["states"], result
    assert result["samples"] > 48000, result  # more than a second of bot audio received
    assert result["energy"] > 0, result  # ...and it is not silence


# ---------------------------------------------------------------------------------------------
# Inside the private network namespace
# ---------------------------------------------------------------------------------------------


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


async def hear_the_bot(agent_port: int, debug_port: int) -> dict:
    async with first_page(debug_port) as devtools:
        await devtools.call("Page.addScriptToEvaluateOnNewDocument", source=RECORD_PEER_CONNECTIONS)
        await devtools.call("Page.navigate", url=f"http://127.0.0.1:{agent_port}/client/")
        deadline = time.monotonic() + 30
        while not await devtools.evaluate(HAS_CONNECT_BUTTON):
            if time.monotonic() > deadline:
                raise TimeoutError("the prebuilt client did not render")
            await asyncio.sleep(0.5)
        await devtools.evaluate(CONNECT)
        deadline = time.monotonic() + 60
        stats = await devtools.evaluate(INBOUND_AUDIO)
        heard = lambda: stats["energy"] > 0 and stats["samples"] > 96000  # noqa: E731
        while time.monotonic() < deadline and not heard():
            await asyncio.sleep(0.5)
            stats = await devtools.evaluate(INBOUND_AUDIO)
        return stats


def main() -> None:
    agent_port, debug_port = free_port(), free_port()
    profile = tempfile.mkdtemp(prefix="chromium-e2e-")
    agent = start_agent(agent_port)
    browser = None
    try:
        wait_http(f"http://127.0.0.1:{agent_port}/client/", timeout=90)
        browser = start_chromium(debug_port, profile)
        wait_http(f"http://127.0.0.1:{debug_port}/json/version", timeout=60)
        result = asyncio.run(hear_the_bot(agent_port, debug_port))
        print(RESULT_PREFIX + json.dumps(result), flush=True)
    finally:
        for process in (browser, agent):
            stop(process)
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
