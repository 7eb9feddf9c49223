"""Add to voice_tts/tn/locales/pt_genders.json the feminine Portuguese nouns its endings read as masculine,
from the European Portuguese Hunspell dictionary (LGPL/MPL; its entries carry 'CAT=nc' or 'CAT=a_nc' and
'G=f' or 'G=m'): a noun of one gender only, in the singular and in the forms its affix rules give it of
the same or the other gender ('demão', 'demãos', 'regiões' feminine: '-ão' says masculine; 'irmã' by
'irmão'). Its masculine tags are left out: too many are wrong ('agronomia', 'afiliação'), as are the few
feminine ones below; persons in '-ista' stay of either gender. The hand-written exceptions stay as they are.

Run: PYTHONPATH=$PWD .venv/bin/python bench/tn_portuguese_genders.py [--dic PATH] (needs `apt-get install
hunspell-pt-pt`, which gives /usr/share/hunspell/pt_PT.dic).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "voice_tts" / "tn" / "locales" / "pt_genders.json"
# Nouns the dictionary calls feminine that are not ('o albedo', 'o pistácio', 'o rotor'), and its verbs.
_NOT_FEMININE = frozenset("albedo arremetimento barrado fuseiro jogatar oirar tolerado tolerados pistácio pistácios "
                          "rotor trepadoiro imprevista imprevistas".split())
_ENTRY = re.compile(r"([^\W\d_]+)(?:/(\S+))?\s+\[([^\]]*)\]")


def _morph(text: str) -> dict[str, str]:
    return dict(field.partition("=")[::2] for field in text.lstrip("+").split(","))


def _suffixes(aff: Path) -> dict[str, list[tuple[str, str, re.Pattern, str | None]]]:
    """The affix rules that give a noun's plural or other gender, by flag: each rule's stripped ending, added ending,
    condition on the word and the form's gender (None: the word's own)."""
    rules: dict[str, list[tuple[str, str, re.Pattern, str | None]]] = {}
    for line in aff.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) == 6 and fields[0] == "SFX" and _morph(fields[5]).keys() <= {"N", "G"}:
            strip, add = "" if fields[2] == "0" else fields[2], "" if fields[3] == "0" else fields[3]
            rule = (strip, add, re.compile(fields[4] + "$"), _morph(fields[5]).get("G"))
            rules.setdefault(fields[1], []).append(rule)
    return rules


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dic", type=Path, default=Path("/usr/share/hunspell/pt_PT.dic"))
    args = ap.parse_args()
    rules = _suffixes(args.dic.with_suffix(".aff"))
    genders: dict[str, set[str]] = {}
    for line in args.dic.read_text(encoding="utf-8").splitlines()[1:]:
        if not (entry := _ENTRY.fullmatch(line.strip())) or not entry[1].islower():
            continue
        word, flags, morph = entry[1], entry[2] or "", _morph(entry[3])
        if morph.get("CAT") not in ("nc", "a_nc") or morph.get("G") not in ("m", "f") or morph.get("N", "s") != "s":
            continue
        genders.setdefault(word, set()).add(morph["G"])
        for strip, add, condition, gender in (rule for flag in flags for rule in rules.get(flag, ())):
            if condition.search(word) and word.endswith(strip):
                genders.setdefault(word[:len(word) - len(strip)] + add, set()).add(gender or morph["G"])
    table = json.loads(OUT.read_text(encoding="utf-8"))
    feminine_endings, masculine_endings = tuple(table["feminine_endings"]), tuple(table["masculine_endings"])
    hand = set(table["feminine"]) | set(table["masculine"])
    for word, found in sorted(genders.items()):
        listed = word in hand | _NOT_FEMININE
        if found == {"f"} and not listed and not word.endswith(feminine_endings + masculine_endings):
            table["feminine"].append(word)
    lines = (f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}" for key, value in table.items())
    OUT.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")


if __name__ == "__main__":
    main()
