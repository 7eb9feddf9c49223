"""Spanish: numbers, ordinals, decimals, fractions, money, dates, times, measures, phone numbers,
addresses, Roman numerals and abbreviations, read as the Spanish NeMo-text-processing data reads
them ("5,50 €" → "cinco euros cincuenta céntimos", "21.ª" → "vigesimoprimera").

Cardinals come from CLDR (`voice_tts.tn.cldr`) in the form the context needs; ordinals are built
here in the one-word forms this data reads ("vigesimoprimera", "undécimo").
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from voice_tts.tn import cldr, lexer
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor, TooLong
from voice_tts.tn.locales import abbreviations, numeric_spans, words
from voice_tts.tn.locales.noun_gender import is_feminine, is_known_noun
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

_WORDS = words("es")

DIGITS = ("cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve")
# The CLDR rulesets of the three forms: "uno" alone, "un"/"veintiún" before a masculine noun, feminine.
_FORMS = {"": "spellout-numbering", "un": "spellout-cardinal-masculine", "f": "spellout-cardinal-feminine"}


def cardinal(n: int, form: str = "") -> str:
    """`form`: "" (veintiuno), "un" (veintiún, before a noun), "f" (veintiuna, doscientas)."""
    if n < 0:
        return "menos " + cardinal(-n, form)
    if n >= 10**24:
        return digits(str(n))
    if n >= 10**18:  # CLDR's Spanish stops at the trillón (long scale: 10¹⁸)
        count, rest = divmod(n, 10**18)
        words = "un trillón" if count == 1 else f"{cardinal(count, 'un')} trillones"
        return f"{words} {cardinal(rest, form)}" if rest else words
    if form == "f" and (thousands := n % 10**6 // 1000) > 1:
        # 'doscientas mil personas': the thousands agree with the noun too (CLDR keeps them masculine)
        words = [cardinal(n - n % 10**6, "un")] if n >= 10**6 else []
        words += [cardinal(thousands, "f"), "mil"] + ([cardinal(n % 1000, "f")] if n % 1000 else [])
        return " ".join(words)
    return cldr.spell("es", n, _FORMS[form])


def digits(text: str) -> str:
    return " ".join(DIGITS[int(c)] for c in text if c.isdecimal())


# --- ordinals ---------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def ordinal(n: int, gender: str = "m", short: bool = False) -> str:
    """'milésimo primero'; `gender` "f": 'milésima primera'; `short`: 'primer', 'tercer'. CLDR's
    words in the one-word forms the RAE prefers ('undécimo', 'vigesimoprimero', 'dosmilésimo')."""
    if n <= 0 or n >= 10**9 or n >= 10**6 and n % 10**6:
        return cardinal(n)
    text = cldr.ordinal("es", n, "masculine").replace("octingésimo", "octingentésimo")
    text = re.sub(r"\bdecimo(primero|segundo)\b", lambda m: "undécimo" if m[1] == "primero" else "duodécimo", text)
    text = re.sub(r"\bvigésimo o?(?=\w)", "vigesimo", text)
    text = re.sub(r"^(.+?) ?(mil|millon)ésimo", _glued_ordinal, text)
    if short:
        text = re.sub(r"(prim|terc)ero$", r"\1er", text)
    if gender == "f":  # 'quinientasmilésima primera'
        text = re.sub(r"o\b", "a", re.sub(r"ientos(?=\w*ésimo)", "ientas", text))
    return text


def _day(day: int) -> str:
    """The day of a date: 'primero de enero' (the first day an ordinal), 'dos de enero'."""
    return "primero" if day == 1 else cardinal(day)


def _glued_ordinal(m: re.Match) -> str:
    """'dos milésimo' dosmilésimo, 'un millonésimo' millonésimo."""
    count = "" if m[1] == "un" else _strip_accents(m[1].replace(" ", ""))
    return count + m[2] + "ésimo"


def _strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


# --- decimals and fractions -------------------------------------------------------------------

def _fraction_digits(text: str, form: str) -> str:
    """Digits after the comma: up to three as one number after their zeros ('01' → 'cero uno'),
    more in pairs ('5332' → 'cincuenta y tres treinta y dos')."""
    if len(text) <= 3:
        return _with_zeros(text, form)
    pieces = [text[i:i + 2] for i in range(0, len(text), 2)]
    return " ".join(_with_zeros(p, form if i == len(pieces) - 1 else "") for i, p in enumerate(pieces))


def _with_zeros(text: str, form: str) -> str:
    zeros = len(text) - len(text.lstrip("0"))
    rest = text[zeros:]
    return " ".join(["cero"] * zeros + ([cardinal(int(rest), form)] if rest else []))


def decimal(integer: str, fraction: str, form: str = "") -> str:
    whole = cardinal(to_int(integer), "" if form == "un" else form)
    if not fraction:
        return whole
    return f"{whole} coma {_fraction_digits(fraction, form)}"


_DENOMINATORS = {2: "medio", 3: "tercio", 4: "cuarto", 5: "quinto", 6: "sexto", 7: "séptimo", 8: "octavo",
                 9: "noveno", 10: "décimo"}


def _denominator(d: int) -> str | None:
    if d in _DENOMINATORS:
        return _DENOMINATORS[d]
    if 11 <= d <= 99:  # onceavo, treintaiunavo, cincuentavo
        word = _strip_accents(cardinal(d)).replace(" y ", "i").replace(" ", "")
        if word.endswith("uno"):
            word = word[:-1]
        elif word.endswith("a"):
            word = word[:-1]
        return word + "avo"
    if d % 100 == 0 and d < 1000 or d % 1000 == 0 and d < 10**6 or d == 10**6:
        return ordinal(d)
    return None


def fraction(numerator: int, denominator: int, gender: str = "m") -> str:
    name = _denominator(denominator)
    if numerator == 1 and denominator == 2:
        return "media" if gender == "f" else "medio"
    if name is None or numerator == 0:
        return f"{cardinal(numerator)} sobre {cardinal(denominator)}"
    if numerator == 1:
        return ("una " if gender == "f" else "un ") + (name[:-1] + "a" if gender == "f" else name)
    return f"{cardinal(numerator, 'f' if gender == 'f' else '')} {name}s"


# --- the words around numbers -----------------------------------------------------------------

# Units CLDR names otherwise or not at all, as (singular, plural, feminine); the others come from
# CLDR (`_cldr_unit`).
_UNITS = {k: tuple(v) for k, v in _WORDS["units"].items()}
# CLDR's symbols of a letter or two that join the number before them ('5 g', '2 ml').
_SHORT_UNITS = frozenset(("g", "t", "m", "l", "ml", "h", "s"))
_PER = dict(_WORDS["per"])
_DEGREES = {k: tuple(v) for k, v in _WORDS["degrees"].items()}
# currency → (singular, plural, feminine, minor singular, minor plural)
_CURRENCIES = {k: tuple(v) for k, v in _WORDS["currencies"].items()}
# Every other ISO 4217 code and symbol, named by CLDR ("3 kr" → "tres coronas suecas").
for _written, _code in cldr.currency_symbols("es").items():
    if _written not in _CURRENCIES:
        one, many = cldr.currency_name("es", _code, 1), cldr.currency_name("es", _code, 2)
        _CURRENCIES[_written] = (one, many, is_feminine("es", one.split()[0]), "centavo", "centavos")
_CURRENCY_SYMBOLS = tuple(sorted((c for c in _CURRENCIES if not c.isalpha()), key=len, reverse=True))
_SCALE_WORDS = {"mil": 10**3, "millón": 10**6, "millones": 10**6, "billón": 10**12, "billones": 10**12,
                "trillón": 10**18, "trillones": 10**18}
_MONTHS = cldr.month_names("es")
_MONTH_INDEX = {m: i for i, m in enumerate(_MONTHS, 1)} | {m[:3]: i for i, m in enumerate(_MONTHS, 1)} | {
    "sept": 9, "set": 9, "setiembre": 9}
_WEEKDAYS = dict(_WORDS["weekdays"])
_ABBREVIATIONS = abbreviations("es")
_DAY_PARTS = dict(_WORDS["day_parts"])
_AM_PM = dict(_WORDS["am_pm"])
_ZONES = frozenset(_WORDS["zones"])
_ERAS = dict(_WORDS["eras"])

WORDS = SpanWords(
    minus="menos",
    phone_regions=("ES",),
    after=frozenset(_UNITS) | _SHORT_UNITS | cldr.folded_unit_symbols("es") | frozenset(c for c in _CURRENCIES if c.isalpha() or c.endswith("$"))
    | frozenset(_SCALE_WORDS) | frozenset(_AM_PM) | _ZONES | {"horas", "hora"},
    dotted=frozenset(("a.m", "p.m")),
    connectors=frozenset(("de", "del")),
    day_parts=frozenset(_DAY_PARTS),
    articles=frozenset(("la",)),
    months=frozenset(_MONTH_INDEX),
    weekdays=frozenset(_WEEKDAYS),
    before=frozenset(c for c in _CURRENCIES if c.isalpha() or c.endswith("$")),
    abbreviations=dict(sorted(_ABBREVIATIONS.items(), key=lambda kv: -len(kv[0]))),
    roman_after=frozenset(("siglo", "siglos", "tomo", "capítulo", "volumen", "parte", "fase", "libro", "año")),
    eras=frozenset(_ERAS),
    not_roman=frozenset(("mi", "di", "vi", "dim", "mil", "lid", "civil", "mix", "cd", "dc", "cc", "cv", "ml", "mm",
                         "cm", "dl", "xl", "li", "ci", "id", "vid", "xd")),
    extensions=frozenset(("ext", "extensión")),
)
SYMBOLS = dict(_WORDS["symbols"])
ADDRESS_SYMBOLS = dict(_WORDS["address_symbols"])


def find_span(cur: Cursor, pos: int, ctx: Context) -> Span | None:
    span = numeric_spans.find_span(cur, pos, ctx, WORDS, read)
    if span is None:
        return None
    raw = cur.text[pos:span.end]
    noun = word_after(cur, span.end)
    if noun == "de" and raw.split()[-1].lower() in _SCALE_WORDS:  # '1,5 millones de €'
        try:
            j = lexer.spaces(cur, lexer.spaces(cur, span.end) + 2)
            if lexer.is_currency(cur.at(j)) and (money := _money(f"{raw.lower()} {cur.at(j)}")):
                span.end, span.info = j + 1, money
        except TooLong:
            pass
        return span
    half = _AND_A_HALF.fullmatch(raw)
    if half and noun.isalpha() and (measure := _measure(f"{half.group(1)} 1/2 {noun}".strip())):  # '2½ kg'
        span.end, span.info = lexer.spaces(cur, span.end) + len(noun), measure
        return span
    if len(noun) <= 2 or not noun.isalpha() or noun in _NOT_NOUNS:
        return span
    form = "f" if is_feminine("es", noun) else "un"
    if _COUNT.fullmatch(raw):
        # A count agrees with its noun: 'veintiún clientes', 'doscientas una personas'; alone it
        # stays 'el número es veintiuno'.
        span.info = cardinal(to_int(raw), form)
    elif half:  # '2½ tazas' dos tazas y media, '1 1/2 horas' una hora y media
        start = lexer.spaces(cur, span.end)
        written = cur.text[start:start + len(noun)]
        whole = int(half.group(1) or 0)
        span.end, span.info = start + len(noun), _and_a_half(whole, _singular(written) if whole == 1 else written, form)
    return span


def _and_a_half(whole: int, name: str, form: str) -> str:
    """'dos tazas y media', 'una milla y media por hora': the half after the unit's noun; 'media taza'."""
    half = "media" if form == "f" else "medio"
    if not whole:
        return f"{half} {name}"
    noun, _, rest = name.partition(" ")
    return " ".join(filter(None, (cardinal(whole, form), noun, "y", half, rest)))


def _singular(noun: str) -> str:
    """'horas' hora, 'meses' mes, 'panes' pan: a plural noun after '1½'."""
    if not noun.endswith("s"):
        return noun
    known = is_known_noun("es", noun[:-2]) or noun.endswith("es") and noun[-3:-2] in ("l", "n", "r", "j")
    return noun[:-2] if known else noun[:-1]


# A bare hour before "a.m."/"p.m." ('7 a.m.'), with the groups of numeric_spans.TIME.
_HOUR_ONLY = re.compile(r"(?P<h>\d{1,2})(?P<m>)(?P<hm>)")
_DAY_MONTH_SLASH = re.compile(r"(\d{2})/(\d{2})")
_PERCENT_RANGE = re.compile(r"(\d+)[-–](\d+) ?%")
# A count of hours (the time words join the number's span).
_HOURS = re.compile(rf"({NUM}) (horas?)")
# A whole number and a half ('2½' is read as '2 1/2').
_AND_A_HALF = re.compile(r"(\d*) ?(?:½|1/2)")
# A count: digits, their thousands grouped or not ('1.251').
_COUNT = re.compile(r"\d{1,3}(?:\.\d{3})+|\d+")
# Words after a number that are no noun it counts.
_NOT_NOUNS = frozenset(_WORDS["not_nouns"])
# --- reading a span ---------------------------------------------------------------------------

_ORDINAL = re.compile(r"(?P<num>\d+(?:[.\s]\d{3})*)(?:\.?(?P<m>º|o|ᵒ|er|ᵉʳ|ro|to|do|vo|no)|\.?(?P<f>ª|a|ᵃ|ra|da|ta))")
_DAY_MONTH = re.compile(r"(?P<d>\d{1,2}) (?:de )?(?P<month>[a-z]+)\.?(?: (?P<c>de|del)? ?(?P<y>\d{1,4}))?")


def read(raw: str, kind: str) -> str:
    """A span of `kind` (numeric_spans.find_span) read aloud."""
    return _READERS.get(kind, number)(raw)


def number(raw: str) -> str:
    text = " ".join(raw.split())
    low = text.lower()
    return (_ABBREVIATIONS.get(low) or _money(low) or _special(low) or _measure(low) or _fallback(low)).strip()


def _special(text: str) -> str | None:
    """Shapes read as a whole: ordinals, dates, times, phone numbers, ranges, fractions."""
    head, _, rest = text.partition(" ")
    m = _DAY_MONTH_SLASH.fullmatch(text)
    if m and 1 <= int(m.group(1)) <= 31 and 1 <= int(m.group(2)) <= 12:  # '05/06'; '5/6' is a fraction
        return f"{_day(int(m.group(1)))} de {_MONTHS[int(m.group(2)) - 1]}"
    m = _PERCENT_RANGE.fullmatch(text)
    if m:  # '2-3 %'
        return f"{cardinal(int(m.group(1)))} a {cardinal(int(m.group(2)))} por ciento"
    m = _ORDINAL.fullmatch(text)
    if m:
        suffix = m.group("m") or ""
        return ordinal(to_int(m.group("num")), "f" if m.group("f") else "m", short=suffix in ("er", "ᵉʳ"))
    m = DATE.fullmatch(text)
    if m:
        reading = _numeric_date(m)
        if reading:
            return reading
    if IP.fullmatch(text) and not GROUPED.fullmatch(text):
        return " punto ".join(digits(p) for p in text.split("."))
    m = TIME.fullmatch(head) or _HOUR_ONLY.fullmatch(head) if rest.replace(".", "").strip() in ("am", "pm") else TIME.fullmatch(head)
    if m:
        reading = _time(m, rest)
        if reading:
            return reading
    m = re.fullmatch(r"0?(\d{1,2}) h", text)
    if m and text.startswith("0"):
        return _hour(int(m.group(1)))
    if PHONE.fullmatch(text):
        return _phone(text)
    m = _DAY_MONTH.fullmatch(text)
    if m and m.group("month") in _MONTH_INDEX:
        reading = f"{_day(int(m.group('d')))} de {_MONTHS[_MONTH_INDEX[m.group('month')] - 1]}"
        if m.group("y"):
            reading += f" {m.group('c') or 'de'} {cardinal(int(m.group('y')))}"
        return reading
    m = _HOURS.fullmatch(text)
    if m:  # 'una hora', 'veintiuna horas'
        return f"{_amount(m.group(1), 'f')} {m.group(2)}"
    m = RANGE.fullmatch(text)
    if m:
        return f"{cardinal(int(m.group('a')))} a {cardinal(int(m.group('b')))}"
    m = re.fullmatch(r"(?P<sign>-?)(?:(?P<whole>\d+) )?(?P<n>\d+)/(?P<d>[\d.]+)", text)
    if m:
        reading = fraction(int(m.group("n")), to_int(m.group("d")))
        if m.group("whole"):
            reading = f"{cardinal(int(m.group('whole')))} y {reading}"
        return ("menos " if m.group("sign") else "") + reading
    return None


def _numeric_date(m: re.Match) -> str | None:
    parts = date_parts(m)
    if parts is None:
        return None
    day, month, year = parts
    return f"{_day(day)} de {_MONTHS[month - 1]} de {cardinal(year)}"


def _month_first_date(raw: str) -> str:
    """'junio 11 2000', 'abr. 22', 'vier. 10 de mayo'."""
    words = raw.lower().replace(".", " ").split()
    if words[0] in _WEEKDAYS:
        return _WEEKDAYS[words[0]] + " " + number(" ".join(raw.split()[1:]))
    month = _MONTHS[_MONTH_INDEX[words[0]] - 1]
    reading = f"{_day(int(words[1]))} de {month}"
    if len(words) > 2:
        reading += f" de {cardinal(int(words[2]))}"
    return reading


def _hour(h: int) -> str:
    return cardinal(h, "f")


def _minutes(m: int) -> str:
    return {15: "cuarto", 30: "media"}.get(m) or cardinal(m)


def _time(m: re.Match, rest: str) -> str | None:
    h = int(m.group("h"))
    minutes = int(m.group("m") or m.group("hm") or 0)
    if h > 24 or minutes > 59:
        return None
    words = rest.replace(".", "").split()
    suffix = []
    for w in words:
        if w in ("h", "horas", "hs"):
            continue
        if w in ("am", "pm"):
            day_part = "de la mañana" if w == "am" else "de la noche" if 8 <= h < 12 else "de la tarde"
            if h == 12:
                day_part = "de la noche" if w == "am" else "del mediodía"
            suffix.append(day_part)
        elif re.fullmatch(r"[a-z]+(?:[-+]\d+)?", w) and w.rstrip("0123456789+-") in _ZONES:
            zone, sign, offset = re.fullmatch(r"([a-z]+)([-+]?)(\d*)", w).groups()
            suffix.append(" ".join(zone))
            if offset:
                suffix.append(("menos " if sign == "-" else "más ") + cardinal(int(offset)))
        elif w in ("de", "del", "la"):
            continue
        elif w in _DAY_PARTS:
            suffix.append(_DAY_PARTS[w])
        else:
            return None
    reading = _hour(h) + (f" y {_minutes(minutes)}" if minutes else "")
    return " ".join([reading, *suffix])


def _money(text: str) -> str | None:
    if text[:1] in "-−":  # '-120,40 €'
        amount = _money(text[1:].lstrip())
        return None if amount is None else "menos " + amount
    code, rest = split_currency(text, _CURRENCIES, _CURRENCY_SYMBOLS, glued=True)
    if code is None:
        return None
    rest = local_amount(rest, not text.endswith(code))
    one, many, feminine, minor_one, minor_many = _CURRENCIES[code]
    m = re.fullmatch(rf"(?P<amount>{NUM})(?: (?P<scale>{'|'.join(_SCALE_WORDS)}))?", rest)
    if not m:
        return None
    integer, fraction_digits = split_amount(m.group("amount"))
    form = "f" if feminine else "un"
    if m.group("scale"):
        scale = m.group("scale")
        amount = decimal(integer, fraction_digits, "un") if fraction_digits else cardinal(int(integer), "un")
        connector = "de " if scale != "mil" else ""
        return f"{amount} {scale} {connector}{many}"
    major = int(integer)
    cents = int((fraction_digits + "00")[:2]) if fraction_digits else 0
    if len(fraction_digits) > 2:
        return f"{decimal(integer, fraction_digits, form)} {many}"
    if not cents and major >= 10**6 and major % 10**6 == 0:  # 'un millón de dólares'
        return f"{cardinal(major, 'un')} de {many}"
    parts = []
    if major or not cents:
        parts.append(f"{cardinal(major, form)} {one if major == 1 else many}")
    if cents:
        parts.append(f"{cardinal(cents, 'un')} {minor_one if cents == 1 else minor_many}")
    return " ".join(parts)




def _measure(text: str) -> str | None:
    m = MEASURE.fullmatch(text)
    if not m:
        return None
    sign = "menos " if m.group("sign") in ("-", "−") else "más " if m.group("sign") == "+" else ""
    num, unit = m.group("num"), m.group("unit").strip()
    if unit in ("%", "‰"):
        return sign + _amount(num, "") + (" por ciento" if unit == "%" else " por mil")
    if unit.startswith("°"):
        one, many = _DEGREES.get(unit[1:].strip(), _DEGREES[""])
        return sign + _amount(num, "un") + " " + (one if num == "1" else many)
    scale = _SCALE_WORDS.get(unit)
    if scale:
        return sign + _amount(num, "un") + " " + unit
    per = None
    if unit.startswith("/") and unit[1:] in _PER:
        return sign + _amount(num, "") + " por " + _PER[unit[1:]]
    if "/" in unit and unit not in _UNITS:
        unit, _, per_unit = unit.partition("/")
        per = _PER.get(per_unit)
        if per is None:
            return None
    names = _UNITS.get(unit) or _cldr_unit(unit)
    if names is None:
        return None if unit else sign + _amount(num, "")
    one, many, feminine = names
    form = "f" if feminine else "un"
    if "/" in num:
        whole, _, frac = num.rpartition(" ")
        n, d = frac.split("/")
        if n == "1" and d == "2":
            reading = _and_a_half(int(whole), one if whole == "1" else many, form) if whole else (
                ("media " if feminine else "medio ") + one)
        else:
            reading = fraction(int(n), int(d), "f" if feminine else "m") + " de " + one
            if whole:
                reading = f"{cardinal(int(whole), 'f' if feminine else '')} y {reading}"
    else:
        integer, fraction_digits = split_amount(num)
        plural = fraction_digits or int(integer) != 1
        reading = f"{_amount(num, form)} {many if plural else one}"
    return sign + reading + (f" por {per}" if per else "")


def _cldr_unit(symbol: str) -> tuple[str, str, bool] | None:
    """A unit not in _UNITS by its CLDR names ('cm²' centímetros cuadrados, 'hpa' hectopascales)."""
    unit = cldr.unit_for("es", symbol)
    one = cldr.unit_name("es", unit, 1) if unit else None
    if one is None:
        return None
    return one, cldr.unit_name("es", unit, 2) or one, is_feminine("es", one.split()[0])


def _amount(num: str, form: str) -> str:
    integer, fraction_digits = split_amount(num)
    return decimal(integer, fraction_digits, form) if fraction_digits else cardinal(int(integer), form)


def _phone(raw: str) -> str:
    """Digits one by one; a country code of one or two digits as a number; a fourth group after
    'NNN-NNNN' or 'ext.' is the extension."""
    text = re.sub(r"(\d{3}-\d{4})-(\d+)", r"\1 ext \2", raw)
    return read_phone(text, digits, "más", "extensión", WORDS.extensions,
                      lambda code: cardinal(int(code)) if len(code) <= 2 else digits(code))


def _counted_roman(raw: str) -> str:
    """After 'siglo', 'tomo': the number, then its era ('siglo x ec' → 'siglo diez era común')."""
    numeral, *era = raw.split()
    reading = cardinal(roman_value(numeral))
    return f"{reading} {_ERAS[era[0].lower()]}" if era else reading


def _fallback(text: str) -> str:
    """Anything else: numbers as numbers, words as written ('a-5' → 'a cinco', '0-800-hermano')."""
    return read_pieces(text, SYMBOLS, lambda run: _with_zeros(run, "") if len(run) <= 6 else digits(run))


_READERS = {
    "address": lambda raw: read_address(raw, ADDRESS_SYMBOLS, DIGITS),
    "abbreviation": lambda raw: read_abbreviation(raw, _ABBREVIATIONS),
    "roman": lambda raw: ordinal(roman_value(raw)),
    "roman_feminine": lambda raw: ordinal(roman_value(raw), "f"),  # 'Isabel segunda'
    "counted_roman": _counted_roman,
    "phone": _phone,
    "date": _month_first_date,
}
