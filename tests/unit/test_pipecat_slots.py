"""Pipecat's sentence slots take text in the size a session does, and "written without spaces"
is the TN's definition (Han and kana; Korean spaces its words)."""

from __future__ import annotations

from voice_tts.pipecat.slots import MAX_SLOT_CHARS, SlotCutter, written_without_spaces
from voice_tts.turn_text import NORMALIZE_SLICE_CHARS


def test_one_slice_size_and_one_definition_of_spaceless_scripts():
    assert MAX_SLOT_CHARS == NORMALIZE_SLICE_CHARS
    assert all(written_without_spaces(c) for c in "中文ひらがなカタカナ")
    assert not any(written_without_spaces(c) for c in "한국어 abc 123")


def test_a_slot_ends_after_words_that_join_without_spaces():
    cutter = SlotCutter()
    pieces = [*cutter.pieces("我们 走"), *cutter.pieces(" then English")]
    assert "".join(piece.text for piece in pieces) == "我们 走 then English"
    # Pipecat joins every word of a slot without spaces once one is so: each such run of
    # words is a slot of its own, and the English after it starts another.
    assert [piece.text for piece in pieces if piece.cut] == [" 走", " then"]


def test_a_long_run_without_spaces_is_cut_inside_its_word():
    cutter = SlotCutter()
    pieces = list(cutter.pieces("x" * (3 * MAX_SLOT_CHARS)))
    assert "".join(piece.text for piece in pieces) == "x" * (3 * MAX_SLOT_CHARS)
    assert [piece.inside_word for piece in pieces if piece.cut] == [True, True]
