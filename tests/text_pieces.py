"""Text cut the way an LLM streams it, for tests that feed deltas."""

from __future__ import annotations

import random


def random_pieces(text: str, rng: random.Random, shortest: int, longest: int) -> list[str]:
    """`text` cut into consecutive pieces of `shortest`..`longest` characters (the last may be
    shorter); joined, they are `text` again."""
    pieces, i = [], 0
    while i < len(text):
        step = rng.randint(shortest, longest)
        pieces.append(text[i : i + step])
        i += step
    return pieces
