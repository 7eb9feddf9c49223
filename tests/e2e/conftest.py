"""Fixtures of the browser tests: Debian's chromium and a private network namespace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from chromium_harness import CHROMIUM

# The page tests serve the page from the same real server the integration tests use.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))


@pytest.fixture(scope="session")
def chromium() -> str:
    """Debian's chromium, installed on first use; skipped only if it cannot be installed."""
    if not Path(CHROMIUM).exists():
        install = subprocess.run(
            "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium",
            shell=True,
            capture_output=True,
            text=True,
            timeout=900,
        )
        if install.returncode != 0 or not Path(CHROMIUM).exists():
            pytest.skip(f"chromium could not be installed: {install.stderr.strip()[-500:]}")
    return CHROMIUM


@pytest.fixture(scope="session")
def private_network() -> None:
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"no private network namespace (unshare -n): {probe.stderr.strip()}")
