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
from voice_tts.tn.locales import numeric_spans, words
from voice_tts.tn.locales.iberian import COUNT, TIME, Reading
from voice_tts.tn.locales.noun_gender import is_feminine, is_known_noun
from voice_tts.tn.locales.numeric_spans import to_int, word_after

_WORDS = words("es")

# The CLDR rulesets of the three forms: "uno" alone, "un"/"veintiún" before a masculine noun, feminine.
_FORMS = {"": "spellout-numbering", "un": "spellout-cardinal-masculine", "f": "spellout-cardinal-feminine"}


def cardinal(n: int, form: str = "") -> str:
    """`form`: "" (veintiuno), "un" (veintiún, before a noun), "f" (veintiuna, doscientas)."""
    if n < 0:
        return "menos " + cardinal(-n, form)
    if n >= 10**24:
        return _RULES.digits(str(n))
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


# --- ordinals ---------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def ordinal(n: int, feminine: bool = False, short: bool = False) -> str:
    """'milésimo primero'; feminine: 'milésima primera'; `short`: 'primer', 'tercer'. CLDR's
    words in the one-word forms the RAE prefers ('undécimo', 'vigesimoprimero', 'dosmilésimo')."""
    if n <= 0 or n >= 10**9 or n >= 10**6 and n % 10**6:
        return cardinal(n)
    text = cldr.ordinal("es", n, "masculine").replace("octingésimo", "octingentésimo")
    text = re.sub(r"\bdecimo(primero|segundo)\b", lambda m: "undécimo" if m[1] == "primero" else "duodécimo", text)
    text = re.sub(r"\bvigésimo o?(?=\w)", "vigesimo", text)
    text = re.sub(r"^(.+?) ?(mil|millon)ésimo", _glued_ordinal, text)
    if short:
        text = re.sub(r"(prim|terc)ero$", r"\1er", text)
    if feminine:  # 'quinientasmilésima primera'
        text = re.sub(r"o\b", "a", re.sub(r"ientos(?=\w*ésimo)", "ientas", text))
    return text


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


def _denominator(d: int) -> str | None:
    """'medio', 'tercio', then the ordinal ('cuarto' … 'décimo'), 'onceavo' … 'noventainueveavo'."""
    if d in (2, 3):
        return "medio" if d == 2 else "tercio"
    if 4 <= d <= 10:
        return ordinal(d)
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


def fraction(numerator: int, denominator: int, feminine: bool = False) -> str:
    name = _denominator(denominator)
    if numerator == 1 and denominator == 2:
        return "media" if feminine else "medio"
    if name is None or numerator == 0:
        return f"{cardinal(numerator)} sobre {cardinal(denominator)}"
    if numerator == 1:
        return ("una " if feminine else "un ") + (name[:-1] + "a" if feminine else name)
    return f"{cardinal(numerator, 'f' if feminine else '')} {name}s"


# --- the words around numbers -----------------------------------------------------------------

_SCALE_WORDS = ("mil", "millón", "millones", "billón", "billones", "trillón", "trillones")
_MONTHS = cldr.month_names("es")
_DAY_PARTS = dict(_WORDS["day_parts"])
_AM_PM = dict(_WORDS["am_pm"])
_ZONES = frozenset(_WORDS["zones"])
# A bare hour before "a.m."/"p.m." ('7 a.m.'), with the groups of TIME.
_HOUR_ONLY = re.compile(r"(?P<h>\d{1,2})(?P<m>)(?P<hm>)")
# A whole number and a half ('2½' is read as '2 1/2').
_AND_A_HALF = re.compile(r"(\d*) ?(?:½|1/2)")
# Words after a number that are no noun it counts.
_NOT_NOUNS = frozenset(_WORDS["not_nouns"])


class Spanish(Reading):
    code = "es"
    PLUS = "más"
    PERCENT = "por ciento"
    FIRST_DAY = "primero"
    GLUED_CODES = True
    ORDINAL = re.compile(r"(?P<num>\d+(?:[.\s]\d{3})*)(?:\.?(?P<m>º|o|ᵒ|er|ᵉʳ|ro|to|do|vo|no)|\.?(?P<f>ª|a|ᵃ|ra|da|ta))")
    MONTHS = _MONTHS
    MONTH_INDEX = {m: i for i, m in enumerate(_MONTHS, 1)} | {m[:3]: i for i, m in enumerate(_MONTHS, 1)} | {
        "sept": 9, "set": 9, "setiembre": 9}
    SCALE_WORDS = _SCALE_WORDS

    EXTENSION = "extensión"
    cardinal = staticmethod(cardinal)
    ordinal = staticmethod(ordinal)
    decimal = staticmethod(decimal)
    fraction = staticmethod(fraction)

    def written_ordinal(self, m: re.Match[str]) -> str:
        return ordinal(to_int(m.group("num")), bool(m.group("f")), short=m.group("m") in ("er", "ᵉʳ"))

    def mixed_fraction(self, whole: int, numerator: int, denominator: int) -> str:
        return f"{cardinal(whole)} y {fraction(numerator, denominator)}"

    def digit_run(self, run: str) -> str:
        return _with_zeros(run, "") if len(run) <= 6 else self.digits(run)

    def phone(self, raw: str) -> str:
        """A fourth group after 'NNN-NNNN' is the extension."""
        return super().phone(re.sub(r"(\d{3}-\d{4})-(\d+)", r"\1 ext \2", raw))

    def country_code(self, code: str) -> str:
        return cardinal(int(code)) if len(code) <= 2 else self.digits(code)

    def time(self, head: str, rest: str) -> str | None:
        am_pm = rest.replace(".", "").strip() in ("am", "pm")
        m = TIME.fullmatch(head) or _HOUR_ONLY.fullmatch(head) if am_pm else TIME.fullmatch(head)
        if m and (reading := _time(m, rest)):
            return reading
        m = re.fullmatch(r"0?(\d{1,2}) h", f"{head} {rest}") if head.startswith("0") else None
        return cardinal(int(m.group(1)), "f") if m else None

    def measured_fraction(self, num: str, one: str, many: str, feminine: bool) -> str | None:
        whole, _, written = num.rpartition(" ")
        n, d = (int(x) for x in written.split("/"))
        form = "f" if feminine else "un"
        if (n, d) == (1, 2):  # 'dos tazas y media', 'media taza'
            return _and_a_half(int(whole or 0), one if whole in ("", "1") else many, form)
        reading = f"{fraction(n, d, feminine)} de {one}"
        return f"{cardinal(int(whole), 'f' if feminine else '')} y {reading}" if whole else reading


_RULES = Spanish(
    _WORDS["currencies"],
    short_units=frozenset(("g", "t", "m", "l", "ml", "h", "s")),
    after=frozenset(_AM_PM) | _ZONES,
    phone_regions=("ES",),
    dotted=frozenset(("a.m", "p.m")),
    connectors=frozenset(("de", "del")),
    day_parts=frozenset(_DAY_PARTS),
    articles=frozenset(("la",)),
    roman_after=frozenset(("siglo", "siglos", "tomo", "capítulo", "volumen", "parte", "fase", "libro", "año")),
    not_roman=frozenset(("mi", "di", "vi", "dim", "mil", "lid", "civil", "mix", "cd", "dc", "cc", "cv", "ml", "mm",
                         "cm", "dl", "xl", "li", "ci", "id", "vid", "xd")),
    extensions=frozenset(("ext", "extensión")),
)
WORDS = _RULES.WORDS
number = _RULES.number
digits = _RULES.digits
SYMBOLS = _RULES.SYMBOLS
ADDRESS_SYMBOLS = _RULES.ADDRESS_SYMBOLS


def find_span(cur: Cursor, pos: int, ctx: Context) -> Span | None:
    span = numeric_spans.find_span(cur, pos, ctx, WORDS, _RULES.read)
    if span is None:
        return None
    raw = cur.text[pos:span.end]
    noun = word_after(cur, span.end)
    if noun == "de" and raw.split()[-1].lower() in _SCALE_WORDS:  # '1,5 millones de €'
        try:
            j = lexer.spaces(cur, lexer.spaces(cur, span.end) + 2)
            if lexer.is_currency(cur.at(j)) and (money := _RULES.money(f"{raw.lower()} {cur.at(j)}")):
                span.end, span.info = j + 1, money
        except TooLong:
            pass
        return span
    half = _AND_A_HALF.fullmatch(raw)
    if half and noun.isalpha() and (measure := _RULES.measure(f"{half.group(1)} 1/2 {noun}".strip())):  # '2½ kg'
        span.end, span.info = lexer.spaces(cur, span.end) + len(noun), measure
        return span
    if len(noun) <= 2 or not noun.isalpha() or noun in _NOT_NOUNS:
        return span
    form = "f" if is_feminine("es", noun) else "un"
    if COUNT.fullmatch(raw):
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
    reading = cardinal(h, "f") + (f" y {_minutes(minutes)}" if minutes else "")
    return " ".join([reading, *suffix])
