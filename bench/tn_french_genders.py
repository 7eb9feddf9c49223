"""Add to voice_tts/tn/locales/fr_genders.json the French nouns whose gender its endings get wrong,
from the French Hunspell dictionary of Dicollecte/Grammalecte (MPL 2.0; its entries carry
'po:nom is:fem' or 'is:mas'): a noun of one gender only, in the singular and, where its flag
makes one, the plural ('piste', 'pistes' feminine: no feminine ending says so); a noun of both genders
('pair' po:nom po:adj) in each gender its affix rules give it ('paire', 'paires' feminine). The
hand-written exceptions already there stay as they are.

Run: PYTHONPATH=$PWD .venv/bin/python bench/tn_french_genders.py [--dic PATH] (needs `apt-get
install hunspell-fr-comprehensive`, which gives /usr/share/hunspell/fr.dic).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "voice_tts" / "tn" / "locales" / "fr_genders.json"
# The Hunspell flags that make a noun's plural: '/S.' adds s, '/X.' adds x.
PLURALS = {"S.": "s", "X.": "x"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dic", type=Path, default=Path("/usr/share/hunspell/fr.dic"))
    args = ap.parse_args()
    genders: dict[str, set[str]] = {}
    gendered = _gendered_suffixes(args.dic.with_suffix(".aff"))
    for line in args.dic.read_text(encoding="utf-8").splitlines()[1:]:
        entry, *fields = line.split()
        word, _, flags = entry.partition("/")
        gender = {"is:fem": "f", "is:mas": "m"}.keys() & set(fields)
        if "po:nom" not in fields or not word.isalpha() or not word.islower():
            continue
        for strip, add, condition, form_gender in gendered.get(flags[:2], []) if not gender else ():
            if condition.search(word) and word.endswith(strip):  # 'pair' po:nom po:adj: 'paire', 'paires' feminine
                genders.setdefault(word[:len(word) - len(strip)] + add, set()).add(form_gender)
        plurals = [word + ending for flag, ending in PLURALS.items() if flags.startswith(flag)]
        for form in [word, *plurals] if gender else ():
            genders.setdefault(form, set()).update(gender)
    table = json.loads(OUT.read_text(encoding="utf-8"))
    endings = tuple(table["feminine_endings"])
    hand = set(table["feminine"]) | set(table["masculine"])
    for word, found in sorted(genders.items()):
        if len(found) != 1 or word in hand:
            continue
        feminine = "is:fem" in found
        if feminine != word.endswith(endings):
            table["feminine" if feminine else "masculine"].append(word)
    table["feminine"], table["masculine"] = sorted(table["feminine"]), sorted(table["masculine"])
    lines = (f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}" for key, value in table.items())
    OUT.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")


def _gendered_suffixes(aff: Path) -> dict[str, list[tuple[str, str, re.Pattern, str]]]:
    """The affix rules that make a noun's other gender ('SFX F. 0 e … is:fem': 'ami' amie): by flag, each rule's
    stripped ending, added ending, condition on the word and the form's gender."""
    rules: dict[str, list[tuple[str, str, re.Pattern, str]]] = {}
    for line in aff.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) > 5 and fields[0] == "SFX" and (gender := {"is:fem", "is:mas"} & set(fields[5:])):
            strip, add = "" if fields[2] == "0" else fields[2], fields[3].partition("/")[0].replace("0", "")
            rules.setdefault(fields[1], []).append((strip, add, re.compile(fields[4] + "$"), gender.pop()))
    return rules


if __name__ == "__main__":
    main()
