"""The spans German, French and Italian share, decided once; each language gives its words.

These languages write numbers the same way: a decimal comma ("25,50"), thousands grouped with
dots ("10.000") or spaces ("6 492 000"), money with the symbol before or after ("€2,20",
"3,23 €"), dates as "02.03.2003", "02/03/2003" or with a month name, times as "14:30", measures
with SI units, telephone numbers, email addresses and URLs. `Language` decides those spans
through the Cursor (every look-ahead waits for its character, so a span decided on a prefix is
the span decided on the whole text) and reads them with the words its subclass gives:
cardinals, ordinals, units, currencies, months, abbreviations. The hooks that read an amount, a
time, a date or an ordinal get the Context, whose `prev_word` is the word before the number: a
language whose forms follow it reads them in its case (Russian 'до 5 кг' до пяти килограммов).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import lru_cache

from voice_tts.tn import cldr, electronic, english, lexer
from voice_tts.tn.chars import ascii_digits, is_alnum, is_digit, is_letter, is_space, sign_may_follow
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor, TooLong
from voice_tts.tn.english import REGNAL_NAMES, is_mark, roman_value
from voice_tts.tn.locales import abbreviations, words
from voice_tts.tn.locales.european_addresses import AddressesAndPhones
from voice_tts.tn.locales.european_dates import DatesAndTimes, chunk_after, letters_after
from voice_tts.tn.locales.noun_gender import is_feminine, is_feminine_name, is_known_noun
from voice_tts.tn.locales.numeric_spans import (
    CLOSING_QUOTES, GROUP_SPACES, GROUPED, IP, english_amount, is_address, to_int, word_after
)


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit, a currency's main or minor unit, or a scale word: its words for one and for more."""

    singular: str
    plural: str
    feminine: bool = False


@dataclass(frozen=True, slots=True)
class Currency:
    major: Unit
    minor: Unit


_SPACES_IN_NUMBER = frozenset("\u00a0\u202f")
# An elided article or preposition before a word ("l'", "dell'", "d’").
_ELIDED_ARTICLE = re.compile(r"[^\W\d_]{1,5}['’]")

_INTEGER = re.compile(r"\d+")
_VERSION, _DOTTED_DATE = (
    re.compile(r"\d+(?:\.\d+)+"),
    re.compile(r"\d{1,2}\.\d{1,2}\.(?:\d{2}|\d{4})|\d{4}\.\d\d?\.\d\d?"),
)
_DECIMAL = re.compile(r"(\d{1,3}(?:\.\d{3})+|\d+),(\d+)")
_POINT_DECIMAL = re.compile(r"(\d+)\.(\d+)")
_COMMA_LIST = re.compile(r"\d+(?:,\d+){2,}")
_COMMA_GROUPED = re.compile(r"\d{1,3}(?:,\d{3}){2,}")
_FRACTION, _DIMENSIONS = (
    re.compile(r"(\d+)/(\d+)"),
    re.compile(r"(\d+(?:,\d+)?(?:[x×]\d+(?:,\d+)?)*)[x×](\d+(?:,\d+)?)([^\W\d_]+[²³]?)?"),
)
_YEAR_SPAN = re.compile(r"((?:1\d|20)\d\d)[-–—]((?:1\d|20)\d\d)\)")  # a life or reign: 'Karls IV. (1316–1378)'
# '2-4', '9h-19h', '1.000-2.000', '3,9-5,5' (a dash read as a hyphen)
_RANGE = re.compile(r"({0})(h?)-({0})(h?)".format(r"(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d+)?"))
# a decimal over a scale's top; 'Ley 35/2006'
_GRADE, _SLASHED = re.compile(r"(\d+,\d+)/(\d+)"), re.compile(r"(\d{1,3}(?:\.\d{3})+|\d+)/(\d{2}|\d{4})")
_SIZE_AFTER = re.compile(r" \d+(?:,\d+)? ?[x×] ?\d")  # a size's numbers after its unit ('cm 220 × 95')
# A currency code written against its amount ('nio21', '13hkd'), where the language does so.
_GLUED_CODE = re.compile(r"([^\W\d_]+)\d[\d.,]*")
_CODE_AFTER = re.compile(r"(\d[\d.,]*?)([^\W\d_]+)")
# A code of capitals and lone digits ('X7KP4M', a booking reference) or of capitals, a hyphen and mixed runs
# ('RT-7Q42X', a return label): spelled sign by sign ('B2A23C', a part number with a longer digit run, is left
# to the voice).
_CODE = re.compile(r"(?:[A-ZА-ЯЁ]+\d){2,}[A-ZА-ЯЁ]*|(?:\d[A-ZА-ЯЁ]+){2,}\d?|[A-ZА-ЯЁ]+-(?:\d+[A-ZА-ЯЁ]+)+\d*")
# a plate or road: 'AA-12-BB', 'AP-7'
_PLATE = re.compile(r"(?=.*\d)(?=.*[A-Z])(?:[A-Z]{1,3}|\d{1,4})(?:-(?:[A-Z]{1,3}|\d{1,4}))+")
# no range ends in a leading zero: '58-0937'
_DIGIT_GROUPS = re.compile(r"0\d+(?:[-/]\d+)*|\d+(?:[-/]\d+){2,}|\d+-0\d+")
_PAIRS = re.compile(r"\d\d(?: \d\d)+")
_ATTACHED_UNIT = re.compile(r"(\d+(?:,\d+)?)([^\W\d_][^\W\d_/²³]*(?:/[^\W\d_]+)?[²³]?|/[^\W\d_]+[²³]?|°[CF]?)")


# How each table of a language's `<code>_words.json` becomes the class attribute of its name: a unit as [singular,
# plural, feminine?], a currency as [main unit, minor unit].
_TABLES: dict[str, Callable] = {name: kind for kind, names in (
    (frozenset, "year_cues zones not_nouns century_words chapter_words version_words ordinal_after name_abbreviations"),
    (frozenset, "not_roman"),
    (frozenset, "extensions clock_cues rulers seat_words street_words sentence_final clock_markers prepositions"),
    (dict, "half_units eras weekdays symbols abbreviated_endings roman_abbreviations address_symbols address_readings"),
    (dict, "day_parts"), (tuple, "half_before digit_cues half singular_endings"), (frozenset, "room_words short_units"),
    (lambda rows: tuple(map(tuple, rows)), "plural_endings code_words"),
    (lambda table: {w: Unit(*names) for w, names in table.items()}, "units scales money_scales"),
    (lambda table: {w: Currency(Unit(*one), Unit(*minor)) for w, (one, minor) in table.items()}, "currencies"),
) for name in names.split()}


_AND_WORDS = frozenset(("and", "e", "y", "et", "und", "и"))


def listed_roman(ctx: Context) -> Context:
    """'capitoli IX e X' nove e dieci, 'Henry VII and VIII' the seventh and the eighth: a Roman numeral after 'and'
    and another one is read as that one, in its place."""
    first = ctx.words_before[-1:]
    if ctx.prev_word in _AND_WORDS and first and first[0].isupper() and roman_value(first[0]):
        return replace(ctx, prev_word=" ".join(ctx.words_before[-2:-1]), words_before=ctx.words_before[:-2])
    return ctx


class Language(AddressesAndPhones, DatesAndTimes):
    """The words of one language; the rules that decide spans are shared (this class)."""

    code = ""
    MINUS = ""
    PLUS = "plus"
    DECIMAL_WORD = ""
    PERCENT = ""
    PER = ""
    RANGE = OR = ""  # 'or' between two numbers of one noun: '1 ou 2 faturas' uma ou duas
    RANGE_FROM = HOURS_FROM = HOURS_TO = ""  # 'da' 2 'a' 4 giorni; 'dalle' 9 'alle' 13
    PREPOSITIONS: frozenset[str] = frozenset()  # and articles: no RANGE_FROM after them ("entro 2–4 giorni")
    # names after which a Roman numeral is an ordinal, besides English's and women's
    RULERS: frozenset[str] = frozenset()
    NAME_ABBREVIATIONS: frozenset[str] = frozenset()  # read only away from a name ('une FC de 150'; 'le FC Nantes')
    NUMBER_WORD = ""  # '#5'
    # after them a number and a capital is a seat ('posto 11A' undici A), no unit
    SEAT_WORDS: frozenset[str] = frozenset()
    STREET_WORDS: frozenset[str] = frozenset()  # a house number before one is no count ('21 rue Pasteur' vingt et un)
    BEFORE_NUMBER: dict[str, str] = {}  # capitals read so before a number only ('WS 2026/27' Wintersemester, 'S1')
    # A range's word after 'tra', 'entre' ('tra 15-20' e); money per period ('€/mes' al mes); the articles that make a
    # Roman ordinal feminine; a decimal over a scale's top ('14,5/20' sur vingt); words making a unit's symbol its name.
    RANGE_AFTER, PERIODS, FEMININE_ARTICLES, OVER, UNIT_CUES, PLURAL_DAYS = {}, {}, frozenset(), "", frozenset(), ()
    # the terms of a price written after it in capitals ('1 150 € CC' charges comprises)
    MONEY_TERMS: dict[str, str] = {}
    BY = ""  # between dimensions: '3x4' três por quatro, drei mal vier
    SEASON_DASH = False  # whether two years in a row joined by a dash are a season ('temporada 2026-2027'), no range
    # a range's numbers in its noun's gender ('2-4 horas' duas a quatro; German and Russian: case too)
    RANGE_GENDER = True
    # Words before or after digits read one by one ('terminada en 4821'), from a least length; '-nr' ends compounds too.
    DIGIT_CUES: tuple[list[str], ...] = ()
    # words naming a code a few words before its digits; words after which a number is none
    CODE_WORDS: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    # the word between a currency's units ('et', 'e'); a blood pressure's ('135/85 mmHg' zu)
    MONEY_AND = PRESSURE_OVER = ""
    # The metre, whose two decimals are centimetres after it ('3,20 m' drei Meter zwanzig); the words a blood pressure
    # follows ('Blutdruck 120/80'); whether one in centimetres of mercury has no word between ('13/8' treize huit).
    CENTIMETRES_AFTER, PRESSURE_CUES, BARE_CM_PRESSURE = "", (), False
    CENTS_UNNAMED = False  # tens of cents unnamed ('39,90 €' trentanove euro e novanta); "bare": no 'and' either
    SCALE_OF = ""  # the word between a scale word and the noun it counts ("milioni di euro")
    MONTHS: dict[str, int] = {}  # months by their lower-case full names and abbreviations, as numbers 1..12
    MONTH_NAMES: tuple[str, ...] = ()
    FULL_MONTHS: frozenset[str] = frozenset()
    YEAR_CUES: frozenset[str] = frozenset()  # words after which a four-digit number is a year ('im Jahr 1990')
    UNITS: dict[str, Unit] = {}  # the units a language names itself (the others come from CLDR: `unit`)
    UNIT_SENSES: dict[str, list] = {}  # a symbol's unit after a cue word: the cues, then the unit ('pulso … ppm')
    CURRENCIES: dict[str, Currency] = {}  # currencies' symbols, codes and names (the last two in lower case) to units
    SCALES, MONEY_SCALES = {}, {}  # scale words; in letters against a currency ('60 M€' millones, 'R$ 2 bi' bilhões)
    ABBREVIATIONS: dict[str, str] = {}
    # Abbreviated weekdays, read as a range when two are joined by a dash ('Mo.–Fr.').
    WEEKDAYS: dict[str, str] = {}
    WEEKDAY_RANGE = "{} – {}"  # 'lun.–sab.' dal lunedì al sabato
    ABBREVIATED_ENDINGS: dict[str, str] = {}  # endings abbreviated at the end of a compound ('Hauptstr.' Hauptstraße)
    TIME_ZONES = frozenset(("UTC", "GMT", "CET", "CEST", "MEZ", "MESZ", "EST", "EDT", "PST", "PDT"))
    SYMBOLS: dict[str, str] = {}
    ADDRESS_SYMBOLS: dict[str, str] = {}
    # Address labels read as a word of the language ('.py' → 'python' in Italian); the word for a house number's
    # slash ('45/B' barra B), and whether a postcode before a place is read digit by digit ('10123 Torino').
    ADDRESS_READINGS: dict[str, str] = {}
    # 'n.º 45/B' (a house's letter), 'Ley 35/2006' (a number's year): barra
    HOUSE_SLASH, NUMBER_SLASH, POSTCODE_DIGITS = "", "", False
    FLIGHT_NUMBERS = ""  # a flight's number read "digits" ('IB 3147' tres uno…) or four in "pairs" ('LH 1172' elf…)
    # The letters of a temperature's scale after '°' ('°C'), and whether a space may come between.
    DEGREE_SCALES = ("C", "F")
    SPACED_DEGREES = False
    MINOR_UNIT: Unit | None = None  # the minor unit of a currency named by CLDR (the euro's, where none is given)
    # Whether a month name may come before its day ('junio 11 2000'), a weekday before a date.
    MONTH_FIRST_DATES = False
    # Whether a name with digits is read here ('a-5' a cinco) or left to the voice ('C24').
    READS_NAMES = False
    GLUED_CODES = False  # whether a currency code may touch its amount ('nio21', '13hkd')
    SCALE_OF_SYMBOL = False  # whether a scale word's noun may be a currency symbol ('1,5 millones de €')
    # "12°" is an ordinal in French and Italian text, a temperature in German.
    DEGREE_IS_ORDINAL = False
    # French groups thousands with plain spaces ("6 492 000"); the others only with no-break spaces.
    SPACE_GROUPS = False
    H_CLOCKS = False  # French writes times as "14h30"
    PADDED_HOURS = False  # whether an hour with its zero before 'h' alone is a time ('01 h' una, in Spanish)
    # "3-5 Mai" is a range ("bis"); French reads "17-18 juin" as a list of days.
    DAY_RANGES = True
    ORDINAL_SUFFIX: re.Pattern[str] = re.compile(r"(?!)")
    # Roman numerals with an ordinal ending ('XXe'), where the language writes them.
    ROMAN_ORDINAL: re.Pattern[str] = re.compile(r"(?!)")
    # Words before which a Roman numeral is an ordinal ('XX secolo'), after which a number ('Kapitel IV'), an ordinal in
    # their gender ('classe III B' terza), a unit's plural ('i km'), a match's minute ("al 90'"), minutes ("dura 148'").
    CENTURY_WORDS = CHAPTER_WORDS = ORDINAL_AFTER = PLURAL_UNIT_CUES = MINUTE_ORDINAL_AFTER = PRIME_MINUTES_AFTER = (
        frozenset()
    )
    # Abbreviations that stand for a chapter word only before a Roman numeral ('s. XIII' siglo).
    ROMAN_ABBREVIATIONS: dict[str, str] = {}
    # Lower-case words written like Roman numerals ('mi', 'civil'), where the language reads lower-case ones.
    NOT_ROMAN: frozenset[str] = frozenset()
    # Words after which dotted numbers are a version ("versione 2.10" due punto dieci), no date; of those, a room's,
    # its floor and its number with no point said ('aula 1.04' uno cero cuatro).
    VERSION_WORDS = ROOM_WORDS = frozenset()
    # The word joining a duration's hours to its minutes ('1 h 30 min' una hora y treinta minutos); whether a decimal
    # below two counts its unit in the singular ('1,3 gigaoctet'); the marks between a race time's parts and before its
    # last ('2:03:17' zwei Stunden, drei Minuten und …; a third: between, its unit written), none where read as a clock.
    DURATION_AND, SINGULAR_BELOW_TWO, DURATION_LIST = "", False, ()
    # A denominator's own names ('demi', 'mezzo'), a fraction's plural pattern; an ordinal's feminine endings ('1re')
    FRACTION_NAMES, FRACTION_PLURAL, FEMININE_ORDINAL_SUFFIXES = {}, ("(?<!s)$", "s"), ("a",)
    DECIMALS_AS_NUMBER = POINT_AS_WRITTEN = False  # '1,85' uno virgola ottantacinque; 'Panda 1.2' uno punto due
    ROMAN_DOT = PACE_SECONDS_BARE = False  # German: a ruler's number with a period ('Ludwig XIV.'), no pace's Sekunden
    REGNAL_ORDINALS_UP_TO = 10**6  # a ruler's number above it said as the number ('Alfonso XIII' trece)
    # Whether an abbreviation's period also ends the sentence it closes ('27 a.C.' antes de Cristo.);
    # Russian gives it back.
    PERIOD_ENDS_SENTENCE = True
    # Abbreviations whose period may also end the sentence (`<code>_words.json` "sentence_final": 'etc.', 'usw.').
    SENTENCE_FINAL = frozenset()
    # The words before the first of an abbreviation's periods ('z' of 'z.B.'): only after one of
    # them may a period and a space be an abbreviation's inner space ('z. B.').
    SPACED_ABBREVIATION_HEADS: frozenset[str] = frozenset()
    # Abbreviations that go on right after their first period ('c.-à-d.'), by the word before it.
    JOINED_ABBREVIATIONS: dict[str, tuple[str, ...]] = {}
    # A half counted with its noun: the word joining it to the count and the half in the noun's
    # gender (masculine, feminine), and the half alone before a noun; None: read as a number.
    HALF_AND = ""
    HALF: tuple[str, str] | None = None
    HALF_BEFORE, HALF_UNITS = ("", ""), {}  # HALF_UNITS: the units (by singular) whose ',5' is a half, and their names
    # Plural endings and their singulars, most specific first (a counted noun after '1 1/2').
    PLURAL_ENDINGS: tuple[tuple[str, str], ...] = ()
    SINGULAR_ENDINGS: tuple[str, ...] = ()  # plural endings that singulars share too ('spese', 'pensione')

    def __init_subclass__(cls, **kwargs) -> None:
        """A language's tables (`<code>_words.json`) become its attributes by name ("units" UNITS, "months" MONTHS with
        CLDR's), `<code>_abbreviations.json` ABBREVIATIONS; a class of no `code` shares hooks among its subclasses."""
        super().__init_subclass__(**kwargs)
        if not cls.code:
            return
        tables = words(cls.code)
        for name, table in tables.items():
            if name in _TABLES:
                setattr(cls, name.upper(), _TABLES[name](table))
        # "minus" MINUS, "h_clocks" H_CLOCKS
        for name, value in {**tables.get("words", {}), **tables.get("settings", {})}.items():
            setattr(cls, name.upper(), re.compile(value) if name == "ordinal_suffix" else value)
        if "months" in tables:  # CLDR's months, and the other spellings the table adds ('Jänner', 'sett')
            cls.MONTH_NAMES = cldr.month_names(cls.code)
            full = {name.lower(): month for month, name in enumerate(cls.MONTH_NAMES, 1)} | tables["months"]
            cls.FULL_MONTHS = frozenset(full)
            cls.MONTHS = cldr.month_abbreviations(cls.code) | tables["month_abbreviations"] | full
        cls.ABBREVIATIONS = abbreviations(cls.code)
        parts = [(key, *key.partition(".")[::2]) for key in sorted(cls.ABBREVIATIONS, key=len, reverse=True)]
        cls.SPACED_ABBREVIATION_HEADS = frozenset(head for _, head, rest in parts if rest[:-1] and rest[-1] == ".")
        # 'c.-à-d.', 'av. J.-C.', 'c. à café'
        joined = [
            (head, key)
            for key, head, rest in parts
            if (
                (rest[-1:] == "." and (rest[:1] not in ("", " ") or rest.count(" ") + rest.count(".") > 2))
                or (rest[:1] == " " and rest[-1:].isalpha())
            )
        ]
        cls.JOINED_ABBREVIATIONS = {head: tuple(key for h, key in joined if h == head) for head, _ in joined}

    # --- words a subclass gives ---------------------------------------------------------------

    def cardinal(self, n: int) -> str:
        return f"{self.MINUS} {self.cardinal(-n)}" if n < 0 else cldr.spell(self.code, n, "spellout-numbering")

    def counted(self, n: int, feminine: bool = False) -> str:
        """The cardinal before a noun, CLDR's masculine or feminine ('ein Euro', 'une heure')."""
        return (
            f"{self.MINUS} {self.counted(-n, feminine)}"
            if n < 0
            else cldr.cardinal(self.code, n, "feminine" if feminine else "masculine")
        )

    def ordinal(self, n: int, suffix: str, ctx: Context) -> str:
        """`suffix`: what was written after the digits ('.', 'er', 'ª' …): CLDR's ordinal, feminine after one of
        FEMININE_ORDINAL_SUFFIXES ('1ª' prima, '1re' première), plural after a plural's ('1ers' premiers)."""
        words = cldr.ordinal(self.code, n, "feminine" if suffix in self.FEMININE_ORDINAL_SUFFIXES else "masculine")
        return words + "s" if suffix.endswith("s") else words

    def fraction_digits(self, digits: str) -> str:
        """The digits after the decimal comma: one by one, or where the language reads them so as a number after their zeros."""
        return self._zeros_then_number(digits, self.digits) if self.DECIMALS_AS_NUMBER else self.digits(digits)

    def _zeros_then_number(self, digits: str, longer: Callable[[str], str] | None = None, *form: str) -> str:
        """Each leading zero, then the rest as one number ('05' → 'zero cinque', a telephone number's group '01' ноль
        один), in the cardinal's `form` where given ('0,21 libras' cero veintiuna); a run of more than three digits as
        `longer` reads it where given (decimals in French and Italian)."""
        rest = digits.lstrip("0")
        number = [longer(rest) if longer and len(rest) > 3 else self.cardinal(int(rest), *form)] if rest else []
        return " ".join([self.cardinal(0)] * (len(digits) - len(rest)) + number)

    def fraction(self, numerator: int, denominator: int) -> str:
        """'3/4' trois quarts, tre quarti: the count and the denominator's own name (FRACTION_NAMES) or ordinal, plural
        by FRACTION_PLURAL (a pattern and what replaces it) past one (below two in French: 'zéro demi')."""
        name = self.FRACTION_NAMES.get(str(denominator)) or cldr.ordinal(self.code, denominator, "masculine")
        one = numerator < 2 if self.SINGULAR_BELOW_TWO else numerator == 1
        return f"{self.counted(numerator)} {name if one else re.sub(*self.FRACTION_PLURAL, name)}"

    def fraction_before(self, cur: Cursor, end: int, numerator: int, denominator: int, ctx: Context) -> str:
        """A fraction before what follows `end`; a half before an abbreviation, in its noun's gender ('½ c. à c.' une demi-cuillère)."""
        noun = self.abbreviation_after(cur, end) if (numerator, denominator) == (1, 2) and self.HALF_BEFORE[0] else None
        return (
            self.HALF_BEFORE[self.is_feminine(noun.split()[0])].rstrip(" -")
            if noun
            else self.fraction(numerator, denominator)
        )

    def abbreviation_after(self, cur: Cursor, end: int) -> str | None:
        """The reading of an abbreviation of several parts after `end` ('c. à s.' cuillère à soupe), else None."""
        keys = self.JOINED_ABBREVIATIONS.get((after := chunk_after(cur, end, is_letter) or ("", 0))[0], ())
        return next((self.ABBREVIATIONS[k] for k in keys if cur.startswith(after[1] - len(after[0]), k)), None)

    def mixed_fraction(self, whole: int, numerator: int, denominator: int) -> str:
        """'2 3/4'; joined by HALF_AND where the language says one ('trois et demi', 'dos y tres cuartos')."""
        if not self.HALF_AND:
            return f"{self.counted(whole)} {self.fraction(numerator, denominator)}"
        part = self.HALF[0] if (numerator, denominator) == (1, 2) else self.fraction(numerator, denominator)
        return f"{self.cardinal(whole)} {self.HALF_AND} {part}"

    def year(self, n: int) -> str:
        return self.cardinal(n)

    def date(self, day: int, month: int, year: int | None, ctx: Context) -> str:
        of = f" {self.DATE_OF}" if self.DATE_OF else ""
        words = f"{self.date_day(day, ctx)}{of} {self.MONTH_NAMES[month - 1]}"
        return words if year is None else f"{words}{of} {self.year(year)}"

    def clock(self, hours: int, minutes: int, seconds: int | None, marker: str, ctx: Context) -> str:
        """`marker`: the word written after a clock face ('14:00 h'), or ''. With seconds every part is
        named by CLDR ('vierzehn Uhr eine Minute fünf Sekunden'); without, the minutes are a number."""
        words = self.clock_hours(hours)
        if seconds is None:
            return f"{words} {self.cardinal(minutes)}" if minutes else words
        parts = ((minutes, "duration-minute"), (seconds, "duration-second"))
        return " ".join((words, *(f"{self.counted(n, True)} {cldr.unit_name(self.code, u, n)}" for n, u in parts)))

    def duration(self, parts: tuple[tuple[int, str], ...], ctx: Context, written_unit: str = "") -> str:
        """Each (count, unit) not zero counted in the case of the word before, as a list ('nach einer Stunde, …')."""
        said = (
            [self._counted_quantity(str(n), None, self.unit(unit), ctx) for n, unit in parts if n]
            or [self.cardinal(0)]
        )
        joint = self.DURATION_LIST[2 if written_unit and len(self.DURATION_LIST) > 2 else 0]  # '2:31:08 Std.' no pause
        return self.DURATION_LIST[1].join(filter(None, (joint.join(said[:-1]), said[-1])))

    def pace(self, minutes: int, seconds: int, per: str, ctx: Context) -> str:
        """'3:31 min/km': minutes and seconds per the unit after the slash, or its period's words (al chilometro)."""
        bare = f" {self.cardinal(seconds)}" if self.PACE_SECONDS_BARE and per and seconds else ""  # drei Minuten zehn
        said = self.duration(((minutes, "min"), (0 if bare else seconds, "s")), ctx) + bare
        return f"{said} {self.PERIODS.get(per) or self.per(self.unit(per))}" if per else said

    def first_clock(self, hours: int, minutes: int, ctx: Context) -> str:
        """A clock range's first end ('dalle otto e trenta' alle …)."""
        return self.clock(hours, minutes, None, "", ctx)

    def clock_hours(self, hours: int) -> str:
        return f"{self.counted(hours, True)} {cldr.unit_name(self.code, 'duration-hour', hours)}"  # 'une heure'

    def of(self, noun: str) -> str:
        """The noun counted by a scale word ('millions d'euros', 'milioni di euro'; German none)."""
        return f"{self.SCALE_OF} {noun}" if self.SCALE_OF else noun

    def ordinal_dot(self, cur: Cursor, pos: int, dot: int, n: int, ctx: Context) -> str | None:
        """The ordinal `n` is where the period after it at `dot` makes it one ("3." in German), else None."""
        return None

    def currency(self, written: str) -> Currency | None:
        """The currency a symbol, code or name stands for: the language's own table, else CLDR's
        name for any ISO 4217 code or symbol ('3 kr', '1 GTQ'), with MINOR_UNIT or the euro's."""
        if (
            own := self.CURRENCIES.get(written if written.isupper() or not written.isalpha() else written.lower())
        ) is not None:
            return own
        return None if (code := cldr.currency_code(self.code, written)) is None else self._cldr_currency(code)

    @lru_cache(maxsize=512)  # noqa: B019  (one instance per language, alive for the process)
    def _cldr_currency(self, code: str) -> Currency:
        one, many = cldr.currency_name(self.code, code, 1), cldr.currency_name(self.code, code, 2)
        return Currency(
            Unit(one, many, self.is_feminine(one.split()[-1])),
            self.MINOR_UNIT or self.CURRENCIES["€"].minor,
        )

    def unit_at(self, cur: Cursor, word: str, end: int, ctx: Context | None = None) -> Unit | None:
        """The unit `word` ending at `end` names there, none opening an abbreviation ('79 d. C.'), none a preposition
        ('3 da pagare', not dalton), nor 'ha' before a participle ('n. 4 ha vinto', 'el 3 ha ganado': the verb;
        '10 ha coltivati' ettari); ru looks past it."""
        after = letters_after(cur, end) if word == "ha" else ""
        if word in self.PREPOSITIONS or after.islower() and after.endswith("o"):
            return None
        return self.sensed_unit(word, ctx) or (
            None if cur.at(end) == "." and self._spaced_abbreviation(cur, word, end) else self.unit(word))

    def sensed_unit(self, word: str, ctx: Context | None) -> Unit | None:
        """A symbol's unit after a cue word before it, apart or not: 'pulso de 148 ppm' pulsaciones por minuto."""
        cues, *sense = self.UNIT_SENSES.get(word, ("",))
        near = sense and ctx and not set(cues.split()).isdisjoint(w.lower() for w in (*ctx.words_before, ctx.prev_word))
        return Unit(*sense) if near else None

    def unit_chunk(self, cur: Cursor, j: int) -> int:
        """The end of the chunk at `j`, past a middle dot joining two units into one ('кВт·ч')."""
        m = lexer.chunk(cur, j)
        compound = lexer.chunk(cur, m + 1) if cur.at(m) in "·⋅" and is_letter(cur.at(m + 1)) else m
        return compound if self.unit(cur.text[j:compound]) else m

    def unit(self, written: str) -> Unit | None:
        """The unit a symbol stands for: the language's own table, else CLDR's names for it, else one
        per another ('l/m²' Liter pro Quadratmeter) or per a period ('kWh/día' kilovatios hora al día)."""
        one, slash, per = written.partition("/")
        if (
            not (found := self.UNITS.get(written.replace("μ", "µ")) or self._cldr_unit(written))
            and slash
            and (a := self.unit(one))
            and (b := (self.per(u) if (u := self.unit(per)) else self.PERIODS.get(per)))
        ):
            return Unit(f"{a.singular} {b}", f"{a.plural} {b}", a.feminine)
        return found

    @lru_cache(maxsize=1024)  # noqa: B019  (one instance per language, alive for the process)
    def _cldr_unit(self, written: str) -> Unit | None:
        names = cldr.unit_names(self.code, written)
        return None if names is None else Unit(*names, self.is_feminine(names[0].split()[0]))

    def abbreviation(self, written: str) -> str | None:
        """An abbreviation's reading, as its table writes it."""
        return self.ABBREVIATIONS.get(written)

    def currency_word(self, word: str) -> Currency | None:
        """The currency a word before an amount names: a code in capitals ('EUR 25')."""
        return self.currency(word) if word.isupper() else None

    def is_feminine(self, noun: str) -> bool:
        # 'entre 1.800 y 2.000 kcal' mil ochocientas
        return is_feminine(self.code, noun) or bool((unit := self.unit(noun)) and unit.feminine)

    # --- the module contract ------------------------------------------------------------------

    def locale_span(self, end: int, reading: str, agreement: str = "") -> Span:
        """A span of this language ending at `end`, read as `reading`, with its word on the next number."""
        return Span(end, "locale", self.code, info=reading, agreement=agreement)

    @lru_cache(maxsize=4096)  # noqa: B019  (one instance per language, alive for the process)
    def digits(self, text: str) -> str:
        return " ".join(self.cardinal(int(c)) for c in ascii_digits(text) if c.isdecimal())

    def phone_digits(self, text: str) -> str:
        """The digits of a telephone number after its country code."""
        return self.digits(text)

    def number(self, text: str) -> str:
        """A numeric token the neutral rules decided ('#5', 'C24', 'B2B')."""
        text = ascii_digits(text)
        if english.REFERENCE.fullmatch(text):  # 'KV-3817', 'RC-2026/0457': a slash as the language says it in a number
            signs = (self.NUMBER_SLASH if c == "/" else self.digits(c) or c for c in text if c != "-")
            return " ".join(filter(None, signs))
        if _CODE.fullmatch(text) or self.READS_NAMES and _PLATE.fullmatch(text):  # 'X7KP4M', 'AA-12-BB' A A doze B B
            pieces = re.findall(r"[^\W\d_]|\d+", text)  # each letter spelled, each number read
            return " ".join(self.cardinal(int(p)) if p.isdecimal() else self._alphanumeric(p) for p in pieces)
        if text.startswith("#"):
            return f"{self.NUMBER_WORD} {self.number(text[1:].lstrip())}"
        if (line := re.fullmatch(r"([A-Z]{1,3})(\d{1,3})", text)) and line[1] in self.BEFORE_NUMBER:  # 'RE5' R E fünf
            return f"{self.BEFORE_NUMBER[line[1]]} {self.cardinal(int(line[2]))}"
        # a version after 'v' ('v2.1' versione due punto uno; the noun as the language writes it: 'Version')
        if (version := re.fullmatch(r"[vV](\d+(?:\.\d+)+)", text)) and (
            word := min(sorted(w for w in self.VERSION_WORDS if w[0] in "vV"), key=len, default="")
        ):
            return f"{word} " + self._numbers(version[1], ".", f" {self.ADDRESS_SYMBOLS['.']} ")
        if is_letter(text[0]) and not self.READS_NAMES:  # 'C24', 'Qwen3': the voice reads it in the turn's language
            return text
        return reading if (reading := self._token(text, Context())) is not None else self._alphanumeric(text)

    def find_span(self, cur: Cursor, pos: int, ctx: Context) -> Span | None:
        c = cur.at(pos)
        if c in cldr.VULGAR_FRACTIONS:  # '⅖'
            numerator, denominator = cldr.vulgar_fraction(c)
            # '1 compressa e ½' mezza, not '… e ½ litro'
            if (
                self.HALF
                and (numerator, denominator) == (1, 2)
                and ctx.prev_word == self.HALF_AND
                and ctx.words_before
                and (not (after := chunk_after(cur, pos + 1, is_letter)) or after[0].lower() in self.PREPOSITIONS)
            ):
                return self.locale_span(pos + 1, self.HALF[self.is_feminine(self.singular(ctx.words_before[-1]))])
            return self._unit_after(cur, pos + 1, self.fraction_before(cur, pos + 1, numerator, denominator, ctx),
                                    (0, numerator, denominator), ctx)
        if is_digit(c):
            return (
                span
                if ctx.line_start and (span := self._list_number(cur, pos, ctx)) is not None
                else self._numeric(cur, pos, pos, ctx)
            )
        prev = ctx.char_before(cur.text, pos)
        if c in "+-−" and is_digit(cur.at(pos + 1)) and sign_may_follow(prev):
            return (
                span
                if c == "+" and (span := self._country_code_phone(cur, pos)) is not None
                else self._numeric(cur, pos, pos + 1, ctx, sign=c)
            )
        if c in "-−" and is_letter(cur.at(pos + 1)) and sign_may_follow(prev):  # '-R$ 120,40'
            if (currency := self._dollar_sign(cur, pos + 1, lexer.chunk(cur, pos + 1))) is not None:
                return self._numeric(cur, pos, currency[1], ctx, sign=c, currency=currency[0])
        if lexer.is_currency(c):
            body = pos + 1 + (cur.at(pos + 1) == " ")
            return self._numeric(cur, pos, body, ctx, currency=self.currency(c)) if is_digit(cur.at(body)) else None
        if c == "(" and is_digit(cur.at(pos + 1)):
            return self._bracketed_phone(cur, pos)
        if c == "@" and is_alnum(cur.at(pos + 1)):
            end = lexer.chunk(cur, pos + 1)
            return self.locale_span(end, self.ADDRESS_SYMBOLS["@"] + " " + self.address(cur.text[pos + 1:end]))
        return self._word(cur, pos, ctx) if is_letter(c) else None

    # --- words --------------------------------------------------------------------------------

    def _word(self, cur: Cursor, pos: int, ctx: Context) -> Span | None:
        if (end := lexer.scheme_url_end(cur, pos, electronic.SCHEMES)) is not None:
            return self.locale_span(end, self.address(cur.text[pos:end]))
        end = lexer.chunk(cur, pos)
        word = cur.text[pos:end]
        after = cur.at(end)
        # 'jue., 9/10' as 'jueves, 9/10'
        day, comma = (self.WEEKDAYS.get(word.lower(), ""), end + 1) if after == "." else (word, end)
        # 'viernes, 14/3'
        if (
            day.lower() in self.DAY_MONTH_CUES
            and cur.at(comma) == ","
            and is_digit(cur.at(lexer.spaces(cur, comma + 1)))
        ):
            return self.locale_span(comma, day, day.lower())
        if (after == "." and day or self.MONTH_FIRST_DATES and (day := self.WEEKDAYS.get(word.lower(), ""))) and (
                body := lexer.spaces(cur, comma)) > comma and 0 < lexer.digits_end(cur, body, 3) - body < 3:  # a day
            span = self._numeric(cur, body, body, replace(ctx, prev_word=day))  # 'mar. 15/12', 'vier. 10 de mayo'
            return self.locale_span(span.end, f"{day} {span.info}")
        if (
            re.split("[-–]", word)[0] in self.WEEKDAYS
            and (days := self._weekday_range(cur, word, end, ctx)) is not None
        ):
            return days  # 'Mo.–Fr.', 'lun-ven', 'du lun. au ven.'
        if after == "." and (spaced := self._spaced_abbreviation(cur, word, end)) is not None:  # 'z. B.'
            return spaced
        glued = next((e for e in self.ABBREVIATED_ENDINGS if word.endswith(e)), "")  # 'Hauptstr.' Hauptstraße
        last = word[a.end():] if (a := _ELIDED_ARTICLE.match(word)) else (word.split("-")[1:] or [glued])[-1]
        full = self.ABBREVIATED_ENDINGS.get(last) or last and self.abbreviation(last + ".")
        if after == "." and full and word + after not in self.ABBREVIATIONS:  # also after "l'" ("l'On.") or a hyphen
            return self._abbreviated(cur, word + ".", end + 1, word[: -len(last)] + full)  # 'Karl-Marx-Str.' Straße
        if after == "$" and (currency := self._dollar_sign(cur, pos, end)) is not None:  # 'R$ 25'
            return self._numeric(cur, pos, currency[1], ctx, currency=currency[0])
        if (
            after == "."
            and word.lower() in self.ROMAN_ABBREVIATIONS
            and (r := chunk_after(cur, end + 1, str.isupper))
            and (n := roman_value(r[0]))
        ):
            # 's. XIII' siglo trece
            return self.locale_span(r[1], f"{self.ROMAN_ABBREVIATIONS[word.lower()]} {self.cardinal(n)}")
        bare = after == " " and word.islower() and len(word) > 2 and is_digit(cur.at(end + 1))  # 'max 2' as 'max.'
        if (after in (".", "°", "/") or bare) and (reading := self.abbreviation(word + ("." if bare else after))):
            one = ctx.last_two_words() & {self.PER, *self.UNIT_CUES}
            unit = one and next((u for u in self.UNITS.values() if u.plural == reading), None)  # 'jede halbe Std.'
            if "|" in reading:  # masculine, feminine, both plural: 'IVA incl.' inclusa, 'spese incl.' incluse
                noun, forms = ctx.prev_word.lower(), reading.split("|")
                plural = self.is_plural(noun)
                reading = forms[2 * plural + self.is_feminine(self.singular(noun) if plural else noun)]
            # a sentence's first word: 'M.' Monsieur
            reading = reading[:1].upper() + reading[1:] if ctx.last_visible in ".!?" else reading
            return self._abbreviated(cur, word + after, end + (not bare), unit.singular if unit else reading)
        roman = self.ROMAN_ORDINAL.fullmatch(word)
        if roman and (value := roman_value(roman.group(1))) is not None:  # 'XXe siècle'
            return self.locale_span(end, self.ordinal(value, roman.group(2), ctx))
        if said := english.capital_range(word, self.follows_chapter_word(ctx), self.cardinal, self.RANGE):
            return self.locale_span(end, said)
        if (span := self.roman(cur, end, word, listed_roman(ctx))) is not None:
            return span
        name, _, numeral = word.rpartition("-")
        ruler = name.split("-")[-1]  # a ruler's number joined to his name, as streets are named: 'bd Henri-IV'
        if self.is_ruler(ruler) and (span := self.roman(cur, end, numeral, replace(ctx, prev_word=ruler))):
            return replace(span, info=f"{name}-{span.info}")
        if (reading := self.abbreviation(word)) is not None and not (word in self.NAME_ABBREVIATIONS and (chunk_after(
                cur, end, str.isupper) or ctx.prev_word.istitle() and ctx.prev_word.lower() not in self.PREPOSITIONS)):
            if (
                word.isupper()
                and (after := chunk_after(cur, end, str.isupper))
                and after[0] not in "CDLM"
                and (value := roman_value(after[0]))
            ):
                return self.locale_span(after[1], f"{reading} {self.cardinal(value)}")  # 'SGB II' zwei
            with suppress(TooLong):  # an abbreviation of two words that begins with one ('c.º b.' camino bajo)
                after = chunk_after(cur, end, is_letter)
                two = after and after[1] - end <= 6 and cur.at(after[1]) == "." and self.abbreviation(
                    f"{word} {after[0]}.")
                if two:
                    return self.locale_span(after[1] + 1, two)
            return self.locale_span(end, reading)
        if is_address(word):
            return self.locale_span(end, self.address(word))
        glued = _GLUED_CODE.fullmatch(word) if self.GLUED_CODES else None
        if glued and (currency := self.currency(glued[1])) is not None:  # 'nio21,1'
            return self._numeric(cur, pos, pos + len(glued[1]), ctx, currency=currency)
        if (
            (currency := self.currency_word(word)) is not None
            and (j := lexer.spaces(cur, end)) > end
            and is_digit(cur.at(j))
        ):
            return self._numeric(cur, pos, j, ctx, currency=currency)  # 'EUR 25'
        if ctx.prev_word and not self.READS_NAMES and re.fullmatch(r"[A-Z]\d{1,3}", word):  # after a word: 'Kurs B1'
            return self.locale_span(end, f"{word[0]} {self.cardinal(int(word[1:]))}")
        # 'LH 2045', 'BRT 0457' (a word of capitals with no vowel is spelled)
        if (
            (len(word) == 2 or len(word) == 3 and not set(word) & set("AEIOU"))
            and word.isupper()
            and word.isascii()
            and word.isalpha()
            and (digits := chunk_after(cur, end, is_digit))
        ):
            # a parcel: 'QB 284 155 031 BR'
            country = chunk_after(cur, code_end := lexer.digit_groups_end(cur, digits[1]), str.isupper)
            if country and len(word) == 2 and re.fullmatch("[A-Z]{2}", country[0]):
                return self.locale_span(country[1], " ".join((*word, self.digits(cur.text[end:code_end]), *country[0])))
            return self.locale_span(end, self.BEFORE_NUMBER.get(word) or " ".join(map(self._alphanumeric, word)))
        month, dot, joined = self.MONTHS.get(word.lower()), end + (cur.at(end) == "."), f" {self.RANGE} "
        # two months a range word joins, abbreviated ('de sept. à nov.' de septembre à novembre; alone 'sept.' is seven)
        last = month and cur.startswith(dot, joined) and chunk_after(cur, dot + len(joined) - 1, is_letter)
        if last and last[0].lower() in self.MONTHS:
            names = (self.MONTH_NAMES[m - 1] for m in (month, self.MONTHS[last[0].lower()]))
            return self.locale_span(self._past_period(cur, last[1]), joined.join(names))
        day = month and self.MONTH_FIRST_DATES and chunk_after(cur, dot, is_digit)
        if day and day[0].isdecimal() and len(day[0]) <= 2 and 1 <= int(day[0]) <= 31:  # 'junio 11 2000', 'abr. 22'
            year = (after := chunk_after(cur, day[1], is_digit)) and re.fullmatch(r"\d{4}", after[0]) and int(after[0])
            return self.locale_span((after if year else day)[1], self.date(int(day[0]), month, year or None, ctx))
        if month and (word[0].isupper() or word.islower() and len(word) > 3):
            return self._month_year(cur, pos, end, month)
        if word.islower() and word not in self.PREPOSITIONS and (unit := self.unit(word)) and cur.at(end) == " " and (
                is_digit(cur.at(end + 1)) and _SIZE_AFTER.match("".join(map(cur.at, range(end, end + 12))))):
            return self.locale_span(end, unit.plural)  # a size's unit before it: 'cm 220 × 95 × 85' centimetri
        symbol = (
            (len(word) > 1 and not word.isupper() and not set(word) & set("aeiou"))
            or word not in (word.lower(), word.upper())
        )
        # a symbol with no number after a cue or an adjective after one: 'el km', 'jedes weitere kg'; not 'il CV'
        plural = ctx.last_two_words().intersection(self.PLURAL_UNIT_CUES)
        if symbol and (plural or ctx.last_two_words().intersection(self.UNIT_CUES)) and (unit := self.unit(word)):
            # i chilometri, el kilovatio hora
            return self.locale_span(end, unit.plural if plural else unit.singular)
        # '€ brut/mois' brut par mois; a unit after a noun per one ('gota/kg' gota por quilo)
        noun, _, per = word.partition("/")
        unit = self.unit(per) if noun.islower() else None
        if noun.isalpha() and (reading := unit and self.per(unit) or self.PERIODS.get(per)):
            return self.locale_span(self._past_period(cur, end), f"{noun} {reading}")
        return None

    def _dollar_sign(self, cur: Cursor, pos: int, end: int) -> tuple[Currency, int] | None:
        """A currency written with letters before '$' ('R$', 'US$') and where its amount starts."""
        currency = self.currency(cur.text[pos:end] + "$") if cur.at(end) == "$" else None
        body = lexer.spaces(cur, end + 1)
        return None if currency is None or not is_digit(cur.at(body)) else (currency, body)

    def _weekday_range(self, cur: Cursor, word: str, end: int, ctx: Context) -> Span | None:
        """'Mo.–Fr.' Montag bis Freitag, 'lun.–sab.' dal lunedì al sabato: two abbreviated weekdays joined by a dash or the range's word;
        one alone after a preposition or the range's word ('du lun. au ven.')."""
        with suppress(TooLong):
            first, *joined = re.split("[-–]", word, maxsplit=1)
            j = end + (cur.at(end) == ".")  # a dash or the range's word between them: 'lun–vie', 'de L a V'
            k = (
                j + 1 if cur.at(j) in "–-"
                else j + len(self.RANGE) + 2 if self.RANGE and cur.startswith(j, f" {self.RANGE} ")
                else j
            )
            if not joined and k > j and is_letter(cur.at(k)):
                joined = [cur.text[k:(end := lexer.chunk(cur, k))]]
            listed = chunk_after(cur, end + 1 + (cur.at(end + 1) == ","), is_letter) if cur.at(end) == "." else None
            listed = chunk_after(cur, listed[1], is_letter) if listed and listed[0] == self.HALF_AND else listed
            # 'y D. Tomás' no day
            alone = (
                not joined
                and first[1:]
                and cur.at(end) == "."
                and (
                    # 'du lun.', 'al vie.'
                    ctx.prev_word.lower() in ({*self.PREPOSITIONS, self.RANGE, *self.RANGE_AFTER.values()} - {""})
                    # a list: 'lun., miér. y vie.'
                    or bool(listed and listed[0] in self.WEEKDAYS and cur.at(listed[1]) == ".")
                )
            )
            if alone or joined and joined[0] in self.WEEKDAYS:
                end += cur.at(end) == "." and not self._ends_sentence(cur, end + 1, by_capital=alone or k > j + 1)
                pattern = (
                    "{}" if alone
                    else self.WEEKDAY_RANGE if ctx.prev_word.lower() not in self.PREPOSITIONS
                    else f"{{}} {self.RANGE} {{}}"
                )
                listed_on = ctx.agreement == "days" and ctx.prev_word in ("", self.HALF_AND)  # 'às ter. e qui.' terças
                plural = alone and (ctx.prev_word.lower() in self.PLURAL_DAYS or listed_on)
                # a pattern 'masculine|feminine' by the last day: 'dal martedì alla domenica'
                days = [self.WEEKDAYS[day] + "s" * plural for day in (first, *joined)]
                reading = pattern.split("|")[-1 if self.is_feminine(days[-1]) else 0].format(*days)
                return self.locale_span(end, reading, "days" * plural)
        return None

    def _spaced_abbreviation(self, cur: Cursor, word: str, end: int) -> Span | None:
        """'z. B.', 'd. h.': an abbreviation with a space after its first period. Any other word reads nothing past its
        period, so that a plain word before a period is decided by the character after it alone, as before a comma."""
        pos = end - len(word)
        for key in self.JOINED_ABBREVIATIONS.get(word, ()):  # 'c.-à-d.': waits while the text may still be it
            if cur.startswith(pos, key):
                return self._abbreviated(cur, key, pos + len(key), self.ABBREVIATIONS[key])
        with suppress(TooLong):
            if {word, word.lower()} & self.SPACED_ABBREVIATION_HEADS and cur.at(end + 1) == " " and is_letter(
                    cur.at(end + 2)) and cur.at(m := lexer.chunk(cur, end + 2)) == "." and m - end <= 6:
                second = cur.text[end + 2:m]  # written with or without the space: 'a. c.'
                reading = self.abbreviation(f"{word}.{second}.") or self.abbreviation(f"{word}. {second}.")
                return None if reading is None else self._abbreviated(cur, f"{word}.{second}.", m + 1, reading)
        return None

    def _abbreviated(self, cur: Cursor, written: str, end: int, reading: str) -> Span:
        """An abbreviation's span; where its period also ends the sentence ('etc.', 'p. a.'), so does the reading."""
        ends = (final := written in self.SENTENCE_FINAL) or self.PERIOD_ENDS_SENTENCE
        return self.locale_span(end, reading + "." * (ends and self._ends_sentence(cur, end, by_capital=final)))

    def roman(self, cur: Cursor, end: int, word: str, ctx: Context) -> Span | None:
        """A Roman numeral in capitals, read by `_roman`; a lone C, D, L or M is a letter ('Vitamin C', 'Gebäude C')."""
        value = roman_value(word) if word.isupper() and (len(word) > 1 or word in "IVX") else None
        return None if value is None else self._roman(cur, end, word, value, ctx)

    def _roman(self, cur: Cursor, end: int, word: str, value: int, ctx: Context) -> Span | None:
        """A Roman numeral: before a century word an ordinal ('XX secolo'), after a chapter word a number ('Abt. IV'),
        after a name the ruler's ('Ludwig XIV.', 'Louis XIV') with German's period, kept where it ends the sentence."""
        dot = self.ROMAN_DOT and cur.at(end) == "."
        after = chunk_after(cur, end + dot, is_letter)
        if after is not None and after[0].lower() in self.CENTURY_WORDS and not self.is_ruler(ctx.prev_word):
            return self.locale_span(end + dot, self.ordinal(value, "." if dot else "", ctx))
        # 'XV de Maio'
        day = (
            after
            and after[0] == self.DATE_OF
            and (m := chunk_after(cur, after[1], is_letter))
            and m[0].lower() in self.FULL_MONTHS
        )
        if day or self.follows_chapter_word(ctx):
            return self.locale_span(end, self.cardinal(value))
        noun = (
            ctx.prev_word
            if ctx.prev_word.lower() in self.ORDINAL_AFTER
            else after and ctx.prev_word.lower() in self.PREPOSITIONS and after[0]
        )
        if noun and len(noun) > 2 and set(word) <= set("IVX"):  # 'classe III B' terza, 'a XII Feira' décima segunda
            # 'A XXX Bienal' trigésima
            feminine = ctx.prev_word.lower() in self.FEMININE_ARTICLES or self.is_feminine(noun.lower())
            return self.locale_span(end, self.ordinal(value, "a" if feminine else "", ctx))
        name = ctx.prev_word
        owner = after and name.endswith("s") and after[0].istitle()  # 'Beethovens IX. Sinfonie' neunte, if no ruler's
        if dot and (name.islower() or owner) and (reading := self.ordinal_dot(cur, end - len(word), end, value, ctx)):
            return self.locale_span(end + 1, reading)  # 'seiner IX. Sinfonie' neunten
        named = name[:1].isupper() and name.isalpha()
        if named and not (dot or self.is_ruler(name) or name.lower() in self.PREPOSITIONS) and set(word) <= set("IVX"):
            return self.locale_span(end, self.cardinal(value))  # a course's part, no ruler's: 'Analysis II' zwei
        if not named or self.ROMAN_DOT and not dot:
            return None
        ends = dot and self._ends_sentence(cur, end + 1)
        return self.locale_span(end + dot, self.regnal(value, is_feminine_name(name), ctx) + "." * ends)

    def is_roman(self, word: str, prev_word: str) -> bool:
        """Upper-case numerals ('XIX', 'V'; not 'I', 'C', 'D', 'L', 'M' alone); lower-case ones of two letters or more
        that are not words (NOT_ROMAN: 'mi', 'di'), or any after a chapter word ('siglo') but a lone C, D, L or M."""
        if not roman_value(word.upper()):
            return False
        if prev_word.lower() in self.CHAPTER_WORDS:
            return len(word) > 1 or word.upper() in "IVX"
        if word.isupper():
            return len(word) > 1 or word in "VX"
        return word.islower() and len(word) > 1 and word not in self.NOT_ROMAN

    def names_sequel(self, cur: Cursor, end: int, value: int, ruler: bool) -> bool:
        """Whether a Roman numeral before a quote closing a title is a sequel's number, a cardinal ('«Rocky II»' dos),
        not a ruler's ('«Генрих IV»' Четвёртый)."""
        return value > 1 and cur.at(end) in CLOSING_QUOTES and not ruler

    def follows_chapter_word(self, ctx: Context) -> bool:
        """Whether the word before names a numbered part, so that a Roman numeral after it is a number: also
        abbreviated ('Abt. IV' Abteilung), after an article ("l'article V"), plural ('Kapitel IV–VI', 'capitoli')."""
        label = (self.ABBREVIATIONS.get(ctx.prev_word + ".") or _ELIDED_ARTICLE.sub("", ctx.prev_word)).lower()
        return bool({label, label[:-1], label[:-1] + "o"} & self.CHAPTER_WORDS)

    def is_ruler(self, name: str) -> bool:
        """Whether a Roman numeral after `name` is a ruler's ordinal ('Felipe II', 'Elisabetta II', 'Concilio Vaticano II')."""
        return name in self.RULERS or name in REGNAL_NAMES or is_feminine_name(name)

    def regnal(self, n: int, feminine: bool, ctx: Context) -> str:
        """A ruler's number ('Ludwig der Vierzehnte', 'Louis Quatorze', 'Elisabetta seconda'); `ctx`
        holds the words before the name ('von Ludwig II.' von Ludwig dem Zweiten)."""
        return self.cardinal(n) if n > self.REGNAL_ORDINALS_UP_TO else self.ordinal(n, "a" * feminine, Context())

    def _past_period(self, cur: Cursor, end: int) -> int:
        """`end`, past a period there that closes an abbreviation and not the sentence ('Min., und')."""
        return end + (cur.at(end) == "." and not self._ends_sentence(cur, end + 1))

    def _ends_sentence(self, cur: Cursor, i: int, by_capital: bool = True) -> bool:
        """Whether only spaces follow `i` on its line ('inkl. MwSt.' last) or, if `by_capital`, a space and capital."""
        with suppress(TooLong):
            c = cur.at(lexer.spaces(cur, i))
            return c in ("", "\n") or by_capital and c.isupper() and is_space(cur.at(i))
        return False

    def _month_year(self, cur: Cursor, pos: int, end: int, month: int) -> Span | None:
        """'Mai 2024': a year after a month name is read as a year."""
        if (after := chunk_after(cur, end, is_digit)) is None or len(after[0]) != 4 or not after[0].isdecimal():
            return None
        return self.locale_span(after[1], f"{self.MONTH_NAMES[month - 1]} {self.year(int(after[0]))}")

    # --- numbers ------------------------------------------------------------------------------

    def _list_number(self, cur: Cursor, pos: int, ctx: Context) -> Span | None:
        """'1. ' or '1) ' opening a line is a list number, not before a month or century word ('1. Mai', '3. Runde')."""
        end = lexer.digits_end(cur, pos, 3)
        word = letters_after(cur, end + 1).lower().rstrip(".") if cur.at(end) == "." else ""
        if cur.at(end) not in ".)" or not is_space(cur.at(end + 1)) or word in self.MONTHS.keys() | self.CENTURY_WORDS:
            return None
        return Span(lexer.spaces(cur, end + 1), "olist", self.code, info=cur.text[pos:end])

    def _number_end(self, cur: Cursor, body: int) -> int:
        """A numeric token, with thousands grouped by spaces where the language writes them so."""
        end = lexer.chunk(cur, body)
        # '649,– €' whole euros
        end += 2 + (cur.at(end + 2) in ("-", "–")) if cur.at(end) == "," and cur.at(end + 1) in ("-", "–") else 0
        # '12,5%' as '12,5 %', '-8° c' as '-8 °c'
        end -= cur.text[end - 1] == "%" or self.SPACED_DEGREES and cur.text[end - 1] == "°"
        if end - body > 3 or not ascii_digits(cur.text[body:end]).isdecimal():
            return end
        with suppress(TooLong):
            while cur.at(end) in GROUP_SPACES and (self.SPACE_GROUPS or cur.text[end] in _SPACES_IN_NUMBER):
                k = end + 1
                if not all(is_digit(cur.at(k + i)) for i in range(3)):
                    break
                m = lexer.chunk(cur, k)
                piece = ascii_digits(cur.text[k:m])
                if not (piece.isdecimal() and len(piece) == 3 or re.fullmatch(r"\d{3},\d+", piece)
                        or self.ORDINAL_SUFFIX.fullmatch(piece) and piece[:3].isdecimal() and not piece[3].isdigit()):
                    break
                end = m
                if not piece.isdecimal():
                    break
        return end

    def _numeric(
        self, cur: Cursor, pos: int, body: int, ctx: Context, sign: str = "", currency: Currency | None = None
    ) -> Span:
        if pos == body and currency is None and ctx.char_before(cur.text, pos) == "(" and (
                years := _YEAR_SPAN.fullmatch("".join(map(cur.at, range(pos, pos + 10))))):  # no telephone number
            return self.locale_span(pos + 9, f"{self.year(int(years[1]))} {self.RANGE} {self.year(int(years[2]))}")
        if not sign and currency is None and (phone_end := self.phone_end(cur, body)) is not None:
            return self._phone_span(cur, phone_end, self.phone_digits(cur.text[body:phone_end]))
        end = self._number_end(cur, body)
        # 'R$ 119,90/mês'
        end = cur.text.find("/", body, end) if currency is not None and "/" in cur.text[body:end] else end
        raw = cur.text[body:end]
        token = re.sub(r",[-–]+$", "", "".join(c for c in ascii_digits(raw) if c not in GROUP_SPACES))
        plain = not sign and currency is None
        after = None  # the word after a bare number
        if plain:  # shapes only a number with no sign or currency has
            if self.FLIGHT_NUMBERS and english.names_flight(ctx.prev_word, ctx.words_before, token):
                digits = self.FLIGHT_NUMBERS == "digits" or token[0] == "0"  # 'IB 3147' tres uno cuatro siete
                pairs = (token,) if digits or len(token) < 4 else (token[:2], token[2:])  # 'LH 1172' elf zweiundsiebzig
                flight = (self.digits(p) if p[0] == "0" or digits else self.cardinal(int(p)) for p in pairs)
                return self.locale_span(end, " ".join(flight))
            if (m := lexer.pace(cur, body)) and self.unit(m[3]):  # '4:11/km', '3'58"/km': a pace, never a clock
                return self.locale_span(m.end(), self.pace(int(m[1]), int(m[2]), m[3], ctx))
            race = self.DURATION_LIST and cur.at(end) in "'’′" and cur.at(end + 3) and cur.text[body:end + 4]
            if race and (m := re.fullmatch(r"(?:(\d)h)?(\d\d?)['’′](\d\d)[\"″]", race)):  # a race's time: "2h31'18\""
                said = self.duration(tuple((int(n or 0), unit) for n, unit in zip(m.groups(), ("h", "min", "s"))), ctx)
                return self.locale_span(end + 4, said)
            if "@" in token and electronic.is_email(token):
                return self.locale_span(end, self.address(raw))
            if token.isdecimal() and cur.at(end) in "'’′":  # minutes: "dura 148'", "al 90'", "90'+3"
                if ctx.prev_word.lower() in self.PRIME_MINUTES_AFTER:
                    return self.locale_span(end + 1, self._counted_quantity(token, None, self.unit("min"), ctx))
                match_minute = ctx.prev_word.lower() in self.MINUTE_ORDINAL_AFTER  # "al 90'" al novantesimo
                added = (
                    lexer.digits_end(cur, end + 2) if cur.at(end + 1) == "+" and is_digit(cur.at(end + 2)) else end + 1
                )
                if match_minute or added > end + 1:
                    # più tre
                    plus = (
                        f" {self.SYMBOLS['+']} {self.cardinal(int(cur.text[end + 2:added]))}" if added > end + 1 else ""
                    )
                    return self.locale_span(
                        added,
                        (self.ordinal(int(token), "", ctx) if match_minute else self.cardinal(int(token))) + plus,
                    )
            if (season := self.season(cur, end, token, ctx)) is not None:
                return self.locale_span(*season)
            label = (
                self.abbreviation(ctx.prev_word + ".") or self.abbreviation(ctx.prev_word) or ctx.prev_word
            ).lower()
            # 'n. 2026/04718', a file's
            numbered = label == self.NUMBER_WORD.lower() and re.fullmatch(r"\d+/\d+", token)
            if self.NUMBER_SLASH and (numbered or (m := _SLASHED.fullmatch(token)) and (  # 'Lei 8.078/90'
                    "." in m[1] or label in self.CHAPTER_WORDS or int(m[1]) > 12 and 1900 <= int(m[2]) < 2100)):
                return self.locale_span(end, self._numbers(token, "/", f" {self.NUMBER_SLASH} "))
            after = chunk_after(cur, end, is_letter)  # a fixed expression, also written with a space
            if (fixed := next((w for w in (token, after and token + after[0]) if w in self.ABBREVIATIONS), None)):
                # '24 h/24'
                return self.locale_span(end if fixed == token else after[1], self.ABBREVIATIONS[fixed])
            # 'versione 2.10', '2.4.1', 'Panda 1.2 benzina'
            if (
                _VERSION.fullmatch(token)
                and (
                    ctx.prev_word.lower() in self.VERSION_WORDS
                    or (token.count(".") == 2 and not (GROUPED.fullmatch(token) or _DOTTED_DATE.fullmatch(token)))
                    or (
                        self.POINT_AS_WRITTEN
                        and re.fullmatch(r"\d\.\d", token)
                        and after
                        and not (self.unit(after[0]) or self.currency(after[0]))
                    )
                )
            ):
                point = " " if ctx.prev_word.lower() in self.ROOM_WORDS else f" {self.ADDRESS_SYMBOLS['.']} "
                return self.locale_span(end, self._numbers(token, ".", point))
            # digits after 'terminada en', 'Bestellnr.'; no year
            before = f" {' '.join(w for w in (*ctx.words_before, ctx.prev_word) if w)}".lower()
            named = [
                sum(least)
                for cue, after, *least in self.DIGIT_CUES
                if before.endswith(cue[1:] if cue[0] == "-" else " " + cue)
                and after in ("", word_after(cur, end))
                and (before != f" {cue}" or " " not in cue or not re.fullmatch(r"1\d{3}|20\d\d", token))
            ]
            if named and re.fullmatch(r"\d+[A-Z]+\d*", word := cur.text[body:lexer.chunk(cur, body)]):
                end = lexer.digit_groups_end(cur, body + len(word))  # a code: 'n° 6A 1234 5678' six A un deux…
                said = " ".join(self.digits(c) or c for c in cur.text[body:end] if c.isalnum())
                return self.locale_span(end, said)
            # 'n° 7512 0394', group by group
            if named and token.isdecimal() and (groups := lexer.digit_groups_end(cur, end)) > end:
                return self.locale_span(groups, self.phone_digits(cur.text[body:groups]))
            if (
                token.replace("-", "").isdecimal()
                and (
                    (named and (len(token) >= min(named) or token[0] == "0"))
                    or (
                        self.POSTCODE_DIGITS
                        and len(token) == 5
                        and (
                            ctx.last_visible == ","
                            and (place := chunk_after(cur, end, str.isupper))
                            and not (self.unit(place[0]) or self.currency(place[0]))
                        )
                    )
                )
            ):
                return self.locale_span(end, self.digits(token))
            # 'código de verificación es 482 913', 'PIN: 4829' (not '… 1500 €')
            if (
                token.isdecimal()
                and ctx.names_code(token, *self.CODE_WORDS, self.PREPOSITIONS)
                and sum(map(str.isdecimal, cur.text[body:(code_end := lexer.digit_groups_end(cur, end))])) >= 4
                and not (self.unit(counted := word_after(cur, code_end)) or self.currency(counted))
            ):
                code = cur.text[body:code_end]  # '58 31 07' in pairs, as the language reads a phone number's
                return self.locale_span(code_end, (self.phone_digits if _PAIRS.fullmatch(code) else self.digits)(code))
            if (reading := self.shaped_token(token, ctx)) is not None:
                return self.locale_span(end, reading)
            padded = self.PADDED_HOURS and len(token) == 2 and token[0] == "0"  # '01 h': the time (es una)
            marker = chunk_after(cur, end, is_letter) if padded else None
            if marker and marker[0] == "h":
                return self.locale_span(marker[1], self.counted(int(token), True))
        # the sign's word: '+3,2 %' più tre virgola due
        minus = f"{self.PLUS if sign == '+' else self.MINUS} " if sign else ""
        signed = sign and currency is None and word_after(cur, end)[:3].lower() == "min"  # a gap: '(+1:15 Min.)'
        pressure = plain and _FRACTION.fullmatch(token) and ctx.prev_word.lower() not in self.DAY_MONTH_CUES and any(
            w.lower().startswith(tuple(self.PRESSURE_CUES)) for w in (*ctx.words_before[-3:], ctx.prev_word))
        if (plain or signed) and not pressure and (span := self._clock_or_date(cur, pos, end, token, ctx)) is not None:
            return replace(span, info=minus + span.info) if signed else span
        # '1 h 05 min'
        if plain and _DIGIT_GROUPS.fullmatch(token) and not (len(token) == 2 and word_after(cur, end) in ("min", "s")):
            end = lexer.digit_groups_end(cur, end)
            return self._phone_span(cur, end, self.phone_digits(cur.text[body:end]))
        if plain and token.isdecimal() and len(token) <= 4 and (phone_end := self._spaced_phone_end(cur, body, end)):
            return self.locale_span(phone_end, self.phone_digits(cur.text[body:phone_end]))
        # hours: a range that ends its phrase or joins another ('9–13 e 15–19')
        if plain and (m := _RANGE.fullmatch(token)):
            ends = cur.at(lexer.spaces(cur, end)) in ".,;!?)" or letters_after(cur, end) == self.HALF_AND
            noun = self.noun_after(cur, end) if self.RANGE_GENDER else None
            # '0,70–1,10 g/l' … un virgule dix gramme
            one = self.SINGULAR_BELOW_TWO and to_int(m[3].partition(",")[0]) < 2
            # '2–8 °C' zwei bis acht Grad Celsius
            return self._unit_after(cur, end, self.number_range(m, ctx, ends, noun), None, ctx, one)
        sides, last_end = [token], end  # '60 × 85 cm' sur, '40 x 30 x 15 cm' por … por: read as '40x30x15'
        while (
            plain
            and self.BY
            and self._quantity(sides[-1])
            and (by := re.match(r" ?[x×] ?(?=\d)", "".join(cur.at(i) for i in range(last_end, last_end + 4))))
        ):
            sides.append(
                ascii_digits(cur.text[last_end + by.end():(last_end := self._number_end(cur, last_end + by.end()))])
            )
        if len(sides) > 1 and cur.at(lexer.spaces(cur, last_end)) == "=":  # '2 x 3 = 6': a product, as '×' reads
            return self.locale_span(
                last_end,
                f" {self.SYMBOLS['×']} ".join(self._spoken_quantity(*self._quantity(n), ctx) for n in sides),
            )
        if len(sides) > 1 and self.unit(word_after(cur, last_end)):
            token, end = "x".join(sides), last_end
        # '3x4 м' три на четыре метра, '30×60cm'
        if plain and self.BY and (m := _DIMENSIONS.fullmatch(token)) and (not m[3] or (unit := self.unit(m[3]))):
            by = replace(ctx, prev_word="×")  # the last side follows the sign, no half: 'dos por uno coma cinco metros'
            last = (
                self.locale_span(end, self._counted_quantity(*self._quantity(m[2]), unit, by))
                if m[3]
                else self._quantity_window(cur, pos, end, *self._quantity(m[2]), "", None, by)
            )
            sides = (self._spoken_quantity(*self._quantity(side), ctx) for side in re.split("[x×]", m[1]))
            return self.locale_span(last.end, f" {self.BY} ".join((*sides, last.info)))
        ordinal = self.ORDINAL_SUFFIX.fullmatch(token)
        if ordinal and not (token.endswith("°") and not self.DEGREE_IS_ORDINAL) and currency is None:
            number = int(ordinal.group(1).replace(".", ""))  # a unit's symbol after it is its noun: 'au 30e km'
            unit = (
                after
                and len(after[0]) > 1
                and after[0].islower()
                and not set(after[0]) & set("aeiou")
                and self.unit(after[0])
            )
            reading = minus + self.ordinal(number, ordinal.group(2), ctx) + (f" {unit.singular}" if unit else "")
            return self._after_day(cur, after[1] if unit else end, reading, number, ctx)
        glued = _CODE_AFTER.fullmatch(token) if self.GLUED_CODES and currency is None else None
        if glued and (named := self.currency(glued[2])) is not None:  # '13hkd'
            token, currency = glued[1], named
        if (quantity := self._quantity(token, currency is not None)) is None:
            if (fraction := _FRACTION.fullmatch(token)) and currency is None:
                n, d = int(fraction.group(1)), int(fraction.group(2))
                # a tyre: '205/55 R16'
                if (rim := chunk_after(cur, end, is_letter)) and (size := re.fullmatch(r"(Z?R)(\d\d)", rim[0])):
                    return self.locale_span(
                        rim[1],
                        f"{self.cardinal(n)} {self.cardinal(d)} {size[1]} {self.cardinal(int(size[2]))}",
                    )
                # '135/85 mmHg' hundertfünfunddreißig zu fünfundachtzig; a mark out of a scale's top of tens, '95/100'
                # novantacinque su cento
                if pressure and n < 30 and self.BARE_CM_PRESSURE:  # '14/9' catorce nueve
                    return self.locale_span(end, f"{self.cardinal(n)} {self.cardinal(d)}")
                over = self.PRESSURE_OVER if pressure or rim and rim[0] == "mmHg" else is_mark(n, d) and self.OVER or (
                    n > d and 10 <= d < 100 and self.NUMBER_SLASH)  # over a smaller one no share: 'Az. 345/26' Strich
                # a half before an abbreviation as '½' reads it ('1/2 c. à c.'); '½' alone in German's cases (NeMo:
                # '1/2 ft' ein halb)
                spoken = (
                    f"{self.cardinal(n)} {over} {self.cardinal(d)}"
                    if over
                    else Language.fraction_before(self, cur, end, n, d, ctx)
                )
                return self._unit_after(
                    cur, end, minus + spoken, None if minus or over else (0, n, d), None if over else ctx
                )
            # 'R$ 1.500-2.000' de mil e quinhentos a dois mil reais
            if currency is not None and (m := _RANGE.fullmatch(token)):
                return self.locale_span(
                    end,
                    f"{minus}{self.number_range(m, ctx, noun=currency.major.singular)} {currency.major.plural}",
                )
            code = _CODE.fullmatch(raw) or _PLATE.fullmatch(raw) or english.REFERENCE.fullmatch(raw)
            reading = self.number(raw) if code else self._token(token, ctx)
            return self.locale_span(end, minus + (reading if reading is not None else self._alphanumeric(raw)))
        whole, fractional = quantity
        return self._quantity_window(cur, pos, end, whole, fractional, minus, currency, ctx)

    def shaped_token(self, token: str, ctx: Context) -> str | None:
        """A token of a shape the language reads its own way; here an IP address, digit by digit with the address's
        word for its dots ('192.168.1.10' eins neun zwei Punkt eins sechs acht Punkt eins Punkt eins null)."""
        if IP.fullmatch(token) and not GROUPED.fullmatch(token):
            return f" {self.ADDRESS_SYMBOLS['.']} ".join(self.digits(part) for part in token.split("."))
        return None

    def season(self, cur: Cursor, end: int, token: str, ctx: Context) -> tuple[int, str] | None:
        """Two years in a row joined by '/', '-', '–' or '—' ('stagione 2026/2027'), a season or school year: both
        years, and their end; a dash after a preposition, or where no season is so written (German), is a range."""
        if len(token) == 4 and cur.at(end) == "—" and is_digit(cur.at(end + 1)):  # the em dash ends the token
            token, end = f"{token}-{cur.text[end + 1:lexer.chunk(cur, end + 1)]}", lexer.chunk(cur, end + 1)
        if (years := english.consecutive_years(token, "-/")) and (
                token[4] == "/" or self.SEASON_DASH and ctx.prev_word.lower() not in self.PREPOSITIONS):
            second = self.year(int(years[1])) if len(years[1]) == 4 else self.cardinal(int(years[1]))
            return end, f"{self.year(years[0])} {second}"
        return None

    def _quantity(self, token: str, after_currency: bool = False) -> tuple[str, str | None] | None:
        """A number that units, currencies and scale words may follow: (whole part, decimals); after a currency
        symbol written the English way, with commas between groups and a point before the cents ('$1,250.50')."""
        if after_currency and (amount := english_amount(token)):
            return amount
        if _INTEGER.fullmatch(token) or GROUPED.fullmatch(token):  # '10.000'
            return token.replace(".", ""), None
        return (
            (m.group(1).replace(".", ""), m.group(2))
            if (m := _DECIMAL.fullmatch(token) or _POINT_DECIMAL.fullmatch(token))
            else None
        )

    def _spoken_quantity(self, whole: str, fractional: str | None, ctx: Context) -> str:
        return self.cardinal(int(whole)) + (
            "" if fractional is None else f" {self.DECIMAL_WORD} {self.fraction_digits(fractional)}"
        )

    def _counted_quantity(self, whole: str, fractional: str | None, unit: Unit, ctx: Context) -> str:
        one = self.SINGULAR_BELOW_TWO and int(whole) < 2 or fractional is None and int(whole) == 1  # '0 €' zéro euro
        if fractional is None:
            return self.counted_noun(int(whole), unit.feminine, unit.singular if one else unit.plural)
        # '1,5 horas' hora y media
        if fractional == "5" and (names := self.HALF_UNITS.get(unit.singular)) and ctx.prev_word != "×":
            return self.counted_half(int(whole), names[int(whole) >= 2], unit.feminine)
        if unit.singular == self.CENTIMETRES_AFTER and len(fractional) == 2 and int(whole) and int(fractional):
            return f"{self._counted_quantity(whole, None, self.unit('m'), ctx)} {self.cardinal(int(fractional))}"
        return f"{self.counted_decimal(whole, fractional, unit.feminine, ctx)} {unit.singular if one else unit.plural}"

    def _quantity_window(self, cur: Cursor, pos: int, end: int, whole: str, fractional: str | None, minus: str,
                         currency: Currency | None, ctx: Context) -> Span:
        """What may follow a quantity: percent, a currency, a scale word, a unit, a month, '.'."""
        scale: Unit | None = None
        # a whole number with no currency (one found after it returns its money)
        integer = fractional is None and currency is None
        if integer and not minus and len(whole) == 4 and self.is_year(cur, end, int(whole), ctx):
            return self.locale_span(end, self.year(int(whole)))
        with suppress(TooLong):
            # '2½', '2 ½'
            if integer and cur.at(glyph := end + (cur.at(end) == " ")) in cldr.VULGAR_FRACTIONS:
                fraction = (int(whole), *cldr.vulgar_fraction(cur.at(glyph)))
                return self._unit_after(
                    cur, glyph + 1, minus + self.mixed_fraction(*fraction), None if minus else fraction
                )
            dotted = integer and cur.at(end) == "."
            if dotted and (ordinal := self.ordinal_dot(cur, pos, end, int(whole), ctx)):
                return self._after_day(cur, end + 1, minus + ordinal, int(whole), ctx)
            while True:
                j = lexer.spaces(cur, end)
                c = cur.at(j)
                unnamed = currency is None and scale is None  # no currency nor scale word read yet
                if c == "%" and unnamed:
                    return self.locale_span(j + 1, minus + self.percent(whole, fractional, ctx))
                if lexer.is_currency(c) and currency is None and (currency := self.currency(c)) is not None:
                    m = (
                        lexer.chunk(cur, k)
                        if (k := lexer.spaces(cur, j + 1)) <= j + 2 and cur.at(k).isupper()
                        else j + 1
                    )
                    # '$ CA'
                    currency, end = (named, m) if (named := self.currency(c + cur.text[k:m])) else (currency, j + 1)
                    break
                if c == "/" and unnamed and is_letter(cur.at(j + 1)):
                    if (unit := self.unit(cur.text[j + 1:(m := lexer.chunk(cur, j + 1))])) is None:
                        break
                    return self.locale_span(
                        m, f"{minus}{self._spoken_quantity(whole, fractional, ctx)} {self.per(unit)}"
                    )
                # '15,6"' pulgadas, where no quotation is open
                if c and c in '"″' and j == end and unnamed and not ctx.quote_open:
                    return self.locale_span(j + 1, minus + self._counted_quantity(whole, fractional, self.unit(c), ctx))
                if c == "°" and unnamed:  # '-3 °C'
                    k = j + 1 + (self.SPACED_DEGREES and cur.at(j + 1) == " ")  # '40 ° k'
                    m = k + 1 if cur.at(k) in self.DEGREE_SCALES else j + 1
                    unit = self.unit("°" + cur.text[k:m].upper() if m > j + 1 else "°")
                    if unit is not None and not is_alnum(cur.at(m)):
                        return self.locale_span(m, minus + self._counted_quantity(whole, fractional, unit, ctx))
                    break
                if j == end or not is_alnum(c):
                    break
                m = self.unit_chunk(cur, j)
                word = cur.text[j:m]
                if (
                    cur.at(m) == "."
                    and (
                        # '5 St.' Stück, not CLDR's stone
                        word.lower() + "." in self.SCALES
                        or word + "." in self.UNITS
                        or (not self.unit(word) and self.unit(word + "."))  # '1 Std.'
                    )
                ):
                    # eine Stunde; its period ending a text stays
                    word, m = word + ".", m + 1 - self._ends_sentence(cur, m + 1, by_capital=False)
                elif (
                    cur.at(m) == "."
                    and word.isalpha()
                    and (
                        (cur.at(m + 1) == " " and cur.at(m + 2).islower())
                        or cur.at(m + 1) in (",", ";", ":")
                    )
                    and self.unit(word)
                ):
                    m += 1  # '10 sec. e poi', '30 min.;': the abbreviation's period
                elif (
                    cur.at(m) == "."
                    and (spaced := self._spaced_abbreviation(cur, word, m))
                    and spaced.info.rstrip(".") in self.UNITS
                ):
                    word, m = spaced.info.rstrip("."), spaced.end - spaced.info.endswith(".")  # '2 c. à s.' cuillères
                money = currency or lexer.is_currency(cur.at(lexer.spaces(cur, m)))  # '60 M€', 'R$ 2 bi'; no 'M' alone
                if scale is None and (found := self.SCALES.get(word.lower()) or money and self.MONEY_SCALES.get(word)):
                    scale, end = found, m
                    continue
                # '1,5 millones de €'
                if (
                    scale is not None
                    and word == self.SCALE_OF
                    and self.SCALE_OF_SYMBOL
                    and (k := lexer.spaces(cur, m)) > m
                    and lexer.is_currency(cur.at(k))
                ):
                    named, m = self.currency(cur.at(k)), k + 1
                elif (named := self.currency(word)) is None and cur.at(m) == "$":  # '5 us$'
                    named, m = self.currency(word + "$"), m + 1
                if named is not None and currency is None:
                    currency, end = named, m
                    break
                if unnamed:
                    one, _, amount = word.partition("/")
                    if (
                        amount.isdecimal()
                        and (unit := self.unit(one))
                        and (per := chunk_after(cur, m, is_letter))
                        and (per_unit := self.unit(per[0]))
                    ):
                        # '100 mg/5 ml' pro fünf Milliliter
                        per_amount = self._counted_quantity(amount, None, per_unit, ctx)
                        return self.locale_span(
                            per[1],
                            f"{minus}{self._counted_quantity(whole, fractional, unit, ctx)} {self.PER} {per_amount}",
                        )
                    # A door's letter after its word ('puerta 2 A', 'bloco 3 A'); amperes elsewhere ('(16 A)', 'de 2 A')
                    door = word == "A" and ctx.prev_word.lower() in self.CHAPTER_WORDS | self.SEAT_WORDS
                    if not door and (unit := self.unit_at(cur, word, m, ctx)) is not None:  # '1 h 30 min' una hora y …
                        reading = minus + self._counted_quantity(whole, fractional, unit, ctx)
                        if (
                            self.DURATION_AND
                            and unit == self.unit("h")
                            and (n := chunk_after(cur, m, is_digit))
                            and (after := chunk_after(cur, n[1], is_letter))
                            and self.unit(after[0]) == self.unit("min")
                            and not chunk_after(cur, after[1], is_digit)
                        ):
                            reading += f" {self.DURATION_AND}"
                        return self.locale_span(m, reading)
                    month = word.lower().rstrip(".") in self.MONTHS or word == self.DATE_OF and (
                        (after := chunk_after(cur, m, is_letter)) is not None and after[0].lower() in self.MONTHS)
                    if integer and int(whole) <= 31 and month and not minus:
                        return self._after_day(cur, end, self.date_day(int(whole), ctx), int(whole), ctx)
                    if integer and _FRACTION.fullmatch(ascii_digits(word)):
                        fraction = (int(whole), *(int(x) for x in ascii_digits(word).split("/")))
                        return self._unit_after(
                            cur, m, minus + self.mixed_fraction(*fraction), None if minus else fraction
                        )
                break
        # '€/mes' al mes, '€/h' por hora, '€/persona' por persona; '1 150 € CC' charges comprises
        if currency is not None:
            per = (
                (
                    self.PERIODS.get(word := cur.text[end + 1:self.unit_chunk(cur, end + 1)])
                    or ((unit := self.unit(word)) and self.per(unit))
                    or (self.PER and word.isalpha() and word[1:].islower() and f"{self.PER} {word}")
                )
                if cur.at(end) == "/"
                else None
            )
            end = self._past_period(cur, end + 1 + len(word)) if per else end  # '€/Std., und'
            term = (after := chunk_after(cur, end, str.isupper)) and self.MONEY_TERMS.get(after[0])
            return self.locale_span(
                after[1] if term else end,
                " ".join(filter(None, (minus + self.money(whole, fractional, currency, scale, ctx), per, term))),
            )
        if scale is not None:
            return self._unit_after(cur, end, minus + self._counted_quantity(whole, fractional, scale, ctx))
        if integer and not minus and int(whole) <= 24 and (part := self.day_part(cur, end, int(whole), 0, False)):
            return self.locale_span(part[1], f"{self.clock(part[2], 0, None, '', ctx)} {part[0]}")  # '7 a.m.'
        if fractional is None and not minus and (count := self.count_before_noun(cur, end, int(whole), ctx)):
            return self.locale_span(lexer.spaces(cur, end) if count.endswith("'") else end, count)
        counted = fractional is not None and not minus and not self.values_noun_before(ctx)
        if counted and (noun := chunk_after(cur, end, is_letter)) and noun[0].islower():
            return self.locale_span(end, self.counted_decimal(whole, fractional, self.is_feminine(noun[0]), ctx))
        return self.locale_span(end, minus + self._spoken_quantity(whole, fractional, ctx))

    def per(self, unit: Unit) -> str:
        """'/kg' after a number: 'pro Kilogramm'."""
        return f"{self.PER} {unit.singular}"

    def percent(self, whole: str, fractional: str | None, ctx: Context) -> str:
        return f"{self._spoken_quantity(whole, fractional, ctx)} {self.PERCENT}"

    def counted_decimal(self, whole: str, fractional: str, feminine: bool, ctx: Context) -> str:
        """A decimal before a noun, unit or percent sign, of the gender given ('una coma cinco horas' in Spanish)."""
        return self._spoken_quantity(whole, fractional, ctx)

    def counted_fraction(self, word: str, whole: int, numerator: int, denominator: int) -> str | None:
        """A fraction after `whole` (or 0), read with the word after it where the language does: a half after the noun
        it counts, in its gender ('un mètre et demi', 'due tazze e mezza'), before it alone ('une demi heure');
        None: the unit's plural follows."""
        if self.HALF is None or (numerator, denominator) != (1, 2):
            return None
        if (unit := self.unit(word)) is None and len(word) > 2 and word.isalpha() and word.islower():
            unit = Unit(one := self.singular(word), word, self.is_feminine(one))  # a noun, its gender by its singular
        names = unit and self.HALF_UNITS.get(unit.singular, (unit.singular, unit.plural))  # '½ kg' medio kilo
        return self.counted_half(whole, names[whole > 1], unit.feminine) if names else None

    def counted_half(self, whole: int, noun: str, feminine: bool) -> str:
        """`whole` and a half after the noun ('dos tazas y media'); no `whole`: the half before it ('media taza')."""
        if not whole:
            return self.HALF_BEFORE[feminine] + noun
        head, _, rest = noun.partition(" ")  # 'quilómetros por hora': the half after the noun
        return " ".join(
            filter(None, (self.counted_noun(whole, feminine, head), self.HALF_AND, self.HALF[feminine], rest))
        )

    def counted_noun(self, n: int, feminine: bool, noun: str) -> str:
        """The count and the noun it counts ('duas xícaras')."""
        return f"{self.counted(n, feminine)} {noun}"

    def singular(self, noun: str) -> str:
        """A plural noun's singular by the language's endings: the first the gender data knows,
        else the noun itself where the data knows it ('bicchiere'), else the first that fits; a noun no ending fits, as written."""
        candidates = [
            noun[: len(noun) - len(plural)] + one for plural, one in self.PLURAL_ENDINGS if noun.endswith(plural)
        ]
        known = [candidate for candidate in candidates if is_known_noun(self.code, candidate)]
        return (known or [noun] * is_known_noun(self.code, noun) or candidates or [noun])[0]

    def is_plural(self, noun: str) -> bool:
        """Whether a noun is plural by the language's endings ('gastos', 'servizi'); by an ending singulars share
        ('spese', 'pensione') only when the data knows its singular ('spesa')."""
        one = self.singular(noun)
        return one != noun and (is_known_noun(self.code, one) or not noun.endswith(self.SINGULAR_ENDINGS))

    def is_year(self, cur: Cursor, end: int, n: int, ctx: Context) -> bool:
        """Whether the four digits before `end` are a year: after a year word ('im Jahr 1990',
        'nel 1998'), before anything a unit could take; after a name inside a sentence ('Imposto de Renda 2027')."""
        return (
            ctx.prev_word in self.YEAR_CUES
            or (1900 <= n < 2100 and ctx.prev_word[:1].isupper() and bool(ctx.words_before))
        )

    def count_before_noun(self, cur: Cursor, end: int, n: int, ctx: Context) -> str | None:
        """The number before the noun that may follow at `end`, in its gender ('vingt-et-une personnes'), or None where
        none follows; after '<nouns> de' one below a thousand in theirs ('21 poltronas de 240' duzentas e quarenta)."""
        after, nouns = chunk_after(cur, end, is_letter), (*ctx.words_before[-1:], ctx.prev_word)
        if nouns[-1].lower() in self.CHAPTER_WORDS or nouns[-1].isupper() and not (after and after[0].endswith("s")):
            return None  # it names the noun or code before it ('el vuelo 21 sale', 'IB 3171 sale'; not 'PVP 21 euros')
        of = after is None and n < 1000 and nouns[-1] == self.SCALE_OF and len(nouns) == 2  # '21 poltronas de 240'
        noun = one if of and (one := self.singular(nouns[0])) != nouns[0] else self.noun_after(cur, end)
        # a year counts nothing: 'A matrícula para 2027 custa' dois mil (not the verb's duas); nor does a house number,
        # before its street or a singular word no noun ('Av. Paulista, 1.578 funciona' mil quinhentos)
        unknown = n > 1 and after and after[0] == noun and not is_known_noun(self.code, noun)
        if noun is None or noun in self.STREET_WORDS or not self.is_plural(noun) and (1900 <= n < 2100 or unknown):
            return None
        return self.counted(n, self.is_feminine(noun))

    def values_noun_before(self, ctx: Context) -> bool:
        """Whether a decimal is the value of the singular noun an article or preposition leads before it, not a count
        of the word after it ('el índice 1,67 cuesta', not 'pesa 1,5 toneladas')."""
        noun, before = ctx.prev_word.lower(), " ".join(ctx.words_before[-1:]).lower()
        led = before in self.PREPOSITIONS and noun.isalpha()
        return led and not (noun in self.PREPOSITIONS or self.is_plural(noun))

    def noun_after(self, cur: Cursor, end: int) -> str | None:
        """The noun a number ending at `end` counts, past a range's last number ('de 2 a 4 horas', '2-4 horas')."""
        if (after := chunk_after(cur, end, is_letter)) and after[0] in (self.RANGE, self.HALF_AND, self.OR) and (
                last := chunk_after(cur, after[1], is_digit)):
            after = chunk_after(cur, last[1], is_letter)
        noun = after and after[0].partition("/")[0]  # '1 gota/kg' uma gota por quilo
        if noun and (
            (
                noun.replace("-", "").isalpha()
                and noun.islower()
                and len(noun) > 2
                and noun not in self.PREPOSITIONS
            )
            or is_known_noun(self.code, noun)
        ):
            return noun
        return (self.abbreviation_after(cur, end) or " ").split(" ")[0] or None  # '1 c. à s.' une cuillère à soupe

    def _unit_after(
        self,
        cur: Cursor,
        end: int,
        reading: str,
        fraction: tuple[int, int, int] | None = None,
        ctx: Context | None = None,
        one: bool = False,
    ) -> Span:
        """A unit after a plural reading ('2 Millionen km/h'); after a `fraction` what `counted_fraction` reads."""
        with suppress(TooLong):
            # '3/4"' tres cuartos de pulgada
            j, inch = lexer.spaces(cur, end), cur.at(end) in ('"', "″") and ctx is not None and not ctx.quote_open
            # '1.500–2.000 €'
            if j > end and (is_letter(cur.at(j)) or cur.at(j) == "°" or lexer.is_currency(cur.at(j))) or inch:
                m = (
                    end + 1 if inch
                    else j + 1 + (cur.at(j + 1) in self.DEGREE_SCALES) if cur.at(j) == "°"
                    else max(j + 1, lexer.chunk(cur, j))
                )
                if fraction is not None and (counted := self.counted_fraction(cur.text[j:m], *fraction)) is not None:
                    per = ctx and ctx.prev_word.lower() == self.PER and " " in self.HALF_BEFORE[0][:-1]  # no 'une'
                    counted = counted.partition(" ")[2] if per and counted.startswith(self.HALF_BEFORE) else counted
                    return self.locale_span(m, counted)
                written = cur.text[j:m]  # '5–7 J. umfasst', '1.500–2.000 €'
                if (unit := self.unit_at(cur, written, m, ctx)) is None and (
                        unit := self.unit_at(cur, written + cur.at(m), m + 1, ctx)) is not None:
                    m += not self._ends_sentence(cur, m + 1, by_capital=False)  # '3½ Std. Kochzeit': the unit's period
                if (unit := unit or getattr(self.currency(written), "major", None)) is not None:
                    # 'trois quarts de pouce'
                    noun = (
                        self.of(unit.singular) if fraction and not fraction[0] and fraction[1] < fraction[2]
                        else unit.singular if one
                        else unit.plural
                    )
                    return self.locale_span(self._past_period(cur, m), f"{reading} {noun}")
        return self.locale_span(end, reading)

    def money(self, whole: str, fractional: str | None, currency: Currency, scale: Unit | None, ctx: Context) -> str:
        """'2,20 €': two euros twenty cents; more than two decimals, or a scale word, read as a number."""
        # 'dois milhões de reais', but after a thousand no 'de' ('cem mil reais', 'cento mila euro')
        if scale is not None:
            noun = (
                currency.major.plural
                if self.cardinal(2000).endswith(scale.plural)
                else self.of(currency.major.plural)
            )
            return f"{self._counted_quantity(whole, fractional, scale, ctx)} {noun}"
        cents = (fractional or "").rstrip("0")
        if not cents and int(whole) >= 10**6 and int(whole) % 10**6 == 0:  # 'un million d'euros'
            return f"{self.cardinal(int(whole))} {self.of(currency.major.plural)}"
        if len(cents) > 2:
            return f"{self._spoken_quantity(whole, cents, ctx)} {currency.major.plural}"
        major, minor = int(whole), int(cents.ljust(2, "0")) if cents else 0
        major_words = self._counted_quantity(whole, None, currency.major, ctx)
        if not minor:
            return major_words
        unnamed = self.CENTS_UNNAMED and major and minor >= 10 and ctx.last_spoken  # kept: 'e cinque centesimi'; alone
        minor_words = self.cardinal(minor) if unnamed else self._counted_quantity(str(minor), None, currency.minor, ctx)
        joined = (major_words, "" if unnamed and self.CENTS_UNNAMED == "bare" else self.MONEY_AND, minor_words)
        return minor_words if major == 0 else " ".join(filter(None, joined))

    # --- other numeric tokens -----------------------------------------------------------------

    def _token(self, token: str, ctx: Context) -> str | None:
        """Numeric tokens read without looking further: fractions, lists, ranges, attached units."""
        if m := _FRACTION.fullmatch(token):
            return self.fraction(int(m.group(1)), int(m.group(2)))
        if _COMMA_GROUPED.fullmatch(token):  # '1,000,123' written the English way
            return self.cardinal(int(token.replace(",", "")))
        # '1,2,3,4': decimals listed without spaces, read pair by pair (an odd first one alone)
        if _COMMA_LIST.fullmatch(token):
            parts = token.split(",")
            words = [self.cardinal(int(parts.pop(0)))] if len(parts) % 2 else []
            return ", ".join(
                words + [self._spoken_quantity(parts[i], parts[i + 1], Context()) for i in range(0, len(parts), 2)]
            )
        if m := _RANGE.fullmatch(token):
            return self.number_range(m, ctx)
        if self.OVER and (m := _GRADE.fullmatch(token)):  # '14,5/20' quatorze virgule cinq sur vingt
            return f"{self._spoken_quantity(*self._quantity(m[1]), ctx)} {self.OVER} {self.cardinal(int(m[2]))}"
        if (m := _ATTACHED_UNIT.fullmatch(token)) and (quantity := self._quantity(m.group(1))) is not None:
            unit_text = m.group(2)
            # '45/B': a house number's letter
            if unit_text[0] == "/" and len(unit_text) == 2 and unit_text[1].isupper():
                return " ".join(filter(None, (self._spoken_quantity(*quantity, ctx), self.HOUSE_SLASH, unit_text[1])))
            if unit_text.startswith("/") and (per := self.unit(unit_text[1:])) is not None:
                return f"{self._spoken_quantity(*quantity, ctx)} {self.per(per)}"
            unit = self.sensed_unit(unit_text, ctx) or self.unit(unit_text)  # 'ouro 18k' quilates
            if unit and unit_text not in ("A", "А") and not (  # '2A' a letter, '2 A' amperes
                    unit_text.isupper() and len(unit_text) == 1 and ctx.prev_word.lower() in self.SEAT_WORDS):
                return self._counted_quantity(*quantity, unit, ctx)
        return None

    def number_range(self, m: re.Match[str], ctx: Context, ends_phrase: bool = False, noun: str | None = None) -> str:
        """'2–4 giorni' da due a quattro ('entro 2–4 giorni' without 'da'), in the `noun`'s gender after ('2-4 horas'
        duas a quatro); hours, with 'h' or a day's range that ends its phrase, as times ('dalle nove alle tredici')."""
        first, last = to_int(m[1]), to_int(m[3])
        opens = ctx.prev_word.lower() in {"", self.HALF_AND, *self.WEEKDAYS.values()}  # 'sabato, 9–13 e 15–19'
        if self.HOURS_TO and "," not in m[0] and (m[2] or m[4] or ends_phrase and opens and first < last <= 24):
            first_said, last_said = self.first_clock(first, 0, ctx), self.clock(last, 0, None, "", ctx)
            return f"{self.hours_from(ctx)}{first_said} {self.HOURS_TO} {last_said}"
        start = "" if ctx.prev_word.lower() in self.PREPOSITIONS else self.RANGE_FROM
        feminine, said = noun is not None and self.is_feminine(noun), []
        # a decimal as before a unit ('3,9–5,5 mmol/l')
        for whole, fractional in (self._quantity(m[1]), self._quantity(m[3])):
            integer = self.cardinal(int(whole)) if noun is None else self.counted(int(whole), feminine)
            said.append(integer if fractional is None else self.counted_decimal(whole, fractional, feminine, ctx))
        return " ".join(
            filter(None, (start, said[0], self.RANGE_AFTER.get(ctx.prev_word.lower(), self.RANGE), said[1]))
        )

    def _numbers(self, token: str, mark: str, joiner: str) -> str:
        """The numbers between a token's marks ('2.4.1', '8.078/90'), one led by a zero digit by digit."""
        return joiner.join(self.digits(p) if p[0] == "0" else self.cardinal(to_int(p)) for p in token.split(mark))

    def _alphanumeric(self, text: str) -> str:
        """'2D-Drucker', 'C24': digit runs read as numbers (long ones digit by digit), letters kept; a decimal too ('15,6-Zoll-Display'
        fünfzehn Komma sechs); a unit between a number and its noun by its name ('2-TB-SSD' zwei Terabyte SSD)."""
        text = re.sub(r"(?<=\d-)([^\W\d_]+)(?=-)", lambda m: (unit := self.unit(m[1])) and (  # '12-t-LKW' Tonnen
            unit.singular if re.search(r"(?<![\d,])1-\Z", text[:m.start()]) else unit.plural) or m[1], text)

        def run(m: re.Match[str]) -> str:
            digits, fractional = ascii_digits(m[1]), m[2] and f" {self.DECIMAL_WORD} {self.fraction_digits(m[2])}"
            spoken = (
                self.cardinal(int(digits)) if len(digits) <= 4 and digits[0] != "0" else self.digits(digits)
            ) + (fractional or "")
            return " " * text[m.start() - 1:m.start()].isalpha() + spoken + " " * text[m.end():m.end() + 1].isalpha()

        # a code of capitals and digits ('NL482915372BR') letter by letter
        spoken = re.sub(r"(\d+)(?:,(\d+))?", run, text)
        return (
            re.sub(r"(?<=[A-Z])(?=[A-Z])", " ", spoken)
            if len(text) >= 8 and text.isalnum() and text.isupper()
            else spoken
        )

