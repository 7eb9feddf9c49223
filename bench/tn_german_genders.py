"""Derive voice_tts/tn/locales/de_genders.json from german-nouns (Wiktionary's German nouns, CC
BY-SA 4.0): the nouns of up to 12 letters with one gender, as {"m": "Hund Tag …", "f": …, "n": …};
a longer compound ("Kinderzimmer") takes the gender of its head ("Zimmer").

Run: PYTHONPATH=$PWD .venv/bin/python bench/tn_german_genders.py (needs `pip install german-nouns==1.2.5`).
"""

from __future__ import annotations

import csv
import json
from importlib import resources
from pathlib import Path


OUT = Path(__file__).resolve().parents[1] / "voice_tts" / "tn" / "locales" / "de_genders.json"
# Head nouns longer than this are compounds whose head is found as a shorter entry.
MAX_LENGTH = 12


def main() -> None:
    genders: dict[str, str] = {}
    with resources.files("german_nouns").joinpath("nouns.csv").open(encoding="utf-8") as f:
        for row in csv.DictReader(f):
            lemma, genus = row["lemma"], row["genus"]
            if genus not in ("m", "f", "n") or not lemma.isalpha() or not lemma[0].isupper() or len(lemma) > MAX_LENGTH:
                continue
            if lemma in genders and genders[lemma] != genus:
                genders[lemma] = "?"
            else:
                genders[lemma] = genus
    by_gender = {g: " ".join(w for w, wg in sorted(genders.items()) if wg == g) for g in ("m", "f", "n")}
    OUT.write_text(json.dumps(by_gender, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{sum(len(v.split()) for v in by_gender.values())} nouns → {OUT}")


if __name__ == "__main__":
    main()
