"""Soak and abuse bench for the engine server (embedded voice, a real server process on
127.0.0.1): sequential turns, cancel storms, then a well-behaved client's first-audio latency
alone and beside abusive clients; prints the server's RSS, descriptor and thread growth.

    python bench/soak.py                      # the long run (figures in docs/benchmarks.md)
    python bench/soak.py --turns 50 --cancel-storms 2 --probe-turns 10 --flood 2000 \
        --non-readers 8 --idle 50             # a short run (what `make test` runs)

The abusers run in their own process, beside the server and the well-behaved client:
- non-readers: start a long turn and never read a byte (reconnecting when the server drops
  them; with `--waves S`, all of them start long turns on new sockets at the same instant every
  S seconds instead);
- idle sockets: connect and never start a turn (reconnecting when closed);
- a flood: one socket sending one-character `text` messages as fast as the server takes them.
The well-behaved client speaks one sentence per turn, all its text at once, and reads
everything; its TTFA is from sending the text to the first audio frame. It is probed alone and
beside the abusers for the same time (`--abused-seconds`, at least `--probe-turns` turns each),
so that both p99s come from about as many turns; each phase reports the CPU that other work on
the machine took meanwhile (`others_cpu_s_per_s`: on a shared machine a phase's p99 follows it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

SENTENCE = "Your order shipped this morning, and it should arrive on Thursday."
LONG_TEXT = "This answer goes on and on, far longer than anyone would listen to. " * 60


# --- the server process ----------------------------------------------------------------------


def serve(port: int, capacity: int) -> None:
    from engine import Engine
    from engine.server.app import create_app
    from engine.server.http_server import serve as run
    from engine.server.settings import ServerSettings

    settings = ServerSettings(port=port, capacity=capacity, log_level="warning")
    engine = Engine.embedded(capacity=capacity)
    run(create_app(engine, settings=settings), settings)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def process_stats(pid: int) -> dict:
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines())
    return {
        "rss_mb": round(int(fields["VmRSS"].split()[0]) / 1024, 1),
        "fds": len(os.listdir(f"/proc/{pid}/fd")),
        "threads": int(fields["Threads"]),
    }


def cpu_seconds(pid: int) -> dict:
    """CPU seconds (user + system) of the process's main thread (the server's event loop) and
    of its other threads (the embedded voice's synthesis thread among them)."""
    ticks = os.sysconf("SC_CLK_TCK")
    used = {"loop": 0.0, "other_threads": 0.0}
    for tid in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(FileNotFoundError):
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            seconds = (int(fields[11]) + int(fields[12])) / ticks
            used["loop" if int(tid) == pid else "other_threads"] += seconds
    return used


def others_cpu_seconds(pids: list[int]) -> float:
    """CPU seconds the machine has been busy (every process, /proc/stat) less those of `pids`
    (the bench's own processes): on a shared machine, what other work took."""
    ticks = os.sysconf("SC_CLK_TCK")
    user, nice, system, _idle, _iowait, irq, softirq = (
        int(f) for f in Path("/proc/stat").read_text().split()[1:8]
    )
    ours = 0
    for pid in pids:
        stat = Path(f"/proc/{pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2 :].split()
        ours += int(fields[11]) + int(fields[12])
    return (user + nice + system + irq + softirq - ours) / ticks


def wait_ready(url: str, timeout: float = 60.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(url + "/ready").status_code == 200:
                return
        time.sleep(0.1)
    raise TimeoutError("the server did not get ready")


def active_streams(url: str) -> int:
    import httpx

    return httpx.get(url + "/v1/capabilities").json()["active_streams"]


# --- well-behaved turns ----------------------------------------------------------------------


def connect(url: str):
    from websockets.asyncio.client import connect as ws_connect

    return ws_connect(url, max_size=None, compression=None, proxy=None, open_timeout=30)


async def well_behaved_turn(ws, cancel_after_audio: bool = False) -> dict:
    """One turn; `ttfa_ms` from sending the text to the first audio frame."""
    await ws.send(json.dumps({"type": "start"}))
    reply = json.loads(await ws.recv())
    if reply["type"] != "started":
        return {"error": reply.get("code", reply["type"])}
    began = time.perf_counter()
    await ws.send(json.dumps({"type": "text", "text": SENTENCE}))
    await ws.send(json.dumps({"type": "stop"}))
    ttfa, audio_bytes = None, 0
    while True:
        frame = await ws.recv()
        if isinstance(frame, bytes):
            if ttfa is None:
                ttfa = (time.perf_counter() - began) * 1000
                if cancel_after_audio:
                    await ws.send(json.dumps({"type": "cancel"}))
            audio_bytes += len(frame)
            continue
        message = json.loads(frame)
        if message["type"] == "done":
            usage = message["usage"]
            exact = usage["characters_spoken"] == len(message["heard_text"])
            return {"ttfa_ms": ttfa, "audio_bytes": audio_bytes, "usage_exact": exact}
        if message["type"] == "error" and message.get("stream_id"):
            return {"error": message["code"]}


async def sequential_turns(ws_url: str, count: int) -> list[dict]:
    results = []
    async with connect(ws_url) as ws:
        for _ in range(count):
            results.append(await well_behaved_turn(ws))
    return results


async def cancel_storms(ws_url: str, storms: int, width: int) -> list[dict]:
    """`storms` times: `width` sockets start a turn together and cancel at their first audio."""
    results = []
    sockets = [await connect(ws_url) for _ in range(width)]
    try:
        for _ in range(storms):
            results += await asyncio.gather(
                *(well_behaved_turn(ws, cancel_after_audio=True) for ws in sockets)
            )
    finally:
        await asyncio.gather(*(ws.close() for ws in sockets))
    return results


async def probe(ws_url: str, turns: int, pause_s: float, seconds: float = 0.0) -> list[dict]:
    """At least `turns` turns, and turns for at least `seconds`."""
    results = []
    began = time.monotonic()
    async with connect(ws_url) as ws:
        while len(results) < turns or time.monotonic() - began < seconds:
            results.append(await well_behaved_turn(ws))
            await asyncio.sleep(pause_s)
    return results


def summary(results: list[dict]) -> dict:
    ttfas = sorted(r["ttfa_ms"] for r in results if r.get("ttfa_ms") is not None)
    errors = [r["error"] for r in results if "error" in r]
    if not ttfas:
        return {"turns": len(results), "errors": errors}
    p99 = ttfas[min(len(ttfas) - 1, round(0.99 * (len(ttfas) - 1)))]
    return {
        "turns": len(results),
        "errors": errors,
        "usage_exact": all(r.get("usage_exact", True) for r in results),
        "ttfa_samples": len(ttfas),
        "ttfa_p50_ms": round(statistics.median(ttfas), 1),
        "ttfa_p99_ms": round(p99, 1),
        "ttfa_max_ms": round(ttfas[-1], 1),
        # The p99 of a few hundred turns is decided by its slowest few.
        "ttfa_slowest_ms": [round(t, 1) for t in ttfas[:-6:-1]],
    }


# --- the abusers (their own process) ---------------------------------------------------------


async def non_reader(ws_url: str, stop: asyncio.Event, counts: dict, comeback_s: float) -> None:
    """Starts a long turn and never reads; the server should drop it, then it comes back
    (at once, or after a random pause of up to `comeback_s`)."""
    from websockets.exceptions import ConnectionClosed

    while not stop.is_set():
        if counts["non_reader_turns"] and comeback_s:
            await asyncio.sleep(random.uniform(0, comeback_s))
        try:
            async with connect(ws_url) as ws:
                await ws.send(json.dumps({"type": "start"}))
                await ws.send(json.dumps({"type": "text", "text": LONG_TEXT}))
                await ws.send(json.dumps({"type": "stop"}))
                counts["non_reader_turns"] += 1
                # Never read: only notice when the server closes the socket.
                await ws.wait_closed()
                counts["non_readers_dropped"] += 1
        except (OSError, ConnectionClosed, TimeoutError):
            await asyncio.sleep(0.5)


async def non_reader_waves(
    ws_url: str, count: int, every_s: float, stop: asyncio.Event, counts: dict
) -> None:
    """Every `every_s` seconds, `count` non-readers start long turns at the same instant on
    new sockets; a socket still open from the previous wave is dropped by its client first."""
    from websockets.exceptions import ConnectionClosed

    async def start_turn():
        try:
            ws = await connect(ws_url)
            await ws.send(json.dumps({"type": "start"}))
            await ws.send(json.dumps({"type": "text", "text": LONG_TEXT}))
            await ws.send(json.dumps({"type": "stop"}))
        except (OSError, ConnectionClosed, TimeoutError):
            return None
        counts["non_reader_turns"] += 1
        return ws

    sockets: list = []
    while not stop.is_set():
        for ws in sockets:
            ws.transport.abort()
        sockets = [ws for ws in await asyncio.gather(*(start_turn() for _ in range(count))) if ws]
        counts["waves"] += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every_s)
    for ws in sockets:
        ws.transport.abort()


async def idle_socket(ws_url: str, stop: asyncio.Event, counts: dict) -> None:
    from websockets.exceptions import ConnectionClosed

    while not stop.is_set():
        try:
            async with connect(ws_url) as ws:
                counts["idle_open"] += 1
                await ws.wait_closed()
                counts["idle_open"] -= 1
        except (OSError, ConnectionClosed, TimeoutError):
            await asyncio.sleep(0.5)


async def flood(ws_url: str, messages: int, stop: asyncio.Event, counts: dict) -> None:
    """One socket, one turn, `messages` one-character text messages as fast as they go out;
    it reads (and drops) everything the server sends, so only the flood itself is abusive."""
    from websockets.exceptions import ConnectionClosed

    async with connect(ws_url) as ws:

        async def drain() -> None:
            with contextlib.suppress(ConnectionClosed):
                async for _ in ws:
                    pass

        reader = asyncio.create_task(drain())
        try:
            await ws.send(json.dumps({"type": "start"}))
            frame = json.dumps({"type": "text", "text": "a"})
            for _ in range(messages):
                if stop.is_set():
                    break
                await ws.send(frame)
                counts["flood_sent"] += 1
            await ws.send(json.dumps({"type": "stop"}))
        except ConnectionClosed:
            pass
        finally:
            reader.cancel()


async def abuse(
    ws_url: str, non_readers: int, idle: int, flood_messages: int, comeback_s: float, waves_s: float
) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    counts = {
        "non_reader_turns": 0, "non_readers_dropped": 0, "waves": 0, "idle_open": 0, "flood_sent": 0
    }
    if waves_s:
        tasks = [asyncio.create_task(non_reader_waves(ws_url, non_readers, waves_s, stop, counts))]
    else:
        tasks = [
            asyncio.create_task(non_reader(ws_url, stop, counts, comeback_s))
            for _ in range(non_readers)
        ]
    for _ in range(idle):
        tasks.append(asyncio.create_task(idle_socket(ws_url, stop, counts)))
        await asyncio.sleep(0.002)  # a connection storm, not a SYN flood the kernel drops
    if flood_messages:
        tasks.append(asyncio.create_task(flood(ws_url, flood_messages, stop, counts)))
    while counts["idle_open"] < idle or counts["non_reader_turns"] < non_readers:
        await asyncio.sleep(0.1)
    print("abusers ready", flush=True)
    await stop.wait()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps(counts), flush=True)


# --- the run ---------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict:
    port = free_port()
    url, ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/v1/ws"
    here = str(Path(__file__).resolve())
    server = subprocess.Popen(
        [sys.executable, here, "serve", "--port", str(port), "--capacity", str(args.capacity)]
    )
    abusers = None
    try:
        wait_ready(url)
        report: dict = {"conditions": conditions(args)}
        start = process_stats(server.pid)
        began = time.perf_counter()
        half = args.turns // 2
        first = asyncio.run(sequential_turns(ws_url, half))
        halfway = process_stats(server.pid)
        second = asyncio.run(sequential_turns(ws_url, args.turns - half))
        report["sequential"] = summary(first + second)
        report["sequential"]["seconds"] = round(time.perf_counter() - began, 1)
        # Growth once warm (caches filled, allocator settled): the second half of the turns.
        warm = process_stats(server.pid)
        report["sequential"]["rss_mb_per_1000_warm_turns"] = round(
            (warm["rss_mb"] - halfway["rss_mb"]) / max(1, args.turns - half) * 1000, 2
        )
        storms = asyncio.run(cancel_storms(ws_url, args.cancel_storms, args.storm_width))
        report["cancel_storms"] = summary(storms)
        after_turns = process_stats(server.pid)
        ours = [server.pid, os.getpid()]
        others, began = others_cpu_seconds(ours), time.monotonic()
        report["solo"] = summary(
            asyncio.run(probe(ws_url, args.probe_turns, args.pause, args.abused_seconds))
        )
        seconds = time.monotonic() - began
        report["solo"]["seconds"] = round(seconds, 1)
        report["solo"]["others_cpu_s_per_s"] = round((others_cpu_seconds(ours) - others) / seconds, 3)
        abusers = subprocess.Popen(
            [
                sys.executable, here, "abuse", "--url", ws_url,
                "--non-readers", str(args.non_readers), "--idle", str(args.idle),
                "--flood", str(args.flood), "--comeback", str(args.comeback),
                "--waves", str(args.waves),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert abusers.stdout.readline().strip() == "abusers ready"
        time.sleep(args.abuse_warmup)
        during = process_stats(server.pid)
        ours.append(abusers.pid)
        others, cpu_before, began = others_cpu_seconds(ours), cpu_seconds(server.pid), time.monotonic()
        abused = asyncio.run(probe(ws_url, args.probe_turns, args.pause, args.abused_seconds))
        cpu_after, seconds = cpu_seconds(server.pid), time.monotonic() - began
        others = (others_cpu_seconds(ours) - others) / seconds
        report["abused"] = summary(abused)
        report["abused"]["server_during"] = during
        # What the abusers cost the server, in CPU seconds per second of the probing.
        report["abused"]["server_cpu_s_per_s"] = {
            thread: round((cpu_after[thread] - cpu_before[thread]) / seconds, 3) for thread in cpu_after
        }
        report["abused"]["seconds"] = round(seconds, 1)
        report["abused"]["others_cpu_s_per_s"] = round(others, 3)
        abusers.send_signal(signal.SIGTERM)
        report["abusers"] = json.loads(abusers.communicate(timeout=60)[0].strip().splitlines()[-1])
        # Every slot the abusers held comes back once they are gone.
        deadline = time.monotonic() + 60
        while active_streams(url) and time.monotonic() < deadline:
            time.sleep(0.2)
        report["active_streams_after"] = active_streams(url)
        end = process_stats(server.pid)
        report["server"] = {"start": start, "after_turns": after_turns, "end": end}
        turns = args.turns + args.cancel_storms * args.storm_width
        report["server"]["rss_mb_per_1000_turns"] = round(
            (after_turns["rss_mb"] - start["rss_mb"]) / turns * 1000, 2
        )
        solo, abused = report["solo"].get("ttfa_p99_ms"), report["abused"].get("ttfa_p99_ms")
        if solo and abused:
            report["abused_over_solo_p99"] = round(abused / solo, 2)
            report["p99_samples"] = {
                "solo": report["solo"]["ttfa_samples"], "abused": report["abused"]["ttfa_samples"]
            }
        return report
    finally:
        if abusers is not None and abusers.poll() is None:
            abusers.kill()
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


def conditions(args: argparse.Namespace) -> dict:
    return {
        "machine": f"{os.cpu_count()} CPU cores, load average {os.getloadavg()[0]:.2f} at start",
        "engine": "embedded eSpeak NG",
        "capacity": args.capacity,
        "turns": args.turns,
        "cancel_storms": f"{args.cancel_storms} x {args.storm_width} sockets",
        "probe_turns": args.probe_turns,
        "non_readers": args.non_readers,
        "idle_sockets": args.idle,
        "flood_messages": args.flood,
        "abused_seconds": args.abused_seconds,
        "solo_seconds": args.abused_seconds,
        "non_reader_comeback_s": args.comeback,
        "non_reader_waves_s": args.waves,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command")
    served = commands.add_parser("serve")
    served.add_argument("--port", type=int, required=True)
    served.add_argument("--capacity", type=int, required=True)
    abusing = commands.add_parser("abuse")
    abusing.add_argument("--url", required=True)
    abusing.add_argument("--non-readers", type=int, required=True)
    abusing.add_argument("--idle", type=int, required=True)
    abusing.add_argument("--flood", type=int, required=True)
    abusing.add_argument("--comeback", type=float, required=True)
    abusing.add_argument("--waves", type=float, required=True)
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--cancel-storms", type=int, default=50)
    parser.add_argument("--storm-width", type=int, default=20)
    parser.add_argument("--probe-turns", type=int, default=100)
    parser.add_argument("--pause", type=float, default=0.1, help="seconds between probe turns")
    # Room for the 64 non-readers and the well-behaved client at once.
    parser.add_argument("--capacity", type=int, default=128)
    parser.add_argument("--non-readers", type=int, default=64)
    parser.add_argument("--idle", type=int, default=500)
    parser.add_argument("--flood", type=int, default=100_000)
    parser.add_argument(
        "--comeback", type=float, default=0.0,
        help="a dropped non-reader reconnects after a random pause up to this (0: all at once)",
    )
    parser.add_argument(
        "--waves", type=float, default=0.0,
        help="every this many seconds all non-readers start long turns at the same instant on"
        " new sockets (0: each comes back when the server drops it)",
    )
    parser.add_argument("--abuse-warmup", type=float, default=3.0)
    parser.add_argument(
        "--abused-seconds", type=float, default=40.0,
        help="keep probing alone, then beside the abusers, this long each (the abusers get"
        " dropped and come back)",
    )
    parser.add_argument("--out", help="write the report as JSON here too")
    args = parser.parse_args()
    if args.command == "serve":
        serve(args.port, args.capacity)
        return
    if args.command == "abuse":
        asyncio.run(
            abuse(args.url, args.non_readers, args.idle, args.flood, args.comeback, args.waves)
        )
        return
    report = run(args)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
