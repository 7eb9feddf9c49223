"""Hostile input never escapes as an exception, spoken text stays encodable, invariants hold."""

from __future__ import annotations

import random

import pytest
from text_pieces import random_pieces

from voice_tts.tn import Commit, StallPolicy, StreamingNormalizer, normalize


def run(deltas: list[str], language: str = "auto") -> tuple[list[Commit], StreamingNormalizer]:
    n = StreamingNormalizer(language)
    commits: list[Commit] = []
    for delta in deltas:
        commits += n.push(delta)
        assert len(n.pending) <= StallPolicy().max_tail_en
    commits += n.flush()
    return commits, n


def check(commits: list[Commit], text: str) -> str:
    raw_pos = spoken_pos = 0
    for c in commits:
        assert (c.raw_start, c.spoken_start) == (raw_pos, spoken_pos)
        raw_pos, spoken_pos = c.raw_end, c.spoken_end
        c.raw.encode("utf-8")
    assert raw_pos == len(text)
    spoken = "".join(c.spoken for c in commits)
    spoken.encode("utf-8")
    return spoken


BAD = {
    "lone_surrogates": "Hi \ud800 there \udfff and \ud83d\ude00 done.",
    "control_chars": "Price\x01 is \x07$5\x1b[31m now\x7f.\r\n\x0b\x0cok",
    "nul": "\x00Hello\x00 wor\x00ld 12\x003\x00.",
    "rtl": "שלום עולם 123, مرحبا بالعالم ٣٤٥ and \u202eevil\u202c text.",
    "long_emoji": "Wow " + "👨\u200d👩\u200d👧\u200d👦🏽" * 200 + "🇨🇳🇺🇸1️⃣#️⃣ end.",
    "combining": "Zalgo: H\u0335\u0321e\u0337\u0322l\u0334l\u0336o\u0338 e\u0301te\u0301.",
    "noncharacters": "A\ufffe\uffff\U0010ffff\ue000B.",
    "unclosed_markup": "See [the docs](https://x.io/" + "a" * 300 + " and <div class='x' " + "`" * 7,
    "brackets": "((((((((((1))))))))) [[[[ ]]]] {{{{ }}}} <<<< >>>>",
}


@pytest.mark.parametrize("name", BAD)
def test_bad_input_all_splits(name: str) -> None:
    text = BAD[name]
    batch = normalize(text)
    batch.encode("utf-8")
    rng = random.Random(name)
    for deltas in ([text], list(text), random_pieces(text, rng, 1, 7)):
        commits, _ = run(deltas)
        assert check(commits, text) == batch


def test_lone_surrogates_become_replacement_characters_in_raw() -> None:
    commits, _ = run(["a\ud800b"])
    assert "".join(c.raw for c in commits) == "a\ufffdb"
    assert "".join(c.spoken for c in commits) == "a b"


def test_nul_and_control_characters_are_not_spoken() -> None:
    # An unspeakable character separates what is around it, like a deleted emoji.
    out = normalize(BAD["nul"])
    assert out == "Hello wor ld twelve three."
    assert all(ch >= " " for ch in normalize(BAD["control_chars"]))


def test_rtl_text_passes_through() -> None:
    out = normalize("שלום עולם.")
    assert out == "שלום עולם."


def test_long_emoji_sequences_are_dropped_without_stray_spaces() -> None:
    assert normalize(BAD["long_emoji"]) == "Wow end."


@pytest.mark.parametrize(
    "body",
    ["a" * 1_000_000, "7" * 1_000_000, "https://example.com/" + "ab/" * 333_328, ("word " * 20 + "\n") * 9_524],
    ids=["letters", "digits", "url", "text"],
)
def test_one_megabyte_delta(body: str) -> None:
    text = "Start " + body + " end."
    commits, n = run([text])
    spoken = check(commits, text)
    assert spoken.startswith("Start") and spoken.endswith("end.")
    assert n.pending == ""


def test_push_rejects_non_text_with_a_clear_error() -> None:
    n = StreamingNormalizer()
    n.push("Hello ")
    with pytest.raises(TypeError, match="str"):
        n.push(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        n.push(None)  # type: ignore[arg-type]
    # Nothing was lost: the stream continues where it was.
    commits = n.push("world.") + n.flush()
    assert "".join(c.spoken for c in commits) == " world."
    with pytest.raises(ValueError, match="language"):
        StreamingNormalizer("nl")  # not a language of the model


def test_wetext_failure_never_escapes(monkeypatch: pytest.MonkeyPatch) -> None:
    from voice_tts.tn import wetext_calls

    class Broken:
        def normalize(self, text: str) -> str:
            raise AssertionError("fst failure")

    wetext_calls.normalize_span.cache_clear()
    monkeypatch.setattr(wetext_calls, "_normalizers", {"en": Broken(), "zh": Broken()})
    try:
        out = normalize("On 2026-03-04 it was 12.5% up, -4% later; 价格是12.9元，2个。")
        assert "2026" not in out and "12.9" not in out
        out.encode("utf-8")
    finally:
        wetext_calls.normalize_span.cache_clear()
