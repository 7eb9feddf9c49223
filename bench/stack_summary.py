"""Where a thread's time goes, from py-spy's collapsed stacks (`py-spy record --format raw`).

    python bench/stack_summary.py STACKS.txt --thread step-loop [--without warm_up ...] [--top 30]

Per thread whose name contains --thread: its samples, then the functions with the most samples
inclusive (the function or anything it calls) and self (the function's own lines), as shares of
the thread's samples. --without drops the stacks that pass through a function whose name
contains it (e.g. the engine's load and warm-up, to keep what serving streams costs). Stacks of
`py-spy record --subprocesses` (a server's core and API workers) are read too; with
--per-process the matching threads of each process are summarized apart, each process named by
its threads (the engine core is the one with a step-loop thread).
"""

from __future__ import annotations

import argparse
import collections
import re

PROCESS = re.compile(r'process (?P<pid>\d+):"[^"]*";')
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
    parser.add_argument("--per-process", action="store_true", help="summarize each process's matching threads apart")
    args = parser.parse_args()
    samples = list(read_stacks(args.stacks))
    threads_of: dict[str, set[str]] = collections.defaultdict(set)
    for process, thread, _, _ in samples:
        threads_of[process].add(thread.partition(": ")[2] or thread)
    for wanted in args.thread:
        # Per group (a process, or all): samples through each function, and ending in each (whose
        # sum is the group's samples).
        groups: dict[str, tuple[collections.Counter[str], collections.Counter[str]]] = {}
        for process, thread, functions, count in samples:
            if wanted not in thread or any(dropped in f for f in functions for dropped in args.without):
                continue
            inclusive, own = groups.setdefault(process if args.per_process else "", (collections.Counter(), collections.Counter()))
            for function in set(functions):
                inclusive[function] += count
            own[functions[-1]] += count
        for key, (inclusive, own) in sorted(groups.items(), key=lambda item: -item[1][1].total()):
            total = own.total()
            named = f" in process {key} ({', '.join(sorted(threads_of[key]))})" if key else ""
            print(f"== threads named *{wanted}*{named}: {total} samples")
            for title, counter in (("inclusive", inclusive), ("self", own)):
                print(f"-- {title}")
                for function, count in counter.most_common(args.top):
                    print(f"{100 * count / max(total, 1):6.1f}%  {function}")


def read_stacks(path: str):
    """(process pid or '', thread, functions outermost first, samples) of each stack in the file."""
    with open(path) as lines:
        for line in lines:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            process = ""
            while match := PROCESS.match(stack):  # a command line may hold ';': not split on it
                process, stack = match["pid"], stack[match.end() :]
            frames = stack.split(";")
            if len(frames) > 1:
                yield process, frames[0], [function_of(f) for f in frames[1:]], int(count)


if __name__ == "__main__":
    main()
