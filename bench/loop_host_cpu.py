"""The step loop's own host work per iteration on a CPU, apart from the model's: the tiny fixture
with many streams, and the same on another tree in the same run (before/after side by side).

    python bench/loop_host_cpu.py [--streams 64 256 1024] [--frames 40] [--old-tree DIR] [--out results.json]

On a CPU the frame step, the prefix fills and the codec run inside the loop's own calls (there is
no device to wait for), so the loop's iteration time is mostly the model's. This bench times
every call into the model's work (`ModelRunner` launch/finish/fill/start, `Vocoder` decode and
resets) and subtracts it from each busy iteration, both in wall time and in the loop thread's CPU
time (which a machine busy with other work does not inflate): what remains is the host work the loop adds per
iteration (scheduling, step inputs, chunk choice, taking frames, stop checks, posting), the part
that does not shrink on a faster device. Streams: all opened at once, each with the whole reply
pushed and ended (engine_bench's agent reply), greedy (the model's work is not what is measured,
and greedy keeps it short), `--frames` frames each (max_new_tokens), torch on one thread, the loop sized to the level (`max_streams`).
Figures are from the second of two rounds (the first one fills the voice prefix and warms up).
`--old-tree` runs the same measurement with another tree's `engine` and `voice_tts` (e.g.
`git archive main | tar -x -C /tmp/old`) in a subprocess, one level after the other in turn.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

GREEDY = None  # set in `measure` (after the tree's engine is importable)
FIXTURE = Path(os.environ.get("VOICE_TTS_SHARED", "/work/shared")) / "fixtures" / "qwen3-tts-tiny-customvoice"
TEXT = (
    "Thanks for calling. Your order shipped this morning and should arrive on Friday; I can also text "
    "you the tracking link if that helps."
)
MODEL_CALLS = {
    "engine.runtime.runner.ModelRunner": ("launch_step", "finish_step", "fill_prefix", "fill_tail", "start_streams"),
    "engine.runtime.vocoder.Vocoder": ("decode_async", "apply_resets"),
}


class ModelTime:
    """Seconds spent inside the model's calls since the iteration began, and the loop thread's CPU
    seconds (`time.thread_time`: what the loop's thread itself ran, whatever else the machine ran
    meanwhile), read by each counted iteration."""

    def __init__(self) -> None:
        self.seconds = self.cpu = self.began_cpu = 0.0
        # streams stepped, iteration s, model s, iteration CPU s, model CPU s
        self.iterations: list[tuple[int, float, float, float, float]] = []
        import importlib

        for path, names in MODEL_CALLS.items():
            module, cls = path.rsplit(".", 1)
            owner = getattr(importlib.import_module(module), cls)
            for name in names:
                setattr(owner, name, self._timed(getattr(owner, name)))
        from engine.runtime.loop import StepLoop

        count, drain = StepLoop._count, StepLoop._drain

        def drained(loop, timeout):  # an iteration begins as the inbox is drained
            going_on = drain(loop, timeout)
            self.seconds = self.cpu = 0.0
            self.began_cpu = time.thread_time()
            return going_on

        def counted(loop, streams, *rest):  # (streams, [opening,] seconds, waits, captured): trees before 20d96e0 too
            seconds = rest[-3]
            self.iterations.append((streams, seconds, self.seconds, time.thread_time() - self.began_cpu, self.cpu))
            return count(loop, streams, *rest)

        StepLoop._drain, StepLoop._count = drained, counted

    def _timed(self, call):
        @functools.wraps(call)
        def timed(*args, **kwargs):
            began, began_cpu = time.perf_counter(), time.thread_time()
            try:
                return call(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - began
                self.cpu += time.thread_time() - began_cpu

        return timed


def measure(streams: int, frames: int) -> dict:
    import torch

    torch.set_num_threads(1)  # the model's work on the loop's own thread: its CPU time is the loop thread's
    timer = ModelTime()
    from engine.model.sampling import SamplingParams
    from engine.runtime.qwen3_engine import Qwen3Engine

    global GREEDY
    GREEDY = SamplingParams.greedy()
    engine = Qwen3Engine.from_pretrained(FIXTURE, device="cpu", max_streams=streams, max_context=256)

    async def one(seed: int) -> None:
        stream = engine.open_stream(voice="ryan", language="english", sampling=GREEDY, max_new_tokens=frames + 1)
        stream.push_text(TEXT)
        stream.end_input()
        async for _ in stream.events():
            pass

    async def level() -> None:
        await asyncio.gather(*(one(i) for i in range(streams)))

    try:
        asyncio.run(level())
        timer.iterations.clear()
        began = time.perf_counter()
        asyncio.run(level())
        wall = time.perf_counter() - began
    finally:
        engine.close()
    busy = [it for it in timer.iterations if it[0]]
    n = len(busy)
    stepped = sum(it[0] for it in busy) / n
    loop_ms, model_ms, loop_cpu_ms, model_cpu_ms = (sum(it[i] for it in busy) / n * 1e3 for i in range(1, 5))
    return {
        "streams": streams,
        "iterations": n,
        "streams_per_iteration": round(stepped, 1),
        "loop_ms_per_iteration": round(loop_ms, 3),
        "model_ms_per_iteration": round(model_ms, 3),
        "host_ms_per_iteration": round(loop_ms - model_ms, 3),
        "host_cpu_ms_per_iteration": round(loop_cpu_ms - model_cpu_ms, 3),
        "host_cpu_us_per_stream_stepped": round((loop_cpu_ms - model_cpu_ms) * 1e3 / stepped, 3),
        "wall_seconds": round(wall, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--old-tree", type=Path, help="another tree measured the same way, level by level in turn")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # one level in this process (a subprocess's job)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.frames)), flush=True)
        return
    trees = {"this": Path(__file__).resolve().parents[1]}
    if args.old_tree:
        trees = {"old": args.old_tree.resolve(), **trees}
    results = {
        "conditions": {
            "machine": f"{platform.machine()} CPU, {os.cpu_count()} cores, {platform.python_version()}",
            "checkpoint": str(FIXTURE), "dtype": "float32", "frames_per_stream": args.frames, "text": TEXT,
            "trees": {name: str(tree) for name, tree in trees.items()},
            "command": " ".join(sys.argv),
        },
        "levels": [],
    }
    for streams in args.streams:
        row = {"streams": streams}
        for name, tree in trees.items():
            env = {**os.environ, "PYTHONPATH": str(tree)}
            done = subprocess.run(
                [sys.executable, __file__, "--one", str(streams), "--frames", str(args.frames)],
                env=env, capture_output=True, text=True, cwd=tree,
            )
            lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
            row[name] = json.loads(lines[-1]) if lines else {"error": done.stderr[-500:]}
            print(name, json.dumps(row[name]), flush=True)
        results["levels"].append(row)
        if args.out:
            args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
