"""Russian: numbers with case and gender agreement, ordinals with their written endings ("38-я" → "тридцать восьмая",
"1870-х" → "тысяча восемьсот семидесятых"), decimals as fractions ("2,0003" → "две целых три десятитысячных"), money,
measures, dates, times, phone numbers, addresses and abbreviations, read as the Russian NeMo-text-processing data reads
them.

`european.Language` decides where a span ends and reads it, as for the other languages of Europe, through hooks that get
the context: Russian's take the case from the word before the number (a preposition or a verb: 'до 5 кг' до пяти
килограммов, 'стоит 1 250 руб.' тысячу) and the gender from the noun or unit after it (pymorphy3: 'одна неделя'). Number
words come from num2words, whose Russian declines cardinals and ordinals by case, gender and number; what it cannot know
(which form an ending such as "-е" or "-м" stands for, how a unit agrees with the number before it) is decided here. The
word tables are `ru_words.json`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import lru_cache

from babel.dates import get_day_names

from voice_tts.tn import cldr, lexer
from voice_tts.tn.chars import is_digit, is_letter
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor, TooLong
from voice_tts.tn.locales import abbreviations, locale_span, numeric_spans, ru_cases, ru_morph, words
from voice_tts.tn.locales.european import Currency, Language, Unit
from voice_tts.tn.locales.european_dates import chunk_after
from voice_tts.tn.locales.ru_cases import COUNT_PREPOSITIONS, DIRECT_CASES, agreement, cardinal, digits, ordinal
from voice_tts.tn.locales.ru_morph import governs_accusative, inflect, is_verb
from voice_tts.tn.locales.numeric_spans import (
    DATE, GROUP_SPACES, PHONE, date_parts, read_pieces, roman_value, word_after
)

_WORDS = words("ru")
# unit → (one, a few, many, gender); after a fraction the 'a few' form is read: 'три целых две десятых литра'
UNITS = {unit: tuple(forms) for unit, forms in _WORDS["unit_forms"].items()}
# Squares and cubes typed with a plain digit ('м2') read as their superscript spelling ('м²').
UNITS |= {unit.translate(str.maketrans("²³", "23")): UNITS[unit] for unit in UNITS if unit[-1] in "²³"}
_LONGEST_UNITS_FIRST = sorted(UNITS, key=len, reverse=True)  # 'кВт·ч' before 'кВт'
# A currency's minor unit, read when an amount has two decimals: '2 499,90 руб.'
MINOR = {written: tuple(forms) for forms, currencies in _WORDS["minor_units"] for written in currencies}
# The locative after a 'per': 'км/ч' → 'километра в час', '1/кг' → 'один в килограмме'.
PER = _WORDS["per"]
# After a price, 'за' its measure: '62,5 ₽/л' … рубля за литр (a share of one is 'на' it: '5 г/л' пять граммов на литр).
PRICE_PER = {unit: re.sub("^на ", "за ", words) for unit, words in PER.items()}
SPELLED_AFTER = _WORDS["spelled_after"]
YEAR_WORDS = _WORDS["year_words"]
MONTHS_GENITIVE = cldr.month_names("ru")  # "января": CLDR's months as a date writes them
MONTH_INDEX = {key: i for i, m in enumerate(MONTHS_GENITIVE, 1) for key in (m[:3], m)} | _WORDS["month_abbreviations"]
# The words that join the number before them: units, currencies, scale words, year nouns, 'США'.
_AFTER = frozenset(UNITS) | frozenset(YEAR_WORDS) | frozenset(SPELLED_AFTER)
# Of those, the abbreviations whose period belongs to them ('руб.').
_DOTTED = frozenset(_WORDS["dotted_abbreviations"])

# The forms an ordinal's written ending may stand for, most common first: '1-й' первый, '2-е'
# вторые (but '3-е' третье: третьи does not end in е), '84-м' восемьдесят четвертом.
_ORDINAL_FORMS = tuple(map(tuple, _WORDS["ordinal_forms"]))
# Words after a number's span read as written: a date's year noun ('5 мая 1990 г.'), 'США'.
_JOINED_AFTER = _WORDS["year_noun_forms"] | SPELLED_AFTER
_WORD_UNITS = tuple(_WORDS["word_units"])
# The case a preposition gives the ordinal after it: 'в 1974' в тысяча девятьсот семьдесят
# четвертом, 'с 1990' с тысяча девятьсот девяностого, 'к 5 мая' к пятому мая.
_PREPOSITION_CASES: dict[str, str] = _WORDS["ordinal_preposition_cases"]
# Two days that share the month after the second: '3-5 мая'; with a link word ('с 3 по 5 мая', '3 и 4 мая') the
# first day waits (through the Cursor, up to the tail bound) for the second day and the month.
_DAY_RANGE = re.compile(r"(?P<first>\d{1,2})[-–](?P<last>\d{1,2})")
# Two centuries or years, each an ordinal before the plural noun after them: 'XVII–XVIII вв.', '2026–2027 гг.'
_ORDINAL_RANGE = re.compile(r"([IVXLC]+|\d{4})[-–—]([IVXLC]+|\d{4})")
# The case a second part takes from the first ('до 5 руб. 50 коп.' пятидесяти копеек, 'за 2 ч 41 мин' одну минуту).
_CARRIED = "carried "
# The agreement of a measure range's first number, spaces around its dash ('3 – 5 кг'), then its preposition's case.
_MEASURE_RANGE_OPEN = "measure range:"
# The cases `_day_case` gives a day; a span's agreement may also mark a money amount or a range.
_DAY_CASES = frozenset(("nominative", "genitive", "dative", "accusative", "instrumental"))
# 'N-х' before a word is a count in the genitive ('4-х килограммовый', 'для 3-х человек'); a decade (ending in 0, save 0
# itself) stays an ordinal ('в 90-х было иначе'), and so does 'N-х' with no word after it.
_COUNT_ENDING = re.compile(r"(?P<num>\d*[1-9]|0+)-х")
# Four digits after no other digit ('1974', not '2 005').
_FOUR_DIGITS = re.compile(r"(?<!\d)\d{4}")
_ORDINAL = re.compile(r"(?P<num>\d+)-(?P<ending>[а-яё]{1,3})")
_WORD_DATE = re.compile(r"(?P<d>\d{1,2})[-. ](?P<month>[а-яё]+)\.?(?:[-. ](?P<y>\d{4})(?: ?(?:года|г)\.?)?)?")
# A year with its noun: 'в 1990 году', 'г. в.' года выпуска; 'г.' only after four digits ('500 г' grams).
_YEAR_WITH_WORD = re.compile(r"(?P<n>\d{1,4}) ?(?P<word>год[а-я]*|г)\.?(?P<made> ?в)?")
# A number joined by a hyphen to a compound's rest: its genitive, with the joining forms that differ ('сто').
_COMPOUND = re.compile(r"(\d+)-([а-яё]{4,})")
_COMBINING: dict[str, str] = _WORDS["combining_forms"]
_SPACED_PHONE = re.compile(r"\d+(?: [\d-]+)+")  # '8 800 100-00-01': its groups as written, the zeros one by one
_SPACE_GROUPED = re.compile(r"\d{1,3}(?:[ \u00a0\u202f]\d{3})*")
_GROUP = re.compile(r"\d{3}(?!\d)")
_PIECE = re.compile(r"\d+(?:,\d+)?|[а-яё]+|[a-z]+|\S", re.I)
_LAST_WORD = re.compile(r"[^\W\d_]+$")
# A year alone is an ordinal, with no word showing its case in the prepositional of 'в 1974 (году)', the commonest.
_YEARS = range(1700, 2101)
# A range of a measure joined by a hyphen or a dash: '3-5 кг', '1,5-2 кг', '60-90 км/ч'.
_DASHES = frozenset("-–—")
_AMOUNT = r"\d+(?:,\d+)?"
_MEASURE = rf"(?P<last>{_AMOUNT}) ?(?P<unit>[^\s\d/]+?)\.?(?:/(?P<per>[^\s\d]+))?"
_MEASURE_RANGE = re.compile(rf"(?P<first>{_AMOUNT})[-–—]" + _MEASURE)
_RANGE_END = re.compile(_MEASURE)


@lru_cache(maxsize=4096)
def ordinal_with_ending(n: int, ending: str, cases: tuple[str, ...] = ()) -> str:
    """The form the ending stands for; of the forms in `cases` (a preposition's) first: 'к 5-му'
    к пятому, 'с 5-м' с пятым."""
    forms = [(g, c, p) for c in cases for g in ("m", "f", "n") for p in (False, True)] + list(_ORDINAL_FORMS)
    return _as_written((ordinal(n, *form) for form in forms), ending) or ordinal(n)


def _as_written(readings: Iterable[str], ending: str) -> str | None:
    """The first of `readings` that ends as the written ending does ('-е', '-го'; 'ё' written 'е')."""
    return next((reading for reading in readings if reading.replace("ё", "е").endswith(ending)), None)


def _whole_and_decimals(written: str) -> tuple[str, str]:
    """A written amount's whole part and its decimals: '2,5' ('2', '5'), '3' ('3', '')."""
    return written.partition(",")[::2]


def decimal(integer: str, fraction_digits: str | None, case: str = "nominative", gender: str = "m") -> str:
    """'2,03' → 'две целых три сотых', in `case` ('до 1,5' одной целой пяти десятых, 'на 1,38' одну целую тридцать
    восемь сотых); with no fraction a count of `gender` ('5' пяти)."""
    whole = int(integer)
    if not fraction_digits:
        return cardinal(whole, gender, case)
    if len(fraction_digits) > 9:  # past 'миллиардная'
        return f"{cardinal(whole, 'm', case)} запятая {digits(fraction_digits)}"
    part = int(fraction_digits)
    denominator = _fraction_noun(10 ** len(fraction_digits), part, case)
    return f"{cardinal(whole, 'f', case)} {_whole_word(whole, case)} {cardinal(part, 'f', case)} {denominator}"


def _whole_word(count: int, case: str = "nominative") -> str:
    """'целая', 'целых': it declines as the part 'десятая' does."""
    return "цел" + _fraction_noun(10, count, case).removeprefix("десят")


def _fraction_noun(denominator: int, count: int, case: str = "nominative") -> str:
    """The ordinal that names a fraction's part after `count` of it: одна десятая, две десятых."""
    return (
        ordinal(denominator, "f", case)
        if agreement(count) == 0
        else ordinal(denominator, "f", "genitive" if case in DIRECT_CASES else case, plural=True)
    )


@dataclass(frozen=True, slots=True)
class Forms(Unit):
    """A Russian unit: its forms after one, a few and many ('рубль', 'рубля', 'рублей'), and the
    'per' words after it ('км/ч' километров в час)."""

    few: str = ""
    gender: str = "m"
    written: str = ""  # as the text writes it, lower case ('руб', 'г')
    per: str = ""


def _minor(written: str) -> Forms:
    """A currency's minor unit ('копейка' of 'руб.', 'цент' of '$' and any other)."""
    one, few, many = MINOR.get(written, MINOR["$"])
    return Forms(one, many, one == "копейка", few, "f" if one == "копейка" else "m", one)


class Russian(Language):
    """`Language` decides where a span ends and reads it with the hooks below; `find_span` reads what else depends on
    the words around it (a written ordinal before its noun, a day before another's month, a measure range's start)."""

    code = "ru"
    # Scale words after a number ('2,5 тыс руб.' две целых пять десятых тысячи рублей).
    SCALES = {word: Forms(one, many, gender == "f", few, gender, word)
              for word in ("тыс", "млн", "млрд") for one, few, many, gender in [UNITS[word]]}
    MONTHS = MONTH_INDEX
    MONTH_NAMES = MONTHS_GENITIVE
    # The abbreviations and CLDR's abbreviated weekdays, with a period or none, read in full
    # ('с пн. по пт' с понедельника по пятницу).
    SPELLED_OUT = abbreviations("ru") | {day + dot: wide for dot in ("", ".") for day, wide in zip(
        *(get_day_names(width, locale="ru").values() for width in ("abbreviated", "wide")))}
    LONGEST_ABBREVIATIONS_FIRST = sorted(SPELLED_OUT, key=len, reverse=True)

    # --- the module contract and the words `Language` reads with ----------------------------

    cardinal = staticmethod(cardinal)

    def fraction(self, numerator: int, denominator: int) -> str:
        """'1/2' одна вторая, '3/4' три четвертых; over more than a hundred but no power of ten, or not less than one, a
        reference ('заявка 58/412' пятьдесят восемь дробь четыреста двенадцать)."""
        # 'смета № 47/26' дробь
        if denominator > 100 and str(denominator).strip("0") != "1" or numerator >= denominator:
            return f"{cardinal(numerator)} дробь {cardinal(denominator)}"
        return f"{cardinal(numerator, 'f')} {_fraction_noun(denominator, numerator)}"

    # --- the forms a number takes from the words around it ----------------------------------

    def amount_case(self, ctx: Context, measure: bool = False) -> str:
        """The accusative after 'на', 'за' or a transitive verb ('стоит 1 250 руб.', 'вернули на карту'), the genitive
        after 'до', 'от' or an action's noun ('возврат 500 ₽', 'замена 120 м²'), else the nominative; a `measure` after
        a noun and 'с' the instrumental ('с 16 ГБ')."""
        if ru_cases.takes_accusative(preposition := _preposition(ctx)):
            return "accusative"
        if (
            measure
            and preposition in ("с", "со")
            and ctx.words_before
            and ru_morph.noun(ctx.words_before[-1])
            and not is_verb(ctx.words_before[-1])
        ):
            return "instrumental"
        case = "genitive" if preposition in _WORDS["action_nouns"] else COUNT_PREPOSITIONS.get(preposition)
        return case if case in ("genitive", "dative", "prepositional") else "nominative"  # 'при 190 °C' при ста …

    def _spoken_quantity(self, whole: str, fractional: str | None, ctx: Context) -> str:
        return decimal(whole, fractional, self.amount_case(ctx))

    def _counted_quantity(self, whole: str, fractional: str | None, unit: Unit, ctx: Context, case: str = "") -> str:
        """A number and its unit, both in the amount's case: 'до 5 кг' до пяти килограммов; a year and
        its noun ('в 1990 г.' в тысяча девятьсот девяностом году); rubles and kopecks ('2,03 руб.')."""
        if (
            not fractional
            and (year := _YEAR_WITH_WORD.fullmatch(f"{whole} {unit.written}"))
            # under 1000 only 'году', no count's ('22 года'); 'г' no gram's ('6593 г')
            and (year["word"] == "году" or len(whole) == 4 and (year["word"] != "г" or int(whole) in _YEARS))
        ):
            return _year_with_noun(int(whole), year["word"], _preposition(ctx)) + " выпуска" * bool(year["made"])
        case = case or self.amount_case(ctx, measure=unit.written not in MINOR and unit.written not in self.SCALES)
        if case == "accusative" and unit.written in _WORDS["animate_units"] and not fractional and 0 < int(whole) <= 4:
            case = "genitive"  # people counted are animate: 'на 2 чел.' на двух человек, 'на 1 чел.' на одного
        if ctx.agreement.startswith(_CARRIED) and unit.written in ("коп", "мин") and len(whole) <= 2:
            case = ctx.agreement.removeprefix(_CARRIED)  # the kopecks in the rubles' case, the minutes in the hours'
        if fractional and len(fractional) == 2 and unit.written in MINOR:
            major = self._counted_quantity(whole, None, unit, ctx)
            return (
                f"{major} {self._counted_quantity(str(int(fractional)), None, _minor(unit.written), ctx)}"
                if int(fractional)
                else major
            )
        if (whole, fractional) == ("0", "5") and case in DIRECT_CASES and unit.few in _WORDS["halved_units"]:
            return _WORDS["halved_units"][unit.few] + unit.per
        half = _and_a_half(whole, fractional, unit.gender, case, unit.few)  # 'полтора часа', 'два с половиной часа'
        count = max(int(whole), 2) if half else None if fractional else int(whole)
        return (
            f"{half or decimal(whole, fractional, case, unit.gender)} "
            f"{_unit_form((unit.singular, unit.few, unit.plural), count, case)}{unit.per}"
        )

    def money(self, whole: str, fractional: str | None, currency: Currency, scale: Unit | None, ctx: Context) -> str:
        case = self.amount_case(ctx)  # money after 'с' is where it starts ('с 5 тыс. руб.'), never an instrumental
        return (
            f"{self._counted_quantity(whole, fractional, scale, ctx, case)} {currency.major.plural}"
            if scale
            else self._counted_quantity(whole, fractional, currency.major, ctx, case)
        )

    def mixed_fraction(self, whole: int, numerator: int, denominator: int) -> str:
        return f"{cardinal(whole, 'f')} {_whole_word(whole)} {self.fraction(numerator, denominator)}"

    def fraction_span(self, cur: Cursor, end: int, numerator: int, denominator: int, ctx: Context) -> Span | None:
        """'½' or '1/2' (no pressure) as a noun before a spoon in the genitive ('½ ч. л.' половину чайной ложки) or a
        noun ('3/4 суммы' три четверти), a half joined to it ('1/2 стакана' полстакана) but after a count's preposition
        ('до ½ стакана' до половины); after one with no noun a noun too ('собран на 3/4' на три четверти)."""
        if lexer.word_at(cur, end, _WORD_UNITS):
            reading = self.fraction_before(cur, end, numerator, denominator, ctx, True)
            return self.locale_span(end, reading, "legal part")
        noun = chunk_after(cur, end, is_letter)
        if noun and noun[0] == "эт" and cur.at(k := noun[1]) == ".":
            reading = f"{ordinal(numerator)} этаж из {cardinal(denominator, 'm', 'genitive')}"  # '7/12 эт.' 7 of 12
            return self.locale_span(k + (not self._period_ends_sentence(cur, k)), reading)
        # 'собран на 3/4,'
        counting = _preposition(ctx) in COUNT_PREPOSITIONS
        bare = noun is None and counting
        if (
            not (bare or noun and noun[0].islower() and not self.unit(noun[0]))
            or (
                (reading := self.fraction_before(cur, end, numerator, denominator, ctx, bare))
                == self.fraction(numerator, denominator)
            )
        ):
            return None
        if (numerator, denominator) == (1, 2) and not counting:
            return self.locale_span(noun[1], "пол" + "-" * (noun[0][0] in "аеёиоуыэюял") + noun[0])
        return self.locale_span(end, reading)

    def fraction_before(
        self, cur: Cursor, end: int, numerator: int, denominator: int, ctx: Context, named: bool = False
    ) -> str:
        """'¾ суммы' три четверти суммы: a fraction before a noun (or `named`: '½ ч. л.') as its noun, in its place's case ('по ½' по половине)."""
        count, name = _WORDS["fraction_nouns"].get(f"{numerator}/{denominator}", (0, ""))
        if not name or not named and (not (noun := chunk_after(cur, end, is_letter)) or self.unit(noun[0])):
            return self.fraction(numerator, denominator)
        case = "dative" if _preposition(ctx) == "по" else self.amount_case(ctx)
        return f"{cardinal(count, 'f', case)} " * (count > 1) + ru_cases.counted_noun(name, count, case)

    def counted_fraction(self, word: str, whole: int, numerator: int, denominator: int) -> str | None:
        """A fraction of a unit: the unit in the genitive singular ('одна вторая литра'); a score out of the most
        before its points, 'из' ('95/100 баллов' девяносто пять из ста баллов)."""
        if not whole and word.lower() in _WORDS["points"] and numerator <= denominator:
            return (
                f"{cardinal(numerator, ru_cases.count_gender(numerator, word.lower()))} из "
                f"{cardinal(denominator, 'm', 'genitive')} {word}"
            )
        return None if (unit := self.unit(word)) is None else (
            f"{self.mixed_fraction(whole, numerator, denominator) if whole else self.fraction(numerator, denominator)}"
            f" {unit.few}"
        )

    def number_range(self, m: re.Match[str], ctx: Context, ends_phrase: bool = False, noun: str | None = None) -> str:
        """'3–5 дней' три пять, in the case the preposition and noun give ('в течение 3–5 дней' трёх пяти), in the noun's
        gender ('за 1–2 недели' одну две); after a dash, colon or people, 'от … до' ('— 7–10 дней', 'детей 3–7 лет')."""
        if "," in m[0]:  # decimals: each read alone, a unit after them by `_measure_range` ('3,3–5,5 ммоль/л' от … до)
            return _fallback(_plain(m[0]))
        people = ru_morph.noun(ctx.prev_word) if ctx.last_visible.isalpha() else None  # 'детей', 'пациентов'
        opens = agreement(last := int(m[3])) == 2 and (ctx.last_visible in ("—", "–", ":") or (
            people is not None and people.animate and (True, "genitive") in people.forms))
        case = "genitive" if opens else ru_cases.count_case(last, _preposition(ctx), noun or "")
        first, up_to = (cardinal(n, ru_cases.count_gender(n, noun or ""), case) for n in (int(m[1]), last))
        return f"от {first} до {up_to}" if opens else f"{first} {up_to}"

    def _alphanumeric(self, text: str) -> str:  # a code's capital as written: 'R7T9QX' R семь T девять Q X
        return text if re.fullmatch("[A-Z]", text) else _fallback(" ".join(text.split()))  # '3-НДФЛ' три НДФЛ

    def ordinal(self, n: int, suffix: str, ctx: Context) -> str:
        """The form the written ending stands for, of the preposition's case first ('к 5-му'), after 'с' also of the
        instrumental ('с 5-м' с пятым), after a verb of the instrumental ('финишировал 3-м' третьим)."""
        if (case := COUNT_PREPOSITIONS.get(preposition := _preposition(ctx))) is None:
            return ordinal_with_ending(n, suffix, ("instrumental",) if is_verb(preposition) else ())
        first = "nominative" if case == "accusative" else case
        return ordinal_with_ending(n, suffix, (first, "instrumental") if preposition in ("с", "со") else (first,))

    def clock(self, hours: int, minutes: int, seconds: int | None, marker: str, ctx: Context) -> str:
        """'9:30' половина десятого; after a preposition, or an afternoon's alone, as the clock shows it, in its case
        ('до 21:30' до двадцати одного тридцати, '18:45' восемнадцать сорок пять); with seconds, or an afternoon's after
        'и' (as the hour before may be: 'в 11:00 и 15:30'), every part named (пятнадцать часов тридцать минут)."""
        preposition = _preposition(ctx)
        case, listed = _PREPOSITION_CASES.get(preposition), ctx.prev_word.lower() in ("и", "или")
        if seconds is not None or not case and listed and 12 < hours <= 24 and 0 < minutes < 60:
            parts = (
                (hours, "час", "m"), (minutes, "минута", "f"), (seconds, "секунда", "f")
            )[:2 if seconds is None else 3]
            c = "accusative" if ru_cases.takes_accusative(preposition) else "nominative"  # 'за …' одну минуту
            return ru_cases.counts(parts, c)
        if (case or hours > 12) and minutes and hours <= 24 and minutes <= 59:  # 'в 9:15': 'в' takes the accusative
            c = (case or "nominative").replace("prepositional", "accusative")
            return f"{cardinal(hours, 'm', c)} {'ноль ' * (minutes < 10)}{cardinal(minutes, 'm', c)}"
        return ru_cases.time_of_day(hours, minutes, case or "nominative") or ru_cases.time_of_day(hours, minutes)

    def date(self, day: int, month: int, year: int | None, ctx: Context) -> str:
        """'31.01.06' тридцать первое января ноль шестого; first in a sentence named: nominative ('08.12 — …')."""
        first = not (ctx.prev_word or ctx.words_before) and ctx.last_visible != ","  # 'Матч — 22.03' двадцать второго
        return super().date(day, month, year, replace(ctx, agreement="nominative") if first else ctx)

    def shaped_token(self, token: str, ctx: Context) -> str | None:
        """A date with its year noun glued on ('6/3/1006г') or its month abbreviated between hyphens
        ('03-фев-2002'), a mobile number written without its spaces ('89123456789')."""
        if re.fullmatch(r"[78]9\d{9}", token) and cldr.phone_groups(token, "RU"):  # a mobile number
            return _phone(token)
        if m := _COMPOUND.fullmatch(token):  # '25-летие' двадцатипятилетие, '3-комнатная' трёхкомнатная
            return "".join(_COMBINING.get(word, word) for word in cardinal(int(m[1]), "m", "genitive").split()) + m[2]
        if (m := _WORD_DATE.fullmatch(token.lower())) and m["month"] in MONTH_INDEX and 1 <= int(m["d"]) <= 31:
            return Language.date(self, int(m["d"]), MONTH_INDEX[m["month"]], int(m["y"]) if m["y"] else None, ctx)
        # a product's version ('Android 14.1' четырнадцать точка один): a Russian decimal is written with a comma
        if re.fullmatch(r"\d+\.\d+", token) and re.fullmatch(r"[A-Za-z]+", ctx.prev_word):
            return " точка ".join(cardinal(int(part)) for part in token.split("."))
        # 'рождения 01-01-86' a date, else a city's telephone number
        cued = {ctx.prev_word.lower(), *ctx.words_before[-1:]} & set(_WORDS["date_cues"])
        parts = (
            date_parts(m, ".-" if cued else ".")
            if (m := DATE.fullmatch(token.removesuffix("г"))) and (token.endswith("г") or cued)
            else None
        )
        return self.date(*parts, ctx) if parts else super().shaped_token(token, ctx)

    def per(self, unit: Unit) -> str:
        return PRICE_PER.get(unit.written, unit.singular)

    def pace(self, minutes: int, seconds: int, per: str, ctx: Context) -> str:
        """'3:23 мин/км' три минуты двадцать три секунды на километр, named as after 'по'."""
        parts = ((minutes, "минута", "f"), (seconds, "секунда", "f"))
        said = ru_cases.counts(tuple(part for part in parts if part[0]), "nominative")
        return said + (self.unit(f"мин/{per}").per if per else "")

    def date_day(self, day: int, ctx: Context) -> str:
        return ordinal(day, "n", _date_case(ctx))

    def year(self, n: int) -> str:
        """The year of a full date, with its noun: 'пятого мая 2027', '15.03.2027' … двадцать седьмого года; one of two
        digits written '86' or '06' is read as written ('восемьдесят шестого', 'ноль шестого')."""
        if n < 100:
            return f"{'ноль ' if n < 10 else ''}{ordinal(n, 'm', 'genitive')}"
        return ordinal(n, "m", "genitive") + " года"

    def phone_digits(self, text: str) -> str:
        """Groups joined by hyphens as libphonenumber groups them ('8-913-983-56-01'); any other
        digits piece by piece as written ('7 912 345-67-89', '03')."""
        return (
            _phone(text)
            if PHONE.fullmatch(text)
            else (
                " ".join(map(self._zeros_then_number, re.findall(r"\d+", text)))
                if _SPACED_PHONE.fullmatch(text)
                else _fallback(_plain(text))
            )
        )

    def count_before_noun(self, cur: Cursor, end: int, n: int, ctx: Context) -> str | None:
        """A count in the case of the word before it and the gender of the noun after it; a year
        after a preposition or alone on its line; an ordinal where the noun shows one ('на 3 этаже')."""
        preposition, noun = _preposition(ctx), _counted_noun(cur, end)
        if n in _YEARS and _FOUR_DIGITS.fullmatch(cur.text, end - 4, end) and (year := _year(n, ctx, noun)):
            return year
        code = n > 9999 and (
            chunk_after(cur, end, str.isupper)
            or preposition == "индекс"
            # '…, 125009, Москва'
            or cur.at(end) == "," and (
                word_after(cur, end + 1) == "г" or ctx.last_visible == "," and chunk_after(cur, end + 1, str.isupper)
            )
        )
        # a postcode in two groups ('620014, г.' шестьсот двадцать ноль четырнадцать)
        if code and 99999 < n < 10**6 and cur.text[end - 6:end].isdecimal():
            return _phone(f"{n // 1000}-{n % 1000:03d}")
        # a code or a number before a name ('12500 Москва', '№ 752 Москва'), no count; after 'из' the noun counted
        # before ('позициям из 31' одной)
        noun = "" if code or preposition == "№" else noun
        counted = (
            noun
            if noun.isalpha() or preposition != "из"
            else inflect(_word_before(ctx).lower(), "nominative")
        )
        with suppress(TooLong):  # waits for a school class's letter and its noun: '5 «Б» класса' пятого «Б» класса
            if cur.at(end + 4) != "\n" and (letter := re.match(r' [«"]?[А-ЯЁ][»"]?(?= )', cur.text[end:end + 5])) and (
                    lettered := word_after(cur, end + letter.end())) in _WORDS["lettered_nouns"]:
                return _ordinal_by_noun(n, preposition, lettered, named=True)
        return (
            _ordinal_by_noun(n, preposition, noun)
            or cardinal(n, ru_cases.count_gender(n, counted, case := ru_cases.count_case(n, preposition, noun)), case)
        )

    def percent(self, whole: str, fractional: str | None, ctx: Context) -> str:
        return self._counted_quantity(whole, fractional, self.unit("%"), ctx, self.amount_case(ctx))

    noun_after = staticmethod(word_after)  # any word: ru_morph knows whether it is a noun and its gender

    def is_feminine(self, noun: str) -> bool:
        return (form := ru_morph.noun(noun)) is not None and form.gender == "f"

    def unit(self, written: str) -> Unit | None:
        """A word that joins the number before it ('кг', 'км/ч', 'году', 'США'), as `UNITS` names it."""
        parts = written.lower().split("/")
        # 'руб/мес', never 'руб/шт' рублей
        if parts[0] not in _AFTER or not all(part in PER for part in parts[1:] if part):
            return None
        one, few, many, gender = UNITS.get(parts[0], (parts[0], parts[0], parts[0], "m"))
        per = PRICE_PER if parts[0] in MINOR else PER
        return Forms(one, many, gender == "f", few, gender, parts[0], "".join(f" {per[p]}" for p in parts[1:] if p))

    def unit_at(self, cur: Cursor, word: str, end: int, ctx: Context | None = None) -> Unit | None:
        """'с' (seconds) is a preposition before a word or number; 'а' in lower case a conjunction ('16 А' ампер)."""
        if word == "а" or word.lower() in COUNT_PREPOSITIONS and cur.at(lexer.spaces(cur, end)).isalnum():
            return None
        return self.unit(word)

    def currency(self, written: str) -> Currency | None:
        """A currency sign or code ('$', 'USD'), as `UNITS` names it."""
        unit = (
            self.unit(written) if lexer.is_currency(written[:1]) or written.lower() in _WORDS["codes_before"] else None
        )
        # '₸', 'AMD', '680 GEL'
        if (
            unit is None
            and (lexer.is_currency(written[:1]) or written.isupper())
            and (code := cldr.currency_code("ru", written))
        ):
            one, few, many = (cldr.currency_name("ru", code, n) for n in (1, 2, 5))
            unit = Forms(
                one,
                many,
                (gender := getattr(ru_morph.noun(one.split()[-1]), "gender", "m")) == "f",
                few,
                gender,
                written,
            )
        return None if unit is None else Currency(unit, _minor(written.lower()))

    # before an amount no code that is an English word ('TOP 10')
    def currency_word(self, written: str) -> Currency | None:
        return self.currency(written) if written.lower() in cldr.currency_symbols("ru") else None

    def abbreviation(self, written: str) -> str | None:
        return self.ABBREVIATIONS.get(written.lower())

    def address(self, text: str) -> str:
        """Piece by piece, a hyphen before a digit a 'дефис', elsewhere a 'тире'; Latin letters by name."""
        return read_pieces(re.sub(r"-(?=\d)", "\u2011", text), self.ADDRESS_SYMBOLS, digits, _spell_latin)

    # --- where Russian's spans end otherwise ------------------------------------------------

    def _country_code_phone(self, cur: Cursor, pos: int) -> Span | None:
        """'+7 495 123-45-67', '+7(495)1234567', '(495) 123-45-67', in the groups libphonenumber gives (`_phone`)."""
        return None if (end := _phone_end(cur, pos)) is None else self.locale_span(end, _phone(cur.text[pos:end]))

    _bracketed_phone = _country_code_phone

    def _number_end(self, cur: Cursor, body: int) -> int:
        """Groups of three after single spaces ('1 000 000'), the last with what it carries ('8 800 555-35-35')."""
        end = super()._number_end(cur, body)
        grouped = (
            cur.at(end) in GROUP_SPACES and _SPACE_GROUPED.fullmatch(cur.text, body, end) and is_digit(cur.at(end + 1))
        )
        return m if grouped and _GROUP.match(cur.text, end + 1, m := lexer.chunk(cur, end + 1)) else end

    def _word(self, cur: Cursor, pos: int, ctx: Context) -> Span | None:
        """An address in any script ('ivan@почта.рф'), also past its first word's joiners ('b3_c&-d@x.com'); a weekday
        giving the date after its comma its case ('на субботу, 19 мая' девятнадцатое); else `Language`'s words."""
        low = cur.text[pos:(end := lexer.chunk(cur, pos))].lower()
        try:
            run = lexer.url_end(cur, pos) if cur.at(end) in "&-_.+@" else end
            digits = (
                cur.text[end + 1:lexer.digits_end(cur, end + 1)]
                if low in ("в", "к", "с") and cur.at(end) == " "
                else ""
            )
            # 'второй', 'сто' may follow
            number = (digits == "2" or low == "с" and re.fullmatch("1..", digits)) and self.find_span(
                cur,
                end + 1,
                replace(ctx, prev_word=cur.text[pos:end], words_before=(*ctx.words_before, ctx.prev_word)[-3:]),
            )
        except TooLong:
            run, number = end, None
        # 'С 2 января' Со второго
        if number and number.kind == "locale" and re.match("вт|ст" if low == "с" else "вт", number.info):
            # 'во 2 квартале', 'с 100 ₽' со ста
            return self.locale_span(end, cur.text[pos:end] + "о", ctx.agreement)
        if numeric_spans.is_address(cur.text[pos:run]):
            return self.locale_span(run, self.address(cur.text[pos:run]))
        if (
            (days := re.fullmatch(r"(\w+)[-–](\w+)", low))
            and {*days.groups()} <= self.SPELLED_OUT.keys() - self.ABBREVIATIONS.keys()
        ):
            first, last = (
                inflect(self.SPELLED_OUT[day], case)
                for day, case in zip(days.groups(), ("genitive", "accusative"))
            )
            # 'пн–пт', 'ср–вс' со среды
            return self.locale_span(end, f"с{'о' * bool(re.match('[взсшж][^аеёиоуыэюя]', first))} {first} по {last}")
        # a unit alone: after 'за' accusative ('за т' тонну), after an adjective nominative ('каждый новый км'; no 'г.')
        before = ctx.prev_word.lower()
        adjective = len(low) > 1 and low in _AFTER and ru_morph.adjective_gender(before)
        case = "accusative" if before == "за" else "nominative" if adjective else ""
        if low in _AFTER and case and (unit := next((u for u in _LONGEST_UNITS_FIRST
                if cur.startswith(pos, u, fold=True) and not is_letter(cur.at(pos + len(u)))), None)):
            return self.locale_span(pos + len(unit), _unit_form(UNITS[unit][:3], 1, case))
        if low in _WORDS["dated_weekdays"] and cur.at(end) == ",":  # its date in its case: 'суббота, 12.09' двенадцатое
            case = _day_case(before) if before in _PREPOSITION_CASES else "nominative"
            return self.locale_span(end, cur.text[pos:end], case)
        for written in self.LONGEST_ABBREVIATIONS_FIRST:  # 'и т. д.', 'до н. э.', 'и пр.': in any case
            if written.startswith(low) and written[len(low):len(low) + 1] in (".", " ", "") and cur.startswith(
                    pos, written, fold=True) and not is_letter(cur.at(pos + len(written))):
                # 'на ул.' на улице, 'ч. 2 ст.' статьи
                case = (
                    ctx.agreement == "legal part" and "genitive"
                    or _WORDS["place_cases"].get(p := _preposition(ctx))
                    or COUNT_PREPOSITIONS.get(p)
                    # a part of a text as an object: 'прочитать гл. XII' главу
                    or written[:-1] in self.CHAPTER_WORDS and governs_accusative(p) and "accusative"
                )
                if not case and ru_morph.adjective_gender(ctx.prev_word):  # 'на Невском пр.' на Невском проспекте
                    case = _WORDS["place_cases"].get(_word_before(ctx).lower())
                weekday = written not in self.ABBREVIATIONS  # 'во вт' во вторник, 'по пт' (a range's end) по пятницу
                weekly = weekday and (p == "по" and not {"с", "со"} & {*map(str.lower, ctx.words_before[-2:])} or (
                    ctx.agreement == "weekly" and p in ("и", "или", "")))  # 'по вт и чт' по вторникам и четвергам
                case = ("accusative" if p == "по" else COUNT_PREPOSITIONS.get(p)) if weekday else case
                reading = (
                    not ctx.prev_word and ctx.last_visible == "," and _WORDS["listed_address_parts"].get(written)
                    or self.SPELLED_OUT[written]
                )
                reading = inflect(reading, "dative", True) if weekly else (
                    ru_morph.phrase_in_case(reading, case) if case else reading)
                # its date its case: 'на вт, 9 февраля' девятое
                agreement = "weekly" if weekly else _day_case(p) if weekday and case else ""
                return self.locale_span(pos + len(written), reading, agreement)
        return super()._word(cur, pos, ctx)

    def roman(self, cur: Cursor, end: int, word: str, ctx: Context) -> Span | None:
        """In capitals by the words around it (`_roman_by_words`); any other that is no word ('xix'; not 'mi', nor 'I',
        'C' alone) an ordinal, after 'глава', 'том' one agreeing with it ('в главе IV' в главе четвёртой), after an
        abbreviated one or closing a quoted title a number ('гл. IV' четыре, '«Рокки II»' два)."""
        value, chaptered = roman_value(word), ctx.prev_word.lower() in self.CHAPTER_WORDS
        chapter = chaptered or self.names_sequel(cur, end, value, ctx.prev_word in self.RULERS)
        if value and word.isupper() and not chapter and (span := _roman_by_words(cur, end, word, value, ctx)):
            return span
        noun = ru_morph.noun(ctx.prev_word) if chaptered else None
        agreeing = noun and not noun.forms[0][0] and ordinal_agreeing(value, noun, noun.forms[0][1])  # singular
        return self.locale_span(end, agreeing or (cardinal(value) if chapter else ordinal(value))) if (
            self.is_roman(word, ctx.prev_word)) else None

    # A day's month and the year after a month are read by their case (`find_span`), a list number as a number.
    _day_list = _month_year = _list_number = staticmethod(lambda *args: None)

    def _numeric(
        self, cur: Cursor, pos: int, body: int, ctx: Context, sign: str = "", currency: Currency | None = None
    ) -> Span:
        """`Language`'s number span and the words that still join it (`_units_end`): a measure range ('3-5 кг'), square
        metres ('5 кв. м'), a date's year noun ('5 мая 1990 г.' … года), a unit after a scale word or another unit in
        the genitive plural ('10 тыс. руб.' десять тысяч рублей), 'США'; a unit of words ('мм рт. ст.'), a half."""
        if pos == body and (
            unit := lexer.word_at(cur, k := self._number_end(cur, pos), _WORD_UNITS)
        ):
            end = k + len(unit) - self._period_ends_sentence(cur, k + len(unit) - 1)
            over, _, amount = _plain(cur.text[pos:k]).rpartition("/")
            reading = self._counted_quantity(
                *_whole_and_decimals(amount), self.unit(unit[1:-1]), ctx, "nominative" * over.isdecimal()
            )
            # a pressure as said: 'до 140/90' до сто сорок на девяносто
            return self.locale_span(end, f"{cardinal(int(over))} на {reading}" if over.isdecimal() else reading)
        span = super()._numeric(cur, pos, body, ctx, sign, currency)
        end = self._units_end(cur, span.end)
        after = [word for word in re.split(r"[\s.]+", cur.text[span.end:end].lower()) if word]
        raw = _plain(cur.text[pos:end])
        if m := re.fullmatch(r"(\d+(?:,\d+)?) кв\.? м\.?", raw):  # square metres
            return self.locale_span(end, self._counted_quantity(*_whole_and_decimals(m[1]), self.unit("м²"), ctx))
        if reading := _measure_range(raw, COUNT_PREPOSITIONS.get(_preposition(ctx))):
            return self.locale_span(end, reading)
        per = PRICE_PER if (w := _LAST_WORD.search(cur.text, 0, span.end)) and w.group().lower() in MINOR else PER
        words = [per[w[1:]] if w[0] == "/" else _JOINED_AFTER.get(w) or UNITS.get(w, (w,) * 3)[2] for w in after]
        if span.info.endswith(" года") and words[:1] == ["года"]:  # a full date names its year's noun already
            words = words[1:]
        return self.locale_span(end, " ".join([span.info, *words]))

    def _units_end(self, cur: Cursor, end: int) -> int:
        """The units, currencies and scale words after a number ('2,5 тыс руб.', '3-5 кг'), an abbreviation's period
        ('руб.', '₽/мес.') unless it ends the sentence; nothing after a percent, currency or degree sign ('5 $')."""
        last = cur.text[end - 1]
        if (
            last in "%‰" and cur.text[end - 2].isspace()
            or last == "°"
            or lexer.is_currency(last) and cur.at(end) != "/"
            or (last in "CFKcfk" and cur.text[end - 2] in "° " and not is_digit(cur.text[end - 3]))
        ):
            return end
        with suppress(TooLong):
            while True:
                word = _LAST_WORD.search(cur.text, 0, end)  # 'руб.', not '5руб.'
                # '₽/мес.'
                dotted = word is not None and word.group().lower() in _DOTTED and cur.text[word.start() - 1] in " /"
                if dotted and cur.at(end) == "." and not self._period_ends_sentence(cur, end):
                    end += 1
                j = lexer.spaces(cur, end)
                c = cur.at(j)
                if c in ("%", "‰") or lexer.is_currency(c) and not is_digit(cur.at(j + 1)):
                    return j + 1
                if j == end and c == "/" and is_letter(cur.at(end + 1)):  # '1/кг'
                    m = self.unit_chunk(cur, end + 1)
                    # '650 ₽/мес. + свет' в месяц плюс
                    dot = cur.at(m) == "." and not self._period_ends_sentence(cur, m)
                    return m + dot if cur.text[end + 1:m].lower() in PER else end
                if j == end or not is_letter(c) or self.unit_at(cur, cur.text[j:(m := lexer.chunk(cur, j))], m) is None:
                    return end
                end = m
        return end

    def _period_ends_sentence(self, cur: Cursor, period: int) -> bool:
        """A period after an abbreviation closes the sentence when the end or a capital follows,
        unless the capital starts a word that joins the amount ('долл. США')."""
        return self._ends_sentence(cur, period + 1) and word_after(cur, period + 1) not in _AFTER

    # --- reading a span in its context ------------------------------------------------------

    def find_span(self, cur: Cursor, pos: int, ctx: Context) -> Span | None:
        c, before = cur.at(pos), ctx.prev_word.lower()
        if ctx.agreement.startswith(_MEASURE_RANGE_OPEN) and c in _DASHES:  # '3 – 5 кг': the dash is 'до'
            return self.locale_span(pos + 1, "", ctx.agreement)
        sign = c == "№" or c == "#" and is_digit(cur.at(pos + 1))  # '#5' as '№5'
        if sign and (case := _WORDS["number_sign_cases"].get(before)):  # 'под № 4471' под номером
            return locale_span(pos + 1, inflect("номер", case), "ru")
        if (m := _ORDINAL_RANGE.match(cur.text, pos)) and m.end() == (k := lexer.chunk(cur, pos)) and (
                span := _with_period_noun(cur, k, [roman_value(v) or int(v) for v in m.groups()], _preposition(ctx))):
            return span  # 'XVII–XVIII вв.', 'в 2026–2027 годах'
        # '1/2' as '½'
        over, _, under = (
            cur.text[pos:(k := self._number_end(cur, pos))].rpartition("/") if is_digit(c) else ("", "", "")
        )
        if (
            fraction := c in cldr.VULGAR_FRACTIONS and (pos + 1, *cldr.vulgar_fraction(c))
            or over.isdecimal() and under.isdecimal() and int(over) < int(under) and (k, int(over), int(under))
        ) and (span := self.fraction_span(cur, *fraction, ctx)):
            return span
        span = super().find_span(cur, pos, ctx)
        if span is None or span.kind != "locale":
            return span
        if before in _WORDS["action_nouns"] and is_verb(word_after(cur, span.end), ("VERB",)):
            # 'Возврат 500 ₽ поступит' пятьсот: the amount names the payment
            span = super().find_span(cur, pos, replace(ctx, prev_word=""))
        raw = cur.text[pos:span.end]
        # '2-комн.'
        if (m := _COMPOUND.fullmatch(raw)) and (full := self.ABBREVIATIONS.get(m[2] + cur.at(k := span.end))):
            return locale_span(k + (not self._period_ends_sentence(cur, k)), span.info.removesuffix(m[2]) + full, "ru")
        if raw[0] in "+-−" and is_digit(cur.at(pos + 1)) and (unsigned := self.find_span(cur, pos + 1, ctx)) and (
            unsigned.end > span.end or span.end - pos < 6  # no telephone number: "от +2 до +8" от плюс двух
        ):  # '+25 °C': the unit the number takes without its sign, with the sign read before it
            unsigned.info = ("плюс " if raw[0] == "+" else "минус ") + unsigned.info
            return unsigned
        if raw.endswith(".") and raw.lower() in self.SPELLED_OUT and (word_after(cur, span.end) == "" or raw.lower(
                ) not in self.ABBREVIATIONS and self._period_ends_sentence(cur, span.end - 1)):
            span.info += "."  # 'и т. д.' at the end, a weekday's 'в сб. Приходите': its period ends the sentence too
        if not is_digit(cur.at(pos)):
            return span
        preposition = _preposition(ctx)
        plain = _plain(raw)
        if before.rstrip(".") in _WORDS["legal_parts"] and raw.isdecimal():
            span.agreement = "legal part"  # 'ч. 2 ст.': the article whose part it is, in the genitive
        if (
            raw.endswith(",5")
            and (form := ru_morph.noun(noun := word_after(cur, span.end)))
            and (reading := _and_a_half(*_whole_and_decimals(raw), form.gender, self.amount_case(ctx), noun))
        ):
            span.info = reading  # '1,5 часа' полтора часа, '6,5 лет' шесть с половиной лет
            noun = chunk_after(cur, span.end, is_letter) if span.info == "полутора" else None
            if noun and inflect(noun[0], "genitive") == noun[0]:
                # 'до 1,5 минуты' минут
                span.info, span.end = f"полутора {inflect(noun[0], 'genitive', plural=True)}", noun[1]
        elif re.fullmatch(r"\d+,\d\d", raw) and (amount := _number_after(cur, span.end, ("до",))) and (
                written := word_after(cur, amount[1])) in MINOR:
            span.info = self._counted_quantity(*raw.split(","), self.unit(written), ctx)  # 'с 6,43 до 6,99 руб.'
        elif re.match(r"(с )?\w+ (\w+ )?час\w* до ", span.info):  # a whole start names no hours, nor the end after it
            span.info = re.sub(r" час(а|ов)?\b", "", span.info)  # '9:00–18:00' с девяти до восемнадцати, as 'с … до'
        elif _names_no_hours(cur, span, raw, ctx):
            span.info = span.info.rpartition(" ")[0]
            span.agreement = "whole hours" if preposition == "с" else ""
        elif (
            preposition in ("в", "во")
            and (m := _RANGE_END.fullmatch(plain))
            and (unit := self.unit(m["unit"]))
            # 'в 300 м от метро' в трёхстах метрах: where, not how far; 'в 1 л воды' в одном литре
            and (word_after(cur, span.end) in _WORDS["distance_after"] or m["unit"] in _WORDS["units_holding"])
        ):
            span.info = self._counted_quantity(*_whole_and_decimals(m["last"]), unit, ctx, "prepositional")
        elif ctx.agreement.startswith(_MEASURE_RANGE_OPEN) and (m := _RANGE_END.fullmatch(plain)):
            case = ctx.agreement.removeprefix(_MEASURE_RANGE_OPEN)  # after a preposition no 'до'
            span.info = (up_to := _up_to(m, case or "genitive")) and "до " * (not case) + up_to or span.info
        elif raw.isdecimal() and (unit := _spaced_range_unit(cur, span.end, int(raw))):
            case = COUNT_PREPOSITIONS.get(preposition, "")  # 'до 3 – 5 кг' до трёх пяти, no 'от … до'
            span.info = "от " * (not case) + cardinal(int(raw), UNITS[unit][3], case or "genitive")
            span.agreement = _MEASURE_RANGE_OPEN + case
        elif (m := _COUNT_ENDING.fullmatch(raw)) and word_after(cur, span.end).isalpha():
            span.info = cardinal(int(m.group("num")), "m", "genitive")
        elif (day_range := _day_range(raw, preposition)) and word_after(cur, span.end) in MONTH_INDEX:
            span.info = day_range
        elif raw.isdecimal() and 0 < int(raw) < 32 and (day := _number_after(cur, span.end, _WORDS["day_links"])) and (
                day[0].isdecimal() and 0 < int(day[0]) < 32 and word_after(cur, day[1]) in MONTH_INDEX):  # '3 и 4 мая'
            span.agreement = _day_case(preposition)
            span.info = ordinal(int(raw), "n", span.agreement)
        elif (m := _ORDINAL.fullmatch(plain)) and (reading := _ordinal_before_noun(
            int(m.group("num")), m.group("ending"), preposition, word_after(cur, span.end),
            before or _word_before(ctx).lower(),  # past a dash: 'место — 21-е'
        )):
            span.info = reading  # 'занял 26-е место' двадцать шестое: the noun's gender, not the commonest form
        elif plain.replace(".", " ").split()[-1] in {*MINOR, "ч"} and (
                (case := self.amount_case(ctx)) == "genitive" or preposition in COUNT_PREPOSITIONS):
            span.agreement = _CARRIED + case  # after a preposition, not a verb ('Прошло 2 ч 41 мин' сорок одна)
        elif (
            governs_accusative(verb := preposition or ctx.last_visible == "," and ctx.agreement or "")
            or (
                governs_accusative(verb := _word_before(ctx))
                and (False, "accusative") in getattr(ru_morph.noun(before), "forms", ())
            )
        ):
            # the verb whose object it is ('возьмите 300 г', 'получаете скидку 20 %', '300 г муки, 2 яйца'), for 'и 1 …'
            span.agreement = verb
        return span


RULES = Russian()


def _phone_end(cur: Cursor, pos: int) -> int | None:
    """The end of '+7 495 123-45-67', '+1 (123) 123-5678', '(495) 123-45-67' ('(' needs two groups)."""
    j = pos
    with suppress(TooLong):
        if cur.at(j) == "+":
            j = lexer.digits_end(cur, j + 1)
        for groups in itertools.count():  # the groups read before this one
            k = j + 1 if cur.at(j) in " -" and j > pos else j
            if cur.at(k) == "(":  # an area code in brackets
                m = lexer.digits_end(cur, k + 1)
                end = m + 1 if m > k + 1 and cur.at(m) == ")" else None
            else:  # digits, hyphens between them
                m = lexer.chunk(cur, k) if is_digit(cur.at(k)) else k
                end = m if m > k and all(p.isdecimal() for p in cur.text[k:m].split("-")) else None
            if end is None:
                break
            j = end
        return None if cur.text[pos] == "(" and groups < 2 else j
    return j if j > pos + 1 else None


def _counted_noun(cur: Cursor, end: int) -> str:
    """The word after a count, past an adjective ('на 1 бюджетное место' одно, '2 новые книги' две); of a hyphenated
    one its last part, which declines ('1 дополнительную сим-карту' одну)."""
    found = chunk_after(cur, end, is_letter)
    if found and is_verb(found[0], ("ADJF", "PRTF")):
        found = chunk_after(cur, found[1], is_letter) or found
    return found[0].lower().rpartition("-")[2] if found else word_after(cur, end)


def _ordinal_by_noun(n: int, preposition: str, noun: str, named: bool = False) -> str | None:
    """An ordinal where the noun after the number has no form a count of `n` takes ('занял 2 место' второе), in the
    noun's gender and case, the preposition's first; 1, 21 … only before a noun of rank ('на 1 этаже' на первом, not 'в
    21 регионе'); any `named` with a letter ('2 «А» класса')."""
    if not n or (form := ru_morph.noun(noun)) is None or any(p for p, _ in form.forms):
        return None
    cases = form.singular_cases()
    if not named and (
        agreement(n) == 0 and noun not in _WORDS["rank_nouns"] or agreement(n) == 1 and "genitive" in cases
    ):
        return None  # '2 места': a count
    wanted = {"accusative", "prepositional"} if preposition in ("в", "во", "на") else {
        COUNT_PREPOSITIONS.get(preposition, "")}
    return ordinal_agreeing(n, form, next((c for c in cases if c in wanted), cases[0]))


def _ordinal_before_noun(n: int, ending: str, preposition: str, noun: str, before: str = "") -> str | None:
    """A written ordinal ('26-е') before a singular noun, else after one (`before`: 'место — 21-е'): the form of the
    noun's gender and case that ends as written ('26-е место' двадцать шестое, not двадцать шестые)."""
    if (form := ru_morph.noun(noun) or ru_morph.noun(before)) is None or form.forms[0][0]:
        return None
    wanted = COUNT_PREPOSITIONS.get(preposition)
    return _as_written(
        (ordinal_agreeing(n, form, case) for case in sorted(form.singular_cases(), key=lambda c: c != wanted)), ending
    )


def ordinal_agreeing(n: int, form: ru_morph.Form, case: str) -> str:
    """The ordinal of `n` in `case` with the gender of `form`'s noun: an accusative takes the
    nominative's form for an inanimate masculine or neuter noun, the genitive's for an animate one."""
    if case == "accusative" and form.gender != "f":
        case = "genitive" if form.animate and form.gender == "m" else "nominative"
    return ordinal(n, "m" if form.gender == "pl" else form.gender, case, form.gender == "pl")  # 'на 2 сутки' вторые


def _word_before(ctx: Context) -> str:
    """The word before `prev_word` in its phrase, or ""."""
    return "".join(ctx.words_before[-1:])


def _preposition(ctx: Context) -> str:
    """The word before the number in lower case, or the two that make one preposition ('в течение 3 дней'); the transitive verb whose
    object the number is past a pronoun or 'примерно' ('вернём вам 1 250 ₽'), a place ('на карту') or 'и'."""
    pair, word, before = (
        " ".join((*ctx.words_before[-1:], ctx.prev_word)).lower(),
        ctx.prev_word.lower(),
        ("", "", *ctx.words_before),
    )
    word = _WORDS["abbreviated_prepositions"].get(word, word)  # 'ок. 16 ч' около шестнадцати
    verb = (
        ctx.agreement
        if word in ("и", "или")
        else (before[-1] if word in _WORDS["before_object"] else before[-2] * (before[-1] in ("на", "в")))
    )
    return pair if pair in COUNT_PREPOSITIONS else verb.lower() if governs_accusative(verb) else word


def _roman_by_words(cur: Cursor, end: int, word: str, n: int, ctx: Context) -> Span | None:
    """After a ruler's name an ordinal in the name's gender and case ('при Петре I' при Петре Первом), before a singular
    noun one agreeing with it ('в XX веке' в двадцатом веке)."""
    prev = ctx.prev_word
    name = ru_morph.noun(prev, names=True) if prev[:1].isupper() else None
    if name is not None and not name.forms[0][0]:  # its likeliest reading singular ('Петр', not Петра's plural)
        return locale_span(end, ordinal_agreeing(n, name, name.singular_cases()[0]).capitalize(), "ru")
    if century := _with_period_noun(cur, end, [n], _preposition(ctx)):
        return century
    noun = word_after(cur, end)
    # a lone 'C': a letter
    if (
        (form := ru_morph.noun(noun)) is None
        or len(word) < 2 and word not in "VX" and prev.lower() not in _PREPOSITION_CASES
    ):
        return None
    plural, case = form.forms[0]
    if plural:  # 'XIX-XX веков' are ranges; a plural after one numeral: 'XX веков' rare, read plural
        return locale_span(end, ordinal(n, "m", "nominative" if case == "accusative" else case, True), "ru")
    return locale_span(end, ordinal_agreeing(n, form, case), "ru")


def _with_period_noun(cur: Cursor, end: int, values: list[int], preposition: str) -> Span | None:
    """Centuries or years before their noun in the case of the word before ('в V в.' в пятом веке, 'до V в.' до
    пятого века, 'особняк XIX в.' девятнадцатого; 'на XX в.' на двадцатый век); two joined by a dash each singular before
    the plural noun ('XVII–XVIII вв.' семнадцатого — …веков), in brackets alone nominative ('Петра I (1682–1725)')."""
    with suppress(TooLong):
        word = chunk_after(cur, end, is_letter) or ("", end)
        bracketed = len(values) == 2 and cur.at(end) == ")" and preposition not in _PREPOSITION_CASES
        if case := (
            len(values) == 2 and _WORDS["plural_period_nouns"].get(word[0].lower()) or bracketed and "nominative"
        ):
            noun, stop = ("", end) if bracketed else word
        elif (lemma := _WORDS["period_abbreviations"].get(word[0])) and cur.at(word[1]) == ".":
            case = (
                _PREPOSITION_CASES.get(preposition) or "genitive" * bool(ru_morph.noun(preposition)) or "nominative"
            ).replace("accusative", "nominative")
            noun = inflect(lemma, case, plural=word[0] != "в") + "." * (word_after(cur, word[1] + 1) == "")
            stop = word[1] + 1
        else:
            return None
        ordinals = (ordinal(n, "m", case, word[0] == "вв" and len(values) == 1) for n in values)  # 'XX вв.' двадцатые
        return locale_span(stop, f"{(' – ' if bracketed else ' — ').join(ordinals)} {noun}".rstrip(), "ru")
    return None


def _day_case(preposition: str) -> str:
    """A (lower-case) preposition's case for a day ('к 5 мая' к пятому, 'на 5 мая' на пятое), but a date takes no 'в':
    genitive."""
    case = _PREPOSITION_CASES.get(preposition, "genitive")
    return {"prepositional": "genitive", "accusative": "nominative"}.get(case, case)


def _date_case(ctx: Context) -> str:
    """A date's day: in a preposition's case ('с 8 по 11 июня'); else in the first day's, whose preposition may be
    committed already ('на 2 или 3 марта' на второе или третье), or a weekday's ('во вт, 15.12'); after a label in the
    nominative ('Сегодня 8 декабря', 'Дата: 08.12'); else, saying when, in the genitive ('прибыла … 08.12' восьмого)."""
    if (preposition := _preposition(ctx)) in _PREPOSITION_CASES:
        return _day_case(preposition)
    labelled = any(word.lower() in _WORDS["date_labels"] for word in (*ctx.words_before[-1:], ctx.prev_word))
    return ctx.agreement if ctx.agreement in _DAY_CASES else "nominative" if ctx.prev_word and labelled else "genitive"


def _number_after(cur: Cursor, end: int, links: Iterable[str]) -> tuple[str, int] | None:
    """The number and its end after spaces and a link word or dash of `links` ('3| по 5 мая', '3| – 5 кг', '9:00| до
    21:00': a day's, a measure range's, an hour range's end), waiting for them up to the tail bound."""
    with suppress(TooLong):
        j = lexer.spaces(cur, end)
        k = lexer.chunk(cur, j) if is_letter(cur.at(j)) else j + 1
        return chunk_after(cur, k, is_digit) if j > end and cur.text[j:k].lower() in links else None
    return None


def _names_no_hours(cur: Cursor, span: Span, raw: str, ctx: Context) -> bool:
    """Whether a whole hour of an hour range is read without its 'часов', as most say it ('с 9:00 до 21:00' с девяти
    до двадцати одного): the start when a clock time ends the range, the end when the start was a whole hour ('с 8:30
    до 12:00' keeps … до двенадцати часов)."""
    if ":" not in raw or not span.info.endswith((" час", " часа", " часов")):
        return False
    if _preposition(ctx) == "до":
        return ctx.agreement == "whole hours"
    end = _number_after(cur, span.end, ("до",))
    return _preposition(ctx) == "с" and end is not None and re.match(r"\d{1,2}:\d\d", end[0]) is not None


def _day_range(raw: str, preposition: str) -> str | None:
    """'3-5 мая' → 'с третьего по пятое (мая)', after 'с' with 'по' alone; after another preposition both days take its
    case; None where `raw` is not two days of a month, the first before the second ('14-16')."""
    if not (m := _DAY_RANGE.fullmatch(raw)) or not 1 <= (first := int(m[1])) < (last := int(m[2])) <= 31:
        return None
    if (since := preposition in ("с", "со")) or preposition not in _PREPOSITION_CASES:
        return f"{'' if since else 'с '}{ordinal(first, 'n', 'genitive')} по {ordinal(last, 'n')}"
    return " ".join(ordinal(day, "n", _day_case(preposition)) for day in (first, last))


def _year(n: int, ctx: Context, after: str) -> str | None:
    """A number from 1700 to 2100 with no year word: after a preposition, with nothing or a link word after it, a year
    in the preposition's case ('в 1974.', 'с 1990 по 2000'); alone on its line one in the prepositional, as the data
    reads headings; before any other word a count ('1800 человек'): None."""
    preposition = _preposition(ctx)
    if preposition in _PREPOSITION_CASES and (not after or after in _WORDS["year_links"] or not after.isalpha()):
        return ordinal(n, "m", _PREPOSITION_CASES[preposition].replace("accusative", "nominative"))
    return ordinal(n, "m", "prepositional") if ctx.line_start and not after else None


# --- reading a span ---------------------------------------------------------------------------
def _spell_latin(word: str) -> str:
    low = word.lower()
    if low in _WORDS["address_words"] or not low.isascii():  # a word an address spells out, or no Latin one
        return _WORDS["address_words"].get(low, word)
    return " ".join(_WORDS["latin_names"].get(c, c) for c in low)


def _plain(raw: str) -> str:
    return " ".join(raw.split()).lower().replace("ё", "е")


def _year_with_noun(n: int, word: str, preposition: str) -> str:
    """'1990 году' тысяча девятьсот девяностом году (`YEAR_WORDS`); 'г.' in the preposition's case ('к 1990 г.' к …
    году), 'году' dative after 'к', 'по'; an accusative has the nominative's form ('по 2000 г.' по двухтысячный год)."""
    case = _PREPOSITION_CASES.get(preposition, YEAR_WORDS[word]) if word == "г" else YEAR_WORDS[word]
    case = "dative" if word == "году" and preposition in ("к", "ко", "по") else case
    return f"{ordinal(n, 'm', 'nominative' if case == 'accusative' else case)} {_WORDS['year_nouns'][case]}"


def _and_a_half(whole: str, fractional: str | None, gender: str, case: str, noun: str) -> str | None:
    """'…,5' before what it counts, as speakers say it: полтора часа, полторы недели, до полутора километров; a time,
    or in the genitive an everyday measure (not degrees: 'выше 38,5 °C'), after a count other than one with 'с
    половиной' (не менее шести с половиной лет, около двух с половиной километров; not '21,5 часа')."""
    halved = _WORDS["half_nouns"] + _WORDS["genitive_half_nouns"] * (case == "genitive")
    if fractional != "5" or whole != "1" and (
        noun not in halved or not re.fullmatch(r"[1-9]\d*", whole) or agreement(int(whole)) == 0
    ):
        return None
    return (
        f"{cardinal(int(whole), gender, case)} с половиной"
        if whole != "1"
        else (("полторы" if gender == "f" else "полтора") if case in DIRECT_CASES else "полутора")
    )


def _unit_form(forms: tuple[str, str, str], count: int | None, case: str) -> str:
    """The form of a unit after `count` (None: after a fraction, the genitive singular: 'кубического
    метра'): in the nominative 'один рубль', 'два рубля', 'пять рублей'; in the genitive 'одного рубля', …"""
    if count is None:
        return re.sub(r"[ыи]х ", "ого ", forms[1])
    # After one: 'за 1 тонну' ('тенге' has one form), 'одной чайной ложки' (a few are 'чайные ложки').
    after_one = case == "accusative" and forms[0] != forms[2] or case == "genitive" and " " in forms[0]
    if case in ("instrumental", "dative", "prepositional") or after_one and agreement(count) == 0:
        words = forms[0].split()  # 'с 16 ГБ' гигабайтами; a noun's complement kept: 'при 5 °F' градусах фаренгейта
        return " ".join(
            (
                inflect(word, case, agreement(count) > 0)
                if i == 0 or words[0].endswith(("ый", "ий", "ой", "ая"))
                else word
            )
            for i, word in enumerate(words)
        )
    return (forms[1] if agreement(count) == 0 else forms[2]) if case == "genitive" else forms[agreement(count)]


def _measure_range(text: str, case: str | None = None) -> str | None:
    """'3-5 кг' от трёх до пяти килограммов, the unit agreeing with the second (до одного килограмма); after a
    preposition or 'каждые' both ends alone in its `case` ('до 1-2 л' до одного двух)."""
    m = _MEASURE_RANGE.fullmatch(text)
    up_to = m and _up_to(m, case or "genitive")
    if not up_to or float(m["first"].replace(",", ".")) >= float(m["last"].replace(",", ".")):
        return None
    first = decimal(*_whole_and_decimals(m["first"]), case or "genitive", UNITS[m["unit"]][3])
    return f"{first} {up_to}" if case else f"от {first} до {up_to}"


def _up_to(m: re.Match, case: str = "genitive") -> str | None:
    """The second number of a measure range with its unit: (до) 'пяти килограммов'."""
    last, unit, per = m.group("last"), m.group("unit"), m.group("per")
    if unit not in UNITS or (per and per not in PER):
        return None
    amount = decimal(*_whole_and_decimals(last), case, UNITS[unit][3])
    return (
        f"{amount} {_unit_form(UNITS[unit][:3], None if ',' in last else int(last), case)}"
        + (f" {PER[per]}" if per else "")
    )


def _spaced_range_unit(cur: Cursor, end: int, first: int) -> str | None:
    """The unit of a measure range written with spaces around its dash ('3| – 5 кг'), when a dash, a larger integer and
    a unit follow; the first number waits for them like a day waits for its month."""
    second = _number_after(cur, end, _DASHES)
    unit = word_after(cur, second[1]) if second else ""
    return unit if second and second[0].isdecimal() and first < int(second[0]) and unit in UNITS else None


def _phone(raw: str) -> str:
    """Groups as numbers, their leading zeros one by one: '8-913-983-56-01'; a number
    libphonenumber knows for Russia in its groups ('89133456701' → 8 913 345-67-01)."""
    words = ["плюс"] if (international := raw.lstrip().startswith("+")) else []
    groups = cldr.phone_groups(raw, "RU", international) or re.findall(r"\d+", raw)
    # no trunk prefix where none is written
    return " ".join(words + [RULES._zeros_then_number(g) for g in groups[raw.startswith("(") and groups[0] == "8":]])


def _fallback(text: str) -> str:
    """Anything else: '30код' → 'тридцать код', '2-b-3' → 'два би три', 'тест-1,02'."""
    symbols = {mark: word for mark, word in RULES.SYMBOLS.items() if mark != "-"}
    letters = lambda word: _spell_latin(word) if word.isascii() and len(word) == 1 else (  # noqa: E731
        word if word.isupper() and len(word) > 1 else word.lower().replace("ё", "е"))  # 'НДФЛ' spelled by the voice
    text = re.sub(r"(?<=\d)[wW](?=-?\d\d(?!\d))", " вэ ", text)  # an oil grade as drivers say it: '5W-40' пять вэ сорок
    return read_pieces(text, symbols, lambda number: decimal(*_whole_and_decimals(number)), letters, _PIECE)
