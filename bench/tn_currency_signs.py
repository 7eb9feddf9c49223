"""Add to voice_tts/tn/currency_symbols.json the currency signs CLDR gives only in the locales of
the countries that use them ('₸' in kk_KZ, '₴' in uk_UA, '₾' in ka_GE), which a text in any
language may write after an amount: each one-character sign (Unicode category Sc) that the
official languages of every country using a currency write for it alone, and for no other.

Run: PYTHONPATH=$PWD .venv/bin/python bench/tn_currency_signs.py
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from babel import localedata
from babel.core import get_global
from babel.numbers import get_currency_symbol

OUT = Path(__file__).resolve().parents[1] / "voice_tts" / "tn" / "currency_symbols.json"


def main() -> None:
    signs: dict[str, set[str]] = {}
    languages = get_global("territory_languages")
    for territory, currencies in get_global("territory_currencies").items():
        current = [c[0] for c in currencies if c[2] is None and c[3]]
        for lang, info in languages.get(territory, {}).items():
            locale = f"{lang}_{territory}"
            if current and info.get("official_status") in ("official", "de_facto_official") and localedata.exists(locale):
                sign = get_currency_symbol(current[0], locale)
                if len(sign) == 1 and unicodedata.category(sign) == "Sc":
                    signs.setdefault(sign, set()).add(current[0])
    table = json.loads(OUT.read_text(encoding="utf-8"))
    table.update({sign: codes.pop() for sign, codes in sorted(signs.items()) if len(codes) == 1 and sign not in table})
    OUT.write_text(json.dumps(table, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
