"""`python -m engine.parity` over a golden folder: per-case lines, summary line, exit code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_parity(folder: Path, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "engine.parity", str(folder)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout,
    )


def test_all_fixture_cases_are_identical(tiny_checkpoint):
    done = run_parity(tiny_checkpoint)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert lines[-1] == "parity: 10/10 cases identical"
    assert len(lines) == 11
    assert all(": identical: " in line for line in lines[:-1])


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_all_base_fixture_cases_are_identical(base_checkpoint):
    """Voice cloning: x-vector and ICL, streaming and not, a 16 kHz reference, a reused prompt
    (about a minute on two idle cores; several on a busy machine)."""
    done = run_parity(base_checkpoint, timeout=840)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert lines[-1] == "parity: 10/10 cases identical"
    assert all(": identical: " in line for line in lines[:-1])


def test_a_changed_golden_is_reported(tiny_checkpoint, tmp_path):
    """Works on any folder in the golden format; a wrong code fails that case and the exit code."""
    folder = tmp_path / "ckpt"
    for path in tiny_checkpoint.rglob("*"):
        rel = path.relative_to(tiny_checkpoint)
        if path.is_dir() or rel.parts[0] == "golden":
            continue
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).symlink_to(path)
    golden = folder / "golden"
    golden.mkdir()
    cases = json.loads((tiny_checkpoint / "golden" / "cases.json").read_text())
    keep = [c for c in cases["cases"] if c["id"] in ("A03_zh_vivian_chinese_nonstream", "A09_short_ono_anna_japanese_stream")]
    (golden / "cases.json").write_text(json.dumps({**cases, "cases": keep}))
    for case in keep:
        arrays = dict(np.load(tiny_checkpoint / "golden" / case["npz"]))
        if case["id"].startswith("A09"):
            arrays["codes"] = arrays["codes"].copy()
            arrays["codes"][1, 4] = (arrays["codes"][1, 4] + 1) % 2048
        np.savez(golden / case["npz"], **arrays)
    done = run_parity(folder)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 1
    assert lines[-1] == "parity: 1/2 cases identical"
    assert "A03_zh_vivian_chinese_nonstream: identical" in lines[0]
    assert lines[1].startswith("A09_short_ono_anna_japanese_stream: DIFFERENT: codes differ first at frame 1 codebook 4")


def test_a_folder_without_goldens_is_an_error(tmp_path):
    done = run_parity(tmp_path)
    assert done.returncode == 2
    assert "cases.json not found" in done.stderr
