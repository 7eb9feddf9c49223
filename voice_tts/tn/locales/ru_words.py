"""Russian: the words around numbers — units with their agreeing forms, currencies and their minor
units, months, the year noun, abbreviations, and the names of Latin letters and address words,
as `ru_words.json` and `ru_abbreviations.json` give them."""

from __future__ import annotations

from voice_tts.tn import cldr
from voice_tts.tn.locales import abbreviations, words

_WORDS = words("ru")
# unit → (one, a few, many, gender); after a fraction the 'a few' form is read: 'три целых две десятых литра'
UNITS = {unit: tuple(forms) for unit, forms in _WORDS["unit_forms"].items()}
# Squares and cubes typed with a plain digit ('м2') read as their superscript spelling ('м²').
UNITS |= {unit.translate(str.maketrans("²³", "23")): UNITS[unit] for unit in UNITS if unit[-1] in "²³"}
# A currency's minor unit, read when an amount has two decimals: '2 499,90 руб.'
MINOR = {written: tuple(forms) for forms, currencies in _WORDS["minor_units"] for written in currencies}
# The locative after a 'per': 'км/ч' → 'километра в час', '1/кг' → 'один в килограме'.
PER = _WORDS["per"]
SPELLED_AFTER = _WORDS["spelled_after"]
MONTHS_GENITIVE = cldr.month_names("ru")  # "января": CLDR's months as a date writes them
MONTH_INDEX = {m[:3]: i for i, m in enumerate(MONTHS_GENITIVE, 1)} | {
    m: i for i, m in enumerate(MONTHS_GENITIVE, 1)} | {"сент": 9, "май": 5}
YEAR_WORDS = _WORDS["year_words"]
YEAR_NOUNS = _WORDS["year_nouns"]
ABBREVIATIONS = abbreviations("ru")
LATIN_NAMES = _WORDS["latin_names"]
ADDRESS_WORDS = _WORDS["address_words"]
