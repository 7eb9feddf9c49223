"""The default number of API workers follows the host's cores: all but four (the core process's
loop and channel threads, the kernel's network work), at least half, at least one."""

from __future__ import annotations

import pytest

from engine.server.workers import default_workers


@pytest.mark.parametrize(("cores", "workers"), [(1, 1), (2, 1), (4, 2), (8, 4), (12, 8), (16, 12), (32, 28)])
def test_workers_for_cores(cores: int, workers: int) -> None:
    assert default_workers(cores) == workers
