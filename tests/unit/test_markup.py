"""`voice_tts.markup`: tags found as deltas arrive in both dialects, split anywhere; malformed,
unknown and unclosed tags dropped with their words kept; everything held bounded. And the text
side of a turn under markup (`TurnText`): marks at exact spoken offsets, spelled text read a
character at a time, raw text and words without tags."""

from __future__ import annotations

import pytest

from voice_tts.markup import (
    MAX_MARKS,
    MAX_TAG_CHARS,
    Expression,
    Gain,
    MarkupParser,
    Pause,
    Rate,
    Spelled,
    strip_markup,
)
from voice_tts.turn_text import TurnText

EXPR = (
    'Hi <expr type="expression" label="warm, amused"/>there. 3 < 5, a<b. Code '
    '<expr type="spell">A7</expr>! <expr type="break" label="1.5s"/>Then <expr type="prosody" '
    'label="slow">slowly</expr> ok <expr type="sound" label="laugh"/>bye <expr type="prosody" label="loud"/>now.'
)
CARTESIA = (
    '<emotion value="sad"/>Oh <break time="500ms"/>no, <spell>AB1</spell> '
    '<speed ratio="1.2"/>fast<volume ratio="0.8"/> soft <emotion value="x" /> end.'
)


def merged(pieces: list) -> list:
    """Adjacent text pieces joined: how a parse is compared whatever the deltas were."""
    out: list = []
    for piece in pieces:
        if out and isinstance(piece, str) and isinstance(out[-1], str):
            out[-1] += piece
        elif out and isinstance(piece, Spelled) and isinstance(out[-1], Spelled):
            out[-1] = Spelled(out[-1].text + piece.text)
        else:
            out.append(piece)
    return out


def parse(dialect: str, deltas: list[str]) -> list:
    parser = MarkupParser(dialect)
    pieces = [p for d in deltas for p in parser.push(d)]
    return merged(pieces + parser.flush())


def test_expr_pieces():
    assert parse("expr", [EXPR]) == [
        "Hi ", Expression("warm, amused"), "there. 3 < 5, a<b. Code ", Spelled("A7"), "! ",
        Pause(1.5), "Then ", Rate(0.85), "slowly", Rate(1.0), " ok bye ", Gain(1.5), "now.",
    ]


def test_cartesia_pieces():
    assert parse("cartesia", [CARTESIA]) == [
        Expression("sad"), "Oh ", Pause(0.5), "no, ", Spelled("AB1"), " ", Rate(1.2), "fast",
        Gain(0.8), " soft ", Expression("x"), " end.",
    ]


@pytest.mark.parametrize("dialect, text", [("expr", EXPR), ("cartesia", CARTESIA)])
def test_any_split_gives_the_same_pieces(dialect, text):
    whole = parse(dialect, [text])
    assert parse(dialect, list(text)) == whole
    for cut in range(1, len(text)):
        assert parse(dialect, [text[:cut], text[cut:]]) == whole, cut


def test_a_tag_split_across_deltas_is_held_never_text():
    parser = MarkupParser("expr")
    assert parser.push('Hello <expr type="bre') == ["Hello "]
    assert parser.held == '<expr type="bre'
    assert parser.push('ak" label="1s"/>you') == [Pause(1.0), "you"]


@pytest.mark.parametrize(
    "text, clean",
    [
        ('a <expr type="break" label="forever"/>b', "a b"),  # a bad duration
        ('a <expr type="break" label="11s"/>b', "a b"),  # past the longest pause
        ('a <unknown x="1"/>b <i>c</i>', "a b c"),  # unknown tags
        ('a <expr type="spell">AB and on', "a AB and on"),  # never closed
        ("a </expr>b", "a b"),  # closes nothing
        ('a <expr type="break" label="1s"', "a "),  # cut off at the end
        ('a <expr type="prosody" label="whisper">b</expr> c', "a b c"),  # a label it cannot do
        ("x <" + "y" * (MAX_TAG_CHARS + 10), "x <" + "y" * (MAX_TAG_CHARS + 10)),  # too long for a tag
        ("if a<3 and b>2", "if a<3 and b>2"),
    ],
)
def test_malformed_tags_are_dropped_words_kept(text, clean):
    assert strip_markup(text, "expr") == clean


def test_without_markup_nothing_is_parsed():
    with pytest.raises(ValueError):
        MarkupParser("ssml")


def test_a_flood_is_bounded():
    parser = MarkupParser("cartesia")
    flood = "".join(f'w{i} <break time="10ms"/><speed ratio="1.1"/>' for i in range(5000))
    pieces = parser.push(flood) + parser.flush()
    marks = [p for p in pieces if not isinstance(p, (str, Spelled))]
    assert len(marks) == MAX_MARKS
    assert parser.dropped == 10_000 - MAX_MARKS
    assert "".join(p for p in pieces if isinstance(p, str)).split() == [f"w{i}" for i in range(5000)]
    assert len(parser.held) <= MAX_TAG_CHARS


def test_nesting_is_bounded():
    text = '<expr type="prosody" label="slow">' * 1000 + "deep" + "</expr>" * 1000
    parser = MarkupParser("expr")
    pieces = parser.push(text) + parser.flush()
    assert "".join(p for p in pieces if isinstance(p, str)) == "deep"


def test_turn_text_marks_at_spoken_offsets_and_words_without_tags():
    text = TurnText(language="en", markup="expr")
    marks = []
    text.on_mark = lambda offset, mark: marks.append((offset, mark))
    raw = 'I have 3 cats. <expr type="expression" label="calm"/>Code <expr type="spell">b7</expr>, ok. <expr type="break" label="1s"/>Bye.'
    spoken = "".join(text.push(c) for c in raw) + text.flush()
    assert spoken == "I have three cats. Code B seven, ok. Bye."
    assert text.raw_text == "I have 3 cats. Code b7, ok. Bye."
    assert marks == [(len("I have three cats."), Expression("calm")), (len("I have three cats. Code B seven, ok."), Pause(1.0))]
    words = text.on_progress(len(spoken), 1.0)
    assert [w.text for w in words] == text.raw_text.split()
    assert text.usage.characters_received == len(text.raw_text)


def test_a_spelled_word_is_spoken_once_it_has_ended():
    # A word is reported with the raw text it has when it starts: "A7." must not start as "A7".
    text = TurnText(language="en", markup="cartesia")
    assert text.push("Code <spell>A7</spell>") == "Code"
    assert text.push(".") == ""
    assert not text.unnormalized and text.holds_text  # held like a word in the normalizer
    assert text.push(" Next") == " A seven."
    assert text.flush() == " Next"
    words = text.on_progress(len("Code A seven. Next"), 0.5)
    assert [w.text for w in words] == ["Code", "A7.", "Next"]
