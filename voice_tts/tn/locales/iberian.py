"""How Spanish and Portuguese read the spans `numeric_spans` finds: one reader for both languages.

The two languages write and read numbers the same way: an amount with its currency before or
after it ("R$ 12,05", "5,50 €"), a count of hours, a date with "de" between its parts, an
ordinal with its ending ("21.ª", "1º"), a range, a fraction, a telephone number digit by digit.
`Reading` reads those shapes with the words and forms its subclass gives (`cardinal` in the
form the counted noun needs: "" alone, "un" before a masculine noun, "f" before a feminine one).
"""

from __future__ import annotations

import re

from voice_tts.tn import cldr
from voice_tts.tn.locales import abbreviations, words
from voice_tts.tn.locales.noun_gender import is_feminine
from voice_tts.tn.locales.numeric_spans import (
    DATE,
    GROUPED,
    IP,
    NUM,
    PHONE,
    SpanWords,
    date_parts,
    local_amount,
    read_pieces,
    roman_value,
    split_amount,
    to_int,
)

_DAY_MONTH_SLASH = re.compile(r"(\d{2})/(\d{2})")  # '05/06'; '5/6' is a fraction
_PERCENT_RANGE = re.compile(r"(\d+)[-–](\d+) ?%")
# A count of hours (the time words join the number's span).
_HOURS = re.compile(rf"({NUM}) (horas?)")
_DAY_MONTH = re.compile(r"(?P<d>\d{1,2}) (?:de )?(?P<month>[a-zç]+)\.?(?: (?P<c>de|del)? ?(?P<y>\d{1,4}))?")
_RANGE = re.compile(r"(?P<a>\d{1,4})[-–](?P<b>\d{1,4})")
_FRACTION = re.compile(r"(?P<sign>-?)(?:(?P<whole>\d+) )?(?P<n>\d+)/(?P<d>[\d.]+)")
_PIECE = re.compile(r"\d+|[^\W\d_]+|\S")
# A count: digits, their thousands grouped or not ('1.251').
COUNT = re.compile(r"\d{1,3}(?:\.\d{3})+|\d+")
TIME = re.compile(r"(?P<h>\d{1,2})(?:(?P<s>[:.])(?P<m>\d{2})(?:(?P=s)(?P<sec>\d{2}))?|h(?P<hm>\d{2})(?:m(?:\d{2}s)?)?)")
_MEASURE = re.compile(rf"(?P<sign>[-+−]?)(?P<num>\d+ \d+/\d+|\d+/\d+|{NUM})\s?(?P<unit>.*)")


class Reading:
    """The words of Spanish or Portuguese; the shapes they read are shared (this class)."""

    code = ""
    PLUS = ""
    PERCENT = ""
    FIRST_DAY = ""  # the first of the month: 'primero de enero'
    MONEY_JOIN = " "  # between the main and the minor unit ('doze reais e cinco centavos')
    EXTENSION = ""  # a telephone number's extension
    GLUED_CODES = False  # a currency code may touch its amount ('nio21,1', '5usd')
    ORDINAL: re.Pattern[str]
    MONTHS: tuple[str, ...] = ()
    MONTH_INDEX: dict[str, int] = {}
    WEEKDAYS: dict[str, str] = {}
    ERAS: dict[str, str] = {}
    ABBREVIATIONS: dict[str, str] = {}
    SCALE_WORDS: tuple[str, ...] = ()
    # Units the language names itself, written → (one, many, feminine); the others come from CLDR.
    UNITS: dict[str, tuple[str, str, bool]] = {}
    PER: dict[str, str] = {}  # the unit after 'por' ('/h' por hora)
    DEGREES: dict[str, tuple[str, str]] = {}  # '°C', '°' (no scale: key "")
    SYMBOLS: dict[str, str] = {}
    ADDRESS_SYMBOLS: dict[str, str] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        """A language's word tables (`<code>_words.json`) become its attributes by name ("per"
        PER), its `<code>_abbreviations.json` ABBREVIATIONS; a unit's gender, where its table
        gives none, is its noun's."""
        super().__init_subclass__(**kwargs)
        for name, table in words(cls.code).items():
            if name in ("weekdays", "eras", "per", "degrees", "symbols", "address_symbols", "units"):
                setattr(cls, name.upper(), {k: v if isinstance(v, str) else tuple(v) for k, v in table.items()})
        cls.UNITS = {k: v if len(v) == 3 else (*v, is_feminine(cls.code, v[0].split()[0])) for k, v in cls.UNITS.items()}
        cls.ABBREVIATIONS = abbreviations(cls.code)

    def __init__(self, currencies: dict[str, list], short_units: frozenset[str], after: frozenset[str],
                 **span_words) -> None:
        """`currencies`: the language's table, written → [one, many, feminine, minor one, minor
        many]; every other ISO 4217 code and symbol is named by CLDR ('3 kr' → 'tres coronas suecas').
        `short_units`: CLDR's symbols of a letter or two that join the number before them ('5 g');
        `after` and `span_words`: the language's other words of `SpanWords`."""
        self.CURRENCIES = {k: tuple(v) for k, v in currencies.items()}
        for written, code in cldr.currency_symbols(self.code).items():
            if written not in self.CURRENCIES:
                one, many = cldr.currency_name(self.code, code, 1), cldr.currency_name(self.code, code, 2)
                self.CURRENCIES[written] = (one, many, is_feminine(self.code, one.split()[0]), "centavo", "centavos")
        self.CURRENCY_SYMBOLS = tuple(sorted((c for c in self.CURRENCIES if not c.isalpha()), key=len, reverse=True))
        self.DIGITS = tuple(self.cardinal(d) for d in range(10))
        before = frozenset(c for c in self.CURRENCIES if c.isalpha() or c.endswith("$"))
        self.WORDS = SpanWords(
            after=frozenset(self.UNITS) | short_units | cldr.folded_unit_symbols(self.code) | before
            | frozenset(self.SCALE_WORDS) | after | {"horas", "hora"},
            minus="menos",
            months=frozenset(self.MONTH_INDEX),
            weekdays=frozenset(self.WEEKDAYS),
            eras=frozenset(self.ERAS),
            before=before,
            abbreviations=dict(sorted(self.ABBREVIATIONS.items(), key=lambda kv: -len(kv[0]))),
            **span_words,
        )

    # --- words a subclass gives ---------------------------------------------------------------

    def cardinal(self, n: int, form: str = "") -> str:
        raise NotImplementedError

    def ordinal(self, n: int, feminine: bool = False) -> str:
        raise NotImplementedError

    def written_ordinal(self, m: re.Match[str]) -> str:
        """An ORDINAL match read aloud."""
        return self.ordinal(to_int(m.group("num")), feminine=bool(m.group("f")))

    def decimal(self, integer: str, fraction_digits: str, form: str = "") -> str:
        raise NotImplementedError

    def fraction(self, numerator: int, denominator: int) -> str:
        raise NotImplementedError

    def mixed_fraction(self, whole: int, numerator: int, denominator: int) -> str:
        raise NotImplementedError

    def time(self, head: str, rest: str) -> str | None:
        """A time of day ('14:30', '7 a.m.', '14h'); `rest`: the words after its first one."""
        raise NotImplementedError

    def measured_fraction(self, num: str, one: str, many: str, feminine: bool) -> str | None:
        """'1 1/2 tazas': a fraction before a unit, or None where the language leaves it."""
        return None

    def digit_run(self, run: str) -> str:
        """A run of digits no other reading took."""
        raise NotImplementedError

    # --- shared readings ----------------------------------------------------------------------

    def digits(self, text: str) -> str:
        return " ".join(self.DIGITS[int(c)] for c in text if c.isdecimal())

    def amount(self, num: str, form: str) -> str:
        """A number as _MEASURE writes it: '2,5', '1.000', '1/2' ('1/2 %' medio por ciento), '2 1/2'."""
        if "/" in num:
            whole, _, written = num.rpartition(" ")
            n, d = (int(x) for x in written.split("/"))
            return self.mixed_fraction(int(whole), n, d) if whole else self.fraction(n, d)
        integer, fraction_digits = split_amount(num)
        return self.decimal(integer, fraction_digits, form) if fraction_digits else self.cardinal(int(integer), form)

    def date(self, day: int, month: int, year: int | None, of: str = "de") -> str:
        reading = f"{self.FIRST_DAY if day == 1 else self.cardinal(day)} de {self.MONTHS[month - 1]}"
        return reading if year is None else f"{reading} {of} {self.cardinal(year)}"

    def read(self, raw: str, kind: str) -> str:
        """A span of `kind` (numeric_spans.find_span) read aloud."""
        if kind == "address":
            return read_pieces(raw, self.ADDRESS_SYMBOLS, lambda d: self.DIGITS[int(d)])
        if kind == "abbreviation":  # capitalized where it was written with a capital ('Sr.' → 'Señor')
            reading = self.ABBREVIATIONS[raw.lower()]
            return " ".join(w[0].upper() + w[1:] for w in reading.split()) if raw[0].isupper() else reading
        if kind in ("roman", "roman_feminine"):  # 'Isabel segunda'
            return self.ordinal(roman_value(raw), feminine=kind == "roman_feminine")
        if kind == "counted_roman":  # after 'siglo': the number, then its era ('siglo x ec' → 'diez era común')
            numeral, *era = raw.split()
            reading = self.cardinal(roman_value(numeral))
            return f"{reading} {self.ERAS[era[0].lower()]}" if era else reading
        if kind == "phone":
            return self.phone(raw)
        if kind == "date":  # 'junio 11 2000', 'abr. 22', 'vier. 10 de mayo'
            words = raw.lower().replace(".", " ").split()
            if words[0] in self.WEEKDAYS:
                return self.WEEKDAYS[words[0]] + " " + self.number(" ".join(raw.split()[1:]))
            return self.date(int(words[1]), self.MONTH_INDEX[words[0]], int(words[2]) if len(words) > 2 else None)
        return self.number(raw)

    def number(self, raw: str) -> str:
        text = " ".join(raw.split()).lower()
        return (self.ABBREVIATIONS.get(text) or self.money(text) or self.special(text) or self.measure(text)
                or self.fallback(text)).strip()

    def special(self, text: str) -> str | None:
        """Shapes read as a whole: ordinals, dates, times, phone numbers, ranges, fractions."""
        head, _, rest = text.partition(" ")
        m = _DAY_MONTH_SLASH.fullmatch(text)
        if m and 1 <= int(m.group(1)) <= 31 and 1 <= int(m.group(2)) <= 12:
            return self.date(int(m.group(1)), int(m.group(2)), None)
        m = _PERCENT_RANGE.fullmatch(text)
        if m:  # '2-3 %'
            return f"{self.cardinal(int(m.group(1)))} a {self.cardinal(int(m.group(2)))} {self.PERCENT}"
        m = _HOURS.fullmatch(text)
        if m:  # 'una hora', 'duas horas'
            return f"{self.amount(m.group(1), 'f')} {m.group(2)}"
        m = self.ORDINAL.fullmatch(text)
        if m:
            return self.written_ordinal(m)
        m = DATE.fullmatch(text)
        if m and (parts := date_parts(m)):
            return self.date(*parts)
        if IP.fullmatch(text) and not GROUPED.fullmatch(text):
            return f" {self.ADDRESS_SYMBOLS['.']} ".join(self.digits(p) for p in text.split("."))
        reading = self.time(head, rest)
        if reading:
            return reading
        if PHONE.fullmatch(text):
            return self.phone(text)
        m = _DAY_MONTH.fullmatch(text)
        if m and m.group("month") in self.MONTH_INDEX:
            year = int(m.group("y")) if m.group("y") else None
            return self.date(int(m.group("d")), self.MONTH_INDEX[m.group("month")], year, m.group("c") or "de")
        m = _RANGE.fullmatch(text)
        if m:
            return f"{self.cardinal(int(m.group('a')))} a {self.cardinal(int(m.group('b')))}"
        m = _FRACTION.fullmatch(text)
        if m:
            n, d = int(m.group("n")), to_int(m.group("d"))
            whole = m.group("whole")
            reading = self.mixed_fraction(int(whole), n, d) if whole else self.fraction(n, d)
            return ("menos " if m.group("sign") else "") + reading
        return None

    def money(self, text: str) -> str | None:
        if text[:1] in "-−":  # '-120,40 €'
            amount = self.money(text[1:].lstrip())
            return None if amount is None else "menos " + amount
        code, rest = self.split_currency(text)
        if code is None:
            return None
        rest = local_amount(rest, not text.endswith(code))
        one, many, feminine, minor_one, minor_many = self.CURRENCIES[code]
        m = re.fullmatch(rf"(?P<amount>{NUM})(?: (?P<scale>{'|'.join(self.SCALE_WORDS)}))?", rest)
        if not m:
            return None
        integer, fraction_digits = split_amount(m.group("amount"))
        form = "f" if feminine else "un"
        if m.group("scale"):
            scale = m.group("scale")
            return f"{self.amount(m.group('amount'), 'un')} {scale} {'' if scale == 'mil' else 'de '}{many}"
        if len(fraction_digits) > 2:
            return f"{self.decimal(integer, fraction_digits, form)} {many}"
        major = int(integer)
        cents = int((fraction_digits + "00")[:2]) if fraction_digits else 0
        if not cents and major >= 10**6 and major % 10**6 == 0:  # 'un millón de dólares'
            return f"{self.cardinal(major, 'un')} de {many}"
        parts = []
        if major or not cents:
            parts.append(f"{self.cardinal(major, form)} {one if major == 1 else many}")
        if cents:
            parts.append(f"{self.cardinal(cents, 'un')} {minor_one if cents == 1 else minor_many}")
        return self.MONEY_JOIN.join(parts)

    def measure(self, text: str) -> str | None:
        """'5 kg', '2,5 %', '-3 °C', '60 km/h', '1 1/2 tazas'."""
        m = _MEASURE.fullmatch(text)
        if not m:
            return None
        sign = {"-": "menos ", "−": "menos ", "+": f"{self.PLUS} "}.get(m.group("sign"), "")
        num, unit = m.group("num"), m.group("unit").strip()
        if unit in ("%", "‰"):
            return sign + self.amount(num, "") + (f" {self.PERCENT}" if unit == "%" else " por mil")
        if unit.startswith("°"):
            one, many = self.DEGREES.get(unit[1:].strip(), self.DEGREES[""])
            return sign + self.amount(num, "un") + " " + (one if num == "1" else many)
        if unit in self.SCALE_WORDS:
            return sign + self.amount(num, "un") + " " + unit
        if unit.startswith("/") and unit[1:] in self.PER:
            return f"{sign}{self.amount(num, '')} por {self.PER[unit[1:]]}"
        per = ""
        if "/" in unit and unit not in self.UNITS:  # 'km/h' kilómetros por hora
            unit, _, per_unit = unit.partition("/")
            if per_unit not in self.PER:
                return None
            per = f" por {self.PER[per_unit]}"
        names = self.unit(unit)
        if names is None:
            return None if unit else sign + self.amount(num, "")
        one, many, feminine = names
        if "/" in num:
            reading = self.measured_fraction(num, one, many, feminine)
            return None if reading is None else sign + reading + per
        integer, fraction_digits = split_amount(num)
        plural = fraction_digits or int(integer) != 1
        return f"{sign}{self.amount(num, 'f' if feminine else 'un')} {many if plural else one}{per}"

    def unit(self, symbol: str) -> tuple[str, str, bool] | None:
        """A unit's names and gender: the language's, else CLDR's ('cm²' centímetros cuadrados)."""
        if symbol in self.UNITS:
            return self.UNITS[symbol]
        names = cldr.unit_names(self.code, symbol)
        return None if names is None else (*names, is_feminine(self.code, names[0].split()[0]))

    def phone(self, raw: str) -> str:
        """A telephone number digit by digit ('+55 (11) 3333-4444'); after a word of the
        language's extensions ('ext.') the extension."""
        text = raw.lower().replace("(", " ").replace(")", " ")
        words = []
        m = re.match(r"\s*\+(\d+)", text)
        if m:
            words.append(f"{self.PLUS} {self.country_code(m.group(1))}")
            text = text[m.end():]
        for piece in re.split(r"[\s+-]+", text):
            if piece.rstrip(".") in self.WORDS.extensions:
                words.append(self.EXTENSION)
            elif piece:
                words.append(self.digits(piece) if piece.isdecimal() else piece)
        return " ".join(words)

    def country_code(self, code: str) -> str:
        return self.digits(code)

    def split_currency(self, text: str) -> tuple[str | None, str]:
        """The currency written before or after the amount, and the rest; a symbol may touch the
        amount, and where GLUED_CODES a code too."""
        for symbol in self.CURRENCY_SYMBOLS:
            if text.startswith(symbol):
                return symbol, text[len(symbol):].strip()
            if text.endswith(symbol):
                return symbol, text[: -len(symbol)].strip()
        head, _, rest = text.partition(" ")
        letters = head.rstrip("0123456789,.")
        if self.GLUED_CODES and letters in self.CURRENCIES and letters != head:
            return letters, head[len(letters):] + (" " + rest if rest else "")
        if head in self.CURRENCIES and rest:
            return head, rest
        tail = text.rsplit(" ", 1)
        if len(tail) == 2 and tail[1] in self.CURRENCIES:
            return tail[1], tail[0]
        m = re.fullmatch(r"([\d.,]+)([a-z]+)", text) if self.GLUED_CODES else None
        if m and m.group(2) in self.CURRENCIES:
            return m.group(2), m.group(1)
        return None, text

    def fallback(self, text: str) -> str:
        """What no other reading took: digit runs as numbers, words as written, symbols by name
        ('a-5' → 'a cinco', '0-800-hermano'); other marks are dropped."""
        return read_pieces(text, self.SYMBOLS, self.digit_run, pieces=_PIECE)
