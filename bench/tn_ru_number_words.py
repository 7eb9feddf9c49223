"""Russian number words by case and gender: CLDR's rule-based format (unicode-rbnf) against
num2words, the library voice_tts/tn/locales/ru_cases.py uses. For each case and gender both spell
the same numbers (1-1,199 and 300 drawn up to 10⁹ with a fixed seed) as cardinals and ordinals;
a number counts as differing when the readings differ after 'ё' → 'е' and a leading
'одна/один тысяча' → 'тысяча' (both are said); CLDR's failures (no rule for the number) are
counted apart. Then the median time per number of each, every number new.

    PYTHONPATH=$PWD .venv/bin/python bench/tn_ru_number_words.py [--json bench/results/tn_ru_number_words.json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from num2words import num2words
from unicode_rbnf import RbnfEngine
from unicode_rbnf.engine import NoRuleForNumberError

# num2words' case names → CLDR's ruleset suffixes
CASES = {"nominative": "", "genitive": "-genitive", "dative": "-dative", "instrumental": "-ablative",
         "prepositional": "-locative"}
GENDERS = {"m": "masculine", "f": "feminine", "n": "neuter"}


def _numbers(seed: int = 0) -> list[int]:
    rng = random.Random(seed)
    return list(range(1, 1200)) + [rng.randrange(1000, 10**9) for _ in range(300)]


def _same(text: str) -> str:
    text = text.replace("ё", "е").strip()
    for one in ("одна тысяча", "один тысяча", "одна тысячи"):
        text = text.replace(one, "тысяча" if one != "одна тысячи" else "тысячи")
    return text


def compare(engine: RbnfEngine, numbers: list[int]) -> dict:
    rows = {}
    for kind in ("cardinal", "ordinal"):
        for gender, cldr_gender in GENDERS.items():
            for case, suffix in CASES.items():
                ruleset = f"spellout-{kind}-{cldr_gender}{suffix}"
                differ, failed, examples = 0, 0, []
                for n in numbers:
                    try:
                        ours = engine.format_number(n, ruleset_names=[ruleset]).text
                    except NoRuleForNumberError:
                        failed += 1
                        continue
                    theirs = num2words(n, lang="ru", to=kind, gender=gender, case=case)
                    if _same(ours) != _same(theirs):
                        differ += 1
                        if len(examples) < 2:
                            examples.append({"n": n, "cldr": ours, "num2words": theirs})
                rows[f"{kind} {gender} {case}"] = {"differ": differ, "cldr_failed": failed, "examples": examples}
    return rows


def timing(engine: RbnfEngine, numbers: list[int]) -> dict:
    def median_us(spell) -> float:
        times = []
        for n in numbers:
            start = time.perf_counter()
            spell(n)
            times.append(time.perf_counter() - start)
        return round(statistics.median(times) * 1e6, 1)

    ruleset = ["spellout-cardinal-masculine-genitive"]
    return {"unicode-rbnf µs": median_us(lambda n: engine.format_number(n, ruleset_names=ruleset)),
            "num2words µs": median_us(lambda n: num2words(n, lang="ru", case="genitive"))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    engine = RbnfEngine.for_language("ru")
    numbers = _numbers()
    rows = compare(engine, numbers)
    for name, row in rows.items():
        print(f"{name:32} differ {row['differ']:4}/{len(numbers)}  CLDR failed {row['cldr_failed']:4}  "
              f"{row['examples'][:1]}")
    speed = timing(engine, [n + 1000 for n in numbers])  # new numbers: neither library caches
    print(speed)
    if args.json:
        args.json.write_text(json.dumps({"numbers": len(numbers), "forms": rows, "speed": speed},
                                        ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
