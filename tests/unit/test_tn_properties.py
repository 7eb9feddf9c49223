"""Property tests of the streaming invariants (spec §3.1, §3.13): for any text and any split,
streaming output equals one-shot output, commits tile both streams, and nothing is withdrawn."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voice_tts.tn import Commit, StallPolicy, StreamingNormalizer, normalize

# Same lookup as tests/conftest.py: shared/ beside the repository, or VOICE_TTS_SHARED.
SHARED_DIR = Path(os.environ.get("VOICE_TTS_SHARED", Path(__file__).resolve().parents[3] / "shared"))

_CASES_FILE = SHARED_DIR / "specs" / "streaming-tn-cases.json"
_CASES = (
    json.loads(_CASES_FILE.read_text(encoding="utf-8"))
    if _CASES_FILE.is_file()
    else {"stream_cases": [], "one_shot_cases": []}
)
# Pieces that exercise every rule: the spec's tricky inputs cut into fragments, plus markup,
# digits, joiners, Han, emoji and odd code points.
FRAGMENTS = sorted({
    *(c["input"] for c in _CASES["one_shot_cases"]),
    *(c["raw_text"] for c in _CASES["stream_cases"] if c.get("raw_text")),
    "$", "€", "-", "+", ".", ",", ":", "/", "'", "#", "@", "*", "**", "_", "`", "```", "~", "[", "]", "(", ")",
    "](", "<b>", "</b>", "<", ">", "|", "\n", "\n\n", " ", "  ", "\t", "1", "12", "2026", "3.5", "10:30",
    "am", "pm", "million", "kg", "per", "March", "May", "Dr", "St", "No", "e.g", "https://", "www.", "x.io",
    "年", "个", "元", "月", "日", "我", "的", "。", "，", "！", "🎉", "👨\u200d👩\u200d👧", "\u200d", "\ufe0f",
    "\x00", "\x07", "\ud800", "\udfff", "שלום", "مرحبا", "é", "e\u0301", "ＡＢ１２", "Ⅻ", "²",
    "1. ", "- ", "## ", "> ", "| a | b |", "|---|", "II", "VIII", "War ", "Henry ",
    "25 April 2011", "June 12 , 2010", "21st of ", "Nov. 5", "Dec", " , ", "through ",
    "FBI", "NASA", "PDFs", " %", " - ", "$ ", "# ", "°C", " °F", "m²", "km2", "nm", " = ", " .5", ".878",
})

texts = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=6)), min_size=1, max_size=8
).map("".join)


def splits(text: str):
    return st.lists(st.integers(0, len(text)), max_size=10).map(
        lambda cuts: [text[a:b] for a, b in zip([0, *sorted(cuts)], [*sorted(cuts), len(text)], strict=True)]
    )


def stream(deltas: list[str], language: str = "auto") -> tuple[list[Commit], StreamingNormalizer]:
    n = StreamingNormalizer(language)
    commits: list[Commit] = []
    for delta in deltas:
        new = n.push(delta)
        # Append-only: what was committed before is a prefix of what is committed now.
        commits += new
        # The tail is bounded: a span never waits on more than max_tail_chars of text.
        assert len(n.pending) <= StallPolicy().max_tail_en
    commits += n.flush()
    return commits, n


def check_tiling(commits: list[Commit], text: str) -> None:
    raw_pos = spoken_pos = 0
    for c in commits:
        assert c.raw_start == raw_pos, c
        assert c.spoken_start == spoken_pos, c
        assert c.raw_end >= c.raw_start
        raw_pos, spoken_pos = c.raw_end, c.spoken_end
    assert raw_pos == len(text)
    cleaned = "".join(c.raw for c in commits)
    assert len(cleaned) == len(text)
    "".join(c.spoken for c in commits).encode("utf-8")


SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(data=st.data(), text=texts, language=st.sampled_from(["auto", "en", "zh"]))
def test_any_split_equals_one_shot(data, text: str, language: str) -> None:
    deltas = data.draw(splits(text))
    batch = normalize(text, language)
    commits, _ = stream(deltas, language)
    assert "".join(c.spoken for c in commits) == batch
    check_tiling(commits, text)


@settings(max_examples=60, deadline=None)
@given(text=texts)
def test_one_character_at_a_time_equals_one_shot(text: str) -> None:
    commits, _ = stream(list(text))
    assert "".join(c.spoken for c in commits) == normalize(text)
    check_tiling(commits, text)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), text=texts)
def test_reset_keeps_committed_history(data, text: str) -> None:
    deltas = data.draw(splits(text))
    n = StreamingNormalizer()
    commits: list[Commit] = []
    for delta in deltas:
        commits += n.push(delta)
    held = n.pending
    n.reset()
    assert n.pending == ""
    assert n.raw_committed_end == len(text) - len(held)
    commits += n.push("Next.") + n.flush()
    raw_pos = 0
    for c in commits:
        assert c.raw_start == raw_pos
        raw_pos = c.raw_end
    assert raw_pos == len(text) - len(held) + len("Next.")


PLAIN_WORDS = ["hello", "world", "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "we", "go"]


@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.sampled_from(PLAIN_WORDS), min_size=1, max_size=12), cut=st.integers(0, 4))
def test_liveness_tail_is_at_most_the_unfinished_word(words: list[str], cut: int) -> None:
    """Plain text never waits for a sentence end: only the last unfinished word is held."""
    text = " ".join(words)
    last = words[-1][: max(1, len(words[-1]) - cut)]
    prefix = text[: len(text) - len(words[-1])] + last
    n = StreamingNormalizer()
    n.push(prefix)
    assert n.pending == last
    n.push(" ")
    assert n.pending == ""
