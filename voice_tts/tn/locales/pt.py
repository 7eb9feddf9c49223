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
from voice_tts.tn.locales import numeric_spans, words
from voice_tts.tn.locales.iberian import COUNT, TIME, Reading
from voice_tts.tn.locales.noun_gender import is_feminine
from voice_tts.tn.locales.numeric_spans import to_int, word_after

_WORDS = words("pt")

# A scale word and the "e" CLDR puts after it ('mil e', 'milhões e').
_SCALE = re.compile(r"\b(?:mil|\w+lhão|\w+lhões) (?:e )?")


@lru_cache(maxsize=4096)
def cardinal(n: int, feminine: bool = False) -> str:
    """CLDR's words, with "e" after a scale word only before the last group, when that group is
    below a hundred or a round hundred ('dois mil e cem', 'mil novecentos e dez', 'três milhões
    oitocentos e cinquenta mil'), where CLDR puts one after every group."""
    if n < 0:
        return "menos " + cardinal(-n, feminine)
    if n >= 10**21:
        return _RULES.digits(str(n))
    words = cldr.cardinal("pt", n % 10**18, "feminine" if feminine else "masculine")
    if n >= 10**18:  # CLDR's Portuguese stops below the quintilhão
        count = n // 10**18
        scale = f"{cldr.cardinal('pt', count, 'masculine')} {'quintilhão' if count == 1 else 'quintilhões'}"
        words = f"{scale} e {words}" if n % 10**18 else scale
    last = n
    while last and last % 1000 == 0:
        last //= 1000
    joiner = "e " if last % 1000 < 100 or last % 100 == 0 else ""
    scales = list(_SCALE.finditer(words))
    spoken, pos = "", 0
    for i, m in enumerate(scales):
        spoken += words[pos:m.start()] + m.group().removesuffix("e ") + (joiner if i == len(scales) - 1 else "")
        pos = m.end()
    return spoken + words[pos:]


# --- the words around numbers -----------------------------------------------------------------

_SCALE_WORDS = ("mil", "milhão", "milhões", "bilhão", "bilhões", "trilhão", "trilhões")
_MONTHS = cldr.month_names("pt")
_DAY_PARTS = dict(_WORDS["day_parts"])


class Portuguese(Reading):
    code = "pt"
    PLUS = "mais"
    PERCENT = "por cento"
    FIRST_DAY = "primeiro"
    MONEY_JOIN = " e "
    EXTENSION = "extensão"
    ORDINAL = re.compile(r"(?P<num>\d+(?:\.\d{3})*)\.?(?:(?P<m>º|°|o|ᵒ)|(?P<f>ª|a|ᵃ))")
    MONTHS = _MONTHS
    MONTH_INDEX = {m: i for i, m in enumerate(_MONTHS, 1)} | {m[:3]: i for i, m in enumerate(_MONTHS, 1)} | {
        "marco": 3}
    SCALE_WORDS = _SCALE_WORDS

    def cardinal(self, n: int, form: str = "") -> str:
        return cardinal(n, form == "f")

    def ordinal(self, n: int, feminine: bool = False) -> str:
        if n <= 0 or n >= 10**6:
            return cardinal(n)
        return cldr.ordinal("pt", n, "feminine" if feminine else "masculine")

    def decimal(self, integer: str, fraction_digits: str, form: str = "") -> str:
        whole = cardinal(int(integer))
        return f"{whole} vírgula {self.digits(fraction_digits)}" if fraction_digits else whole

    def fraction(self, numerator: int, denominator: int) -> str:
        plural = "s" if numerator != 1 else ""
        if 2 <= denominator <= 10 or denominator in (100, 1000):  # 'meio', 'terço', then the ordinal
            name = {2: "meio", 3: "terço"}.get(denominator) or self.ordinal(denominator)
            return f"{cardinal(numerator)} {name}{plural}"
        return f"{cardinal(numerator)} {cardinal(denominator)} avos"  # 'um onze avos': avos stays plural

    def mixed_fraction(self, whole: int, numerator: int, denominator: int) -> str:
        half = (numerator, denominator) == (1, 2)  # 'dois e meio'
        return f"{cardinal(whole)} e {'meio' if half else self.fraction(numerator, denominator)}"

    def digit_run(self, run: str) -> str:
        """Up to six digits as a number, unless a zero leads; longer runs digit by digit."""
        return cardinal(int(run)) if len(run) <= 6 and not run.startswith("0") else self.digits(run)

    def time(self, head: str, rest: str) -> str | None:
        m = TIME.fullmatch(head)
        if m and (rest or m.group("s") == ":" or m.group("hm") is not None or head.endswith("h")):
            reading = _time(m, head, rest)
            if reading:
                return reading
        m = re.fullmatch(r"(\d{1,2})h", head) if not rest else None
        return _hours(int(m.group(1))) if m and int(m.group(1)) <= 24 else None


_RULES = Portuguese(
    {written: [one, many, written in _WORDS["feminine_currencies"], minor_one, minor_many]
     for written, (one, many, minor_one, minor_many) in _WORDS["currencies"].items()},
    short_units=frozenset(("g", "m", "l", "ml", "h", "s")),
    after=frozenset(),
    phone_regions=("BR", "PT"),
    connectors=frozenset(("de", "da", "do")),
    day_parts=frozenset(_DAY_PARTS),
    roman_after=frozenset(("século", "séculos", "capítulo", "volume", "tomo", "parte", "livro")),
    not_roman=frozenset(("mil", "di", "vi", "li", "ci", "cd", "dc", "cc", "cm", "mm", "ml", "xl", "mix", "civil",
                         "id", "vim", "dim")),
    extensions=frozenset(("ext", "ramal", "extensão")),
)
WORDS = _RULES.WORDS
number = _RULES.number
digits = _RULES.digits
SYMBOLS = _RULES.SYMBOLS
ADDRESS_SYMBOLS = _RULES.ADDRESS_SYMBOLS


def find_span(cur: Cursor, pos: int, ctx: Context) -> Span | None:
    span = numeric_spans.find_span(cur, pos, ctx, WORDS, _RULES.read)
    if span is not None and COUNT.fullmatch(raw := cur.text[pos:span.end]):
        noun = word_after(cur, span.end)  # a count agrees with its noun: 'duas pessoas', 'duzentas casas'
        if len(noun) > 2 and noun.isalpha() and is_feminine("pt", noun):
            span.info = cardinal(to_int(raw), feminine=True)
    return span


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
