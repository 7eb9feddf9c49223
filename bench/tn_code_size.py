"""The size of voice_tts/tn's hand-written code at git revisions: lines, and what lines can hide.

A line count alone rewards joining statements and growing trailing comments; Python's own tokenizer
does not: code tokens (names, operators, literals; comments, line breaks and indentation left out),
the characters of comments, and the lines over 120 characters are counted beside the lines.

Run: PYTHONPATH=$PWD .venv/bin/python bench/tn_code_size.py [REV ...] [--json PATH]
(default revisions: a6c022d, the code issue 43 was filed on, and HEAD).
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_LAYOUT = {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}


def measure(sources: list[str]) -> dict[str, int]:
    """Lines, code tokens, comment characters and lines over 120 characters of Python sources."""
    size = {"lines": 0, "code_tokens": 0, "comment_chars": 0, "lines_over_120": 0}
    for source in sources:
        lines = source.splitlines()
        size["lines"] += len(lines)
        size["lines_over_120"] += sum(len(line) > 120 for line in lines)
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                size["comment_chars"] += len(token.string)
            elif token.type not in _LAYOUT:
                size["code_tokens"] += 1
    return size


def sources_at(rev: str) -> list[str]:
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "voice_tts/tn"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    return [subprocess.run(["git", "show", f"{rev}:{name}"], cwd=ROOT, check=True, capture_output=True,
                           text=True).stdout for name in names if name.endswith(".py")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("revs", nargs="*", default=["a6c022d", "HEAD"])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    sizes = {rev: measure(sources_at(rev)) for rev in args.revs}
    for rev, size in sizes.items():
        print(rev, " ".join(f"{key} {value:,}" for key, value in size.items()))
    if args.json:
        args.json.write_text(json.dumps(sizes, indent=1) + "\n")


if __name__ == "__main__":
    main()
