"""Fixtures of the integration tests that run the embedded voice in-process."""

from __future__ import annotations

import asyncio
from typing import Any, Iterator

import pytest
from token_arrival import TokenRecordingEngine


@pytest.fixture(scope="module")
def embedded_engine() -> Iterator[Any]:
    """The real embedded voice, shared by a module's tests (it hands events to any loop)."""
    from engine import Engine

    engine = Engine.embedded()
    yield engine
    asyncio.run(engine.aclose())


@pytest.fixture
def recording(embedded_engine, tiny_checkpoint) -> TokenRecordingEngine:
    """The embedded voice, each stream's final text tokens recorded (`token_arrival`)."""
    return TokenRecordingEngine(embedded_engine, tiny_checkpoint)
