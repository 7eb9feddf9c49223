"""Realistic agent sentences in German, French, Spanish, Italian and Portuguese
(tests/data/tn_sentences/<lang>.tsv), read as a careful native speaker reads them: money, dates,
times, counts of each gender, years, ordinals, telephone numbers, addresses, units,
abbreviations and Roman numerals. Each language reads at least 95 % of its sentences right, and
streams every one exactly as it reads it whole."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tn_locale_checks import assert_stream_equals_one_shot

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from tn_sentences import score, sentences  # noqa: E402

LANGUAGES = ("de", "fr", "es", "it", "pt")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_sentences_read_as_speakers_read_them(lang: str) -> None:
    right, wrong = score(lang)
    total = right + len(wrong)
    assert total >= 40
    report = "\n".join(f"{s.written!r}: {ours!r}, expected {s.readings[0]!r}" for s, ours in wrong)
    assert right / total >= 0.95, report


@pytest.mark.parametrize("lang", LANGUAGES)
def test_sentences_stream_as_they_read_whole(lang: str) -> None:
    for sentence in sentences(lang):
        assert_stream_equals_one_shot(sentence.written, lang, seeds=range(3))
