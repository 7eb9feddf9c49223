"""Checks every language module's tests share: stream output equals one-shot output on random
splits, and the commits tile the raw and spoken text exactly."""

from __future__ import annotations

import random

from text_pieces import random_pieces

from voice_tts.tn import Commit, StallPolicy, StreamingNormalizer, normalize


def streamed(text: str, language: str, pieces: list[str]) -> list[Commit]:
    normalizer = StreamingNormalizer(language)
    commits: list[Commit] = []
    for piece in pieces:
        commits += normalizer.push(piece)
        assert len(normalizer.pending) <= StallPolicy().max_tail_en
    return commits + normalizer.flush()


def assert_tiles(commits: list[Commit], text: str) -> None:
    """Each commit starts where the last one ended, on both sides, and the raw side is the text."""
    raw = spoken = 0
    for c in commits:
        assert (c.raw_start, c.spoken_start) == (raw, spoken), c
        assert text[c.raw_start:c.raw_end] == c.raw, c
        raw, spoken = c.raw_end, c.spoken_end
    assert raw == len(text)
    assert spoken == len("".join(c.spoken for c in commits))


def assert_stream_equals_one_shot(text: str, language: str, seeds: range = range(25)) -> None:
    """Cut `text` at random places (pieces of 1-6 characters, and one character at a time)."""
    one_shot = normalize(text, language)
    splits = [list(text)] + [random_pieces(text, random.Random(seed), 1, 6) for seed in seeds]
    for pieces in splits:
        commits = streamed(text, language, pieces)
        assert "".join(c.spoken for c in commits) == one_shot, pieces
        assert_tiles(commits, text)


def fragment_texts(fragments: list[str], count: int, seed: int = 0) -> list[str]:
    """`count` texts of 1-8 random fragments: numbers, separators, units and words that meet in
    every order, so each rule is cut at every place."""
    rng = random.Random(seed)
    return ["".join(rng.choice(fragments) for _ in range(rng.randint(1, 8))) for _ in range(count)]
