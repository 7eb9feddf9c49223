"""Text cut the way an LLM streams it, for tests that feed deltas."""

from __future__ import annotations

import asyncio
import random

import numpy as np

from voice_tts.protocol import AudioChunk, Done


def random_pieces(text: str, rng: random.Random, shortest: int, longest: int) -> list[str]:
    """`text` cut into consecutive pieces of `shortest`..`longest` characters (the last may be
    shorter); joined, they are `text` again."""
    pieces, i = [], 0
    while i < len(text):
        step = rng.randint(shortest, longest)
        pieces.append(text[i : i + step])
        i += step
    return pieces


async def speak_in_pieces(stream, text: str, rng: random.Random | None):
    """Feeds `text` to a Qwen3 engine stream whole (`rng` None) or in random pieces at random
    times; the stream's codes and its audio as floats."""

    async def feed() -> None:
        if rng is None:
            stream.push_text(text)
        else:
            await asyncio.sleep(rng.uniform(0, 0.2))
            for piece in random_pieces(text, rng, 1, 6):
                stream.push_text(piece)
                await asyncio.sleep(rng.uniform(0, 0.02))
        stream.end_input()

    async def collect():
        return [e async for e in stream.events()]

    events, _ = await asyncio.gather(collect(), feed())
    assert isinstance(events[-1], Done)
    pcm = b"".join(e.pcm for e in events if isinstance(e, AudioChunk))
    return stream.codes, np.frombuffer(pcm, dtype=np.int16) / 32767.0
