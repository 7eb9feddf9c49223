"""The CPU time of a server on this machine: its process and every process under it (API
workers, the engine core), read from Linux's /proc, so that `voice-tts bench --server-pid` can
say what a level cost the server beside what it measured of its turns."""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None  # gone since it was listed
    # The command name (field 2) may hold spaces and parentheses: fields start after its last ')'.
    return text[text.rindex(")") + 2 :].split()


def process_tree(pid: int) -> list[int]:
    """`pid` and its descendants alive now."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (fields := _stat_fields(int(entry.name))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    tree, pending = [], [pid]
    while pending:
        current = pending.pop()
        tree.append(current)
        pending.extend(children.get(current, ()))
    return tree


def server_cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of `pid` and its live descendants so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for member in process_tree(pid):
        if (fields := _stat_fields(member)) is not None:
            # utime and stime: fields 14 and 15 of /proc/PID/stat (11 and 12 after the name).
            total += int(fields[11]) + int(fields[12])
    return total / ticks
