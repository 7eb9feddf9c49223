"""Usage is exact: `done.usage.characters_spoken == len(done.heard_text)` on every turn of a
real server (embedded voice), whatever the text, the deltas and the moment of a cancel."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from server_harness import receive_until_done, start_server, ws_connect
from text_pieces import random_pieces

TEXTS = [
    "Hello there, this is a turn that is long enough to be cut somewhere in the middle.",
    "It's 3 pm on May 5th, and the total is $42.50 for 2 items.",
    "Short one.",
    "Words, words and more words: the listener stops us before the end of this sentence.",
]


@pytest.fixture(scope="module")
def server():
    server = start_server()
    yield server
    server.stop()


async def one_turn(server, text: str, seed: int, cancel_after_frames: int | None, played_ms):
    pieces = random_pieces(text, random.Random(seed), 1, 8)
    async with ws_connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start", "normalize": seed % 2 == 0}))
        for piece in pieces:
            await ws.send(json.dumps({"type": "text", "text": piece}))
        if cancel_after_frames is None:
            await ws.send(json.dumps({"type": "stop"}))
            return await receive_until_done(ws)
        frames = 0
        while frames < cancel_after_frames:
            try:
                # Without `stop` a short text may have fewer frames than asked for.
                frame = await asyncio.wait_for(ws.recv(), 2.0)
            except TimeoutError:
                break
            if isinstance(frame, bytes):
                frames += 1
        cancel = {"type": "cancel"} if played_ms is None else {"type": "cancel", "played_ms": played_ms}
        await ws.send(json.dumps(cancel))
        return await receive_until_done(ws)


@settings(
    max_examples=60,
    deadline=None,
    # Each example is a real turn: shrinking one would take minutes.
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    text=st.sampled_from(TEXTS),
    seed=st.integers(0, 2**16),
    cancel_after_frames=st.one_of(st.none(), st.integers(0, 6)),
    played_ms=st.one_of(st.none(), st.floats(0, 4000)),
)
def test_characters_spoken_is_the_length_of_the_heard_text(
    server, text, seed, cancel_after_frames, played_ms
):
    result = asyncio.run(one_turn(server, text, seed, cancel_after_frames, played_ms))
    done = result.done
    assert done["usage"]["characters_spoken"] == len(done["heard_text"])
    assert text.startswith(done["heard_text"])
    if cancel_after_frames is None:
        assert done["heard_text"] == text
