"""The CPU time of a server on this machine: its process and every process under it (API
workers, the engine core), read from Linux's /proc, so that `voice-tts bench --server-pid` can
say what a level cost the server, and each of its processes, beside what it measured of its turns."""

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


def _role(pid: int, root: int) -> str:
    """'server' (the process started), 'core' (the one that loaded the device driver or torch:
    the engine core), 'helper' (multiprocessing's resource tracker) or 'worker' (an API worker)."""
    if pid == root:
        return "server"
    try:
        if b"resource_tracker" in (PROC / str(pid) / "cmdline").read_bytes():
            return "helper"
        maps = (PROC / str(pid) / "maps").read_text()
    except OSError:
        return "worker"
    return "core" if "libcuda" in maps or "libtorch_cpu" in maps else "worker"


def server_process_cpu_seconds(pid: int) -> dict[int, tuple[str, float]]:
    """{pid: (role, user and system CPU seconds so far)} of `pid` and its live descendants."""
    ticks = os.sysconf("SC_CLK_TCK")
    seconds = {}
    for member in process_tree(pid):
        if (fields := _stat_fields(member)) is not None:
            # utime and stime: fields 14 and 15 of /proc/PID/stat (11 and 12 after the name).
            seconds[member] = (_role(member, pid), (int(fields[11]) + int(fields[12])) / ticks)
    return seconds
