"""English readings written by hand (spec §2.2): numbers, money, decades, versions, ids, Roman numerals."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

from num2words import num2words

from voice_tts.tn import cldr, locales
from voice_tts.tn.lexer import PACE
from voice_tts.tn.word_list import known_words

# Word tables kept as data: currencies, units, abbreviations, names (english.json).
_DATA, _FLIGHTS = locales.data("english.json", "voice_tts.tn"), locales.data("flights.json", "voice_tts.tn")
_PRESSURE_CUES = tuple(_DATA["pressure_cues"])  # words a blood pressure follows ('BP 128/82', 'pressure was 120/80')


def digits(text: str, zero: str = "zero") -> str:
    """Read every digit on its own: '0100' -> 'zero one zero zero'; a British trunk number's zeros oh (`zero`)."""
    return " ".join(cardinal(int(c)) if c != "0" else zero for c in text if c.isdecimal())


def cardinal(n: int) -> str:
    """CLDR's words without their hyphens ('twenty one'); a run too long to say, digit by digit."""
    if n >= 10**24:
        return digits(str(n))
    if n >= 10**15:  # CLDR's English words stop below: num2words', up to sextillions, without its commas and 'and'
        return re.sub(r",| and\b", "", num2words(n)).replace("-", " ")
    return cldr.spell("en", n, "spellout-numbering").replace("-", " ")


def ordinal(n: int) -> str:
    return cldr.spell("en", n, "spellout-ordinal").replace("-", " ")


def suffixed_ordinal(text: str) -> str:
    """'21st' twenty first, '1,000th' one thousandth; a suffix not fitting the number as typed: '21th' twenty one th."""
    n = int(text[:-2].replace(",", ""))
    fits = num2words(n, to="ordinal_num")[-2:]  # '21st', '11th'
    return ordinal(n) if text[-2:].lower() == fits else f"{cardinal(n)} {text[-2:]}"


def year(n: int) -> str:
    """A number as a year, in pairs: 1999 nineteen ninety nine, 2005 two thousand five, 340 three forty (a house)."""
    if n % 1000 == 0 or 2000 <= n < 2010 or not 100 <= n <= 9999:
        return cardinal(n)
    high, low = divmod(n, 100)
    return cardinal(high) + (" hundred" if low == 0 else (" oh " if low < 10 else " ") + cardinal(low))


def plural(words: str) -> str:
    head, _, last = words.rpartition(" ")
    return f"{head} {last[:-1] + 'ies' if last.endswith('y') else last + 'e' * last.endswith('x') + 's'}".lstrip()


def number(text: str) -> str:
    """An integer or a decimal as written: leading zeros and long runs digit by digit, unless grouped in thousands
    ('124,444,…'); digits after the point one by one: '12.50' twelve point five zero, '.5' point five."""
    whole, _, frac = text.partition(".")
    plain = whole.replace(",", "")
    point = f" point {digits(frac)}" if frac else ""
    if not plain:
        return point.lstrip()
    if len(plain) > 1 and plain.startswith("0") or len(plain) > (24 if "," in whole else 15):
        return digits(plain) + point
    return cardinal(int(plain)) + point


def plain_number(text: str) -> str:
    """A bare integer or decimal; four-digit integers read as years, like wetext does."""
    return year(int(text)) if re.fullmatch(r"1\d{3}|20\d\d", text) else number(text)


# --- money ------------------------------------------------------------------------------------

# symbol -> (one unit, many units, one subunit, many subunits); None: no subunit is spoken
_CURRENCIES: dict[str, list[str | None]] = _DATA["currencies"]
CURRENCY_CODES = frozenset(code for code in _CURRENCIES if code[0].isalpha())  # 'USD', 'US$'
SCALE_WORDS = _DATA["scale_words"]
SCALE_SUFFIXES = _DATA["scale_suffixes"]
_SCALES_AND_PER = (rf"(?P<scales>(?:[\s-]+(?:{'|'.join(SCALE_WORDS)}))*)(?:/(?P<per>[A-Za-z]+)\.?)?"
                   r"(?P<noun>-[A-Za-z][A-Za-z-]*|pp)?")  # what it describes: 'a $20-per-head fee'; '£35pp' per person
_MONEY = re.compile(r"(?P<sign>[-+])?(?P<cur>[^\d\s]) ?(?P<amount>\d[\d,]*(?:\.\d+)?|\.\d+) ?"
                    r"(?P<suffix>k|K|m|M|mn|b|B|bn|t|T|tn)?" + _SCALES_AND_PER)
_CODE_AMOUNT = re.compile(rf"(?P<amount>\d[\d,]*(?:\.\d+)?)(?P<suffix>{'|'.join(SCALE_SUFFIXES)})?" + _SCALES_AND_PER)
# What a price is per: '$350/yr' three hundred fifty dollars per year.
_PER_PERIOD = _DATA["per_period"]


def money(text: str, currency: str | None = None, adjective: bool = False) -> str | None:
    """'$12.50' -> 'twelve dollars and fifty cents'; '$1.5M' -> 'one point five million dollars'; describing a noun
    (`adjective`) in the singular: 'a $250 deductible' two hundred fifty dollar."""
    if (m := (_MONEY if currency is None else _CODE_AMOUNT).fullmatch(text)) is None:
        return None
    cur, sign = (currency, None) if currency is not None else m.group("cur", "sign")
    per, noun = m["per"], m["noun"] or ""
    if cur not in _CURRENCIES or per and per not in _PER_PERIOD and not unit(per):
        return None
    per = (f" per {_PER_PERIOD.get(per) or unit(per)[0]}" if per else "") + (
        " per person" if noun == "pp" else noun.replace("-", " "))
    one, many, sub_one, sub_many = _CURRENCIES[cur]
    many = one if adjective or "-" in m["scales"] + noun else many
    amount = m["amount"].replace(",", "")
    scales = ([SCALE_SUFFIXES[m["suffix"]]] if m["suffix"] else []) + m["scales"].replace("-", " ").split()
    prefix = "minus " if sign == "-" else ""
    whole, _, frac = amount.partition(".")
    if not frac[2:].strip("0"):  # zeros after the cents are not said: '$2.000', '$20.500'
        frac = frac[:2] if frac.strip("0") else ""
    frac += "0" * (len(frac) == 1 and sub_one is not None)  # '$0.5' fifty cents, '$20.5' twenty dollars and fifty cents
    if scales or frac and (len(frac) != 2 or sub_one is None):  # '$1.5M', '$1,234.123': the amount as a number
        return f"{prefix}{number(amount)} {' '.join([*scales, many])}{per}"
    units, cents = int(whole or "0"), int(frac or "0")
    parts = []
    if units or not cents:  # pounds with a British 'and' after the hundreds: '£1,850' eight hundred and fifty
        said = re.sub(r"hundred (?!thousand|\w+illion)", f"hundred {'and ' * (cur == '£')}", number(whole or "0"))
        parts.append(f"{said} {one if units == 1 else many}")
    if cents:  # pence after pounds a bare number, as the British say a price: '£29.50' twenty nine pounds fifty
        parts.append(cardinal(cents) + f" {sub_one if cents == 1 else sub_many}" * (sub_many != "pence" or not parts))
    return prefix + (" " if len(parts) > 1 and sub_many == "pence" else " and ").join(parts) + per


# --- decades, versions, ids ------------------------------------------------------------------

_DECADE = re.compile(r"'?(\d\d)?(\d0|[1-9]\d?)(?:s|(?<=\d{4}) s)")  # '1980 s' (split by a tokenizer), 'under-16s'


def decade(text: str) -> str | None:
    """'1990s' nineteen nineties, "'90s" nineties (two joined by a dash: `dashed_range`)."""
    if (m := _DECADE.fullmatch(text)) is None or (text.startswith("'") and m[1]):
        return None
    return plural(year(int(m[1] + m[2])) if m[1] else cardinal(int(m[2])))  # also a number's plural: 'rugby 7s' sevens


_VERSION = re.compile(r"(?P<v>[vV])?(?P<parts>\d+(?:\.\d+)+)")


def version(text: str) -> str | None:
    """'v0.2.1' -> 'version zero point two point one'; '3.11.7' -> 'three point eleven point seven'."""
    if (m := _VERSION.fullmatch(text)) is None or (not m["v"] and m["parts"].count(".") < 2):
        return None
    spoken = " point ".join(number(part) for part in m["parts"].split("."))
    return "version " + spoken if m["v"] else spoken


# Read sign by sign in every language, a year in it too: 1-5 capitals before four digits or more, up to three capitals
# after ('H4829', a parcel's 'EJ123456789JP', a bag's 'FRALH48213'; a model 'B737'), 1-3 before hyphened or slashed
# groups ('RC-2026/0457'), or a plate's ('7KXR492'; not '4K', '2XL').
REFERENCE = re.compile(r"(?=(?:\D*\d){3})(?:[A-ZÄÖÜА-ЯЁ]{1,5}\d{4,}[A-Z]{0,3}"
                       r"|[A-ZÄÖÜА-ЯЁ]{1,3}(?:[-/](?:[A-ZÄÖÜА-ЯЁ]{1,3}|\d+))+|\d{1,3}[A-ZÄÖÜА-ЯЁ]{2,4}\d{3,})")
# A postal tracking number written in groups ('RB 4582 7136 9GB'): one code, read as REFERENCE reads it.
SPACED_TRACKING = re.compile(r"[A-Z]{2} \d{4} \d{4} \d[A-Z]{2}(?![^\W_])")
_ID_PIECE = re.compile(r"(?<![^\W\d_])(?:(?:\d\d)?\d0|[1-9]\d?)s(?![^\W\d_])|(?<=[^\W\d_])(?P<model>\d{3})"
                       r"(?!\.?\d)|\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:st|nd|rd|th)(?=-)|\d+(?:\.\d+)?|[^\W\d_]+|\S")


def identifier(text: str) -> str:
    """Model ids and codes: 'Qwen3-TTS-1.7B' -> 'Qwen three TTS one point seven B'; three digits
    after a letter in pairs, as a model number is said: 'A321neo' A three twenty one neo."""
    if REFERENCE.fullmatch(text):
        return " ".join("slash" if c == "/" else digits(c) if c.isdecimal() else c for c in text if c != "-")
    pieces = len(re.findall(r"[A-Z]+|\d+", text))  # 'X7KP4M' spelled, and a postcode's district 'NW1' N W one
    words, code = [], (pieces > 2 or re.fullmatch(r"[A-Z]{2}\d{1,2}", text)) and text.isupper() and text.isalnum()
    for m in _ID_PIECE.finditer(text):
        piece = m[0]
        if piece[0].isdecimal() and piece[-1].isalpha():  # 'mid-80s' mid eighties, 'under-16s'; '18th-century' 
            words.append(decade(piece) if piece.endswith("s") else suffixed_ordinal(piece))
        elif m["model"]:
            words.append(year(int(piece)))
        elif piece[0].isdecimal():
            # '60,000-mile'
            words.append(
                number(piece.replace(",", "")) if "," in piece or len(piece.split(".")[0]) <= 4 else digits(piece)
            )
        elif piece.isalpha():
            words.append(" ".join(piece) if code else piece)
        elif piece == "&":
            words.append("and")
    return " ".join(words)


def phone(text: str) -> str:
    """'+1 (415) 555-0100' -> 'plus one, four one five, five five five, zero one zero zero'; a toll-free 800 as its
    number ('(800) 555-0142' eight hundred, five five five, …)."""
    return ("plus " if text.startswith("+") else "") + ", ".join(
        "eight hundred" if group == "800" else digits(group) for group in re.findall(r"\d+", text)
    )


_LOCAL_PHONE = re.compile(r"(?:1-(?P<area>\d{3})-)?(?P<exchange>[2-9]\d{2})-(?P<line>\d{4})")


def local_phone(text: str) -> str | None:
    """'555-0123' five five five, zero one two three: a number without area code (NXX-XXXX) read as `phone` reads one;
    a rising round pair stays a range ('800-1200'); '1-800-555-0146' one eight hundred, five five five, zero one…"""
    if (m := _LOCAL_PHONE.fullmatch(text)) is None:
        return None
    exchange, line, area = m.group("exchange", "line", "area")
    return (
        f"one {phone(text[2:])}" if area
        else None if exchange.endswith("0") and line.endswith("0") and int(exchange) < int(line)
        else phone(text)
    )


# --- Roman numerals --------------------------------------------------------------------------

_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
# A numeral written the canonical way, 1 to 3999 ('XIV', not 'IIII' or 'VX').
_ROMAN = re.compile(r"(?=.)M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})")
# Words after which a Roman numeral is a number (left context, §2.2).
ROMAN_COUNTERS = frozenset(_DATA["roman_counters"])
# Regnal names: 'Henry VIII' -> 'Henry the eighth'.
REGNAL_NAMES = frozenset(_DATA["regnal_names"])


def is_mark(n: int, d: int) -> bool:
    """Whether n/d is a mark out of a scale's top of tens ('95/100', '8/10': at least half), not '2/100' a fraction."""
    return d % 10 == 0 and 10 <= d <= 100 and d <= 2 * n <= 2 * d


def roman_value(text: str) -> int | None:
    if not _ROMAN.fullmatch(text):
        return None
    values = [_ROMAN_VALUES[c] for c in text]
    return sum(-v if v < after else v for v, after in zip(values, values[1:] + [0]))


def roman(text: str, prev_word: str) -> str | None:
    body = re.sub("['’]s$", "", text)  # a ruler's possessive: 'Henry VIII's palace' the eighth's
    if (value := roman_value(body)) is None or len(body) == 1 and body not in "IVX":  # 'James D.', 'Building C' 
        return None
    if prev_word in REGNAL_NAMES:
        return f"the {ordinal(value)}{text[len(body):]}"
    sequel = prev_word[:1].isupper() and prev_word.isalpha() and len(body) > 1 and set(body) <= set("IVX")  # 'Rocky IV'
    # 'PART XL
    return cardinal(value) if sequel or {prev_word, prev_word.capitalize()} & ROMAN_COUNTERS else None


def capital_range(text: str, numbers: bool, cardinal: Callable[[int], str] = cardinal, to: str = "to") -> str | None:
    """Two capitals joined by a dash: Roman numerals where `numbers` (after a chapter word: 'Chapters IV–VI' four to
    six, 'Kapitel IV–VI' vier bis sechs), else two letters ('zones A–C' A to C; a lone C, D, L or M is one)."""
    if not re.fullmatch("[A-Z]+–[A-Z]+", text):
        return None
    ends = text.split("–")
    values = [roman_value(e) if e not in "CDLM" else None for e in ends] if numbers else [None]
    if None in values:
        return f" {to} ".join(ends) if len(text) == 3 else None
    return f" {to} ".join(map(cardinal, values))


# --- acronyms ----------------------------------------------------------------------------

# Two-letter capitals that are words when a text is written in capitals ("IN THE END").
_TWO_LETTER_WORDS = frozenset(_DATA["two_letter_words"])
# Acronyms said as words, which no dictionary lists.
SAID_AS_WORDS = frozenset(_DATA["said_as_words"])


def acronym(word: str) -> str | None:
    """An all-capitals token that is not a word is spelled ('FBI' F B I, 'CDs' C D's, 'AT&T' A T and T); words in
    capitals ('EXCEL'), acronyms said as words ('NASA') and Roman numerals of I, V and X are not."""
    if "&" in word and all(re.fullmatch("[A-Z]+", p) for p in word.split("&")):
        return " and ".join(" ".join(p) for p in word.split("&"))
    letters = word[:-1] if word.endswith("s") else word
    if not re.fullmatch("[A-Z]{2,10}", letters):
        return None
    if letters != word:  # a plural: 'CDs' C D's
        return " ".join(letters) + "'s"
    if word in SAID_AS_WORDS or (word.strip("IVX") == "" and roman_value(word) is not None):
        return None
    if len(word) == 2:
        return None if word in _TWO_LETTER_WORDS else " ".join(word)
    lower = word.lower()
    words = known_words()
    return (
        None
        if lower in words or (lower.endswith("s") and len(lower) > 4 and lower[:-1] in words)
        else " ".join(word)
    )


# --- abbreviations ---------------------------------------------------------------------------

# word (without its final period) -> reading; the period is part of the span.
ABBREVIATIONS = _DATA["abbreviations"]
# Readable without the period as well.
ABBREVIATIONS_WITHOUT_PERIOD = frozenset(_DATA["abbreviations_without_period"])
# These end a sentence when the next word is capitalized or the line ends.
SENTENCE_FINAL_ABBREVIATIONS = frozenset(_DATA["sentence_final_abbreviations"])


def abbreviation(word: str, prev_word: str, next_char: str, period: bool = True) -> str:
    """`next_char`: the first character after the period and spaces ("" at the end); after 'No' the next token;
    `period`: whether the word was written with its period, which then may end the sentence too."""
    prev_is_name = bool(prev_word) and (prev_word[0].isupper() or prev_word[0].isdecimal())
    next_is_name = next_char.isupper()
    if word in ("No", "no"):
        return "number" if re.search(r"\d", next_char) else word + "."
    reading = {"St": "Street" if prev_is_name or not next_is_name else "Saint",
               "Dr": "Drive" if prev_is_name and not next_is_name else "Doctor"}.get(word) or ABBREVIATIONS[word]
    # At the end of the text the period also ends the sentence ('221 Baker St.'); before a name
    # it does after 'etc.' and the like.
    return reading + "." * period * (next_char in ("", "\n") or word in SENTENCE_FINAL_ABBREVIATIONS and next_is_name)


_FULL_MONTHS = {name[:3]: name for name in cldr.month_names("en")}  # 'Jan' January
MONTH_ABBREVIATIONS = frozenset(_FULL_MONTHS) - {"May"} | {"Sept"}
MONTHS = MONTH_ABBREVIATIONS | frozenset(_FULL_MONTHS.values())

_UNITS: dict[str, list[str]] = _DATA["units"]
_UNIT_NAMES = frozenset(one for one, _ in _UNITS.values())  # 'inch': a unit's name joined to a fraction ('3/4-inch')


@lru_cache(maxsize=4096)
def unit(symbol: str) -> tuple[str, str] | None:
    """A unit symbol's names for one (also after 'per') and for more: english.json's, else CLDR's where it cannot be a
    word ('dL'), else one per another ('ng/mL')."""
    first, slash, per = symbol.partition("/")
    names = _UNITS.get(symbol) or (
        len(symbol) > 1
        and symbol in cldr.unit_symbols("en")
        and not (symbol.isalpha() and symbol.islower())
        and cldr.unit_names("en", symbol)
    )
    if names or not slash or not (b := unit(per)):  # one per another, or per one alone ('12/kg' twelve per kilogram)
        return tuple(names) if names else None
    return (f"per {b[0]}",) * 2 if not first else (a := unit(first)) and (f"{a[0]} per {b[0]}", f"{a[1]} per {b[0]}")


# words that name a code a few words before its digits, and those that make it no code
CODE_WORDS = tuple(map(tuple, _DATA["code_words"]))
# the words right before a card's last digits ('card ending in 8876')
DIGIT_CUES = tuple(f" {cue}" for cue in _DATA["digit_cues"])
# DETERMINERS: an amount after one is read as a word describing the next ('the 2TB SSD' two terabyte)
AM_PM, DETERMINERS = frozenset(_DATA["am_pm"]), frozenset(_DATA["determiners"])
# after 'p.m.' a capital that goes on with the sentence; after a time, the names said in words
TIME_ZONES = _DATA["time_zones"]
# Symbols said in running text ('§ 4' section four).
SYMBOLS = _DATA["symbols"]


# --- fast paths for the commonest classes (same readings as wetext, without an FST call) ------

_MONTH_NAMES = tuple(_FULL_MONTHS.values())
_MONTH_NUMBERS = cldr.month_abbreviations("en")  # 'sep' 9
_SIGN_WORDS = _DATA["sign_words"]
_PERCENT = re.compile(r"(?P<sign>[-+]?)(?P<num>\d[\d,]*(?:\.\d+)?)\s*%")
_ISO_DATE = re.compile(r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})")
_MONTH_WORD = f"(?P<month>{'|'.join(_FULL_MONTHS.values())}|(?:{'|'.join(sorted(MONTH_ABBREVIATIONS))})\\.?)"
# Month names in any case ('june 20 2014', 'JAN. 15'): a name is a month only before a day or year.
_SUFFIXED_DAY = r"(?P<d>\d{1,2})(?:st|nd|rd|th)?"  # '3', '21st'
_DAY_MONTH = re.compile(_SUFFIXED_DAY + r"\s+(?:of\s+)?" + _MONTH_WORD + r"(?:\s+(?P<year>\d{4}))?", re.IGNORECASE)
_MONTH_DAY = re.compile(_MONTH_WORD + rf"\s+(?:{_SUFFIXED_DAY}(?:(?P<comma>\s*,)?\s+(?P<year>\d{{4}}))?"
                        r"|(?P<year_only>\d{4}))", re.IGNORECASE)


def month_name(word: str) -> str | None:
    """The month a word names in any case ('june', 'JAN', 'Sept'), as MONTHS writes it; lower-case 'may' is the verb."""
    key = word[:1].upper() + word[1:].lower()
    return key if key in MONTHS and word != "may" else None


def is_day(token: str) -> bool:
    """A day of the month, with its ordinal's suffix or not: '3', '21st'."""
    return (m := re.fullmatch(_SUFFIXED_DAY, token)) is not None and 1 <= int(m["d"]) <= 31


_CLOCK = re.compile(
    r"(?P<h>\d{1,2})(?::|\.(?=\d\d\s?[aApP]\.?[mM]))(?P<m>\d{2})(?:\s?(?P<ap>[aApP])\.?[mM]\.?)?"  # '1.59 p.m.'
    r"|(?P<h2>\d{1,2})\s?(?P<ap2>[aApP])\.?[mM]\.?")
_MEASURE = re.compile(r"(?P<sign>[-−]?)(?P<num>\d+/\d+(?=-)|\d[\d,]*(?:\.\d+)?)(?:\s|(?P<adjective>-))?"
                      r"(?P<unit>[^\s/]+/\d+ \S+|\S+)")
_RANGE = re.compile(r"(?P<a>(?!0\d)\d{1,4}(?:\.\d+)?)\s*[-–]\s*(?P<b>(?!0\d)\d{1,4}(?:\.\d+)?)(?: ?(?P<unit>\S+))?")


def number_range(text: str) -> str | None:
    """'3-5' -> 'three to five', '2.5–4.0 mg' two point five to four point zero milligrams (a date has more groups)."""
    # '1980-1970 kg': wetext's
    name = (m := _RANGE.fullmatch(text)) and ("." in text and unit(m["unit"]) if m["unit"] else ("", ""))
    return name and f"{plain_number(m['a'])} to {plain_number(m['b'])} {name[1]}".rstrip()


def percent(text: str) -> str | None:
    return (m := _PERCENT.fullmatch(text)) and f"{_SIGN_WORDS[m['sign']]}{number(m['num'].replace(',', ''))} percent"


def _date(day: int, month: int, year_text: str | None, the: str = "the ") -> str | None:
    """Day before month: 'the fourth of march twenty twenty six' (the data's and wetext's style)."""
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    spoken = f"{the}{ordinal(day)} of {_MONTH_NAMES[month - 1]}"
    return spoken if year_text is None else f"{spoken} {year(int(year_text))}"


_SLASH_DATE = re.compile(r"(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{2}|\d{4})")  # month first, as in the US
_DOTTED_DATE = re.compile(r"(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})")


def _short_year(text: str) -> str:
    """A year as written: '98' ninety eight, '05' oh five, '2012' twenty twelve."""
    return "oh " + cardinal(int(text[1])) if len(text) == 2 and text[0] == "0" else year(int(text))


def numeric_date(text: str, paused: bool = False) -> str | None:
    """In the order written: '01/07/98' january seventh ninety eight (month first as in the US; `paused` where it ends a
    clause, as the comma of 'January 7, 1998'), '25/12/2020' the twenty fifth of december … (no month 25), '15.01.2020'
    the fifteenth of january … (day first where dots are), '2026-03-04' the fourth of march twenty twenty six (ISO)."""
    if (m := _SLASH_DATE.fullmatch(text) or _DOTTED_DATE.fullmatch(text) or _ISO_DATE.fullmatch(text)) is None:
        return None
    day, month = int(m["d"]), int(m["m"])
    if m.re is _SLASH_DATE and 1 <= month <= 12 and 1 <= day <= 31:
        return f"{_MONTH_NAMES[month - 1]} {ordinal(day)}{',' * paused} {_short_year(m['y'])}"
    spoken = _date(month, day, None) if m.re is _SLASH_DATE else _date(day, month, None)  # no month 25: day first
    return spoken and f"{spoken} {_short_year(m['y'])}"


_QUARTER = re.compile(r"(?P<q>[1-4])Q(?P<y>\d{2}|\d{4})")


def quarter(text: str) -> str | None:
    """'2Q22' the second quarter of twenty two."""
    return (m := _QUARTER.fullmatch(text)) and f"the {ordinal(int(m['q']))} quarter of {_short_year(m['y'])}"


def written_date(text: str, prev_word: str = "") -> str | None:
    """A date with its month in words, in the order written: '25 April 2011' the twenty fifth of april twenty eleven
    (no second 'the' after 'the'), 'June 12, 2010' june twelfth, twenty ten, 'April 2008' april two thousand eight."""
    m = _DAY_MONTH.fullmatch(text) or _MONTH_DAY.fullmatch(text)
    if m is None or m["d"] and not 1 <= int(m["d"]) <= 31:
        return None
    month = _MONTH_NUMBERS[m["month"].lower()[:3]]
    if m.re is _DAY_MONTH:
        return _date(int(m["d"]), month, m["year"], "" if prev_word.lower() == "the" else "the ")
    said_year = m["year"] and f"{',' * bool(m['comma'])} {year(int(m['year']))}"
    after = year(int(m["year_only"])) if m["d"] is None else ordinal(int(m["d"])) + (said_year or "")
    return f"{_MONTH_NAMES[month - 1]} {after}"


def dashed_date(text: str) -> str | None:
    """'Jan-15-2020' January fifteenth twenty twenty, the month as written (a stream said 'Jan' before the dash)."""
    reading = text[:1].isalpha() and "-" in text and written_date(text.replace("-", " "))
    return reading and text[:3] + reading[3:] or None


def clock(text: str) -> str | None:
    """'10:30 am' -> 'ten thirty AM', '10:00' -> "ten o'clock", '3pm' -> 'three PM'; a time on the
    24-hour clock as written: '17:45' -> 'seventeen forty five', '14:00' -> 'fourteen hundred'."""
    if (m := _CLOCK.fullmatch(text)) is None:
        return None
    hour = int(m["h"] or m["h2"])
    minutes = int(m["m"] or 0)
    period = (m["ap"] or m["ap2"] or "").upper()
    if hour > 24 or (period and hour > 12) or minutes > 59:
        return None
    if not period and m["h"] == "00":
        period, hour = "A", 12  # '00:30' twelve thirty AM
    said_minutes = minutes and ("oh " * (minutes < 10) + cardinal(minutes))
    whole = not minutes and ("hundred" if hour > 12 else "o'clock")
    return " ".join(w for w in (cardinal(hour), said_minutes, period and period + "M" or whole) if w)


_WITH_SECONDS, _TIME_UNITS = re.compile(r"(\d{1,2}):(\d{2}):(\d{2})(Z?)"), _DATA["time_units"]


def clock_seconds(text: str, prev_word: str = "") -> str | None:
    """'21:51:31' twenty one hours fifty one minutes and thirty one seconds; '18:00:00Z' ... Z; after 'in', minutes and
    seconds are a time taken, no clock ('in 16:28', 'in 70:12' sixteen minutes twenty eight seconds)."""
    if not (m := _WITH_SECONDS.fullmatch(text) or prev_word == "in" and re.fullmatch(r"()(\d{1,3}):([0-5]\d)()", text)):
        return None
    *counts, s = (f"{cardinal(int(v))} {unit}{'s' * (int(v) != 1)}" for v, unit in zip(m.groups(), _TIME_UNITS) if v)
    return " ".join(counts) + (" and " if m[1] else " ") + s + (" Z" if m[4] else "")


def dashed_range(text: str) -> str | None:
    """Two times, amounts or decades joined by a dash: '2pm-5pm' two PM to five PM, '$150.25-$250.67', '9:00 am -
    5:30 pm', '1960s-1980s' nineteen sixties to nineteen eighties."""
    first, _, last = (part.strip() for part in text.partition("-"))  # no dash: no rule reads the empty last part
    for rule in (clock, money, decade):
        # '2–7:45 pm', '7:30–9': a bare hour at one end of a time's range
        a, b = (rule(part) or rule is clock and re.fullmatch(r"1[0-2]|[1-9]", part) and cardinal(int(part))
                for part in (first, last))
        # '$15-20' fifteen to twenty dollars
        if rule is money and a and not b and "." not in first and (b := money(first[0] + last)):
            a = number(first[1:].replace(",", ""))
        if a and b:  # a pair of times says its whole hours bare: '6:00-7:00' six to seven
            return f"{a} to {b}".replace(" o'clock", "")
    return None


_DOTTED_PHONE = re.compile(r"\d{3}\.\d{3}\.\d{4}")
_IP_ADDRESS = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")


def dotted_phone(text: str) -> str | None:
    """'555.555.5555' five five five, five five five, five five five five; an IP address digit by digit ('192.168.0.40'
    one nine two dot one six eight dot …; a version has no three-digit part: '1.2.3.4' one point two point …)."""
    if _DOTTED_PHONE.fullmatch(text):
        return phone(text)
    ip = _IP_ADDRESS.fullmatch(text) and any(len(part) == 3 for part in text.split("."))
    return " dot ".join(digits(part) for part in text.split(".")) if ip else None


def measure(text: str, adjective: bool = False) -> str | None:
    """'5 kg' five kilograms, '60km/h' sixty kilometers per hour, '-5 °C' minus five degrees Celsius; joined by a hyphen
    or before a noun (`adjective`) in the singular: 'a 5-km run' five kilometer run, 'the 150 kW charger' … kilowatt."""
    if (pace := PACE.fullmatch(text)) and (per := unit(pace[3])):
        said = (measure(f"{int(n)} {u}", adjective) for n, u in zip(pace.groups(), ("min", "s")) if int(n))
        return f"{' '.join(said)} per {per[0]}"  # a running pace, no clock: four minutes eleven seconds per kilometer
    if (m := _MEASURE.fullmatch(text)) is None:
        return None
    symbol = m["unit"]
    amount = m["num"].replace(",", "")
    adjective = adjective or m["adjective"]
    dose = _PER_AMOUNT.fullmatch(symbol)
    one, many = (
        unit(symbol)
        or unit(symbol.removesuffix("."))
        or (m["adjective"] and symbol in _UNIT_NAMES and (symbol, symbol))
        or (
            dose
            and unit(dose["unit"])
            and unit(dose["per"])
            and [f"{unit(dose['unit'])[i]} per {measure(dose['amount'] + ' ' + dose['per'])}" for i in (0, 1)]
        )
        or (None, None)
    )
    if one is None or "/" in amount and (amount := FRACTIONS.get(amount)) is None:  # '8 oz.', '2 in.' with its period
        return None
    # a fraction by its character's name ('3/4-inch' three quarter inch)
    spoken = (
        vulgar_fraction(amount)[0].replace("quarters", "quarter")
        if amount in FRACTIONS.values()
        else number(amount)
    )
    return f"{'minus ' * bool(m['sign'])}{spoken} {one if amount == '1' or adjective else many}"


_PER_AMOUNT = re.compile(r"(?P<unit>[^\s/]+)/(?P<amount>\d+) (?P<per>\S+)")  # a dose per an amount: 'mg/5 mL'
FRACTIONS = {"/".join(map(str, cldr.vulgar_fraction(c))): c for c in cldr.VULGAR_FRACTIONS}  # '3/4': '¾'


# --- spans decided with the words around them ---------------------------------------------------

_MEASURE_NOUNS = _DATA["measure_nouns"]  # nouns of measure a fraction counts: '¾ cup' three quarters of a cup


def vulgar_fraction(c: str, noun: str = "", after_number: bool = False) -> tuple[str, bool]:
    """'¾' (or '3/4') three quarters; before a measure `noun` (the word after, or "") as said, and whether it took
    it: '¾ cup' three quarters of a cup, '¼ cup' a quarter cup, '½ cup' half a cup; after a number its rest, a
    unit by name."""
    words = unicodedata.name(FRACTIONS.get(c, c))[len("VULGAR FRACTION "):].lower()
    one = ("an " if words[4] in "aeiou" else "a ") + words[4:] if words[:4] == "one " else words  # a quarter, an eighth
    if after_number:
        return "and " + one + (" " + (_UNITS.get(noun) or ("", noun))[1] if noun else ""), bool(noun)  # 'teaspoons'
    if (unit := _MEASURE_NOUNS.get(noun.lower().rstrip("."))) is None:
        return words, words.endswith(" " + noun)  # '¾ quarters': the fraction's words say the noun
    article = "an" if unit[0] in "aeiou" or unit == "hour" else "a"
    return (f"half {article} {unit}" if words == "one half" else f"{one} {unit}" if one != words
            else f"{words} of {article} {unit}"), True


WEEKDAYS = _DATA["weekdays"]  # abbreviation -> name: 'Tu' Tuesday
NAMED_DAYS = (WEEKDAYS | {day: day for day in WEEKDAYS.values()},
               _FULL_MONTHS | {"Sept": "September"} | {month: month for month in _FULL_MONTHS.values()})


def day_range(first: str, last: str) -> str | None:
    """Two weekdays or months joined by a dash, in full: 'Mon-Fri' Monday to Friday, 'June–August' June to August."""
    for names in NAMED_DAYS:
        if (a := names.get(first)) and (b := names.get(last)):
            return f"{a} to {b}"
    return None


_ERA_YEAR = re.compile(r"(?P<year>\d{1,4}) ?(?P<era>A\.?D|B\.?C|B\.?C\.?E|C\.?E)\.?")


def consecutive_years(text: str, joints: str = "/") -> tuple[int, str] | None:
    """'2025/26', '2025/2026' (joined by one of `joints`): two years in a row, a fiscal year's or a season's; the first
    year and the second as written. Every language asks here."""
    m = re.fullmatch(f"((?:19|20)\\d\\d)[{joints}](\\d\\d|\\d{{4}})", text)
    return (int(m[1]), m[2]) if m and str(int(m[1]) + 1).endswith(m[2]) else None


def season(text: str) -> str | None:
    """'2025/26' twenty twenty five twenty six: a fiscal year or a season."""
    return f"{year(years[0])} {year(int(years[1]))}" if (years := consecutive_years(text)) else None


def era_year(text: str) -> str | None:
    """'340 A.D' three forty A D, '44 BC' forty four B C: a number before an era is a year."""
    return (m := _ERA_YEAR.fullmatch(text)) and f"{year(int(m['year']))} {' '.join(m['era'].replace('.', ''))}"


# A street address: '708 N 1st St' seven zero eight North first Street ('St', 'st': Street).
STREET_TYPES, DIRECTIONS = _DATA["street_types"], _DATA["directions"]


def house_number(text: str) -> str:
    """A house number in pairs, as a street's is read: '2788' twenty seven eighty eight, '123' one twenty three, '100'
    one hundred; with a zero in the middle or five digits digit by digit ('708' seven zero eight); '14B' fourteen B."""
    if text[-1].isalpha():
        return f"{house_number(text[:-1])} {text[-1]}"
    return (
        digits(text)
        if text[0] == "0" or len(text) > 4 or len(text) == 3 and text[1] == "0" != text[2]
        else year(int(text))
    )


def street_word(token: str, first: bool) -> str | None:
    """A street name's word as read: a direction first ('N' North), an ordinal ('1st' first), a capitalized name."""
    if first and token in DIRECTIONS:
        return DIRECTIONS[token]
    return (
        suffixed_ordinal(token) if re.fullmatch(r"\d+(?:st|nd|rd|th)", token)
        else token if token.isalpha() and token[0].isupper()
        else None
    )


# Words after which a number is a code read digit by digit: a ZIP code after a state ('CA
# 90210') or an example's words ('e.g., 10001'), any code after 'ZIP', 'code'.
# and '401(k)'
US_STATES, PLAN_NAMES, _FRACTION_VERBS = _DATA["us_states"], _DATA["plan_names"], frozenset(_DATA["fraction_verbs"])
_CODE_WORDS = frozenset(_DATA["digit_code_words"])
_ZIP, EXAMPLE_WORDS = re.compile(r"\d{5}(?:-\d{4})?"), _DATA["example_words"]


def names_flight(code: str, words_before: tuple[str, ...], number: str) -> bool:
    """Whether `number` is a flight's after `code`, an airline's signs ('UA 2381'; any two after 'vuelo', 'Flug')."""
    airline = code in _FLIGHTS["airlines"] or " ".join(words_before[-1:]).lower() in _FLIGHTS["words"]
    return bool(airline and re.fullmatch(r"[A-Z][A-Z\d]|\d[A-Z]", code) and re.fullmatch(r"\d{1,4}", number))


def code(text: str, prev_word: str, words_before: tuple[str, ...] = ()) -> str | None:
    """'CA 90210', 'ZIP 94103-1234', 'code 4821', 'text STOP to 72345': digit by digit; a flight's number in pairs
    ('Flight UA 237' two thirty seven), as a course's after its capitals or an error's ('CHEM 201' two oh one, 'error
    404' four oh four), a sort code's ('sort code 20-45-07' twenty forty five oh seven); after a weekday, 'on', 'by',
    'until' a month and day ('Sat., 6/12')."""
    course = re.fullmatch(r"[A-Z]{2,4}|[Ee]rror", prev_word) and prev_word not in CURRENCY_CODES and len(text) == 3
    place = (course or prev_word.lower() in _DATA["numbered_places"]) and re.fullmatch(r"([1-9]\d{2,3})([A-Z]?)", text)
    if place:  # 'Room 104' one oh four, 'Room 214B' two fourteen B
        return f"{year(int(place[1]))} {place[2]}".rstrip()
    if names_flight(prev_word, words_before, text):
        return house_number(text)
    # 'drops by 1/2' one half
    on_date = prev_word in ("on", "by", "until") and " ".join(words_before[-1:]).lower() not in _FRACTION_VERBS
    # 'the 11/28 draw': no fraction is in 13ths to 31sts but an inch's 16ths
    day = re.fullmatch(r"(\d\d?)/(\d\d?)", text)
    on_date |= prev_word.lower() in ("the", "this", "that") and bool(day) and 12 < int(day[2]) != 16
    # '22/05'
    if day and (prev_word.rstrip(" .,") in NAMED_DAYS[0] or on_date or day[2][0] == "0" and int(day[1]) > 12):
        first, second = int(day[1]), int(day[2])  # no month 22: the day first ('Sat 22/05' the twenty second of May)
        return (
            f"{_MONTH_NAMES[first - 1]} {ordinal(second)}"
            if 1 <= first <= 12 and second <= 31
            else _date(first, second, None)
        )
    pressure = re.fullmatch(r"\d{2,3}/\d{2,3}", text) and any(  # a pressure: 'BP 128/82' one twenty eight over …
        w.lower().startswith(_PRESSURE_CUES) for w in (*words_before[-3:], prev_word))
    if pressure:
        return " over ".join(year(int(part)) for part in text.split("/"))
    if prev_word == "code" and words_before[-1:] in (("sort",), ("Sort",)) and re.fullmatch(r"\d\d-\d\d-\d\d", text):
        return " ".join(map(_short_year, text.split("-")))  # in pairs as a year's are ('07' oh seven)
    zip_code = (prev_word in US_STATES or prev_word in EXAMPLE_WORDS) and _ZIP.fullmatch(text)
    text_to = prev_word == "to" and words_before[-2:-1] in (("text",), ("Text",)) and re.fullmatch(r"\d{4,6}", text)
    codes = zip_code or text_to or prev_word in _CODE_WORDS and re.fullmatch(r"\d{3,}(?:-\d{4})?", text)
    return ", ".join(digits(part) for part in text.split("-")) if codes else None
