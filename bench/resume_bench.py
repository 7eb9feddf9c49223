"""How long a listener waits when a turn is resumed: after its socket is cut mid-turn
(reconnect-resume, `RemoteEngine` on its own) and after a duplex `pause` → `resume`.

One engine server with the embedded voice on 127.0.0.1; the client reaches it through a TCP
relay that the bench cuts (both sides reset, as a lost network does). Per turn: the longest wait
for audio in the caller's hands from the cut (or the `resume()` call) to the end of the turn,
against the same measure on unbroken turns from the same point, and whether the turn's audio
is byte-identical to an unbroken one. Results go to bench/results/resume.json;
docs/benchmarks.md quotes them.

    .venv/bin/python bench/resume_bench.py --turns 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration"))

from server_harness import TcpProxy, start_server  # noqa: E402

from voice_tts.client import RemoteEngine  # noqa: E402
from voice_tts.protocol import AudioChunk  # noqa: E402
from voice_tts.session import TTSSession  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "resume.json"
TEXT = (
    "This reply keeps going for a while, so that the listener can interrupt it somewhere. "
    "It goes on in the middle, long before the speaker reaches the end of what it wanted to say."
)
HALF_SECOND = 24000  # bytes of 24 kHz s16le


async def one_turn(engine, act) -> tuple[bytes, float]:
    """A whole turn; `act(session)` runs once half a second of audio is in and returns the
    moment from which waits are measured. Returns the audio and the longest wait for a chunk
    from that moment to the end."""
    session = TTSSession(engine)
    session.push_text(TEXT)
    session.end_input()
    audio, last, longest = bytearray(), None, 0.0
    async for event in session.events():
        if not isinstance(event, AudioChunk):
            continue
        now = time.perf_counter()
        if last is not None:
            longest = max(longest, now - last)
            last = now
        audio += event.pcm
        if last is None and len(audio) >= HALF_SECOND:
            last = await act(session)
    return bytes(audio), longest


async def nothing(session) -> float:
    return time.perf_counter()


def summary(gaps: list[float]) -> dict:
    ms = sorted(g * 1000 for g in gaps)
    return {
        "turns": len(ms),
        "p50_ms": round(statistics.median(ms), 1),
        "p95_ms": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 1),
        "max_ms": round(ms[-1], 1),
    }


async def repeated(engine, act, turns: int, reference: bytes) -> dict:
    """`turns` turns with `act` in each: their longest waits, and how many gave `reference`'s audio."""
    gaps, identical = [], 0
    for _ in range(turns):
        audio, gap = await one_turn(engine, act)
        gaps.append(gap)
        identical += audio == reference
    return {**summary(gaps), "byte_identical": identical}


async def measure(turns: int, server) -> dict:
    direct = RemoteEngine(server.ws_url)
    reference, _ = await one_turn(direct, nothing)
    unbroken_gaps = [(await one_turn(direct, nothing))[1] for _ in range(turns)]

    async def pause_then_resume(session):
        session.pause()
        await asyncio.sleep(0.3)
        session.resume()
        return time.perf_counter()

    pause_resume = await repeated(direct, pause_then_resume, turns, reference)
    await direct.aclose()

    async with TcpProxy(server.port) as proxy:
        relayed = RemoteEngine(proxy.ws_url, resume_budget=10)

        async def cut(session):
            proxy.cut()
            return time.perf_counter()

        reconnect_resume = await repeated(relayed, cut, turns, reference)
        await relayed.aclose()
    return {
        "unbroken": summary(unbroken_gaps),
        "reconnect_resume": reconnect_resume,
        "pause_resume": pause_resume,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20)
    args = parser.parse_args()
    server = start_server()
    try:
        results = asyncio.run(measure(args.turns, server))
    finally:
        server.stop()
    results["conditions"] = {
        "server": "voice-tts serve, embedded eSpeak NG voice, 127.0.0.1, through a TCP relay",
        "client": "TTSSession over RemoteEngine (resume_budget=10 s), one turn at a time",
        "text": f"{len(TEXT)} characters, whole text at once; act after 0.5 s of audio",
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, python {platform.python_version()}",
        "command": "python bench/resume_bench.py --turns %d" % args.turns,
    }
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
