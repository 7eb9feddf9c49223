"""Expressive markup: first audio with and without tags, and whether a new segment's audio is
ready when the one before it drains.

    python bench/markup_bench.py [--model DIR] [--device cpu] [--turns 30]
        [--out bench/results/markup_cpu.json]

CPU (reproducible anywhere): the tiny CustomVoice fixture (default `--model`). GPU: a random
1.7B CustomVoice checkpoint (`bench/make_random_checkpoint.py`) with `--device cuda`.

Each round runs, on one in-process engine through `TTSSession` (the adapters' path), in turn:
- `plain`: a reply with no markup;
- `markup_no_tags`: the same reply with `markup="expr"` and no tags (the parser's cost alone);
- `markup_tagged`: the reply with an expression before its first sentence and a second one
  before its second (`markup="expr"`);
- `plain_instruct`: the plain reply with the tagged reply's first expression as the turn's
  `instruct` (the instruction's own cost, a longer prompt, without markup);
each fed as an LLM streams it (`voice_tts.bench.deltas.llm_deltas`, all at once) and timed from
the first delta to the first audio chunk (the turn is then cancelled); each round runs the cases
in a rotated order. The ratios are of medians from the same run.

The plain and the tagged turn are also played to their end by a listener in real time (audio's
duration from the first chunk): `second_sentence_margin_ms` is how long before the listener
needed it the chunk with the second sentence's first word was there (its deadline: the first
chunk's arrival plus that word's time; negative: a gap was heard); in the tagged turn that word
opens the second segment, so the difference between the two is the cost of a segment switch.
`second_sentence_gap_ms`: the time from the chunk before it to that chunk.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from voice_tts.bench.deltas import llm_deltas
from voice_tts.protocol import AudioChunk, Error
from voice_tts.session import SessionDone, TTSSession, WordsEvent

REPO = Path(__file__).resolve().parents[1]
TINY = Path(os.environ.get("VOICE_TTS_SHARED", REPO.parent / "shared")) / "fixtures" / "qwen3-tts-tiny-customvoice"
FIRST = "Your order shipped this morning."
SECOND = "It should arrive on Friday, so keep an eye out."
PLAIN = f"{FIRST} {SECOND}"
TAGGED = (
    f'<expr type="expression" label="bright and friendly"/>{FIRST} '
    f'<expr type="expression" label="calm and reassuring"/>{SECOND}'
)
# (text, markup, instruct): `plain_instruct` is the plain reply under the tagged reply's first
# instruction, set for the turn: what the instruction's longer prompt costs without any markup.
CASES = {
    "plain": (PLAIN, None, None),
    "plain_instruct": (PLAIN, None, "bright and friendly"),
    "markup_no_tags": (PLAIN, "expr", None),
    "markup_tagged": (TAGGED, "expr", None),
}


async def first_audio(engine, text: str, markup: str | None, instruct: str | None) -> float:
    session = TTSSession(engine, markup=markup, instruct=instruct)
    started = time.monotonic()
    for delta in llm_deltas(text):
        session.push_text(delta)
    session.end_input()
    async for event in session.events():
        if isinstance(event, AudioChunk):
            session.cancel()
            return time.monotonic() - started
        if isinstance(event, Error):
            raise RuntimeError(f"the turn failed: {event.code}: {event.message}")
        if isinstance(event, SessionDone):
            break
    raise RuntimeError("the turn ended without audio")


async def second_sentence_margin(engine, text: str, markup: str | None) -> dict:
    """The turn played through: when the audio of its second sentence's first word came,
    against when a real-time listener reached it."""
    session = TTSSession(engine, markup=markup)
    for delta in llm_deltas(text):
        session.push_text(delta)
    session.end_input()
    second = PLAIN.index(SECOND)  # the second sentence's offset in the text without tags
    first_at = last_at = None
    word_at: float | None = None  # the second sentence's first word, in the turn's audio
    out: dict[str, float] = {}
    async for event in session.events():
        now = time.monotonic()
        if isinstance(event, WordsEvent) and word_at is None:
            word_at = next((w.start_time for w in event.words if w.raw_start >= second), None)
        elif isinstance(event, AudioChunk):
            first_at = first_at or now
            chunk_end = (event.start_sample + event.num_samples) / event.sample_rate
            if word_at is not None and chunk_end > word_at and not out:
                out = {"segment_margin_s": first_at + word_at - now, "segment_switch_s": now - last_at}
            last_at = now
    if not out:
        raise RuntimeError("the second segment was not heard")
    return out


def summary(values: list[float]) -> dict:
    ordered = sorted(values)
    return {
        "p50_ms": round(1000 * statistics.median(ordered), 2),
        "p90_ms": round(1000 * ordered[int(0.9 * (len(ordered) - 1))], 2),
        "min_ms": round(1000 * ordered[0], 2),
    }


async def run(args) -> dict:
    from engine import Engine

    engine = Engine.from_pretrained(args.model, device=args.device)
    try:
        for _ in range(3):  # warm-up: first-use costs (graphs, TN data, prefix cache)
            for case in CASES.values():
                await first_audio(engine, *case)
        times: dict[str, list[float]] = {name: [] for name in CASES}
        switches: dict[str, list[dict]] = {"plain": [], "markup_tagged": []}
        names = list(CASES)
        for round_ in range(args.turns):
            # Each round in another order: no case always follows another's cancelled turn.
            for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
                try:
                    times[name].append(await first_audio(engine, *CASES[name]))
                except RuntimeError as e:
                    raise RuntimeError(f"{name}: {e}") from e
        for _ in range(max(3, args.turns // 5)):
            for name in switches:
                switches[name].append(await second_sentence_margin(engine, *CASES[name][:2]))
    finally:
        await engine.aclose()
    results = {name: summary(values) for name, values in times.items()}
    plain = statistics.median(times["plain"])
    return {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "python": platform.python_version(),
        "model": str(args.model),
        "device": args.device,
        "turns": args.turns,
        "first_audio": results,
        "ratio_markup_no_tags_over_plain": round(statistics.median(times["markup_no_tags"]) / plain, 3),
        "ratio_markup_tagged_over_plain": round(statistics.median(times["markup_tagged"]) / plain, 3),
        "ratio_markup_tagged_over_plain_instruct": round(
            statistics.median(times["markup_tagged"]) / statistics.median(times["plain_instruct"]), 3
        ),
        "min_ratio_markup_no_tags_over_plain": round(min(times["markup_no_tags"]) / min(times["plain"]), 3),
        "min_ratio_markup_tagged_over_plain": round(min(times["markup_tagged"]) / min(times["plain"]), 3),
        "second_sentence_margin_ms": {name: summary([s["segment_margin_s"] for s in runs]) for name, runs in switches.items()},
        "second_sentence_gap_ms": {name: summary([s["segment_switch_s"] for s in runs]) for name, runs in switches.items()},
        "command": " ".join(["python bench/markup_bench.py", *args.argv]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=TINY)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    args.argv = sys.argv[1:]
    report = asyncio.run(run(args))
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
