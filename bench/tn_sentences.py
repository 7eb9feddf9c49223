"""Score the text normalizer on realistic agent sentences, read as a careful native speaker reads
them (tests/data/tn_sentences/<lang>.tsv: the written sentence, a tab, then its readings, several
separated by " | " where speakers say it more than one way).

A reading counts when it equals one of the readings up to case, spaces (also before a colon or
other mark: French "numéro :"; next to Chinese, Japanese and Korean characters none at all:
word spacing there is spelling, not reading, "한 장" = "한장", as NeMo's scorer ignores spaces in
every language), hyphens
between number words ("vingt-et-un" = "vingt et un"), commas (a comma is a pause, as a speaker makes between a phone
number's groups whether or not the writer put one: "two one two, five five five" = "two one two five five five"),
letters spelled one by one ("P S G" = "PSG"), and British and American spellings of one sound ("metres" = "meters",
"per cent" = "percent").

Run: PYTHONPATH=$PWD .venv/bin/python bench/tn_sentences.py [--lang de fr] [--failures] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from pathlib import Path

from voice_tts.tn import normalize

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "tn_sentences"


@dataclass(frozen=True)
class Sentence:
    written: str
    readings: tuple[str, ...]


def sentences(lang: str, data: Path = DATA) -> list[Sentence]:
    rows = []
    for line in (data / f"{lang}.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        written, spoken = line.split("\t")
        rows.append(Sentence(written, tuple(r.strip() for r in spoken.split(" | "))))
    return rows


_CJK = "[\u3007\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]"  # 〇, kana, Han, Hangul syllables


# A letter standing alone before another: 'P M' and 'p m' are 'PM' (compared on both sides alike).
_SPELLED_LETTER = re.compile(f"(?:(?<!\\w)|(?<={_CJK}))(\\w) (?=\\w(?:(?![\\w'’])|{_CJK}))")


def _join_letters(match: re.Match) -> str:
    """A letter of the other case ('à', 'в' before capitals) stays a word."""
    return match[1] if match[1].isupper() == match.string[match.end()].isupper() else match[0]


# British and American spellings of one sound ('metre' / 'meter', 'per cent' / 'percent').
_SAME_SOUND = (
    (re.compile(r"\b(\w*(?:met|lit|cent|theat|fib))re(s?)\b"), r"\1er\2"),
    (re.compile(r"\bper cent\b"), "percent"),
)


def _loose(text: str) -> str:
    text = re.sub(r"[()（）]", " ", text)  # brackets are not read: '十日(木曜日)' is '十日木曜日'
    text = _SPELLED_LETTER.sub(_join_letters, text)
    # 'трех' is how many write 'трёх': the same word, read the same
    text = re.sub(r"\s+([:;,.!?])", r"\1", text.casefold().replace("ё", "е"))
    # Dotted letters are read as letters ('p.m.' is 'PM'); their last period may end the sentence too.
    text = re.sub(r"\b(\w)\.(\w)\.(?!$)", r"\1\2", text)
    text = re.sub(r"\b(\w)\.(\w)\.$", r"\1\2.", text)
    text = re.sub(f"(?<={_CJK})\\s+|\\s+(?={_CJK})", "", text)
    text = text.replace("〇", "零")  # one zero, two ways to write it
    for spelling, sound in _SAME_SOUND:
        text = spelling.sub(sound, text)
    return re.sub(r"[\s\-–,]+", " ", text).strip()  # a hyphen, an en dash or a comma between words is a pause


def is_right(reading: str, sentence: Sentence) -> bool:
    return _loose(reading) in {_loose(r) for r in sentence.readings}


def languages() -> list[str]:
    return sorted(p.stem for p in DATA.glob("*.tsv"))


def score(lang: str, data: Path = DATA) -> tuple[int, list[tuple[Sentence, str]]]:
    """(sentences read right, the wrong ones with our reading)."""
    wrong = []
    rows = sentences(lang, data)
    for sentence in rows:
        reading = normalize(sentence.written, lang)
        if not is_right(reading, sentence):
            wrong.append((sentence, reading))
    return len(rows) - len(wrong), wrong


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", nargs="+", default=languages())
    ap.add_argument("--failures", action="store_true")
    ap.add_argument("--json", type=Path, help="write the figures as JSON here")
    args = ap.parse_args()
    figures = {}
    for lang in args.lang:
        right, wrong = score(lang)
        total = right + len(wrong)
        figures[lang] = {"right": right, "total": total, "percent": round(100 * right / total, 1)}
        print(f"{lang}: {right}/{total} ({100 * right / total:.1f}%)")
        if args.failures:
            for sentence, reading in wrong:
                print(f"  {sentence.written!r}\n    ours:     {reading!r}\n    expected: {sentence.readings[0]!r}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
