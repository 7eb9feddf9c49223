"""Cloned voices on the Qwen3 runtime: how long making a voice takes, and the TTFA of a cloned
voice's first turn (its voice prefix not cached yet) and of its later turns.

    python bench/clone_bench.py BASE_CHECKPOINT [--device cuda:0] [--reference-seconds 3 10]
        [--turns 3] [--frames 24] [--out results.json]

Conditions (printed with the results): one process, the engine in-process, one stream at a time,
default sampling, text (engine_bench.TEXT, ~60 tokens) arriving at 30 tokens/s, TTFA from the
push that commits the first text token to the first PCM chunk (engine_bench.one_stream). The
reference is a synthetic speech-like signal (gliding harmonics, syllable envelope, noise bursts)
of the given length at 24 kHz; the ICL transcript has ~3 tokens per second of reference. An ICL
voice's first frame needs reference_frames + 1 - transcript_tokens text tokens or the end of
the text, so its TTFA includes that wait for text (docs/benchmarks.md); an x-vector voice needs
one token, like a preset.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from engine_bench import TEXT, first_commit_piece, one_stream, token_pieces  # noqa: E402

from engine import Engine  # noqa: E402

SAMPLE_RATE = 24000
# ~3 tokens per second of speech: the ICL transcript of an N-second reference takes the first 3N.
TRANSCRIPT_WORDS = (TEXT + " ") * 8


def reference(seconds: float, seed: int = 0) -> np.ndarray:
    """Speech-like test signal: a gliding harmonic voice under a 4 Hz syllable envelope, with
    noise bursts between syllables, peak 0.6."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    f0 = 120 + 30 * np.sin(2 * np.pi * 0.3 * t) + 5 * np.sin(2 * np.pi * 5.5 * t)
    phase = 2 * np.pi * np.cumsum(f0) / SAMPLE_RATE
    voice = sum(np.sin(k * phase) / k for k in range(1, 12))
    envelope = np.clip(np.sin(2 * np.pi * 4 * t), 0, None)
    signal = voice * envelope + 0.05 * rng.standard_normal(t.shape) * (envelope < 0.1)
    return (0.6 * signal / np.abs(signal).max()).astype(np.float32)


def transcript(engine, seconds: float) -> str:
    ids = engine.model.tokenizer.encode(TRANSCRIPT_WORDS)[: max(1, round(3 * seconds))]
    return engine.model.tokenizer.decode(ids).strip()


def synchronize() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


async def turns(engine, voice: str, count: int, frames: int) -> list[dict]:
    pieces = token_pieces(engine)
    commit_at = first_commit_piece(engine, pieces)
    return [await one_stream(engine, pieces, frames, 0.0, commit_at, voice=voice) for _ in range(count)]


def run(args: argparse.Namespace) -> dict:
    voices_dir = Path(tempfile.mkdtemp(prefix="clone-bench-voices-"))
    engine = Engine.from_pretrained(args.checkpoint, device=args.device, max_streams=4, voices_dir=voices_dir)
    config = engine.model.config
    results = {
        "conditions": {
            "checkpoint": str(args.checkpoint), "model": engine.model_name, "device": str(engine.model.device),
            "dtype": str(engine.model.dtype), "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else None,
            "tokens_per_second": 30, "text_tokens": len(token_pieces(engine)), "frames_per_turn": args.frames,
            "talker_hidden": config.talker.layers.hidden_size,
        },
        "voices": [],
    }
    try:
        for seconds in args.reference_seconds:
            audio = reference(seconds)
            for mode in ("x_vector", "icl"):
                name = f"ref{seconds:g}s-{mode.replace('_', '')}"
                text = transcript(engine, seconds) if mode == "icl" else None
                synchronize()
                start = time.perf_counter()
                made = engine.create_voice(name, audio, SAMPLE_RATE, text)
                synchronize()
                create_ms = (time.perf_counter() - start) * 1e3
                measured = asyncio.run(turns(engine, made["id"], args.turns, args.frames))
                ttfa = [m["ttfa_ms"] for m in measured]
                row = {
                    "voice": made["id"], "mode": mode, "reference_seconds": seconds,
                    "reference_frames": int(np.ceil(seconds * SAMPLE_RATE / 1920)),
                    "transcript_tokens": len(engine.model.tokenizer.encode(text)) if text else 0,
                    "create_voice_ms": round(create_ms, 1), "first_turn_ttfa_ms": ttfa[0],
                    "later_turns_ttfa_ms": statistics.median(ttfa[1:]) if len(ttfa) > 1 else None, "turns": measured,
                }
                results["voices"].append(row)
                later = f"{row['later_turns_ttfa_ms']:.1f}" if row["later_turns_ttfa_ms"] is not None else "-"
                print(f"{name:18} create {create_ms:8.1f} ms   TTFA first turn {ttfa[0]:8.1f} ms   later turns (median) {later} ms", flush=True)
    finally:
        engine.close()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path, help="a Base (voice-cloning) checkpoint folder")
    parser.add_argument("--device", default="cuda:0" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--reference-seconds", type=float, nargs="+", default=[3.0, 10.0])
    parser.add_argument("--turns", type=int, default=3, help="turns per voice (the first has no cached prefix)")
    parser.add_argument("--frames", type=int, default=24, help="frames per turn")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    results = run(args)
    print(json.dumps(results["conditions"]))
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
