"""Text tokenizer: golden ids, the official/Qwen2 split choice, and streaming-stable cuts."""

from __future__ import annotations

from pathlib import Path

import pytest

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
