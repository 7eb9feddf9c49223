"""Time the Qwen3 runtime on a full-size checkpoint: frame-step and codec time vs batch, server
TTFA and underruns under concurrent streams fed at an LLM's pace, where each loop iteration's time
goes, RTF.

    python bench/engine_bench.py CHECKPOINT [--out results.json] [--plot results.png]
        [--concurrency 1 128 256 384 512 768 1024] [--quick] [--compare-unfused] [--batches 1 8 128]

Conditions (printed with the results): one process, the engine in-process (no network), bf16 on
CUDA with CUDA graphs, voice "ryan" / English with its prefix cached (a repeat turn), default
sampling from generation_config (T 0.9, top-k 50, repetition penalty 1.05; the predictor too).
Text arrives at 30 tokens/s per stream, one token's text per push. TTFA is measured from the push
that commits the stream's first text token to the arrival of its first PCM chunk at the consumer.
A stream is consumed in real time from its first chunk with no extra jitter buffer; a chunk that
arrives after its playout time is an underrun. Streams of one concurrency level start at random
offsets within one second, each speaking until `--frames` frames (max_new_tokens - 1).

Per concurrency level: TTFA p50/p99, streams with underruns and late seconds, and loop ms per busy
iteration split into waiting for the frame step, waiting for the codec, and host work (the loop's
own Python), with the engine's measured real-time headroom. Admission by headroom is off during
the sweep (every level runs in full); `--plot` draws TTFA and underruns against streams.

Frame-step timing drives the runner directly: `step()` calls back to back and the step's CUDA
graph replayed back to back (device time), plus one eager step under torch.profiler (how many
kernels, their summed time); the codec is timed the same way (`vocoder.decode`, 1 and 4 frames
per stream) and profiled at one batch. `--compare-unfused` also times the step without the Triton
kernels in the same process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
import traceback
from pathlib import Path

import torch

from voice_tts.bench.deltas import push_at_pace
from voice_tts.bench.metrics import StreamTiming, summarize
from voice_tts.protocol import AudioChunk, Done, Error, ErrorCode

from engine import Engine
from engine.model.prompt import Voice
from engine.model.sampling import SamplingParams
from engine.runtime.runner import KV_BUCKETS, ROW_BUCKETS, StepRow, ModelRunner, _bucket
from engine.runtime.text_feed import TextFeed
from engine.runtime.vocoder import Chunk

TEXT = (
    "Thanks for calling. Your order shipped this morning and should arrive on Friday; I can also text "
    "you the tracking link if that helps. Is there anything else I can do for you today? We appreciate "
    "your patience and look forward to helping you again soon."
)
TOKENS_PER_SECOND = 30.0
SAMPLE_RATE = 24000


def phase(run):
    """Run one part of the benchmark; a failure is printed and recorded, the others still run."""
    try:
        return run()
    except Exception as e:
        traceback.print_exc(limit=-30)
        return {"error": repr(e)[:300]}


async def aphase(awaitable):
    try:
        return await awaitable
    except Exception as e:
        traceback.print_exc(limit=-30)
        return {"error": repr(e)[:300]}


def synchronize() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def token_pieces(engine) -> list[str]:
    return tokenizer_pieces(engine.model.tokenizer)


def tokenizer_pieces(tokenizer) -> list[str]:
    """The text cut into the strings of its tokens (ASCII text: every token decodes whole)."""
    return [tokenizer.decode([i]) for i in tokenizer.encode(TEXT)]


def first_commit_piece(engine, pieces: list[str]) -> int:
    return tokenizer_commit_piece(engine.model.tokenizer, pieces)


def tokenizer_commit_piece(tokenizer, pieces: list[str]) -> int:
    """Which push commits the first text token (the same for every stream: computed once)."""
    feed = TextFeed(tokenizer.encode, tokenizer.split_pattern)
    for i, piece in enumerate(pieces):
        if feed.push(piece):
            return i
    return len(pieces)


async def one_stream(
    engine, pieces: list[str], frames: int, start_delay: float, commit_at: int, sampling=None, voice: str = "ryan"
) -> dict:
    await asyncio.sleep(start_delay)
    stream = engine.open_stream(voice=voice, language="english", sampling=sampling, max_new_tokens=frames + 1)
    first_commit = None
    timing = StreamTiming(SAMPLE_RATE)  # TTFA, underruns: voice_tts.bench.metrics
    done: list[Done] = []
    errors: list[Error] = []

    async def consume() -> None:
        async for event in stream.events():
            if isinstance(event, AudioChunk):
                timing.chunk(time.perf_counter(), event.start_sample, event.num_samples)
            elif isinstance(event, Done):
                done.append(event)
            elif isinstance(event, Error):
                errors.append(event)

    def pushed(index: int) -> None:
        nonlocal first_commit
        if index == commit_at:
            first_commit = time.perf_counter()

    async def produce() -> None:
        nonlocal first_commit
        await push_at_pace(stream, pieces, TOKENS_PER_SECOND, pushed)
        if first_commit is None:
            first_commit = time.perf_counter()

    await asyncio.gather(consume(), produce())
    timing.first_text_at = first_commit
    return {
        **timing.figures(),
        "cancelled": done[0].cancelled if done else None,
        "refused": any(isinstance(e, Error) and e.code == ErrorCode.CAPACITY for e in errors),
    }


async def concurrency_level(engine, pieces: list[str], commit_at: int, concurrency: int, rounds: int, frames: int, spread: float) -> dict:
    results = []
    loop = engine.loop
    before = loop.stats.snapshot()
    wall0 = time.perf_counter()
    rng = random.Random(concurrency)
    for _ in range(rounds):
        delays = [0.0] if concurrency == 1 else [rng.uniform(0, spread) for _ in range(concurrency)]
        results += await asyncio.gather(*(one_stream(engine, pieces, frames, d, commit_at) for d in delays))
    wall = time.perf_counter() - wall0
    after = loop.stats
    iterations = max(after.iterations - before.iterations, 1)

    def per_iteration(name: str) -> float:
        return round((getattr(after, name) - getattr(before, name)) / iterations * 1e3, 3)

    return {
        "concurrency": concurrency,
        "streams": len(results),
        "refused": sum(1 for r in results if r["refused"]),
        **summarize(results, wall),
        "loop_iterations": after.iterations - before.iterations,
        "streams_per_iteration": round((after.streams_stepped - before.streams_stepped) / iterations, 1),
        "loop_ms_per_iteration": per_iteration("seconds"),
        "step_wait_ms_per_iteration": per_iteration("step_wait"),
        "codec_wait_ms_per_iteration": per_iteration("codec_wait"),
        "host_ms_per_iteration": per_iteration("host"),
        "headroom": engine.headroom(),
    }


def start_rows(runner, voice, b: int, position: int, sampling: SamplingParams) -> None:
    prefix = runner.prefix_length(voice)
    for slot in range(b):  # the KV blocks of every row the steps reach: 64 past `position`
        if not runner.pool.reserve(slot, position, 64):
            raise SystemExit(f"the KV cache cannot hold {b} streams of {position + 64} rows")
    runner.fill_prefix([(0, voice, 0, prefix)])
    cached = runner.pool.save(0, prefix)
    for slot in range(b):
        runner.pool.load(slot, cached)
        runner.start_stream(slot, position, sampling)


def step_times(engine, runner, batches: list[int], steps: int, kv_len: int, sampled: bool, codec: bool = True) -> list[dict]:
    """Frame-step and codec times with `b` rows busy, driving `runner` directly (the loop is
    idle). `frame_step_ms`: step() calls back to back (inputs up, codes down, one host sync
    each); `graph_ms`: the step's graph replayed back to back (device time only); `codec_ms_N_frames`:
    one N-frame chunk for each of the `b` streams, decoded and waited for (graphs, codec stream)."""
    voice = Voice.resolve(engine.model.config, "ryan", "english", None)
    sampling = SamplingParams(seed=1) if sampled else SamplingParams.greedy()
    text = engine.model.tokenizer.encode(TEXT)
    out = []
    for b in batches:
        if b > runner.slots:
            continue
        start_rows(runner, voice, b, kv_len - steps - 8, sampling)
        rows = lambda t: [StepRow(slot, text[t % len(text)], False) for slot in range(b)]  # noqa: E731
        for t in range(3):
            runner.step(rows(t))
        synchronize()
        began = time.perf_counter()
        for t in range(steps):
            runner.step(rows(t))
        step_ms = (time.perf_counter() - began) / steps * 1e3
        result = {
            "batch": b, "kv_len": kv_len, "sampled": sampled, "fused_kernels": runner.fused,
            "frame_step_ms": round(step_ms, 3), "audio_seconds_per_second": round(b * 0.08 / (step_ms / 1e3), 1),
        }
        if runner.use_graphs:
            key = runner._step_key(
                _bucket(b, ROW_BUCKETS, runner.slots), _bucket(kv_len, KV_BUCKETS, runner.max_context),
                not sampled, not sampled, True, False,
            )
            graph = runner._step_graphs.get(key)
            if graph is not None:
                start_rows(runner, voice, b, kv_len - steps - 8, sampling)
                synchronize()
                began = time.perf_counter()
                for _ in range(steps):
                    graph.replay()
                synchronize()
                result["graph_ms"] = round((time.perf_counter() - began) / steps * 1e3, 3)
        if codec:
            for n in (1, 4):
                chunks = [Chunk(slot, 0, n) for slot in range(b)]
                runner.vocoder.decode(chunks)
                synchronize()
                began = time.perf_counter()
                for _ in range(5):
                    runner.vocoder.decode(chunks)
                codec_ms = (time.perf_counter() - began) / 5 * 1e3
                result[f"codec_ms_{n}_frames"] = round(codec_ms, 3)
                result[f"codec_us_per_frame_stream_{n}_frames"] = round(codec_ms * 1e3 / (b * n), 2)
        out.append(result)
        print(json.dumps(result), flush=True)
    return out


def eager_kernels(owner, run) -> tuple[list, str]:
    """Run `run` eagerly (CUDA graphs off on `owner`) twice, then once under torch.profiler;
    returns the CUDA kernels' statistics and the name of their device-time attribute."""
    use_graphs, owner.use_graphs = owner.use_graphs, False
    try:
        for _ in range(2):
            run()
        synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            run()
            synchronize()
    finally:
        owner.use_graphs = use_graphs
    kernels = [e for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA]
    attr = "device_time_total" if hasattr(kernels[0], "device_time_total") else "cuda_time_total"
    return kernels, attr


def profile_step(engine, runner, b: int, sampled: bool) -> dict:
    """Kernels of one eager frame step (torch.profiler): how many, their summed device time, and
    the most frequent ones. Against the graph time this shows what launches cost."""
    voice = Voice.resolve(engine.model.config, "ryan", "english", None)
    sampling = SamplingParams(seed=1) if sampled else SamplingParams.greedy()
    text = engine.model.tokenizer.encode(TEXT)
    start_rows(runner, voice, b, 90, sampling)
    rows = [StepRow(slot, text[slot % len(text)], False) for slot in range(b)]
    kernels, attr = eager_kernels(runner, lambda: runner.step(rows))
    top = sorted(kernels, key=lambda e: -e.count)[:14]
    slowest = sorted(kernels, key=lambda e: -getattr(e, attr))[:16]
    result = {
        "batch": b, "sampled": sampled, "fused_kernels": runner.fused,
        "kernels": sum(e.count for e in kernels),
        "kernel_ms": round(sum(getattr(e, attr) for e in kernels) / 1e3, 3),
        "most_frequent": [[e.key[:70], e.count, round(getattr(e, attr) / 1e3, 3)] for e in top],
        "by_time": [[e.key[:90], e.count, round(getattr(e, attr) / 1e3, 3)] for e in slowest],
    }
    print(json.dumps(result), flush=True)
    return result


def profile_codec(engine, runner, b: int, frames: int) -> dict:
    """Kernels of one eager codec decode of `b` streams x `frames` frames (torch.profiler): where
    the codec's device time goes, by kernel."""
    voice = Voice.resolve(engine.model.config, "ryan", "english", None)
    start_rows(runner, voice, b, 90, SamplingParams.greedy())
    text = engine.model.tokenizer.encode(TEXT)
    for t in range(frames):
        runner.step([StepRow(slot, text[t], False) for slot in range(b)])
    chunks = [Chunk(slot, 0, frames) for slot in range(b)]
    kernels, attr = eager_kernels(runner.vocoder, lambda: runner.vocoder.decode(chunks))
    top = sorted(kernels, key=lambda e: -getattr(e, attr))[:16]
    result = {
        "batch": b, "frames": frames,
        "kernels": sum(e.count for e in kernels),
        "kernel_ms": round(sum(getattr(e, attr) for e in kernels) / 1e3, 3),
        "by_time": [[e.key[:90], e.count, round(getattr(e, attr) / 1e3, 3)] for e in top],
    }
    print(json.dumps(result), flush=True)
    return result


def plot(results: dict, path: Path) -> None:
    """TTFA p50/p99, streams with underruns, and the loop's time per iteration (host work, waiting
    for the codec and for the step) against concurrent streams."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = [lv for lv in results["concurrency"] if "concurrency" in lv]
    streams = [lv["concurrency"] for lv in levels]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.plot(streams, [lv["ttfa_ms_p50"] for lv in levels], "o-", label="TTFA p50")
    left.plot(streams, [lv["ttfa_ms_p99"] for lv in levels], "s-", label="TTFA p99")
    left.axhline(250, color="grey", linestyle=":", label="p99 target 250 ms")
    left.set_xlabel("concurrent streams")
    left.set_ylabel("ms")
    left.set_yscale("log")
    left.legend()
    left.set_title("Time to first audio")
    right.bar([str(s) for s in streams], [lv["streams_with_underruns"] for lv in levels], color="tab:red", label="streams with underruns")
    right.set_xlabel("concurrent streams")
    right.set_ylabel("streams with underruns")
    right.set_ylim(bottom=0, top=max(1, max(lv["streams_with_underruns"] for lv in levels)) * 1.1)
    ax2 = right.twinx()
    labels = [str(s) for s in streams]
    for key, style, label in (
        ("loop_ms_per_iteration", "k.-", "loop"), ("host_ms_per_iteration", "g^--", "host"),
        ("codec_wait_ms_per_iteration", "bv--", "waiting for the codec"), ("step_wait_ms_per_iteration", "m.:", "waiting for the step"),
    ):
        ax2.plot(labels, [lv[key] for lv in levels], style, label=label)
    ax2.set_ylabel("ms per loop iteration")
    ax2.legend(loc="upper left", fontsize=8)
    right.set_title("Underruns, and where an iteration's time goes")
    fig.suptitle(f"{results['conditions']['device']}: {results['conditions'].get('model', '')}, {results['conditions']['text_tokens_per_second']:g} text tokens/s, {results['conditions']['frames_per_stream']} frames per stream", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


async def main_async(args) -> dict:
    results: dict = {"conditions": {
        "device": torch.cuda.get_device_name(0) if args.device.startswith("cuda") else args.device,
        "torch": torch.__version__, "dtype": "bfloat16" if args.device.startswith("cuda") else "float32",
        "checkpoint": str(args.checkpoint), "text_tokens_per_second": TOKENS_PER_SECOND,
        "frames_per_stream": args.frames, "cuda_graphs": args.device.startswith("cuda"),
    }}
    began = time.perf_counter()
    engine = Engine.from_pretrained(
        args.checkpoint, device=args.device, max_streams=max(args.concurrency), max_context=args.max_context,
        admit_by_headroom=False, warm_up_rows=0,  # the graphs are captured below, timed apart
    )
    results["load_seconds"] = round(time.perf_counter() - began, 1)
    results["capacity"] = engine.capacity
    results["conditions"]["model"] = engine.model_name
    loop_settings = engine.loop.settings
    results["conditions"].update({
        "fused_kernels": engine.runner.fused, "chunk_policy": vars(loop_settings.chunks),
        "codec_on_second_stream": engine.runner.vocoder.overlaps,
    })

    def save() -> None:  # after every phase: a run cut short still leaves what it measured
        if args.out:
            args.out.write_text(json.dumps(results, indent=1))

    # Graphs of every rows bucket up to the top level.
    began = time.perf_counter()
    with torch.inference_mode():
        captured = engine.runner.warm_up(max_rows=max(args.concurrency))
    results["graphs_captured"] = captured
    results["warm_up_seconds"] = round(time.perf_counter() - began, 1)
    # Per decode shape (rows x frames), how each codec convolution with a choice runs (the fastest way).
    results["conditions"]["codec_convolution_methods"] = {
        f"{rows}x{frames}": methods for (rows, frames), methods in sorted(engine.model.codec.convolution_methods.items())
    }
    if torch.cuda.is_available():
        results["memory_after_warm_up_gib"] = round(torch.cuda.memory_allocated() / 2**30, 2)
    print(json.dumps({k: results.get(k) for k in ("load_seconds", "capacity", "graphs_captured", "warm_up_seconds", "memory_after_warm_up_gib")}), flush=True)
    save()

    pieces = token_pieces(engine)
    commit_at = first_commit_piece(engine, pieces)
    results["text_tokens"] = len(pieces)

    if args.profile_codec:  # drives the runner directly while the loop is idle
        with torch.inference_mode():
            results["profile_codec"] = phase(lambda: profile_codec(engine, engine.runner, min(args.profile_codec, engine.runner.slots), 4))
        save()

    async def first_turn() -> float | None:
        # The first turn of a voice fills its prefix; later turns hit the prefix cache.
        return (await one_stream(engine, pieces, 10, 0.0, commit_at))["ttfa_ms"]

    results["ttfa_ms_first_turn_prefix_fill"] = await aphase(first_turn())

    levels = []
    results["concurrency"] = levels
    for c in args.concurrency:
        rounds = ({1: 3, 128: 2} if args.quick else {1: 10, 128: 3, 256: 2}).get(c, 1)
        level = await aphase(concurrency_level(engine, pieces, commit_at, c, rounds, args.frames, spread=1.0))
        levels.append(level)
        print(json.dumps(level), flush=True)
        save()

    async def rtf() -> dict:
        runs = []
        for _ in range(3):  # one stream whose text is all there: generation time / audio time
            stream = engine.open_stream(voice="ryan", language="english", max_new_tokens=151)
            timing = StreamTiming(SAMPLE_RATE, first_text_at=time.perf_counter())
            stream.push_text(TEXT)
            stream.end_input()
            async for event in stream.events():
                if isinstance(event, AudioChunk):
                    timing.chunk(time.perf_counter(), event.start_sample, event.num_samples)
            runs.append(timing.rtf)
        return {"rtf": round(statistics.median(runs), 4), "ms_per_frame": round(statistics.median(runs) * 80, 3)}

    results["single_stream"] = await aphase(rtf())
    print(json.dumps({"single_stream": results["single_stream"]}), flush=True)
    save()

    # The loop is idle from here: the runner is driven directly.
    runner = engine.runner
    small = [b for b in (1, 8, 128) if b in args.batches]
    with torch.inference_mode():
        results["step_times_sampled"] = phase(lambda: step_times(engine, runner, args.batches, 30, 128, sampled=True))
        save()
        results["step_times_greedy"] = phase(lambda: step_times(engine, runner, small, 30, 128, sampled=False, codec=False))
        results["profile"] = phase(lambda: [profile_step(engine, runner, 1, s) for s in (False, True)])
        if args.profile_batch:  # where a loaded step's device time goes
            results["profile_loaded"] = phase(lambda: profile_step(engine, runner, min(args.profile_batch, runner.slots), True))
        save()
        if args.compare_unfused and runner.fused:
            # The same steps without the Triton kernels (the previous frame step), same process.
            unfused = ModelRunner(engine.model, max(small), args.max_context, fused_kernels=False)
            results["step_times_unfused_sampled"] = phase(lambda: step_times(engine, unfused, small, 30, 128, True, codec=False))
            results["step_times_unfused_greedy"] = phase(lambda: step_times(engine, unfused, small, 30, 128, False, codec=False))
            results["profile_unfused"] = phase(lambda: [profile_step(engine, unfused, 1, s) for s in (False, True)])
            del unfused
            torch.cuda.empty_cache()
    if torch.cuda.is_available():
        results["max_memory_allocated_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    results["prefix_cache"] = {"hits": engine.loop.prefix_cache.hits, "misses": engine.loop.prefix_cache.misses}
    await engine.aclose()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 128, 256, 384, 512, 768, 1024])
    parser.add_argument("--plot", type=Path, help="write a PNG of TTFA and underruns against streams (matplotlib)")
    parser.add_argument("--profile-batch", type=int, default=0, help="also profile one eager sampled frame step of this many streams (0: off)")
    parser.add_argument("--profile-codec", type=int, default=256, help="profile one eager codec decode of this many streams x 4 frames (0: off)")
    parser.add_argument("--frames", type=int, default=100, help="frames per stream (8 s of audio at 100)")
    parser.add_argument("--max-context", type=int, default=512)
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 8, 32, 128, 256, 512, 1024])
    parser.add_argument("--quick", action="store_true", help="fewer rounds per concurrency level (3 at 1 stream, 2 at 128, else 1)")
    parser.add_argument("--compare-unfused", action="store_true", help="also time the frame step without the Triton kernels")
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    text = json.dumps(results, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text)
    if args.plot:
        phase(lambda: plot(results, args.plot))


if __name__ == "__main__":
    main()
