"""Text committed piece by piece tokenizes exactly like the final string (spec §3.4)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from text_pieces import random_pieces

from engine.model.config import read_config
from engine.model.text import OFFICIAL_SPLIT, TextTokenizer
from engine.runtime.text_feed import TextFeed

EDGE_TEXTS = [
    "a\n \nb",  # a newline whose chunk grows when more whitespace and a newline follow
    "Hello  world.  ",
    "xyz  \n\n yes/no  2026!!",
    "  leading spaces",
    "e\u0301te\u0301 cafe\u0301 ... ok",
    "OpenAI's iPhone app costs $999, doesn't it? HelloWorld 2026!",
    "今天天气很好，我们一起去公园散步吧。",
]


@pytest.fixture(scope="module")
def tokenizer(tiny_checkpoint: Path) -> TextTokenizer:
    return TextTokenizer(tiny_checkpoint, read_config(tiny_checkpoint))


@pytest.fixture(scope="module")
def texts(tiny_checkpoint: Path) -> list[str]:
    cases = json.loads((tiny_checkpoint / "golden" / "cases.json").read_text())["cases"]
    return sorted({c["args"]["text"] for c in cases}) + EDGE_TEXTS


def feed_in_pieces(tokenizer: TextTokenizer, text: str, rng: random.Random):
    feed = TextFeed(tokenizer.encode, OFFICIAL_SPLIT)
    tokens = []
    for piece in random_pieces(text, rng, 1, 5):
        tokens += feed.push(piece)
    return tokens + feed.finish()


def test_any_split_gives_the_tokens_of_the_final_text(tokenizer, texts):
    rng = random.Random(7)
    for text in texts:
        want = tokenizer.encode(text)
        for _ in range(200):
            assert [t.id for t in feed_in_pieces(tokenizer, text, rng)] == want, text


def test_golden_text_ids_match_the_official_slicing(tokenizer, tiny_checkpoint: Path):
    cases = json.loads((tiny_checkpoint / "golden" / "cases.json").read_text())["cases"]
    rng = random.Random(3)
    for case in cases:
        tokens = feed_in_pieces(tokenizer, case["args"]["text"], rng)
        assert [t.id for t in tokens] == case["token_ids"]["input_ids"][3:-5], case["id"]


def test_spoken_ends_are_monotonic_and_cover_the_text(tokenizer, texts):
    rng = random.Random(11)
    for text in texts:
        ends = [t.spoken_end for t in feed_in_pieces(tokenizer, text, rng)]
        assert ends == sorted(ends)
        assert ends[-1] == len(text)


def test_the_last_word_waits_for_what_follows(tokenizer):
    feed = TextFeed(tokenizer.encode, OFFICIAL_SPLIT)
    assert feed.push("Hello") == []  # "Hello" may still grow
    committed = feed.push(" wor")  # "Hello" is final now; " wor" is not
    assert [t.id for t in committed] == tokenizer.encode("Hello")
    assert all(t.spoken_end == 5 for t in committed)
    rest = feed.push("ld.") + feed.finish()
    assert [t.id for t in committed + rest] == tokenizer.encode("Hello world.")
    assert feed.characters_received == len("Hello world.")


def test_trailing_whitespace_is_held_until_the_end(tokenizer):
    feed = TextFeed(tokenizer.encode, OFFICIAL_SPLIT)
    first = feed.push("Hi there  ")
    assert [t.id for t in first] == tokenizer.encode("Hi there")
    assert [t.id for t in first + feed.finish()] == tokenizer.encode("Hi there  ")
