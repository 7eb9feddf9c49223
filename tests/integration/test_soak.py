"""A short soak (bench/soak.py with small numbers) against a real server process: sequential
turns, cancel storms, then a well-behaved client beside non-readers, idle sockets and a flood.
No timings are asserted (docs/benchmarks.md has the long run's figures): every well-behaved
turn ends well with exact usage, and every slot, descriptor and thread comes back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SOAK = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


@pytest.mark.slow
def test_short_soak(tmp_path):
    out = tmp_path / "soak.json"
    subprocess.run(
        [
            sys.executable, str(SOAK), "--turns", "60", "--cancel-storms", "2",
            "--storm-width", "5", "--probe-turns", "10", "--flood", "2000", "--non-readers", "4",
            "--idle", "20", "--abuse-warmup", "0.5", "--abused-seconds", "2", "--out", str(out),
        ],
        check=True,
        timeout=240,
        stdout=subprocess.DEVNULL,
    )
    report = json.loads(out.read_text())
    for phase in ("sequential", "cancel_storms", "solo", "abused"):
        assert report[phase]["errors"] == [], phase
        assert report[phase]["usage_exact"], phase
    assert report["abusers"]["idle_open"] == 20 and report["abusers"]["flood_sent"] > 0
    assert report["active_streams_after"] == 0
    server = report["server"]
    assert server["end"]["threads"] == server["start"]["threads"]
    assert server["end"]["fds"] <= server["start"]["fds"] + 5
