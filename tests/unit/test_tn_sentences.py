"""Realistic agent sentences read as a careful native speaker reads them (tests/data/tn_sentences/
<lang>.tsv, scored by bench/tn_sentences.py): at least 40 per language, at least 95 % of them read
right, each also streamed in random pieces and read exactly as in one piece."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from tests.text_pieces import random_pieces
from voice_tts.tn import StreamingNormalizer, normalize

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import tn_sentences  # noqa: E402

LANGUAGES = tn_sentences.languages()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_sentences_read_as_speakers_read_them(lang: str) -> None:
    right, wrong = tn_sentences.score(lang)
    total = right + len(wrong)
    assert total >= 40, f"{lang}: {total} sentences"
    shown = "\n".join(f"{s.written!r}: {ours!r}, expected {s.readings[0]!r}" for s, ours in wrong)
    assert right >= 0.95 * total, f"{lang}: {right}/{total} read right\n{shown}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_sentences_streamed_read_as_in_one_piece(lang: str) -> None:
    rng = random.Random(0)
    for sentence in tn_sentences.sentences(lang):
        one_shot = normalize(sentence.written, language=lang)
        for _ in range(5):
            normalizer = StreamingNormalizer(lang)
            commits = [c for piece in random_pieces(sentence.written, rng, 1, 7) for c in normalizer.push(piece)]
            commits += normalizer.flush()
            assert "".join(c.spoken for c in commits) == one_shot, sentence.written


@pytest.mark.parametrize(
    "ours, theirs, same",
    [
        ("Le PSG s'est imposé face à l'OM", "Le P S G s'est imposé face à l'O M", True),
        ("в МФЦ назначена", "в М Ф Ц назначена", True),
        ("at ten forty five AM.", "at ten forty-five a m.", True),
        ("单号SF一二三", "单号S F 一二三", True),
        ("JL百二十三便", "J L百二十三便", True),
        ("订单JD二零二六", "订单J D二〇二六", True),
        ("十二月十日木曜日の", "十二月十日（木曜日）の", True),
        ("ligue para onze nove", "ligue para (onze) nove", True),
        ("a fifteen square meter wall, twenty percent off", "a fifteen square metre wall, twenty per cent off", True),
        ("two point five liters", "two point five litres", True),
        ("the city center", "the city centre", True),
        ("call two one two, five five five, zero one four", "call two one two five five five zero one four", True),
        ("in two hours, fourteen minutes", "in two hours fourteen minutes", True),
        ("eight hundred fifty millimeters", "eight hundred and fifty millimetres", False),
        ("Le PSG s'est imposé", "Le P S Gs'est imposé", False),
        ("two one two, five five five", "two twelve, five five five", False),
        ("в МФЦ", "вМФЦ", False),
    ],
)
def test_scorer_compares_what_is_read(ours: str, theirs: str, same: bool) -> None:
    sentence = tn_sentences.Sentence("", (theirs,))
    assert tn_sentences.is_right(ours, sentence) is same
