"""Where a thread's time goes, from py-spy's collapsed stacks (`py-spy record --format raw`).

    python bench/stack_summary.py STACKS.txt --thread step-loop [--without warm_up ...] [--top 30]

Per thread whose name contains --thread: its samples, then the functions with the most samples
inclusive (the function or anything it calls) and self (the function's own lines), as shares of
the thread's samples. --without drops the stacks that pass through a function whose name
contains it (e.g. the engine's load and warm-up, to keep what serving streams costs).
"""

from __future__ import annotations

import argparse
import collections
import re

FRAME = re.compile(r"(?P<function>.*) \((?P<file>.*):(?P<line>\d+)\)$")


def function_of(frame: str) -> str:
    match = FRAME.match(frame)
    if match is None:
        return frame
    return f"{match['function']} ({match['file'].rsplit('/', 1)[-1]})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stacks")
    parser.add_argument("--thread", action="append", required=True, help="part of a thread's name (repeatable)")
    parser.add_argument("--without", action="append", default=[], help="drop stacks through a function whose name contains this (repeatable)")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    for wanted in args.thread:
        total = 0
        inclusive: collections.Counter[str] = collections.Counter()
        own: collections.Counter[str] = collections.Counter()
        with open(args.stacks) as lines:
            for line in lines:
                stack, _, count = line.rstrip("\n").rpartition(" ")
                thread, *frames = stack.split(";")
                if wanted not in thread or not frames:
                    continue
                functions = [function_of(f) for f in frames]
                if any(dropped in f for f in functions for dropped in args.without):
                    continue
                total += int(count)
                for function in set(functions):
                    inclusive[function] += int(count)
                own[functions[-1]] += int(count)
        print(f"== threads named *{wanted}*: {total} samples")
        for title, counter in (("inclusive", inclusive), ("self", own)):
            print(f"-- {title}")
            for function, count in counter.most_common(args.top):
                print(f"{100 * count / max(total, 1):6.1f}%  {function}")


if __name__ == "__main__":
    main()
