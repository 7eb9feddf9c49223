"""Text tokenizer: golden ids, the official/Qwen2 split choice, and streaming-stable cuts."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.model.config import read_config
from engine.model.text import TextTokenizer


@pytest.fixture(scope="module")
def tokenizer(tiny_checkpoint: Path) -> TextTokenizer:
    return TextTokenizer(tiny_checkpoint, read_config(tiny_checkpoint))


def test_special_and_role_ids(tokenizer):
    assert tokenizer.role_ids == [151644, 77091, 198]
    assert tokenizer.encode("<tts_pad><tts_text_bos><tts_text_eod>") == [151671, 151672, 151673]
    assert tokenizer.vocab_size == 151676


def test_text_ids_are_the_official_slice(tokenizer):
    text = "Hello world. This is a tiny test of the streaming speech engine."
    ids = tokenizer.assistant_ids(text)
    assert tokenizer.text_ids(text) == ids[3:-5] == tokenizer.encode(text)
    assert ids[-5:] == [151645, 198, 151644, 77091, 198]


def test_official_split_breaks_words_at_case_changes(tiny_checkpoint, tokenizer):
    qwen2 = TextTokenizer(tiny_checkpoint, read_config(tiny_checkpoint), split="qwen2")
    text = "OpenAI's HelloWorld"
    assert tokenizer.decode(tokenizer.encode(text)) == text == qwen2.decode(qwen2.encode(text))
    assert len(tokenizer.encode(text)) > len(qwen2.encode(text))


def test_stable_prefix_holds_back_the_open_chunk(tokenizer):
    assert tokenizer.stable_prefix_length("Hello world. This is") == len("Hello world. This")
    assert tokenizer.stable_prefix_length("Hello") == 0
    assert tokenizer.stable_prefix_length("你好，欢迎使用语音") == 2
    assert tokenizer.stable_prefix_length("a  ") == 1


ALPHABET = list("abcXYZ ,.!?'$-0123\n") + ["é", "e\u0301", "你", "好", "。", "Ä", "  "]


@settings(max_examples=150, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=40),
    cuts=st.lists(st.integers(min_value=1, max_value=6), min_size=1, max_size=40),
)
def test_committing_stable_prefixes_gives_the_ids_of_the_whole(tokenizer, pieces, cuts):
    """Text arriving in arbitrary deltas, committed at stable cuts, tokenizes like the final text."""
    text = "".join(pieces)
    deltas, start = [], 0
    for size in cuts * (len(text) // max(sum(cuts), 1) + 1):
        if start >= len(text):
            break
        deltas.append(text[start : start + size])
        start += size
    ids, pending = [], ""
    for delta in deltas:
        pending += delta
        cut = tokenizer.stable_prefix_length(pending)
        ids += tokenizer.encode(pending[:cut])
        pending = pending[cut:]
    ids += tokenizer.encode(pending)
    assert ids == tokenizer.encode(text)
