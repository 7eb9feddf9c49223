"""Number words, currency names, unit names, fractions and telephone groups from CLDR and
libphonenumber, for every language.

Each language module decides *which* form a context needs; this module spells it:

- `cardinal(lang, n, *form)` and `ordinal(lang, n, *form)`: CLDR's rule-based number format
  (`unicode-rbnf`). `form` names the variant the way CLDR's rulesets do, most general first:
  ``cardinal("es", 21, "feminine")`` → "veintiuna", ``cardinal("de", 1, "m")`` → "einem" (the
  German rulesets -n/-r/-s/-m are the endings of "ein"), ``cardinal("ru", 2, "feminine",
  "genitive")`` → "двух", ``ordinal("fr", 1, "feminine")`` → "première". A variant the language
  does not have falls back to the next more general one, then to the plain cardinal.
  `spell(lang, n, ruleset)` names the ruleset itself ("spellout-numbering": "uno" alone).
- `year(lang, n)`: `spellout-numbering-year` ("neunzehnhundertneunundachtzig"); `month_names(lang)`,
  `month_abbreviations(lang)`.
- `currency_code(lang, written)`: the ISO 4217 code for a code or symbol as written ("gtq", "kr",
  "mex$", "€"), `currency_symbols(lang)` all of them (lower case → code); `currency_name(lang,
  code, n)`: its name for `n` ("coronas suecas", "quetzales").
- `unit_for(lang, written)`: the CLDR unit a symbol stands for ("km" → "length-kilometer", "kwh",
  "m2"); `unit_name(lang, unit, n)`: a CLDR unit named for `n` ("Kilometer"); `unit_names(lang,
  written)` both names of a symbol's unit; `unit_reading(amount, symbol, lang, words)`: an
  amount of a unit placed by the language's pattern ("每小时一百二十公里").
- `vulgar_fraction(char)`: "¾" → (3, 4), by `unicodedata`.
- `phone_groups(text, region)`: a telephone number as the digit groups its country writes it in
  ("912 345 678" in ES → ("912", "34", "56", "78")), or None when libphonenumber finds no valid
  number: what tells "Llame al 912 345 678" from an amount.

Results are cached: the CLDR engines are built once per language and each spelled number once.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from itertools import chain

import phonenumbers
from babel import Locale
from babel.core import get_global
from babel.dates import get_month_names
from babel.numbers import format_decimal, get_currency_name, get_currency_symbol
from babel.units import UnknownUnitError, format_unit
from unicode_rbnf import RbnfEngine
from unicode_rbnf.engine import NoRuleForNumberError

from voice_tts.tn.locales import data
from voice_tts.tn.word_list import known_words

# Symbols several currencies write alike ("kr", "$"): the one a bare symbol means, as data.
_SHARED_SYMBOLS: dict[str, str] = data("currency_symbols.json", "voice_tts.tn")
_TABLES = data("cldr.json", "voice_tts.tn")  # what CLDR's data leaves open (each table described there)
_NOUN_AT: dict[str, int] = _TABLES["noun_at"]  # where a language's currency names put their noun: 0 first, -1 last
_CATEGORY_ORDER = tuple(_TABLES["category_order"])  # which unit a symbol several units share means: the first's
_SI_SYMBOLS: dict[str, str] = _TABLES["si_symbols"]  # symbols the SI accepts that CLDR's short forms lack ('155 d')
_NOT_SYMBOLS = frozenset(_TABLES["not_symbols"])  # short forms that name something else after a number ('12B', '5G')


@lru_cache(maxsize=32)
def _engine(lang: str) -> RbnfEngine:
    return RbnfEngine.for_language(lang)


def _ruleset(lang: str, kind: str, form: tuple[str, ...]) -> str:
    """The most specific `spellout-<kind>-<form…>` the language has; every language has `spellout-numbering`."""
    names = _engine(lang).rulesets
    specific = ("-".join(("spellout", kind) + form[:i]) for i in range(len(form), -1, -1))
    return next(name for name in chain(specific, (f"spellout-{kind}-masculine", "spellout-numbering")) if name in names)


@lru_cache(maxsize=16384)
def spell(lang: str, n: int, ruleset: str) -> str:
    """`n` spelled by one named CLDR ruleset; a negative number by its absolute value; a number
    beyond the language's rules (Spanish stops below 10¹⁸) digit by digit."""
    try:
        result = _engine(lang).format_number(abs(n), ruleset_names=[ruleset])
    except NoRuleForNumberError:
        return " ".join(spell(lang, int(d), "spellout-numbering") for d in str(abs(n)))
    return result.text_by_ruleset[ruleset]


def spell_by_myriads(lang: str, n: int, ruleset: str) -> str:
    """`n` below 10^16 spelled by a ruleset of a language that groups by ten thousand (Chinese, Japanese, Korean), exact
    past 2^53: unicode-rbnf picks a rule by the number as a float, so a larger one is spelled as its 兆 and the rest."""
    parts = (n,) if n < 2**53 else (n - n % 10**12, n % 10**12)
    return "".join(spell(lang, part, ruleset) for part in parts if part)


def cardinal(lang: str, n: int, *form: str) -> str:
    return spell(lang, n, _ruleset(lang, "cardinal", form))


def ordinal(lang: str, n: int, *form: str) -> str:
    return spell(lang, n, _ruleset(lang, "ordinal", form))


def year(lang: str, n: int) -> str:
    return spell(lang, n, "spellout-numbering-year")


@lru_cache(maxsize=8)
def month_names(lang: str) -> tuple[str, ...]:
    """The twelve months as the language writes them in a date ("März", "janvier", "março")."""
    return tuple(get_month_names("wide", locale=lang).values())


def month_abbreviations(lang: str) -> dict[str, int]:
    """CLDR's abbreviated months in lower case without their period ("jan", "sept", "févr"), as 1..12."""
    return {name.lower().rstrip("."): month for context in ("format", "stand-alone")
            for month, name in get_month_names("abbreviated", context, lang).items()}


# --- currencies ---------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _current_currencies() -> tuple[str, ...]:
    """The ISO 4217 codes some country uses as legal tender today ("STN", not the withdrawn "STD")."""
    territories = get_global("territory_currencies").values()
    return tuple(sorted({c[0] for currencies in territories for c in currencies if c[2] is None and c[3]}))


@lru_cache(maxsize=32)
def currency_symbols(lang: str) -> dict[str, str]:
    """Lower-cased codes and symbols to ISO codes: every code in use today, its symbol in the
    language, and the symbols several currencies share or the language's data lacks
    (currency_symbols.json). A code that is also an English word ("top", "cup", "all") counts
    only in capitals: written in lower case after a number it is the word."""
    table = {code.lower(): code for code in _current_currencies() if code.lower() not in known_words()}
    # then 'CA$', 'A$'
    for locale in (lang, "en"):
        for code in _current_currencies():
            symbol = get_currency_symbol(code, locale).lower()
            if symbol != code.lower():
                table.setdefault(symbol, code)
    table.update(_SHARED_SYMBOLS)
    return table


def currency_code(lang: str, written: str) -> str | None:
    """The ISO 4217 code `written` stands for (a code in capitals or in lower case, or a symbol),
    or None ("Std" is no code: a word that starts with a capital is a word)."""
    if written.isalpha() and written.isupper() and written in _current_currencies():
        return written
    return None if written.isalpha() and not written.islower() else currency_symbols(lang).get(written.lower())


@lru_cache(maxsize=8)
def _shared_currency_nouns(lang: str) -> frozenset[str]:
    """Nouns several currencies in use today are named by ("peso", "corona", "dólar")."""
    nouns = [get_currency_name(code, 1, lang).split()[_NOUN_AT[lang]].lower() for code in _current_currencies()]
    return frozenset(noun for noun in nouns if nouns.count(noun) > 1)


@lru_cache(maxsize=4096)
def currency_name(lang: str, code: str, n: int) -> str:
    """The name of `n` of a currency as speakers say it: the noun alone where no other currency
    in use today shares it ("cincuenta quetzales", "mil yenes"), with its country where one
    does ("pesos mexicanos", "coronas suecas")."""
    name, words, at = get_currency_name(code, n, lang), get_currency_name(code, 1, lang).split(), _NOUN_AT.get(lang)
    if at == 0 and len(words) > 1 or at == -1 and len(words) == 2 and words[-1].islower():  # not 'доллар США'
        return name if words[at].lower() in _shared_currency_nouns(lang) else name.split()[at]
    return name


# --- units --------------------------------------------------------------------------------------


def _may_be_word(symbol: str) -> bool:
    """A lower-case symbol with a vowel may be a word after a number ("in", "ha", "mi", "nuits"), a capitalized one of
    four letters or more too ("Nächte"): the language module names those units itself where it reads them."""
    return (
        symbol.isalpha()
        and (symbol.islower() or (len(symbol) > 3 and symbol[1:].islower()))
        and any(c in "aeiouyàâéèêíîóôúü" for c in symbol)
    )


@lru_cache(maxsize=32)
def unit_symbols(lang: str) -> dict[str, str]:
    """Unit symbols ("km", "°C", "kWh", "Std.") to CLDR units ("length-kilometer"): the short
    forms of the language and of English that cannot be words. A symbol several units share
    goes to the unit whose category comes first in _CATEGORY_ORDER; one shared within a category
    is left out."""
    candidates: dict[str, set[str]] = {}
    for where in (lang, "en"):
        for unit, patterns in Locale.parse(where)._data["unit_patterns"].items():
            for form, pattern in patterns.get("short", {}).items():
                if form == "per" or unit.split("-")[0] not in _CATEGORY_ORDER or unit == "concentr-item":
                    continue
                symbol = pattern.replace("{0}", "").replace("\u00a0", " ").replace("\u202f", " ").strip()
                if symbol and " " not in symbol and not _may_be_word(symbol) and symbol not in _NOT_SYMBOLS:
                    candidates.setdefault(symbol, set()).add(unit)
    table = dict(_SI_SYMBOLS)
    # An abbreviated century or decade that begins a month's or the second's name is that after a
    # number ('17 déc.' décembre, '10 sec.' secondi): left out.
    clashes = [*Locale.parse(lang).months["format"]["wide"].values(), unit_name(lang, "duration-second", 2) or "-"]
    for symbol, units in candidates.items():
        ranked = sorted(units, key=lambda u: _CATEGORY_ORDER.index(u.split("-")[0]))
        if (
            (len(ranked) == 1 or ranked[0].split("-")[0] != ranked[1].split("-")[0])
            and not (
                ranked[0] in ("duration-century", "duration-decade")
                and symbol.endswith(".")
                and any(n.lower().startswith(symbol[:-1].lower()) for n in clashes)
            )
        ):
            table[symbol] = ranked[0]
    return table


_SUPERSCRIPTS = str.maketrans({"2": "²", "3": "³", "μ": "µ"})


@lru_cache(maxsize=4096)
def unit_for(lang: str, written: str) -> str | None:
    """The CLDR unit a symbol stands for, also as data sets write it: "m2" for "m²", Greek mu for the micro sign, any
    case for a symbol of two letters or more ("kwh", "MHZ") but capitals for one in lower case ("PC" no parsec)."""
    symbols = unit_symbols(lang)
    for candidate in (written, written.translate(_SUPERSCRIPTS)):
        if candidate in symbols:
            return symbols[candidate]
    folded = written.translate(_SUPERSCRIPTS).casefold()
    return None if len(written) < 2 or written.isupper() and folded in symbols else _folded_symbols(lang).get(folded)


@lru_cache(maxsize=4096)
def unit_names(lang: str, written: str) -> tuple[str, str] | None:
    """A unit symbol's names for one and for more ('km' → 'kilómetro', 'kilómetros'), or None."""
    unit = unit_for(lang, written)
    one = unit_name(lang, unit, 1) if unit else None
    return None if one is None else (one, unit_name(lang, unit, 2) or one)


@lru_cache(maxsize=32)
def folded_unit_symbols(lang: str) -> frozenset[str]:
    """The unit symbols of two characters or more as text read in lower case meets them ("cm²",
    "hpa", "kwh"), those that then could be words left out."""
    return frozenset(s for s in _folded_symbols(lang) if len(s) > 1 and "." not in s and not _may_be_word(s))


@lru_cache(maxsize=32)
def _folded_symbols(lang: str) -> dict[str, str]:
    folded: dict[str, set[str]] = {}
    for symbol, unit in unit_symbols(lang).items():
        folded.setdefault(symbol.casefold(), set()).add(unit)
    return {symbol: units.pop() for symbol, units in folded.items() if len(units) == 1}


@lru_cache(maxsize=4096)
def unit_name(lang: str, unit: str, n: int) -> str | None:
    """"length-kilometer", 5, "es" → "kilómetros": the long name without the number; None where
    the language's data has no name for it. Where the long form is missing, the short one when
    names a duration by a word (Italian "giorni", "mesi")."""
    number = format_decimal(n, locale=lang)
    for length in ("long", "short"):
        try:
            name = format_unit(n, unit, length=length, locale=lang).replace(number, "", 1).strip()
        except UnknownUnitError:
            return None
        if unit not in name and (length == "long" or unit.startswith("duration-") and _may_be_word(name)):
            return name
    return None


@lru_cache(maxsize=1)
def english_unit_ids() -> dict[str, str]:
    """Symbol → CLDR unit id ('km/h' → 'speed-kilometer-per-hour'), the first id a symbol names
    among CLDR's English short and narrow unit symbols, which are the symbols text is written
    with in every language."""
    ids: dict[str, str] = {}
    patterns = Locale("en")._data["unit_patterns"]
    for length in ("short", "narrow"):
        for unit_id, forms in patterns.items():
            for plural in ("one", "other"):
                pattern = forms.get(length, {}).get(plural)
                if pattern and "{0}" in pattern:
                    ids.setdefault(pattern.replace("{0}", "").strip(), unit_id)
    return ids


_UNIT_AMOUNT = re.compile(r"\d(?:[\d.,\u00a0\u202f]*\d)?")  # the amount as the pattern wrote it


@lru_cache(maxsize=None)
def unit_reading(amount: str, symbol: str, lang: str, words: str) -> str | None:
    """The amount `amount` (ASCII digits, '.' decimals) of the unit written `symbol` (found by
    `english_unit_ids`), with the amount read as `words`, in the language's long pattern, which
    places the number words: '120', 'km/h', 'zh', '一百二十' → '每小时一百二十公里'; None where CLDR
    has no such unit or the language no name for it."""
    if (uid := english_unit_ids().get(symbol)) is None:
        return None
    for length in ("long", "short"):
        text = format_unit(float(amount) if "." in amount else int(amount), uid, length=length, locale=lang)
        if uid not in text and symbol not in text:  # CLDR's fallbacks: the id, or the symbol untranslated
            found = _UNIT_AMOUNT.search(text)
            return (text[:found.start()] + words + text[found.end():]).strip() if found else None
    return None


# --- fractions and telephone numbers --------------------------------------------------------------


def vulgar_fraction(char: str) -> tuple[int, int] | None:
    """"¾" → (3, 4); None for a character that is no vulgar fraction."""
    parts = unicodedata.normalize("NFKC", char).split("\u2044")
    if len(char) != 1 or unicodedata.name(char, "")[:15] != "VULGAR FRACTION" or len(parts) != 2 or not parts[1]:
        return None  # '⅟' ("one over") has no denominator
    return int(parts[0]), int(parts[1])


VULGAR_FRACTIONS = frozenset(chr(c) for c in range(0x00BC, 0x2190) if vulgar_fraction(chr(c)) is not None)

_GROUP_SEPARATORS = re.compile(r"[\s\-./()]+")


@lru_cache(maxsize=1024)
def phone_groups(text: str, region: str, international: bool = False) -> tuple[str, ...] | None:
    """The digit groups of the telephone number `text`, as its country writes them nationally
    (or, `international`, after its country code), when libphonenumber finds a valid number for
    `region` in it; None otherwise."""
    try:
        parsed = phonenumbers.parse(text, region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_valid_number(parsed):
        return None
    style = phonenumbers.PhoneNumberFormat.INTERNATIONAL if international else phonenumbers.PhoneNumberFormat.NATIONAL
    return tuple(g for g in _GROUP_SEPARATORS.split(phonenumbers.format_number(parsed, style).lstrip("+")) if g)
