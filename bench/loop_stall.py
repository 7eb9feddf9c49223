"""How long one huge LLM token holds the event loop: `TTSSession`, the Pipecat service and the
LiveKit plugin on the embedded voice, each fed one token of "word " * 4000, 20,000 characters
without a space, 20,000 Chinese characters, or 1 MB of mixed text (numbers, dates, URLs,
markdown, Chinese, emoji), then speaking until its text is in and one more second.

    python bench/loop_stall.py [--targets session pipecat livekit] [--inputs words ...] [--out F]

A heartbeat task wakes every millisecond; a stall is a gap between its turns. For each case
(a fresh process each) the longest stall is reported in wall time (what a listener of another
stream on the same loop would feel), in the loop thread's CPU time (what code on the loop
spent: other processes on the machine do not count), and without the garbage collector's
pauses, which are reported apart: a full collection walks every object alive in the process,
so its length depends on the application around the adapter more than on the token.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable

TARGETS = ("session", "pipecat", "livekit")
MIXED = (
    "On 2024-03-15 at 3:45 pm, Dr. Smith paid $1,234.56 for 12 items (see https://example.com/a?b=1). "
    "**Bold** and _italic_ text, 50% off, call +1 (555) 010-2030! "
    "今天是2024年3月15日，气温25度。 Emoji 😀 and “quotes” — dashes… "
    "supercalifragilisticexpialidocious_identifier_without_spaces_here "
    "The FBI and NASA met at 10:00; 3.14159 is pi.\n"
)
INPUTS = {
    "words": lambda: "word " * 4000,
    "no_spaces": lambda: "x" * 20000,
    "chinese": lambda: "中" * 20000,
    "mixed_1mb": lambda: (MIXED * (1_000_000 // len(MIXED) + 1))[:1_000_000],
}


class Watch:
    """Gaps between heartbeats, with the loop thread's CPU time and the collector's pauses."""

    def __init__(self) -> None:
        self.gaps: list[tuple[float, float, float]] = []  # (start, wall, cpu)
        self.collections: list[tuple[float, float]] = []  # (start, end)
        self._collecting_since = 0.0

    def on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._collecting_since = time.perf_counter()
        else:
            self.collections.append((self._collecting_since, time.perf_counter()))

    async def beat(self) -> None:
        while True:
            wall, cpu = time.perf_counter(), time.thread_time()
            await asyncio.sleep(0.001)
            self.gaps.append((wall, time.perf_counter() - wall - 0.001, time.thread_time() - cpu))

    def summary(self) -> dict:
        def collecting(start: float, length: float) -> float:
            end = start + length
            return sum(max(0.0, min(b, end) - max(a, start)) for a, b in self.collections)

        ms = lambda seconds: round(seconds * 1000, 1)  # noqa: E731
        return {
            "max_stall_ms": ms(max(wall for _, wall, _ in self.gaps)),
            "max_stall_cpu_ms": ms(max(cpu for _, _, cpu in self.gaps)),
            "max_stall_cpu_without_gc_ms": ms(
                max(cpu - collecting(start, wall + 0.001) for start, wall, cpu in self.gaps)
            ),
            "max_gc_pause_ms": ms(max((b - a for a, b in self.collections), default=0.0)),
            "stalls_over_10_ms": sum(wall > 0.010 for _, wall, _ in self.gaps),
        }


async def speak_session(engine, text: str, watch: Callable[[], None]) -> None:
    from voice_tts.session import TTSSession, prepare_normalizer

    prepare_normalizer(engine, True)  # as the adapters do when constructed
    watch()
    session = TTSSession(engine)
    drained = asyncio.create_task(_drain(session.events()))
    await session.feed(text)
    session.end_input()
    await asyncio.sleep(1.0)
    session.cancel()
    await drained


async def _drain(events) -> None:
    async for _ in events:
        pass


async def speak_pipecat(engine, text: str, watch: Callable[[], None]) -> None:
    from pipecat.frames.frames import (
        LLMFullResponseEndFrame,
        LLMFullResponseStartFrame,
        LLMTextFrame,
    )
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.runner import PipelineRunner
    from pipecat.pipeline.task import PipelineParams, PipelineTask

    from voice_tts.pipecat import Qwen3StreamingTTS

    class CountingTTS(Qwen3StreamingTTS):
        """Counts the characters handed to its engine sessions."""

        fed = 0

        async def run_tts(self, text: str, context_id: str):
            self.fed += len(text)
            async for frame in super().run_tts(text, context_id):
                yield frame

    tts = CountingTTS(engine=engine)
    task = PipelineTask(
        Pipeline([tts]), params=PipelineParams(audio_out_sample_rate=24000), cancel_on_idle_timeout=False
    )
    run = asyncio.create_task(PipelineRunner(handle_sigint=False).run(task))
    await asyncio.sleep(1.5)  # the pipeline has started: its setup is not the token's
    watch()
    await task.queue_frames([LLMFullResponseStartFrame(), LLMTextFrame(text), LLMFullResponseEndFrame()])
    # Until the whole token is in the engine session, and one second more.
    deadline = time.monotonic() + 120
    while tts.fed < len(text) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)
    await task.cancel()
    await run


async def speak_livekit(engine, text: str, watch: Callable[[], None]) -> None:
    from voice_tts.livekit import Qwen3StreamingTTS

    plugin = Qwen3StreamingTTS(engine=engine)
    watch()
    # The plugin feeds its session in the background while audio comes out: long enough for
    # the whole token to go in (normalization takes about 5 s a megabyte here), and a second.
    listen_s = 1.0 + len(text) / 100_000
    async with plugin.stream() as stream:
        stream.push_text(text)
        stream.end_input()
        began = time.monotonic()
        async for _ in stream:
            if time.monotonic() - began > listen_s:
                break
    await plugin.aclose()


SPEAK = {"session": speak_session, "pipecat": speak_pipecat, "livekit": speak_livekit}


async def one_case(target: str, input_name: str) -> dict:
    from engine import Engine

    engine = Engine.embedded()
    try:
        await SPEAK[target](engine, "Warm up: 12 items on 2024-03-15, 今天25度。", lambda: None)
        text = INPUTS[input_name]()
        watch = Watch()
        beats: list[asyncio.Task] = []

        def start_watching() -> None:
            gc.callbacks.append(watch.on_gc)
            beats.append(asyncio.create_task(watch.beat()))

        began = time.perf_counter()
        await SPEAK[target](engine, text, start_watching)
        seconds = time.perf_counter() - began
        beats[0].cancel()
        gc.callbacks.remove(watch.on_gc)
    finally:
        await engine.aclose()
    return {"target": target, "input": input_name, "chars": len(text), "run_s": round(seconds, 1),
            **watch.summary()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--targets", nargs="+", choices=TARGETS, default=list(TARGETS))
    parser.add_argument("--inputs", nargs="+", choices=list(INPUTS), default=list(INPUTS))
    parser.add_argument("--out", help="write the results as JSON here")
    parser.add_argument("--case", nargs=2, help=argparse.SUPPRESS)  # one case, in this process
    args = parser.parse_args()
    if args.case:
        print(json.dumps(asyncio.run(one_case(*args.case))))
        return
    rows = []
    for target in args.targets:
        for input_name in args.inputs:
            done = subprocess.run(
                [sys.executable, __file__, "--case", target, input_name],
                capture_output=True, text=True, check=True,
            )
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(json.dumps(rows[-1]), flush=True)
    result = {
        "command": "python bench/loop_stall.py " + " ".join(sys.argv[1:]),
        "conditions": f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end, "
        f"Python {platform.python_version()}, embedded voice",
        "cases": rows,
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2, ensure_ascii=False)
            f.write("\n")


if __name__ == "__main__":
    main()
