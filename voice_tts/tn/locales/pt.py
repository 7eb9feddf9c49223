"""Portuguese (Brazilian scale and words): numbers, ordinals, decimals, fractions, money, dates,
times, measures, phone numbers, addresses and abbreviations, read as the Portuguese
NeMo-text-processing data reads them ("R$ 12,05" → "doze reais e cinco centavos", "14h30" →
"catorze horas e trinta").

Number words below a thousand come from CLDR; the groups are joined here, as spoken Portuguese
joins them: "e" only before the last group when that group is below a hundred or a round hundred
(CLDR puts one after every group).
"""

from __future__ import annotations

import re
from functools import lru_cache

from voice_tts.tn import cldr
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor
from voice_tts.tn.locales import abbreviations, numeric_spans, words
from voice_tts.tn.locales.noun_gender import is_feminine
from voice_tts.tn.locales.numeric_spans import (
    DATE,
    GROUPED,
    IP,
    MEASURE,
    NUM,
    PHONE,
    RANGE,
    TIME,
    SpanWords,
    date_parts,
    read_abbreviation,
    read_address,
    read_phone,
    read_pieces,
    roman_value,
    local_amount,
    split_amount,
    split_currency,
    to_int,
    word_after,
)

_WORDS = words("pt")

DIGITS = ("zero", "um", "dois", "três", "quatro", "cinco", "seis", "sete", "oito", "nove")
_SCALES = ((10**18, "quintilhão", "quintilhões"), (10**15, "quatrilhão", "quatrilhões"),
           (10**12, "trilhão", "trilhões"), (10**9, "bilhão", "bilhões"), (10**6, "milhão", "milhões"))


def _group(n: int, feminine: bool) -> str:
    return cldr.cardinal("pt", n, "feminine" if feminine else "masculine")


@lru_cache(maxsize=4096)
def cardinal(n: int, feminine: bool = False) -> str:
    """CLDR's words for each group of three; "e" only before the last group when it is below a
    hundred or a round hundred ('dois mil e cem', 'mil novecentos e dez'), where CLDR puts one
    after every group."""
    if n < 0:
        return "menos " + cardinal(-n, feminine)
    if n >= 10**21:
        return digits(str(n))
    groups = []
    for value, one, many in _SCALES:
        count, n = divmod(n, value)
        if count:
            groups.append((count, f"{cardinal(count)} {one if count == 1 else many}"))
    thousands, n = divmod(n, 1000)
    if thousands:
        groups.append((thousands, "mil" if thousands == 1 else f"{_group(thousands, feminine)} mil"))
    if n or not groups:
        groups.append((n, _group(n, feminine)))
    words = [text for _, text in groups]
    last = groups[-1][0]
    if len(groups) > 1 and (last < 100 or last % 100 == 0):
        words[-1] = "e " + words[-1]
    return " ".join(words)


def digits(text: str) -> str:
    return " ".join(DIGITS[int(c)] for c in text if c.isdecimal())


def ordinal(n: int, feminine: bool = False) -> str:
    if n <= 0 or n >= 10**6:
        return cardinal(n)
    return cldr.ordinal("pt", n, "feminine" if feminine else "masculine")


_DENOMINATORS = {2: "meio", 3: "terço", 4: "quarto", 5: "quinto", 6: "sexto", 7: "sétimo", 8: "oitavo",
                 9: "nono", 10: "décimo", 100: "centésimo", 1000: "milésimo"}


def fraction(numerator: int, denominator: int) -> str:
    plural = "s" if numerator != 1 else ""
    if denominator in _DENOMINATORS:
        return f"{cardinal(numerator)} {_DENOMINATORS[denominator]}{plural}"
    return f"{cardinal(numerator)} {cardinal(denominator)} avos"  # 'um onze avos': avos stays plural


def decimal(integer: str, fraction_digits: str) -> str:
    whole = cardinal(int(integer))
    return f"{whole} vírgula {digits(fraction_digits)}" if fraction_digits else whole


# --- the words around numbers -----------------------------------------------------------------

# Units CLDR names otherwise or not at all, as (singular, plural); the others come from CLDR
# (`_unit`).
_UNITS = {k: tuple(v) for k, v in _WORDS["units"].items()}
# CLDR's symbols of a letter or two that join the number before them ('5 g', '2 ml').
_SHORT_UNITS = frozenset(("g", "m", "l", "ml", "h", "s"))
_PER = dict(_WORDS["per"])
_DEGREES = {k: tuple(v) for k, v in _WORDS["degrees"].items()}
# currency → (singular, plural, minor singular, minor plural)
_CURRENCIES = {k: tuple(v) for k, v in _WORDS["currencies"].items()}
_FEMININE_CURRENCIES = frozenset(_WORDS["feminine_currencies"])
# Every other ISO 4217 code and symbol, named by CLDR ("3 kr" → "tres coronas suecas").
for _written, _code in cldr.currency_symbols("pt").items():
    if _written not in _CURRENCIES:
        one, many = cldr.currency_name("pt", _code, 1), cldr.currency_name("pt", _code, 2)
        _CURRENCIES[_written] = (one, many, "centavo", "centavos")
_CURRENCY_SYMBOLS = tuple(sorted((c for c in _CURRENCIES if not c.isalpha()), key=len, reverse=True))
_SCALE_WORDS = frozenset(("mil", "milhão", "milhões", "bilhão", "bilhões", "trilhão", "trilhões"))
_MONTHS = cldr.month_names("pt")
_MONTH_INDEX = {m: i for i, m in enumerate(_MONTHS, 1)} | {m[:3]: i for i, m in enumerate(_MONTHS, 1)} | {
    "marco": 3}
_ABBREVIATIONS = abbreviations("pt")
_DAY_PARTS = dict(_WORDS["day_parts"])

WORDS = SpanWords(
    minus="menos",
    phone_regions=("BR", "PT"),
    after=frozenset(_UNITS) | _SHORT_UNITS | cldr.folded_unit_symbols("pt") | frozenset(c for c in _CURRENCIES if c.isalpha() or c.endswith("$")) | _SCALE_WORDS
    | {"horas", "hora"},
    connectors=frozenset(("de", "da", "do")),
    day_parts=frozenset(_DAY_PARTS),
    months=frozenset(_MONTH_INDEX),
    before=frozenset(c for c in _CURRENCIES if c.isalpha() or c.endswith("$")),
    abbreviations=dict(sorted(_ABBREVIATIONS.items(), key=lambda kv: -len(kv[0]))),
    roman_after=frozenset(("século", "séculos", "capítulo", "volume", "tomo", "parte", "livro")),
    not_roman=frozenset(("mil", "di", "vi", "li", "ci", "cd", "dc", "cc", "cm", "mm", "ml", "xl", "mix", "civil",
                         "id", "vim", "dim")),
    extensions=frozenset(("ext", "ramal", "extensão")),
)
SYMBOLS = dict(_WORDS["symbols"])
ADDRESS_SYMBOLS = dict(_WORDS["address_symbols"])


def find_span(cur: Cursor, pos: int, ctx: Context) -> Span | None:
    span = numeric_spans.find_span(cur, pos, ctx, WORDS, read)
    if span is not None and _COUNT.fullmatch(raw := cur.text[pos:span.end]):
        noun = word_after(cur, span.end)  # a count agrees with its noun: 'duas pessoas', 'duzentas casas'
        if len(noun) > 2 and noun.isalpha() and is_feminine("pt", noun):
            span.info = cardinal(to_int(raw), feminine=True)
    return span


# A count: digits, their thousands grouped or not ('1.252').
_DAY_MONTH_SLASH = re.compile(r"(\d{2})/(\d{2})")
_PERCENT_RANGE = re.compile(r"(\d+)[-–](\d+) ?%")
# A count of hours (the time words join the number's span).
_HOURS = re.compile(rf"({NUM}) (horas?)")
_COUNT = re.compile(r"\d{1,3}(?:\.\d{3})+|\d+")
# --- reading a span ---------------------------------------------------------------------------

_ORDINAL = re.compile(r"(?P<num>\d+(?:\.\d{3})*)\.?(?:(?P<m>º|°|o|ᵒ)|(?P<f>ª|a|ᵃ))")
_DAY_MONTH = re.compile(r"(?P<d>\d{1,2}) (?:de )?(?P<month>[a-zç]+)\.?(?: (?:de )?(?P<y>\d{1,4}))?")


def read(raw: str, kind: str) -> str:
    """A span of `kind` (numeric_spans.find_span) read aloud."""
    return _READERS.get(kind, number)(raw)


def number(raw: str) -> str:
    text = " ".join(raw.split()).lower()
    return (_ABBREVIATIONS.get(text) or _money(text) or _special(text) or _measure(text) or _fallback(text)).strip()


def _date(day: int, month: int, year: int | None) -> str:
    reading = f"{'primeiro' if day == 1 else cardinal(day)} de {_MONTHS[month - 1]}"
    return reading + (f" de {cardinal(year)}" if year is not None else "")


def _special(text: str) -> str | None:
    head, _, rest = text.partition(" ")
    m = _DAY_MONTH_SLASH.fullmatch(text)
    if m and 1 <= int(m.group(1)) <= 31 and 1 <= int(m.group(2)) <= 12:  # '05/06'; '5/6' is a fraction
        return _date(int(m.group(1)), int(m.group(2)), None)
    m = _PERCENT_RANGE.fullmatch(text)
    if m:  # '2-3 %'
        return f"{cardinal(int(m.group(1)))} a {cardinal(int(m.group(2)))} por cento"
    m = _HOURS.fullmatch(text)
    if m:  # 'uma hora', 'duas horas'
        integer, fraction_digits = split_amount(m.group(1))
        amount = decimal(integer, fraction_digits) if fraction_digits else cardinal(int(integer), feminine=True)
        return f"{amount} {m.group(2)}"
    m = _ORDINAL.fullmatch(text)
    if m:
        return ordinal(to_int(m.group("num")), feminine=bool(m.group("f")))
    m = DATE.fullmatch(text)
    if m:
        parts = date_parts(m)
        if parts:
            return _date(*parts)
    if IP.fullmatch(text) and not GROUPED.fullmatch(text):
        return " ponto ".join(digits(p) for p in text.split("."))
    m = TIME.fullmatch(head)
    if m and (rest or m.group("s") == ":" or m.group("hm") is not None or head.endswith("h")):
        reading = _time(m, head, rest)
        if reading:
            return reading
    m = re.fullmatch(r"(\d{1,2})h", text)
    if m and int(m.group(1)) <= 24:
        return _hours(int(m.group(1)))
    if PHONE.fullmatch(text):
        return _phone(text)
    m = _DAY_MONTH.fullmatch(text)
    if m and m.group("month") in _MONTH_INDEX:
        year = int(m.group("y")) if m.group("y") else None
        return _date(int(m.group("d")), _MONTH_INDEX[m.group("month")], year)
    m = RANGE.fullmatch(text)
    if m:
        return f"{cardinal(int(m.group('a')))} a {cardinal(int(m.group('b')))}"
    m = re.fullmatch(r"(?P<sign>-?)(?:(?P<whole>\d+) )?(?P<n>\d+)/(?P<d>\d+)", text)
    if m:
        reading = fraction(int(m.group("n")), int(m.group("d")))
        if m.group("whole"):  # 'dois e meio'
            half = (m.group("n"), m.group("d")) == ("1", "2")
            reading = f"{cardinal(int(m.group('whole')))} e {'meio' if half else reading}"
        return ("menos " if m.group("sign") else "") + reading
    return None


def _month_first_date(raw: str) -> str:
    words = raw.lower().replace(".", " ").split()
    year = int(words[2]) if len(words) > 2 else None
    return _date(int(words[1]), _MONTH_INDEX[words[0]], year)


def _hours(h: int) -> str:
    return f"{cardinal(h, feminine=True)} {'hora' if h == 1 else 'horas'}"


def _time(m: re.Match, head: str, rest: str) -> str | None:
    h = int(m.group("h"))
    minutes = int(m.group("m") or m.group("hm") or 0)
    seconds = m.group("sec")
    if h > 24 or minutes > 59:
        return None
    words = rest.split()
    day_part = ""
    if words[:1] in (["da"], ["de"]) and len(words) == 2 and words[1] in _DAY_PARTS:
        day_part = _DAY_PARTS[words[1]]
        if ":" in head and h > 12 and minutes == 0:  # '16:00 da tarde': the hour on the clock face
            h -= 12
    elif words and words != ["h"]:
        return None
    parts = [_hours(h)]
    if seconds is not None:
        parts.append(f"e {cardinal(minutes)} {'minuto' if minutes == 1 else 'minutos'}")
        parts.append(f"e {cardinal(int(seconds))} {'segundo' if int(seconds) == 1 else 'segundos'}")
    elif minutes:
        parts.append(f"e {cardinal(minutes)}")
    return " ".join(parts + ([day_part] if day_part else []))


def _money(text: str) -> str | None:
    if text[:1] in "-−":  # '-120,40 €'
        amount = _money(text[1:].lstrip())
        return None if amount is None else "menos " + amount
    code, rest = split_currency(text, _CURRENCIES, _CURRENCY_SYMBOLS)
    if code is None:
        return None
    rest = local_amount(rest, not text.endswith(code))
    one, many, minor_one, minor_many = _CURRENCIES[code]
    feminine = code in _FEMININE_CURRENCIES
    m = re.fullmatch(rf"(?P<amount>{NUM})(?: (?P<scale>{'|'.join(_SCALE_WORDS)}))?", rest)
    if not m:
        return None
    integer, fraction_digits = split_amount(m.group("amount"))
    if m.group("scale"):
        scale = m.group("scale")
        return f"{decimal(integer, fraction_digits)} {scale} {'' if scale == 'mil' else 'de '}{many}"
    if len(fraction_digits) > 2:
        return f"{decimal(integer, fraction_digits)} {many}"
    major = int(integer)
    cents = int((fraction_digits + "00")[:2]) if fraction_digits else 0
    if not cents and major >= 10**6 and major % 10**6 == 0:  # 'um milhão de reais'
        return f"{cardinal(major)} de {many}"
    parts = []
    if major or not cents:
        parts.append(f"{cardinal(major, feminine)} {one if major == 1 else many}")
    if cents:
        parts.append(f"{cardinal(cents)} {minor_one if cents == 1 else minor_many}")
    return " e ".join(parts)


def _measure(text: str) -> str | None:
    m = MEASURE.fullmatch(text)
    if not m:
        return None
    sign = "menos " if m.group("sign") in ("-", "−") else "mais " if m.group("sign") == "+" else ""
    num, unit = m.group("num"), m.group("unit").strip()
    if "/" in num:
        return None
    integer, fraction_digits = split_amount(num)
    amount = decimal(integer, fraction_digits)
    if unit in ("%", "‰"):
        return sign + amount + (" por cento" if unit == "%" else " por mil")
    if unit.startswith("°"):
        one, many = _DEGREES.get(unit[1:].strip(), _DEGREES[""])
        return sign + amount + " " + (one if num == "1" else many)
    if unit in _SCALE_WORDS:
        return sign + amount + " " + unit
    if unit.startswith("/") and unit[1:] in _PER:
        return sign + amount + " por " + _PER[unit[1:]]
    names = _unit(unit)
    if names is None:
        return None if unit else sign + amount
    one, many = names
    if not fraction_digits and is_feminine("pt", one.split()[0]):
        amount = cardinal(int(integer), feminine=True)
    return f"{sign}{amount} {many if fraction_digits or int(integer) != 1 else one}"


@lru_cache(maxsize=1024)
def _unit(symbol: str) -> tuple[str, str] | None:
    """A unit's names: the table's, else CLDR's ('cm' centímetro, 'hpa' hectopascal)."""
    if symbol in _UNITS:
        return _UNITS[symbol]
    unit = cldr.unit_for("pt", symbol)
    one = cldr.unit_name("pt", unit, 1) if unit else None
    return None if one is None else (one, cldr.unit_name("pt", unit, 2) or one)


def _phone(raw: str) -> str:
    """Digit by digit, the country code too ('+55 (11) 3333-4444'); 'ext.' is the extension."""
    return read_phone(raw, digits, "mais", "extensão", WORDS.extensions)


def _fallback(text: str) -> str:
    return read_pieces(text, SYMBOLS, _digit_run)


def _digit_run(run: str) -> str:
    """Up to six digits as a number, unless a zero leads; longer runs digit by digit."""
    return cardinal(int(run)) if len(run) <= 6 and not run.startswith("0") else digits(run)


_READERS = {
    "address": lambda raw: read_address(raw, ADDRESS_SYMBOLS, DIGITS),
    "abbreviation": lambda raw: read_abbreviation(raw, _ABBREVIATIONS),
    "roman": lambda raw: ordinal(roman_value(raw)),
    "roman_feminine": lambda raw: ordinal(roman_value(raw), feminine=True),  # 'Isabel segunda'
    "counted_roman": lambda raw: cardinal(roman_value(raw.split()[0])),
    "phone": _phone,
    "date": _month_first_date,
}
