"""Units of measure read with CLDR's unit names and patterns, through Babel.

A symbol as written ('km/h', 'kg', 'mL', 'h') is found among CLDR's English short and narrow
unit symbols, which are the symbols text is written with in every language; the language's own
pattern then places the number words: Chinese '每小时{0}公里' → 每小时一百二十公里.
"""

from __future__ import annotations

import re
from functools import cache

from babel import Locale
from babel.units import format_unit


@cache
def _unit_ids() -> dict[str, str]:
    """Symbol → CLDR unit id ('km/h' → 'speed-kilometer-per-hour'), the first id a symbol names."""
    ids: dict[str, str] = {}
    patterns = Locale("en")._data["unit_patterns"]
    for length in ("short", "narrow"):
        for unit_id, forms in patterns.items():
            for plural in ("one", "other"):
                pattern = forms.get(length, {}).get(plural)
                if pattern and "{0}" in pattern:
                    ids.setdefault(pattern.replace("{0}", "").strip(), unit_id)
    return ids


def unit_id(symbol: str) -> str | None:
    return _unit_ids().get(symbol)


_NUMBER = re.compile(r"\d(?:[\d.,\u00a0\u202f]*\d)?")  # the amount as the pattern wrote it


@cache
def spoken(amount: str, symbol: str, locale: str, words: str) -> str | None:
    """The amount `amount` (ASCII digits, '.' decimals) of the unit written `symbol`, with the
    amount read as `words`, in `locale`'s long pattern ('120', 'km/h', 'zh', '一百二十' →
    '每小时一百二十公里'); None where CLDR has no such unit or the language no name for it."""
    uid = unit_id(symbol)
    if uid is None:
        return None
    for length in ("long", "short"):
        text = format_unit(float(amount) if "." in amount else int(amount), uid, length=length, locale=locale)
        if uid not in text and symbol not in text:  # CLDR's fallbacks: the id, or the symbol untranslated
            found = _NUMBER.search(text)
            return (text[:found.start()] + words + text[found.end():]).strip() if found else None
    return None



# Symbols text also writes a unit with: litres and millilitres in lower case, kilobytes in capitals.
_WRITTEN_ALSO = {"l": "L", "ml": "mL", "KB": "kB"}


def names(symbols: tuple[str, ...], locale: str) -> dict[str, str | None]:
    """Each symbol's unit by its name in `locale`, for a language that counts with no plural ('km', 'ja' → 'キロメートル')."""
    return {symbol: spoken("1", _WRITTEN_ALSO.get(symbol, symbol), locale, "") for symbol in symbols}
