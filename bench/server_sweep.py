"""The engine in-process and the same engine behind `voice-tts serve`, swept over the same levels
on one machine in one run: `NAME.json` (+ `NAME.png`, both curves on one figure).

    python bench/server_sweep.py CHECKPOINT --out-dir OUT [--name h200-server-latest]
        [--levels 1 64 128 256 512 768 1024] [--device cuda:0] [--clients-per-process 128]
        [--engine-args "--quick --batches 1 --profile-codec 0"] [--work-dir /tmp/server_sweep]
        [--parts engine server ready] [--text-file bench/agent_replies.txt] [--max-frames-per-text-token 4]
    python bench/server_sweep.py CHECKPOINT --out-dir OUT --merge RUN.json ... (runs of parts or level
        ranges, one device call each, as one NAME.json + .png)

1. In-process: bench/engine_bench.py on CHECKPOINT at the levels (its own conditions: voice
   "ryan", its text at 30 tokens/s, `--frames` frames per stream).
2. `voice-tts serve --model CHECKPOINT --max-streams <top level> --max-context ROWS` (`--max-context`, default 512) on
   127.0.0.1, until `/ready`.
3. One stream through the server with engine_bench's deltas (its text cut at token boundaries,
   30 tokens/s) and normalization off; TTFA from the push that commits the first text token,
   as engine_bench measures it. `one_stream` puts it beside engine_bench's one-stream TTFA p50.
4. `voice-tts bench` at the levels: short replies (`SERVER_TEXTS`, normalized by the server),
   voice "ryan", 2 turns per client, the clients over ceil(top level / clients-per-process)
   client processes, each process's CPU reported.
5. The server is stopped (SIGTERM: it drains) and the results merged: `levels` are
   `voice-tts bench`'s, `in_process_levels` engine_bench's.

`--parts ready` measures `/ready` twice before anything else: a first start with the server's
`--cache-dir` emptied (`ready_seconds_first_start`) and a restart that finds what the first kept
(`ready_seconds_restart`); each start's log (its phases, `engine started in ...`) is kept.

Random weights never sample the end token, so no turn ends by itself: an in-process stream ends
at `--frames` frames (engine_bench's max_new_tokens), a server turn at the engine's runaway guard,
max(min_frame_cap, max_frames_per_text_token x its text tokens) frames; the short replies make a
server turn about as long as an in-process stream (the conditions say how long they were).
Every step is bounded, and the JSON is written after each, so a run cut short keeps what it
measured.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from engine_bench import TOKENS_PER_SECOND, tokenizer_commit_piece, tokenizer_pieces  # noqa: E402

from engine.model.config import read_config  # noqa: E402
from engine.model.text import TextTokenizer  # noqa: E402
from engine.runtime.loop import LoopSettings  # noqa: E402
from voice_tts.bench.deltas import push_at_pace  # noqa: E402
from voice_tts.bench.sweep import read_texts  # noqa: E402
from voice_tts.client import RemoteEngine  # noqa: E402
from voice_tts.protocol import AudioChunk, Done, Error  # noqa: E402

# Replies of 5 to 10 text tokens once normalized (numbers spoken): a turn of 75 to 150 frames,
# 6 to 12 s of audio, near engine_bench's 100 frames per stream.
SERVER_TEXTS = ("Sure, done.", "See you at 7.", "Call me at 3.", "Sure thing!")
VOICE, LANGUAGE = "ryan", "english"
MAX_CONTEXT = 512  # engine_bench's default: the same KV per stream in both (--max-context)
ONE_STREAM_TURNS = 5
SERVER_START_LIMIT_S = 300.0
SERVER_STOP_LIMIT_S = 60.0
PARTS = ("engine", "server", "ready")
GAUGE_PERIOD_S = 0.5
GAUGES = {  # /metrics name: the sample's key
    "voice_tts_active_streams": "active_streams",
    "voice_tts_engine_iteration_ms": "iteration_ms",
    "voice_tts_engine_max_streams_estimate": "max_streams_estimate",
    "voice_tts_engine_realtime_headroom": "realtime_headroom",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--name", default="h200-server-latest")
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/server_sweep"))
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 64, 128, 256, 512, 768, 1024])
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--turns", type=int, default=2, help="turns per client and level")
    parser.add_argument("--spread", type=float, default=1.0, help="seconds over which a level's clients start")
    parser.add_argument("--clients-per-process", type=int, default=128)
    parser.add_argument("--engine-args", default="--quick --batches 1 --profile-codec 0")
    parser.add_argument("--engine-limit", type=float, default=240.0, help="seconds for engine_bench")
    parser.add_argument(
        "--parts", nargs="+", choices=PARTS, default=["engine", "server"],
        help="what this run measures: engine_bench in-process, the server sweep, and/or the server's time to "
        "/ready on a first start (empty --cache-dir) and a restart (one device call each keeps every call short)",
    )
    parser.add_argument("--text-file", type=Path, help="the server turns' texts, one per paragraph (default SERVER_TEXTS)")
    parser.add_argument(
        "--max-frames-per-text-token", type=float,
        help="the server's runaway guard (`serve --max-frames-per-text-token`; default the server's)",
    )
    parser.add_argument(
        "--max-context", type=int, default=MAX_CONTEXT,
        help="talker rows per stream, in-process and in the server: with the top level it sizes the KV cache",
    )
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/voice-tts-cache"), help="the server's --cache-dir")
    parser.add_argument(
        "--profile", type=Path,
        help="run the swept server under py-spy (`record --subprocesses --threads`, raw stacks into this file): "
        "where the engine core's and the API workers' CPU goes under the load (py-spy must be on PATH)",
    )
    parser.add_argument(
        "--merge", type=Path, nargs="+",
        help="instead of measuring: merge these runs' JSON (one per part or level range) into NAME.json and .png",
    )
    args = parser.parse_args()
    if args.merge:
        args.out_dir.mkdir(parents=True, exist_ok=True)
        merged = merge_runs([json.loads(path.read_text()) for path in args.merge])
        (args.out_dir / f"{args.name}.json").write_text(json.dumps(merged, indent=1))
        plot_both(merged, args.out_dir / f"{args.name}.png")
        print(summary(merged), flush=True)
        return
    args.out_dir.mkdir(parents=True, exist_ok=True)
    args.work_dir.mkdir(parents=True, exist_ok=True)
    # Killed from outside (`timeout`): the finally blocks stop the server and the benchmarks,
    # which run in sessions of their own, and write what was measured.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    sweep = ServerSweep(args)
    sweep.run()


class ServerSweep:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.json_path = args.out_dir / f"{args.name}.json"
        self.png_path = args.out_dir / f"{args.name}.png"
        self.processes = math.ceil(max(args.levels) / args.clients_per_process)
        self.texts = read_texts(args.text_file) if args.text_file else SERVER_TEXTS
        loop = LoopSettings()
        self.results: dict = {
            "conditions": {
                "checkpoint": str(args.checkpoint),
                "device": args.device,
                "levels": args.levels,
                "voice": VOICE,
                "language": LANGUAGE,
                "max_context": args.max_context,
                "server_texts": list(self.texts),
                "max_frames_per_text_token": args.max_frames_per_text_token or loop.max_frames_per_text_token,
                "client_processes": self.processes,
                "ttfa_from": (
                    "in-process: the push that commits a stream's first text token (engine_bench); "
                    "through the server: the first text delta the client sends, the server normalizing"
                ),
                "turn_end": (
                    "random weights never sample the end token: an in-process stream ends at "
                    "engine_bench's --frames frames; a server turn at the engine's runaway guard, "
                    f"max({loop.min_frame_cap}, {args.max_frames_per_text_token or loop.max_frames_per_text_token:g} x its text "
                    "tokens) frames (audio per turn: server_audio_seconds_per_turn)"
                ),
            },
        }

    def save(self) -> None:
        self.json_path.write_text(json.dumps(self.results, indent=1))

    def run(self) -> None:
        parts = self.args.parts
        try:
            if "ready" in parts:
                self.measure_ready()
            if "engine" in parts:
                self.run_engine_bench()
            server = self.start_server(profile=self.args.profile) if "server" in parts else None
            if server is not None:
                try:
                    self.results["one_stream"] = asyncio.run(self.one_stream())
                    self.save()
                    self.run_server_bench(server.pid)
                finally:
                    self.stop_server(server)
        finally:
            self.save()
            plot_both(self.results, self.png_path)
            print(summary(self.results), flush=True)

    # -- 1. in-process ------------------------------------------------------------------

    def run_engine_bench(self) -> None:
        args = self.args
        out = args.work_dir / "engine_bench.json"
        command = [
            sys.executable, "-X", "faulthandler", str(REPO_ROOT / "bench" / "engine_bench.py"),
            str(args.checkpoint), "--device", args.device, "--max-context", str(args.max_context),
            "--concurrency", *map(str, args.levels), *shlex.split(args.engine_args),
            "--out", str(out),
        ]
        self.results["conditions"]["in_process_command"] = shlex.join(command[1:])
        code = run_bounded(command, args.out_dir / "engine_bench.log", args.engine_limit)
        if not out.is_file():
            self.results["in_process_error"] = f"engine_bench.py exited {code} and wrote nothing"
            self.save()
            return
        engine = json.loads(out.read_text())
        self.results["conditions"]["in_process"] = engine.get("conditions", {})
        self.results["in_process_levels"] = engine.get("concurrency", [])
        self.results["in_process_load_seconds"] = engine.get("load_seconds")
        self.results["in_process_warm_up_seconds"] = engine.get("warm_up_seconds")
        if code != 0:
            self.results["in_process_error"] = f"engine_bench.py exited {code}"
        self.save()

    # -- 2. the server ------------------------------------------------------------------

    def measure_ready(self) -> None:
        """Seconds from `voice-tts serve` to `/ready`: on a first start (its --cache-dir emptied)
        and on a restart that finds what the first one kept; the server's own log of its phases
        is kept beside them."""
        shutil.rmtree(self.args.cache_dir, ignore_errors=True)
        for start in ("first_start", "restart"):
            server = self.start_server(log_name=f"server_{start}.log", quiet=False)
            if server is None:
                return
            self.results[f"ready_seconds_{start}"] = self.results.pop("server_start_seconds")
            self.results[f"ready_phases_{start}"] = startup_phases((self.args.out_dir / f"server_{start}.log").read_text(errors="replace"))
            print(f"ready_seconds_{start}: {self.results[f'ready_seconds_{start}']}", self.results[f"ready_phases_{start}"], flush=True)
            self.stop_server(server)
            self.save()

    def start_server(
        self, log_name: str = "server.log", quiet: bool = True, profile: Path | None = None
    ) -> subprocess.Popen | None:
        args = self.args
        command = [
            sys.executable, "-m", "voice_tts.cli", "serve", "--model", str(args.checkpoint),
            "--device", args.device, "--port", str(args.port), "--max-streams", str(max(args.levels)),
            "--max-context", str(args.max_context), "--log-level", "warning" if quiet else "info",
            "--cache-dir", str(args.cache_dir),
        ]
        if args.max_frames_per_text_token is not None:
            command += ["--max-frames-per-text-token", str(args.max_frames_per_text_token)]
        self.results["conditions"]["server_command"] = shlex.join(command[1:])
        if profile is not None:  # the core and workers are py-spy's descendants: it may read them
            command = [
                shutil.which("py-spy") or "py-spy", "record", "--subprocesses", "--threads", "--nonblocking",
                "--rate", "100", "--format", "raw", "-o", str(profile), "--", *command,
            ]
        log = open(args.out_dir / log_name, "wb")
        began = time.perf_counter()
        server = subprocess.Popen(
            command, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = began + SERVER_START_LIMIT_S
        try:
            while time.perf_counter() < deadline:
                if server.poll() is not None:
                    self.results["server_error"] = f"voice-tts serve exited {server.returncode} before /ready"
                    return None
                if http_ok(f"http://127.0.0.1:{args.port}/ready"):
                    self.results["server_start_seconds"] = round(time.perf_counter() - began, 1)
                    return server
                time.sleep(0.5)
            self.results["server_error"] = f"voice-tts serve not ready within {SERVER_START_LIMIT_S:g} s"
        except BaseException:
            self.stop_server(server)  # killed while it started: it must not outlive the run
            raise
        self.stop_server(server)
        return None

    def stop_server(self, server: subprocess.Popen) -> None:
        if server.poll() is None:
            # SIGINT: the server drains on it as on SIGTERM (running turns finish, then it exits),
            # and py-spy (--profile) writes its stacks on it alone, leaving the server in its session.
            server.send_signal(signal.SIGINT)
            try:
                server.wait(SERVER_STOP_LIMIT_S)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        try:
            os.killpg(server.pid, signal.SIGTERM)  # what py-spy left running
        except ProcessLookupError:
            pass
        self.results["server_exit_status"] = server.returncode

    # -- 3. one stream, the in-process deltas ---------------------------------------------

    async def one_stream(self) -> dict:
        checkpoint = self.args.checkpoint
        tokenizer = TextTokenizer(checkpoint, read_config(checkpoint))
        pieces = tokenizer_pieces(tokenizer)
        commit_at = tokenizer_commit_piece(tokenizer, pieces)
        engine = RemoteEngine(f"ws://127.0.0.1:{self.args.port}/v1/ws")
        try:
            # The first turn of the voice fills its prefix (engine_bench leaves it out too).
            await first_audio_ms(engine, pieces, commit_at)
            runs = [await first_audio_ms(engine, pieces, commit_at) for _ in range(ONE_STREAM_TURNS)]
        finally:
            await engine.aclose()
        measured = [run for run in runs if run is not None]
        in_process = next((level for level in self.results.get("in_process_levels", []) if level.get("concurrency") == 1), {})
        engine_ttfa = in_process.get("ttfa_ms_p50")
        server_ttfa = round(statistics.median(measured), 2) if measured else None
        return {
            "engine_ttfa_ms": engine_ttfa,
            "server_ttfa_ms": server_ttfa,
            "server_added_ms": round(server_ttfa - engine_ttfa, 2) if None not in (server_ttfa, engine_ttfa) else None,
            "server_ttfa_ms_runs": [None if run is None else round(run, 2) for run in runs],
            "deltas": f"engine_bench's text cut at token boundaries ({len(pieces)} pieces) at {TOKENS_PER_SECOND:g} tokens/s, "
            "normalize off; TTFA from the push that commits the first text token to the first audio; "
            "the server's: the median of its turns after a first one",
        }

    # -- 4. the server sweep --------------------------------------------------------------

    def run_server_bench(self, server_pid: int) -> None:
        args = self.args
        texts = args.work_dir / "server_texts.txt"
        texts.write_text("\n\n".join(self.texts))
        out = args.work_dir / "server_bench.json"
        command = [
            sys.executable, "-m", "voice_tts.cli", "bench", "--url", f"ws://127.0.0.1:{args.port}/v1/ws",
            "--concurrency", *map(str, args.levels), "--turns", str(args.turns), "--spread", str(args.spread),
            "--server-pid", str(server_pid), "--voice", VOICE, "--language", LANGUAGE, "--text-file", str(texts),
            "--processes", str(self.processes), "--turn-timeout", "60",
            "--out", str(out), "--plot", str(args.work_dir / "server_bench.png"),
        ]
        self.results["conditions"]["server_bench_command"] = shlex.join(command[1:])
        # Each level: every client's turns, each within the turn timeout.
        limit = len(args.levels) * (args.turns * 60 + 30)
        gauges = EngineGauges(f"http://127.0.0.1:{args.port}/metrics")
        gauges.start()
        try:
            code = run_bounded(command, args.out_dir / "server_bench.log", limit)
        finally:
            self.results["engine_gauges"] = gauges.stop()
        if not out.is_file():
            self.results["server_bench_error"] = f"voice-tts bench exited {code} and wrote nothing"
            return
        bench = json.loads(out.read_text())
        self.results["conditions"]["server_bench"] = bench["conditions"]
        self.results["levels"] = bench["levels"]
        served = [level for level in bench["levels"] if level["completed"]]
        if served:
            self.results["server_audio_seconds_per_turn"] = round(
                served[0]["audio_seconds_total"] / served[0]["completed"], 2
            )
        if code != 0:
            self.results["server_bench_error"] = f"voice-tts bench exited {code}"


class EngineGauges(threading.Thread):
    """The engine's own gauges (iteration time, headroom, streams) scraped from /metrics every
    `GAUGE_PERIOD_S` while the server bench runs: what the loop did through a level's burst of
    openings and after it, beside what the clients measured."""

    def __init__(self, url: str) -> None:
        super().__init__(name="engine-gauges", daemon=True)
        self.url = url
        self.samples: list[dict] = []
        self._done = threading.Event()

    def run(self) -> None:
        began = time.perf_counter()
        while not self._done.wait(GAUGE_PERIOD_S):
            try:
                with urllib.request.urlopen(self.url, timeout=GAUGE_PERIOD_S) as response:
                    text = response.read().decode()
            except OSError:
                continue  # a scrape that lands while a worker is busy: the next one tells
            sample = {"t": round(time.perf_counter() - began, 2)}
            for line in text.splitlines():
                name, _, value = line.partition(" ")
                if name in GAUGES:
                    sample[GAUGES[name]] = float(value)
            self.samples.append(sample)

    def stop(self) -> list[dict]:
        self._done.set()
        self.join()
        return self.samples


async def first_audio_ms(engine: RemoteEngine, pieces: list[str], commit_at: int) -> float | None:
    """One turn with `pieces` pushed at engine_bench's pace; ms from the push of piece
    `commit_at` to the first audio. The turn is cancelled once audio came (only its start
    is measured)."""
    stream = engine.open_stream(voice=VOICE, language=LANGUAGE, normalize=False)
    committed_at: float | None = None

    def pushed(index: int) -> None:
        nonlocal committed_at
        if index == commit_at:
            committed_at = time.perf_counter()

    feeder = asyncio.create_task(push_at_pace(stream, pieces, TOKENS_PER_SECOND, pushed))
    ttfa = None
    try:
        async with asyncio.timeout(60):
            async for event in stream.events():
                if isinstance(event, AudioChunk) and ttfa is None and committed_at is not None:
                    ttfa = (time.perf_counter() - committed_at) * 1e3
                    feeder.cancel()
                    stream.cancel()
                elif isinstance(event, Error):
                    print(f"one stream: {event.code}: {event.message}", flush=True)
                elif isinstance(event, Done):
                    break
    finally:
        feeder.cancel()
    return ttfa


def run_bounded(command: list[str], log_path: Path, limit: float) -> int | None:
    """Run `command` with its output in `log_path`; killed (with its children) after `limit`
    seconds. The exit status, None when killed."""
    print(f"$ {shlex.join(command[1:])}", flush=True)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            return process.wait(limit)
        except subprocess.TimeoutExpired:
            print(f"killed after {limit:g} s: {log_path.name}", flush=True)
            return None
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def startup_phases(log: str) -> dict[str, float]:
    """The engine's start-up phases from a server log's `engine started in T s: phase S s, ...`
    line (seconds by phase; {} without one)."""
    match = re.search(r"engine started in [0-9.]+ s: (.*)", log)
    if match is None:
        return {}
    return {name: float(seconds) for name, seconds in re.findall(r"(\w+) ([0-9.]+) s", match[1])}


def http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def merge_runs(runs: list[dict]) -> dict:
    """Runs of parts or level ranges as one result: conditions and figures of the later run win,
    levels are joined by concurrency (a level measured twice: the later run's)."""
    merged: dict = {"conditions": {}}
    for run in runs:
        for key, value in run.items():
            if key == "conditions":
                merged["conditions"] |= value
            elif key in ("levels", "in_process_levels"):
                levels = {level.get("concurrency"): level for level in merged.get(key, [])}
                levels |= {level.get("concurrency"): level for level in value}
                merged[key] = sorted(levels.values(), key=lambda level: level.get("concurrency") or 0)
            else:
                merged[key] = value
    merged["conditions"]["levels"] = sorted(
        {level.get("concurrency") for key in ("levels", "in_process_levels") for level in merged.get(key, [])} - {None}
    )
    return merged


def plot_both(results: dict, path: Path) -> None:
    """TTFA p50/p99 and streams with underruns against streams, in-process and through the
    server, and the in-process loop's host ms per iteration against streams, on one figure."""
    from matplotlib.figure import Figure

    curves = (("in-process engine", results.get("in_process_levels") or []), ("through voice-tts serve", results.get("levels") or []))
    figure = Figure(figsize=(16, 4.4), layout="constrained")
    ttfa_axes, late_axes, host_axes = figure.subplots(1, 3)
    hosted = [level for level in curves[0][1] if level.get("host_ms_per_iteration") is not None]
    if hosted:
        streams = [level["concurrency"] for level in hosted]
        host_axes.plot(streams, [level["host_ms_per_iteration"] for level in hosted], "o-", color="tab:blue", label="host")
        host_axes.plot(streams, [level["loop_ms_per_iteration"] for level in hosted], "s--", color="tab:gray", label="whole iteration")
    for (label, levels), color in zip(curves, ("tab:blue", "tab:red")):
        levels = [level for level in levels if level.get("ttfa_ms_p50") is not None]
        if not levels:
            continue
        streams = [level["concurrency"] for level in levels]
        ttfa_axes.plot(streams, [level["ttfa_ms_p50"] for level in levels], "o-", color=color, label=f"{label}: p50")
        ttfa_axes.plot(streams, [level["ttfa_ms_p99"] for level in levels], "s--", color=color, label=f"{label}: p99")
        late_axes.plot(streams, [level["streams_with_underruns"] for level in levels], "o-", color=color, label=label)
    ttfa_axes.set(xlabel="concurrent streams", ylabel="ms", title="time to first audio")
    late_axes.set(xlabel="concurrent streams", ylabel="streams (turns)", title="with underruns (real-time playout)")
    host_axes.set(xlabel="concurrent streams", ylabel="ms per busy iteration", title="in-process loop: host work")
    levels = results["conditions"]["levels"]
    for axes in (ttfa_axes, late_axes, host_axes):
        axes.set_ylim(bottom=0)
        if len(levels) > 1:
            axes.set_xscale("log", base=2)
            axes.set_xticks(levels, [str(level) for level in levels])
        axes.grid(alpha=0.3)
        if axes.lines:  # a run cut short may have no curve yet
            axes.legend(fontsize="small")
    one = results.get("one_stream", {})
    figure.suptitle(
        f"{results['conditions'].get('in_process', {}).get('model', 'Qwen3-TTS')} on {results['conditions']['device']}: "
        f"one stream {one.get('engine_ttfa_ms')} ms in-process, {one.get('server_ttfa_ms')} ms through the server"
    )
    figure.savefig(path, format="png", dpi=100)


def summary(results: dict) -> str:
    lines = [json.dumps({key: results.get(key) for key in ("one_stream", "ready_seconds_first_start", "ready_seconds_restart")})]
    errors = {key: value for key, value in results.items() if key.endswith("_error")}
    if errors:
        lines.append(json.dumps(errors))
    keys = ("concurrency", "ttfa_ms_p50", "ttfa_ms_p99", "streams_with_underruns")
    for level in results.get("in_process_levels") or []:
        lines.append("in-process " + json.dumps({key: level.get(key) for key in keys + ("streams", "host_ms_per_iteration")}))
    for level in results.get("levels") or []:
        server_keys = keys + ("turns", "completed", "capacity_refusals", "errors", "errors_by_code", "wall_seconds")
        busiest = max((p["cpu_percent_of_wall"] or 0 for p in level["client_processes"]), default=None)
        lines.append("server " + json.dumps({**{key: level.get(key) for key in server_keys}, "client_cpu_max_percent": busiest}))
    return "\n".join(lines)


if __name__ == "__main__":
    main()
