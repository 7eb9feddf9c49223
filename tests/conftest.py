"""Shared test fixtures: where the shared specs and checkpoints live."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
# CI lays a copy of shared/ beside the clone; VOICE_TTS_SHARED points elsewhere when needed.
SHARED_DIR = Path(os.environ.get("VOICE_TTS_SHARED", REPO_ROOT.parent / "shared"))
TINY_CHECKPOINT = SHARED_DIR / "fixtures" / "qwen3-tts-tiny-customvoice"
BASE_CHECKPOINT = SHARED_DIR / "fixtures" / "qwen3-tts-tiny-base"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED_DIR.is_dir():
        pytest.fail(f"shared folder not found at {SHARED_DIR} (set VOICE_TTS_SHARED)")
    return SHARED_DIR


@pytest.fixture(scope="session")
def tiny_checkpoint(shared_dir: Path) -> Path:
    return TINY_CHECKPOINT


@pytest.fixture(scope="session")
def base_checkpoint(shared_dir: Path) -> Path:
    """The tiny voice-cloning (Base) checkpoint with its golden clone cases."""
    return BASE_CHECKPOINT


def load_golden_cases(checkpoint: Path) -> dict[str, dict]:
    """A fixture checkpoint's golden cases by id: cases.json's record with its `codes` (lists)
    and `wav` from the case's npz."""
    info = json.loads((checkpoint / "golden" / "cases.json").read_text())
    out = {}
    for case in info["cases"]:
        golden = np.load(checkpoint / "golden" / case["npz"])
        out[case["id"]] = {**case, "codes": golden["codes"].tolist(), "wav": golden["wav"]}
    return out


@pytest.fixture(scope="session")
def golden_cases(tiny_checkpoint: Path) -> dict[str, dict]:
    return load_golden_cases(tiny_checkpoint)


@pytest.fixture(scope="session")
def base_golden_cases(base_checkpoint: Path) -> dict[str, dict]:
    """The Base checkpoint's voice-cloning golden cases, as `golden_cases`."""
    return load_golden_cases(base_checkpoint)
