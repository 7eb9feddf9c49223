"""The word-end handoff (issue 28): the normalizer says when its spoken text ends a word, the text
feed closes that word then, and the tokens fed stay exactly the one-shot tokenization."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_tn_properties import FRAGMENTS, splits
from text_pieces import random_pieces

from engine.model.config import read_config
from engine.model.text import OFFICIAL_SPLIT, TextTokenizer
from engine.runtime.stream import Qwen3Stream, TextCommand
from engine.runtime.text_feed import TextFeed
from voice_tts.bench.deltas import deltas_for, llm_deltas
from voice_tts.cli import build_parser
from voice_tts.turn_text import TurnText
from voice_tts.tn import StreamingNormalizer, normalize
from voice_tts.tn.chars import CLOSING

LLM_REPLIES = [
    "Sure thing.",
    "Your order shipped this morning and should arrive on Friday.",
    "The weather today is sunny with a high of 72 degrees",
    "Dr. Smith met Mr. Jones at 5 pm on March 3, 2024 ( room 4 ) , fine .",
    "**Bold** and _it_: 7 million, 1,284.50 dollars; see https://x.io/a now.",
    "你好 world 世界 ok。今天天气很好，我们一起去公园散步吧。",
    "- item one\n- item two\n\nOpenAI's iPhone app costs $999, doesn't it?",
]


@pytest.fixture(scope="module")
def tokenizer(tiny_checkpoint: Path) -> TextTokenizer:
    return TextTokenizer(tiny_checkpoint, read_config(tiny_checkpoint))


@pytest.fixture(scope="module", params=["official", "qwen2"])
def any_tokenizer(request, tiny_checkpoint: Path) -> TextTokenizer:
    return TextTokenizer(tiny_checkpoint, read_config(tiny_checkpoint), split=request.param)


def fed_tokens(tokenizer: TextTokenizer, deltas: list[str]) -> tuple[list[int], int]:
    """Deltas through TurnText into a TextFeed the way `push_spoken` forwards them; the ids fed,
    and how many words `end_word` closed early."""
    text = TurnText(language=None, normalize=True)
    feed = TextFeed(tokenizer.encode, tokenizer.split_pattern)
    tokens, early = [], 0
    for delta in deltas:
        tokens += feed.push(text.push(delta))
        if text.word_end:
            closed = feed.end_word()
            tokens += closed
            early += bool(closed)
    tokens += feed.push(text.flush()) + feed.finish()
    return [t.id for t in tokens], early


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), text=st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=8).map("".join))
def test_any_split_feeds_the_tokens_of_the_one_shot_text(tokenizer, data, text: str) -> None:
    deltas = data.draw(splits(text))
    assert fed_tokens(tokenizer, deltas)[0] == tokenizer.encode(normalize(text))


def test_llm_replies_in_any_split_and_in_llm_deltas(any_tokenizer) -> None:
    tokenizer = any_tokenizer
    rng = random.Random(5)
    early = 0
    for reply in LLM_REPLIES:
        want = tokenizer.encode(normalize(reply))
        for deltas in [llm_deltas(reply), *(random_pieces(reply, rng, 1, 4) for _ in range(100))]:
            ids, closed = fed_tokens(tokenizer, deltas)
            assert ids == want, (reply, deltas)
            early += closed
    assert early  # the handoff did close words early


def test_a_word_is_closed_when_the_space_after_it_arrives(tokenizer) -> None:
    n = StreamingNormalizer()
    assert [c.spoken for c in n.push("Sure")] == [] and not n.word_end
    assert "".join(c.spoken for c in n.push(" ")) == "Sure" and n.word_end
    feed = TextFeed(tokenizer.encode, OFFICIAL_SPLIT)
    assert feed.push("Sure") == []
    closed = feed.end_word()
    assert [t.id for t in closed] == tokenizer.encode("Sure") and {t.spoken_end for t in closed} == {4}


@pytest.mark.parametrize(
    "held",
    [
        "The high is 7",  # "7" may become "72" or "7 million"
        "Dr.",  # an abbreviation waits for the next word
        "你好 ",  # Han joins Han without a separator
        "ok,",  # punctuation may grow (",)")
    ],
)
def test_what_may_still_change_is_not_closed(tokenizer, held) -> None:
    text = TurnText(language=None, normalize=True)
    feed = TextFeed(tokenizer.encode, OFFICIAL_SPLIT)
    feed.push(text.push(held + " "))
    before = feed.end_word() if text.word_end else []
    # Whatever end_word closed ends before the held part's last word or mark.
    assert all(t.spoken_end < len(normalize(held).rstrip()) for t in before)


def test_a_closed_chunk_stays_one_chunk_before_any_promised_character(any_tokenizer) -> None:
    """What `end_word` relies on: no space or closing punctuation joins a chunk ending in a
    letter or digit (and a chunk ending in a mark is not closed)."""
    tokenizer, split = any_tokenizer, any_tokenizer.split_pattern
    for word in ("Sure", "don't", "x7", "OpenAI", "über", "好"):
        for follower in (" ", *sorted(CLOSING)):
            feed = TextFeed(tokenizer.encode, split)
            ids = [t.id for t in feed.push(word) + feed.end_word()]
            ids += [t.id for t in feed.push(follower) + feed.finish()]
            assert ids == tokenizer.encode(word + follower), (word, follower)


def test_punctuation_is_closed_before_a_promised_space_and_letter(any_tokenizer) -> None:
    """What `end_word(space_follows=True)` relies on: a space and a letter after a chunk never
    join it, whatever the chunk ends in."""
    tokenizer, split = any_tokenizer, any_tokenizer.split_pattern
    for text in ("Sure,", "Hi!", "Yes;", "Got it:", "x7", "don't", "...", "네,", "(ok)"):
        feed = TextFeed(tokenizer.encode, split)
        closed = feed.push(text) + feed.end_word(space_follows=True)
        assert [t.id for t in closed] == tokenizer.encode(text), text
        ids = [t.id for t in closed] + [t.id for t in feed.push(" I") + feed.finish()]
        assert ids == tokenizer.encode(text + " I"), text


def test_the_qwen3_stream_posts_the_closed_word_at_once(tokenizer) -> None:
    posted: list = []
    stream = Qwen3Stream(7, TextFeed(tokenizer.encode, OFFICIAL_SPLIT), posted.append, 24000, channel=None)
    stream.push_text("Sure")
    stream.mark_word_end()
    commands = [c for c in posted if isinstance(c, TextCommand) and c.tokens]
    assert [[t.id for t in c.tokens] for c in commands] == [tokenizer.encode("Sure")]
    stream.mark_word_end()  # nothing more to close: nothing posted
    assert len([c for c in posted if isinstance(c, TextCommand) and c.tokens]) == 1


def test_llm_deltas_are_tokenizer_pieces() -> None:
    text = "Sure, I've booked a table for 4 at 7:30 pm; $1,284.50 in 123456 ways. 今天天气很好。"
    deltas = llm_deltas(text)
    assert "".join(deltas) == text
    assert deltas[:8] == ["Sure", ",", " I", "'ve", " booked", " a", " table", " for"]
    assert "123" in deltas and "456" in deltas  # digits up to three at a time
    assert " 今天" in deltas and "天气" in deltas  # a leading space goes with the first token
    assert "".join(deltas_for("chars2", text, seed=3)) == text
    with pytest.raises(ValueError, match="deltas must be one of"):
        deltas_for("words", text)


def test_bench_takes_the_delta_kind() -> None:
    assert build_parser().parse_args(["bench"]).deltas == "llm"
    assert build_parser().parse_args(["bench", "--deltas", "chars2"]).deltas == "chars2"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench", "--deltas", "words"])
