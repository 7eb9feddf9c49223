"""`bench/loop_host_cpu.py` (issue 44's CPU measure of the step loop's own host work) runs against
the step loop as it is: one small level on the tiny fixture, in its own process as the bench runs
each level (it wraps the loop's and the runner's methods to time them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(300)
def test_one_level_reports_the_loops_host_work(shared_dir: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "VOICE_TTS_SHARED": str(shared_dir)}
    done = subprocess.run(
        [sys.executable, "bench/loop_host_cpu.py", "--one", "8", "--frames", "3"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=280,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    level = json.loads(done.stdout.splitlines()[-1])
    assert level["streams"] == 8 and level["iterations"] > 0
    assert 0 < level["streams_per_iteration"] <= 8
    assert level["loop_ms_per_iteration"] >= level["model_ms_per_iteration"] > 0
    assert level["host_cpu_us_per_stream_stepped"] > 0
