"""Score the text normalizer on a batch of agent sentences written after the rules were made and
never tuned to (bench/data/tn_fresh_2026-12-06/<lang>.tsv, or the batch --batch names, the format
of tn_sentences.py), with tn_sentences.py's comparison; every miss is kept with our reading and the
expected ones.

Run: PYTHONPATH=$PWD .venv/bin/python bench/tn_fresh_batch.py [--batch DIR] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tn_sentences import score  # noqa: E402

BATCH = Path(__file__).resolve().parent / "data" / "tn_fresh_2026-12-06"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=Path, default=BATCH, help="the folder of <lang>.tsv files")
    ap.add_argument("--json", type=Path, help="write the figures and misses as JSON here")
    args = ap.parse_args()
    figures = {}
    for lang in sorted(p.stem for p in args.batch.glob("*.tsv")):
        right, wrong = score(lang, args.batch)
        total = right + len(wrong)
        figures[lang] = {
            "right": right,
            "total": total,
            "misses": [
                {"written": s.written, "ours": reading, "expected": list(s.readings)} for s, reading in wrong
            ],
        }
        print(f"{lang}: {right}/{total}")
        for s, reading in wrong:
            print(f"  {s.written}\n    ours:     {reading}\n    expected: {s.readings[0]}")
    right = sum(f["right"] for f in figures.values())
    total = sum(f["total"] for f in figures.values())
    print(f"all: {right}/{total} ({100 * right / total:.1f}%)")
    if args.json:
        figures["all"] = {"right": right, "total": total}
        args.json.write_text(json.dumps(figures, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
