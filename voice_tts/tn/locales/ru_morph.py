"""Russian morphology of the words around a number, from pymorphy3's OpenCorpora dictionary: the gender, number and case
of the counted noun, of a ruler's name before a Roman numeral, and whether the word before a number is a verb that takes
its object in the accusative ('стоит 1 250 рублей' стоит тысячу двести пятьдесят рублей)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache, lru_cache

import pymorphy3


# pymorphy3's (OpenCorpora's) grammemes as the case and gender names num2words takes.
_CASES = {"nomn": "nominative", "gent": "genitive", "gen2": "genitive", "datv": "dative", "accs": "accusative",
          "ablt": "instrumental", "loct": "prepositional", "loc2": "prepositional", "voct": "nominative"}
_GENDERS = {"masc": "m", "femn": "f", "neut": "n"}
_GRAMMEMES = {case: grammeme for grammeme, case in reversed(_CASES.items())}  # 'genitive': 'gent'


@dataclass(frozen=True)
class Form:
    """What a noun may be: its gender ("m", "f", "n"; "pl" with no singular: 'сутки') and animacy by its likeliest reading, and
    every (plural, case) its readings allow ('человек': singular nominative, plural genitive)."""

    gender: str
    animate: bool
    forms: tuple[tuple[bool, str], ...]  # likeliest first

    def singular_cases(self) -> list[str]:
        return [case for plural, case in self.forms if not plural]


@cache
def _analyzer() -> pymorphy3.MorphAnalyzer:
    # Its dictionary's path and format are logged at INFO, from every server worker at start.
    logging.getLogger("pymorphy3").setLevel(logging.WARNING)
    return pymorphy3.MorphAnalyzer()


@lru_cache(maxsize=8192)
def noun(word: str, names: bool = False, direct: bool = False) -> Form | None:
    """The readings of `word` as a declinable noun (a first name or patronymic with `names`: 'Петре'; a nominative or
    accusative first with `direct`: 'банка', 'банку' a jar), or None where the dictionary has none (nor a prefix's
    guess: 'ккал' к-кал) or `word` is under three letters."""
    parses = sorted(
        (
            p
            for p in _analyzer().parse(word if names else word.lower())
            if len(word) > 2
            and word.isalpha()
            and p.tag.POS == "NOUN"
            and "Fixd" not in p.tag
            and "Abbr" not in p.tag
            and (not names or "Name" in p.tag)
            and p.tag.case in _CASES
            and not isinstance(p.methods_stack[-1][0], pymorphy3.units.UnknownPrefixAnalyzer)
        ),
        key=lambda p: direct and p.tag.case not in ("nomn", "accs"),
    )
    # a noun of common gender has the gender of its other reading: 'глава' a chapter feminine, not a head's 'ms-f'
    if (best := next((p for p in parses if "Pltm" in p.tag or p.tag.gender in _GENDERS), None)) is None:
        return None
    gender = _GENDERS.get(best.tag.gender, "pl")  # or none with no singular: 'сутки'
    forms = dict.fromkeys((p.tag.number == "plur", _CASES[p.tag.case]) for p in parses
                          if p.tag.gender in (best.tag.gender, None) or p.tag.number == "plur")
    return Form(gender, "anim" in best.tag, tuple(forms))


@lru_cache(maxsize=4096)
def governs_accusative(word: str) -> bool:
    """Whether `word` is a transitive verb or its gerund ('включая 2 грузчиков' двух) or a verb of cost and measure
    ('стоит', 'весит'), whose amount after it is in the accusative: 'заплатил 1 000 рублей' заплатил тысячу рублей; by
    any of its readings ('перечислим', an adjective first), but a likeliest noun's or numeral's."""
    parses = _analyzer().parse(word.lower())
    return parses[0].tag.POS not in ("NOUN", "NUMR") and any(
        p.tag.POS in ("VERB", "INFN", "GRND") and "tran" in p.tag for p in parses
    )


@lru_cache(maxsize=4096)
def is_verb(word: str, forms: tuple[str, ...] = ("VERB", "INFN", "PRTF", "PRTS", "GRND")) -> bool:
    """Whether `word` is likeliest a verb, a participle or a gerund ('доставлен', 'родился'), or of pymorphy3's `forms` ("VERB")."""
    return bool(word) and _analyzer().parse(word.lower())[0].tag.POS in forms


@lru_cache(maxsize=4096)
def inflect(word: str, case: str, plural: bool = False) -> str:
    """`word` (a noun or an adjective: a unit's 'квадратный') in `case`, singular or plural; unchanged where the dictionary has no such form."""
    grammemes = {_GRAMMEMES[case], "plur" if plural else "sing"}
    parse = next((p for p in _analyzer().parse(word) if p.tag.POS in ("NOUN", "ADJF")), None)
    form = parse and parse.inflect(grammemes)
    if form and form.tag.POS == "ADJF" and "anim" in form.tag:  # a unit's: 'за 1 кв. м' за один квадратный метр
        form = parse.inflect(grammemes | {"inan"})
    return form.word if form else word


@lru_cache(maxsize=4096)
def adjective_gender(word: str) -> str | None:
    """The gender of a singular adjective between a number and its noun ('1 новое сообщение'
    одно, '1 новая задача' одна), or None where `word` is no such adjective."""
    tag = _analyzer().parse(word.lower())[0].tag  # pymorphy3 gives any string a reading, an unknown one 'UNKN'
    return _GENDERS.get(tag.gender) if tag.POS in ("ADJF", "PRTF") and tag.number == "sing" else None


@lru_cache(maxsize=1024)
def phrase_in_case(phrase: str, case: str) -> str:
    """An abbreviation's noun phrase in `case`, its words up to its noun ('улица' улице, 'Трудового
    кодекса Российской Федерации' Трудовому кодексу Российской Федерации); the rest as written."""
    words = phrase.split()
    for i, word in enumerate(words):
        # an adjective where a word follows: 'столовая ложка' столовой ложки, no canteen
        parses = _analyzer().parse(word)
        parse = next((p for p in parses if p.tag.POS == "ADJF" and i + 1 < len(words)), parses[0])
        form = (
            parse.inflect({_GRAMMEMES[case], "sing"})
            if (
                parse.tag.POS in ("NOUN", "ADJF")
                and parse.tag.case in ("nomn", "accs", "gent")
                and parse.tag.number == "sing"
            )
            else None
        )
        if form is None:
            break
        words[i] = form.word.capitalize() if word[0].isupper() else form.word
        if parse.tag.POS == "NOUN":
            break
    return " ".join(words)
