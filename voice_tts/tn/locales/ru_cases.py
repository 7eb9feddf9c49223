"""Russian: the case and gender a number takes from the words around it.

A count agrees with the preposition before it and the noun after it ('до 5 человек' до пяти человек, 'о 3 книгах' о трёх
книгах, 'купил 2 книги' купил две книги); a number before a noun in a singular case form that a count would not take is
an ordinal ('на 3 этаже' на третьем этаже, 'в 21 веке' в двадцать первом веке). The noun's gender comes from pymorphy3's
dictionary (`ru_morph`: 'до 1 недели' до одной недели, 'для 21 дня' для двадцати одного дня); its case from its ending,
which in Russian is reliable for the forms that matter here: the plural oblique endings (-ах, -ам, -ами), the
prepositional and accusative singular after 1 (-е, -у). A time of day takes its preposition's case too ('к 14:30' к
половине третьего, 'до 10:00' до десяти часов).
"""

from __future__ import annotations

import re
from functools import lru_cache

from num2words import CONVERTER_CLASSES, num2words

from voice_tts.tn.locales import ru_morph, words

_WORDS = words("ru")
# The case a preposition gives the number after it when the noun does not show a case of its own.
# 'в', 'на', 'за', 'через', 'про' take the accusative ('на 5 дней'); 'с' the genitive ('с 5
# рублей', from) unless the noun is instrumental ('с 5 участниками', with).
COUNT_PREPOSITIONS: dict[str, str] = _WORDS["count_prepositions"]
# Plural endings that show the case whatever the preposition (-ями before -ям, -ами before -ам).
_PLURAL_CASE_ENDINGS: dict[str, str] = _WORDS["plural_case_endings"]
# Words after a number that are no noun: 'на 2 или 3 дня' reads the first number by the second's noun.
_NOT_NOUNS = frozenset(_WORDS["not_nouns"]) | frozenset(COUNT_PREPOSITIONS)
# Adjectives and pronouns that sit between a number and its noun ('3 новых книги'): skip reading case from them.
_ADJECTIVE_ENDINGS = tuple(_WORDS["adjective_endings"])
_ONE_THOUSAND = re.compile(r"^одн[а-я]+ (?=тысяч)")
_INANIMATE_ACCUSATIVE = re.compile(r"\b(?:одна|тысяча)\b")
# The cases a preposition gives a time of day: 'к 14:30' к половине третьего, 'до 10:00' до десяти
# часов; after 'в' the half takes the prepositional ('в половине пятого'), the counts the accusative.
DIRECT_CASES = ("nominative", "accusative")  # a subject's or object's: no preposition governs them
_TIME_CASES = (*DIRECT_CASES, "genitive", "dative", "prepositional")


def digits(text: str) -> str:
    return " ".join(cardinal(int(c)) for c in text if c.isdecimal())


@lru_cache(maxsize=4096)
def ordinal(n: int, gender: str = "m", case: str = "nominative", plural: bool = False) -> str:
    return (
        digits(str(n))
        if n >= 10**21
        else num2words(n, lang="ru", to="ordinal", gender=gender, case=case, plural=plural)
    )


@lru_cache(maxsize=4096)
def cardinal(n: int, gender: str = "m", case: str = "nominative") -> str:
    """`n` in `case`; the accusative is that of an inanimate noun (the nominative, save 'одну'
    and 'тысячу'), and a thousand alone is 'тысяча', not 'одна тысяча', as speakers say it."""
    if n >= 10**21:
        return digits(str(n))
    # a noun with no singular: 'двое суток', 'одни сутки', 'одних суток'; past four a masculine count
    if gender == "pl":
        direct = case in DIRECT_CASES
        return (
            _WORDS["collective"][n - 1]
            if direct and 0 < n < 5
            else (ru_morph.inflect("одни", case, True) if n == 1 else cardinal(n, "m", case))
        )
    if case == "accusative":
        return _INANIMATE_ACCUSATIVE.sub(lambda m: m.group()[:-1] + "у", cardinal(n, gender))
    if gender != "m" and n >= 1000:  # the noun's gender reaches the last three digits only: 'один миллион пятьсот евро'
        head = cardinal(n - n % 1000, "m", case)
        return f"{head} {cardinal(n % 1000, gender, case)}" if n % 1000 else head
    return _ONE_THOUSAND.sub("", num2words(n, lang="ru", gender=gender, case=case))


def agreement(n: int) -> int:
    """0: one (1, 21), 1: a few (2-4, 22-24), 2: many (5-20, 25-30…), as num2words' Russian counts."""
    return CONVERTER_CLASSES["ru"].pluralize(n, (0, 1, 2))


def count_case(n: int, preposition: str, noun: str) -> str:
    """The case of a count between `preposition` (the word before it, lower case: a preposition or a verb) and `noun`
    (the word after, lower case, or ""): the case a plural's ending shows ('о 3 книгах'), that of a noun after one with
    no nominative ('в 1 доме'), else the preposition's or verb's ('купил 2 книги'); an animate accusative the genitive
    ('на 1 человека' одного; but 'на 2 человека' два: a count's singular noun)."""
    given = "accusative" if takes_accusative(preposition) else COUNT_PREPOSITIONS.get(preposition, "nominative")
    form = ru_morph.noun(noun, direct=given in DIRECT_CASES) if noun not in _NOT_NOUNS else None  # '1 банка' a jar
    shown = (
        len(noun) > 3
        and not noun.endswith(_ADJECTIVE_ENDINGS)
        and next((c for e, c in _PLURAL_CASE_ENDINGS.items() if noun.endswith(e)), None)
    )
    shown = shown or form and form.forms == ((True, "instrumental"),) and "instrumental"  # 'с 2 детьми'
    if shown == "instrumental" or (shown and preposition in COUNT_PREPOSITIONS) or (  # 'при покупке 2 упаковок' двух
            agreement(n) == 1 and form and form.forms == ((True, "genitive"),) and form.gender != "pl") or (
            preposition in _WORDS["action_nouns"] and noun not in _WORDS["not_objects"]):  # an action's object: 'при
        return shown or "genitive"  # покупке 6 бутылок' шести (not how long or often: 'доставка 3 дня' три)
    cases = form.singular_cases() if form and agreement(n) == 0 else []
    case = given if given in cases or not cases else cases[0]  # the noun shows its case: 'есть 1 шина' одна
    animate = form and form.animate and ((False, "genitive") not in form.forms if n > 1 else form.gender == "m")
    return "genitive" if case == "accusative" and 0 < n <= 4 and animate else case


def takes_accusative(word: str) -> bool:
    """After 'на', 'за', 'через', 'в' (motion, price, time) or a transitive verb ('стоит', 'заплатил'),
    an amount is in the accusative."""
    return COUNT_PREPOSITIONS.get(word) == "accusative" or (
        word not in COUNT_PREPOSITIONS and word.isalpha() and ru_morph.governs_accusative(word))


def count_gender(n: int, noun: str, case: str = "") -> str:
    """The gender the number's last word takes from the noun after it in `case`: 'две книги', 'одно окно'."""
    return form.gender if (form := ru_morph.noun(noun, direct=case in DIRECT_CASES)) and agreement(n) < 2 else "m"


def counted_noun(noun: str, n: int, case: str) -> str:
    """`noun` after the count `n` in `case`: час, два часа, пять часов; к двум часам."""
    kind, direct = agreement(n), case in DIRECT_CASES  # after a few or many the genitive: 'два часа', 'пять часов'
    return ru_morph.inflect(noun, "genitive" if kind and direct else case, plural=kind == 2 or kind == 1 and not direct)


def counts(parts: tuple[tuple[int, str, str], ...], case: str) -> str:
    """Counts and their nouns (of a gender) in `case`: ((1, 'час', 'm'), (5, 'минута', 'f')) один час пять минут."""
    return " ".join(f"{cardinal(n, gender, case)} {counted_noun(noun, n, case)}" for n, noun, gender in parts)


def time_of_day(h: int, minutes: int, case: str = "nominative") -> str | None:
    """'02:00' два часа, '08:07' семь минут девятого, '09:59' без одной минуты десять."""
    if h > 24 or minutes > 59 or case not in _TIME_CASES:
        return None
    count_case = "accusative" if case == "prepositional" else case
    hours = f"{cardinal(h, 'm', count_case)} {counted_noun('час', h, count_case)}"
    if minutes == 0:
        return hours
    following = ordinal(h % 12 + 1, "m", "genitive")  # the hour the minutes run into: 'девятого'
    minute_words = f"{cardinal(minutes, 'f', count_case)} {counted_noun('минута', minutes, count_case)}"
    if minutes <= 30:  # 'половина десятого', 'семь минут девятого'
        return f"{ru_morph.inflect('половина', case) if minutes == 30 else minute_words} {following}"
    if case != "nominative":  # 'с 0:50' с нуля часов пятидесяти минут: 'без' takes no preposition
        return f"{hours} {minute_words}"
    return (
        f"без {cardinal(60 - minutes, 'f', 'genitive')} {counted_noun('минута', 60 - minutes, 'genitive')} "
        f"{cardinal(h % 12 + 1)}"
    )
