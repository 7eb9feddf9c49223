"""API-worker CPU per stream: what one `voice-tts serve` worker spends on each stream per 80 ms
frame, by stage, against a core that costs nothing.

    python bench/worker_cpu.py [--streams 32 64 128] [--seconds 20] [--client-processes 1]
        [--out bench/results/worker_cpu.json]

Three kinds of process, as `voice-tts serve` runs them:
- a fake-fast engine core: the real `EngineCore` (engine/core/engine_core.py: its channel, its
  batched message per iteration per worker) over `FastEngine`, whose loop takes one text token
  per stream every 80 ms and answers it with that frame's audio (1,920 samples of silence) and
  its progress, and ends a stream once its input ended and every token was spoken; no model, so
  the worker is the only thing being measured;
- one real API worker (`engine.server.workers.run_worker`: the app, `CoreClient`, uvicorn), the
  process measured;
- client processes: each stream a native /v1/ws socket speaking agent replies
  (bench/agent_replies.txt) turn after turn, `normalize: true`, LLM deltas
  (`voice_tts.bench.deltas.llm_deltas`) at 30 per second, reading every frame and message.

Per level: the worker's CPU time (/proc, user + system) over a window of `--seconds` once every
stream is speaking, divided by the stream-frames it delivered in the window (audio bytes the
clients received / one frame's bytes): `worker_us_per_stream_frame`. py-spy samples the worker
meanwhile; each sample is put in one stage by the innermost frame of the project's code or the
library it is in (`stages_percent`): normalization (voice_tts/tn), text tokens (text_feed,
tokenizers), the output pipeline (voice_tts/stream_output, progress, words), the turn
(engine/server/turn.py and the session side), socket framing and sending (websockets, sender,
websocket.py), the core channel (engine/core: decoding the core's messages, posting
commands), and the event loop itself (asyncio, uvicorn).

`implied`: what the per-stream figure means for a host: at 2,048 streams over W workers, each
worker's share of one core is streams/W × µs / 80,000.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import multiprocessing
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TINY = Path(os.environ.get("VOICE_TTS_SHARED", REPO.parent / "shared")) / "fixtures" / "qwen3-tts-tiny-customvoice"
REPLIES = REPO / "bench" / "agent_replies.txt"
FRAME_S = 0.08
SAMPLE_RATE = 24000
FRAME_SAMPLES = int(SAMPLE_RATE * FRAME_S)
FRAME_BYTES = FRAME_SAMPLES * 2
DELTAS_PER_SECOND = 30.0
PY_SPY = Path(sys.executable).with_name("py-spy")


# ---- the fake-fast core ------------------------------------------------------------------------


@dataclass
class FastStream:
    channel: object
    tokens: list = field(default_factory=list)
    spoken: int = 0  # tokens spoken
    ended: bool = False
    samples: int = 0


class FastLoop:
    """The step loop's inbox and iteration hook, over a loop that only counts tokens."""

    def __init__(self, engine: FastEngine) -> None:
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()
        self.on_iteration_end = lambda: None
        self._engine = engine

    def run(self) -> None:
        from engine.runtime.stream import CancelCommand, StreamEnd, TextCommand
        from voice_tts.protocol import AudioChunk, Progress

        streams = self._engine.streams
        silence = bytes(FRAME_BYTES)
        began = time.monotonic()
        iteration = 0
        while True:
            while True:
                try:
                    command = self.inbox.get_nowait()
                except queue.Empty:
                    break
                stream = streams.get(command.stream_id)
                if stream is None:
                    continue
                if isinstance(command, TextCommand):
                    stream.tokens.extend(command.tokens)
                    stream.ended = stream.ended or command.ended
                elif isinstance(command, CancelCommand):
                    del streams[command.stream_id]
                    stream.channel.put(StreamEnd(cancelled=True, reason="cancelled"))
            for stream_id, stream in list(streams.items()):
                if stream.spoken < len(stream.tokens):
                    token = stream.tokens[stream.spoken]
                    stream.spoken += 1
                    chunk = AudioChunk(silence, SAMPLE_RATE, stream.samples)
                    stream.samples += FRAME_SAMPLES
                    stream.channel.put_many((Progress(token.spoken_end, stream.samples / SAMPLE_RATE), chunk))
                elif stream.ended:
                    del streams[stream_id]
                    stream.channel.put(StreamEnd(cancelled=False, reason="eos"))
            self.on_iteration_end()
            iteration += 1
            time.sleep(max(0.0, began + iteration * FRAME_S - time.monotonic()))


class FastEngine:
    """What `EngineCore` needs of an engine, with `FastLoop` as its loop (see the module)."""

    backend = "qwen3"
    model_name = "fake-fast"
    features = ("streaming_text_input", "word_progress", "cancel", "continuous_batching")
    voice_cloning = None
    unavailable_voices = ()
    failure = None

    def __init__(self, capacity: int) -> None:
        from types import SimpleNamespace

        from engine.model.text import OFFICIAL_SPLIT
        from voice_tts.protocol import VoiceInfo

        self.capacity = capacity
        self.voices = (VoiceInfo(name="ryan", description="fake", gender="male", language="english", mode=None),)
        self.languages = ("auto", "english")
        self.model = SimpleNamespace(tokenizer=SimpleNamespace(split_pattern=OFFICIAL_SPLIT))
        self.settings = SimpleNamespace(loop=SimpleNamespace(max_unread_samples=10 * SAMPLE_RATE))
        self.streams: dict[int, FastStream] = {}
        self._next_id = 0
        self.loop = FastLoop(self)
        threading.Thread(target=self.loop.run, name="fast-loop", daemon=True).start()

    @property
    def active_streams(self) -> int:
        return len(self.streams)

    def headroom(self) -> dict:
        return {"admission": "slots", "iteration_ms": None, "streams_per_iteration": None,
                "realtime_headroom": None, "max_streams_estimate": None}

    def admit(self, channel, request, stream_limit=None):
        from voice_tts.protocol import Error, ErrorCode

        if len(self.streams) >= min(self.capacity, stream_limit or self.capacity):
            return Error(ErrorCode.CAPACITY, "full", True)
        self._next_id += 1
        self.streams[self._next_id] = FastStream(channel)
        return self._next_id

    def close(self) -> None:
        pass


def run_fast_core(connection, started, capacity: int) -> None:
    from engine.core.engine_core import EngineCore

    os.setpgrp()
    started.send(("ready", 0.0))
    started.close()
    EngineCore(FastEngine(capacity), str(TINY), [connection]).run()


# ---- the clients -------------------------------------------------------------------------------


def client_process(url: str, streams: int, stop_at: float, spread: float, report) -> None:
    asyncio.run(_clients(url, streams, stop_at, spread, report))


async def _clients(url: str, streams: int, stop_at: float, spread: float, report) -> None:
    from websockets.asyncio.client import connect

    from voice_tts.bench.deltas import llm_deltas

    replies = [r.strip() for r in REPLIES.read_text().split("\n\n") if r.strip()]
    received = collections.Counter()

    async def one(index: int) -> None:
        await asyncio.sleep(spread * index / max(1, streams))
        async with connect(url, max_size=None, open_timeout=60, compression=None) as ws:  # as RemoteEngine
            turn = index
            while time.time() < stop_at:
                deltas = llm_deltas(replies[turn % len(replies)])
                turn += 1
                await ws.send(json.dumps({"type": "start", "voice": "ryan", "normalize": True}))

                async def send() -> None:
                    began = time.perf_counter()
                    for i, delta in enumerate(deltas):
                        delay = began + i / DELTAS_PER_SECOND - time.perf_counter()
                        if delay > 0:
                            await asyncio.sleep(delay)
                        await ws.send(json.dumps({"type": "text", "text": delta}))
                    await ws.send(json.dumps({"type": "stop"}))

                sender = asyncio.ensure_future(send())
                while True:
                    frame = await ws.recv()
                    if isinstance(frame, bytes):
                        received[int(time.time() * 10)] += len(frame)
                    elif json.loads(frame)["type"] in ("done", "error"):
                        break
                await sender

    results = await asyncio.gather(*(one(i) for i in range(streams)), return_exceptions=True)
    errors = [repr(r) for r in results if isinstance(r, BaseException)]
    report.put({"bytes_by_tenth": dict(received), "errors": errors[:5], "error_count": len(errors)})


# ---- measuring ---------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


STAGES = (
    ("normalization", ("voice_tts/tn/",)),
    ("text_tokens", ("text_feed.py", "tokenizers", "engine/model/text.py")),
    ("output_pipeline", ("voice_tts/stream_output.py", "voice_tts/progress.py", "voice_tts/turn_text.py", "voice_tts/speed.py")),
    ("turn", ("engine/server/turn.py", "engine/runtime/stream.py", "voice_tts/protocol.py", "engine/event_channel.py")),
    ("socket_framing_sending", ("websockets/", "engine/server/sender.py", "engine/server/websocket.py", "engine/server/ws_protocol.py", "engine/server/encoders.py")),
    ("core_channel", ("engine/core/",)),
    ("json_pydantic", ("json/", "pydantic")),
    ("event_loop", ("asyncio/", "uvicorn/", "selectors.py")),
)


IDLE_LEAVES = ("Runner.run (asyncio/runners.py", "(idle)", "_exit_with_parent (engine/server/workers.py", "select (selectors.py", "Condition.wait (threading.py",
               "Connection._recv (multiprocessing/connection.py", "SimpleQueue.get", "Event.wait (threading.py")


def stage_of(stack: str) -> str:
    """The stage of one collapsed py-spy stack: the innermost frame that names one."""
    for frame in reversed(stack.split(";")):
        for stage, marks in STAGES:
            if any(mark in frame for mark in marks):
                return stage
    return "other"


def profile_stages(raw: str) -> tuple[dict, list]:
    by_stage: collections.Counter = collections.Counter()
    by_function: collections.Counter = collections.Counter()
    total = 0
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        leaf = stack.split(";")[-1]
        # Waiting: uvloop's run loop is C, so its epoll wait shows as `Runner.run` (with the
        # loop's own C work, which is small); threads waiting on a condition or a pipe.
        if any(mark in leaf for mark in IDLE_LEAVES):
            continue
        total += n
        by_stage[stage_of(stack)] += n
        by_function[stack.split(";")[-1].strip()] += n
    percent = {stage: round(100 * n / total, 1) for stage, n in by_stage.most_common()} if total else {}
    top = [(fn, round(100 * n / total, 1)) for fn, n in by_function.most_common(15)] if total else []
    return percent, top


def measure_level(streams: int, args) -> dict:
    from engine.server.settings import ServerSettings
    from engine.server.workers import WorkerOptions, listening_socket, run_worker

    context = multiprocessing.get_context("spawn")
    listener = listening_socket("127.0.0.1", 0)
    port = listener.getsockname()[1]
    core_end, worker_end = context.Pipe()
    started, started_by_core = context.Pipe(duplex=False)
    core = context.Process(target=run_fast_core, args=(core_end, started_by_core, 4 * streams + 8), daemon=True)
    core.start()
    core_end.close()
    started_by_core.close()
    started.recv()
    relay_dir = tempfile.mkdtemp(prefix="worker-cpu-relay-")
    metrics_dir = tempfile.mkdtemp(prefix="worker-cpu-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    settings = ServerSettings(
        host="127.0.0.1", port=port, log_level="warning", resume_relay_dir=relay_dir,
        max_connections=8 * streams + 64,
    )
    worker = context.Process(target=run_worker, args=(WorkerOptions(settings, None, 0), worker_end, listener), daemon=True)
    worker.start()
    worker_end.close()
    listener.close()
    url = f"ws://127.0.0.1:{port}/v1/ws"
    _wait_ready(port)
    spread = min(5.0, 0.02 * streams)
    warm = spread + 4.0
    began = time.time()
    stop_at = began + warm + args.seconds + 2.0
    report = context.Queue()
    per_process = [streams // args.client_processes + (i < streams % args.client_processes) for i in range(args.client_processes)]
    clients = [context.Process(target=client_process, args=(url, n, stop_at, spread, report), daemon=True) for n in per_process]
    for client in clients:
        client.start()
    time.sleep(max(0.0, began + warm - time.time()))
    window_start = time.time()
    cpu_before = cpu_seconds(worker.pid)
    profile = None
    if args.profile and PY_SPY.exists():
        out = tempfile.mktemp(suffix=".txt")
        profile = subprocess.Popen(
            [str(PY_SPY), "record", "--pid", str(worker.pid), "--duration", str(int(args.seconds)), "--rate", "250",
             "--format", "raw", "--nonblocking", "-o", out],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
    time.sleep(args.seconds)
    cpu = cpu_seconds(worker.pid) - cpu_before
    window_end = time.time()
    stages, top = ({}, [])
    if profile is not None:
        profile.wait(timeout=60)
        stages, top = profile_stages(Path(out).read_text())
        Path(out).unlink(missing_ok=True)
    reports = [report.get(timeout=120) for _ in clients]
    for client in clients:
        client.join(30)
    worker.terminate()
    worker.join(30)
    core.join(10)
    if core.is_alive():
        core.kill()
    shutil.rmtree(relay_dir, ignore_errors=True)
    shutil.rmtree(metrics_dir, ignore_errors=True)
    audio = sum(
        n for r in reports for tenth, n in r["bytes_by_tenth"].items()
        if window_start * 10 <= int(tenth) < window_end * 10
    )
    frames = audio / FRAME_BYTES
    window = window_end - window_start
    us = cpu / frames * 1e6 if frames else None
    return {
        "streams": streams,
        "window_s": round(window, 2),
        "worker_cpu_s": round(cpu, 3),
        "worker_cpu_percent": round(100 * cpu / window, 1),
        "stream_frames_delivered": round(frames),
        "stream_frames_expected": round(streams * window / FRAME_S),
        "worker_us_per_stream_frame": None if us is None else round(us, 1),
        "stages_percent": stages,
        "top_functions_percent": top,
        "client_errors": sum(r["error_count"] for r in reports),
        "client_error_samples": [e for r in reports for e in r["errors"]][:5],
        "load_average": os.getloadavg(),
    }


def _wait_ready(port: int) -> None:
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/ready", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError("the worker did not get ready")


def implied(us: float, streams: int = 2048) -> dict:
    """Each worker's share of a core at `streams`, for worker counts a 16-core host may run."""
    return {
        str(workers): round(100 * streams / workers * us / (FRAME_S * 1e6), 1)
        for workers in (4, 6, 8, 12, 14)
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, nargs="+", default=[32, 64, 128])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--client-processes", type=int, default=1)
    parser.add_argument("--no-profile", dest="profile", action="store_false")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "worker_cpu.json")
    args = parser.parse_args()
    levels = []
    for streams in args.streams:
        level = measure_level(streams, args)
        print(json.dumps(level), flush=True)
        levels.append(level)
    measured = [level["worker_us_per_stream_frame"] for level in levels if level["worker_us_per_stream_frame"]]
    results = {
        "conditions": {
            "machine": f"{os.cpu_count()} CPU cores, shared (load average in each level)",
            "core": "fake-fast (FastEngine in the real EngineCore: one token a frame, 80 ms of silence)",
            "worker": "one real API worker (engine.server.workers.run_worker), CoreClient, uvicorn",
            "clients": f"{args.client_processes} client process(es); native /v1/ws without compression (as RemoteEngine), normalize true, "
                       "bench/agent_replies.txt in LLM deltas at 30/s, turn after turn",
            "tokenizer": f"the tiny fixture's ({TINY.name})",
            "profile": "py-spy record --rate 250 --nonblocking over the window" if args.profile else None,
            "command": "python bench/worker_cpu.py " + " ".join(sys.argv[1:]),
        },
        "levels": levels,
        "implied_worker_percent_at_2048_streams_by_workers": implied(max(measured)) if measured else None,
    }
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
