"""Numbers grouped by ten thousand, and the number expressions Japanese and Korean write alike.

Japanese and Korean read numbers in myriads (万/億/兆, 만/억/조). `Numerals` reads them; `scan`
finds a number expression through the Cursor — a sign or a root, a currency before it, digits
with thousands commas and a decimal point, a clock time, a date or a fraction with slashes,
digit groups joined by hyphens or dots, a telephone number, and the percent sign, degree or unit
right after it — and hands its parts to the language module, which reads them. Both languages
write no space between a number and its counter, so a scan waits for the character after the
expression (a joiner, a unit, a counter may follow) and never for a word after a space.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from voice_tts.tn import cldr, lexer
from voice_tts.tn.chars import OPENING_BRACKETS, is_digit, is_han
from voice_tts.tn.context import Context
from voice_tts.tn.cursor import Cursor, TooLong

MINUS_SIGNS = frozenset("-−－")
TILDES = frozenset("~〜～")
_OPEN = frozenset("(（")
_CLOSE = frozenset(")）")
_LONGEST_UNIT = 5
_EXACT_FLOATS = 2**53


@dataclass(frozen=True, slots=True)
class Numerals:
    """One language's myriad numerals: CLDR's cardinal (`ruleset`), and the words around it."""

    lang: str
    ruleset: str  # ja spellout-cardinal, ko spellout-cardinal-sinokorean
    zero: str  # ja 零 where CLDR writes 〇
    large: str  # the names of 10^4, 10^8, 10^12: ja 万億兆 (CLDR's 京 is past what it reads exactly)
    one_thousand_before_large: bool  # ja 一千万 where CLDR writes 千万 (but 千 alone)
    point: str  # the decimal point: ja 三点六
    root: str  # √ before a number: ja ルート三
    fraction_of: str  # between the denominator and the numerator: ja 二分の一

    def cardinal(self, n: int) -> str:
        """CLDR's cardinal without the spaces Korean writes between myriads (만 일 → 만일); from
        2^53 on digit by digit (unicode-rbnf picks its rule by the number as a float)."""
        if n == 0 or n >= _EXACT_FLOATS:
            return self.digit_string(str(n))
        spoken = cldr.spell(self.lang, n, self.ruleset).replace(" ", "")
        if self.one_thousand_before_large:  # 千 that opens a group before 万/億/兆: 一千
            spoken = re.sub(f"(^|[{self.large}])千(?=[^{self.large}]*[{self.large}])", r"\1一千", spoken)
        return spoken

    def digit_string(self, text: str) -> str:
        """Digit by digit: '010' -> 零一零."""
        return "".join(self.zero if c == "0" else cldr.spell(self.lang, int(c), self.ruleset) for c in text
                       if c.isdecimal())

    def integer(self, text: str) -> str:
        """A written integer: leading zeros ('007') are read digit by digit."""
        text = text.replace(",", "")
        if len(text) > 1 and text[0] == "0" or len(text) > len(str(_EXACT_FLOATS)):
            return self.digit_string(text)
        return self.cardinal(int(text))

    def decimal(self, whole: str, fraction: str) -> str:
        return self.integer(whole) + self.point + self.digit_string(fraction)

    def rooted(self, root: bool) -> str:
        """The word for √ where the number after it is under a root, else nothing."""
        return self.root if root else ""

    def fraction(self, numerator: str, denominator: str, roots: tuple[bool, bool]) -> str:
        """Denominator first: '1/2' → 二分の一, '√1/2' → 二分のルート一, '1/√3' → ルート三分の一."""
        return (f"{self.rooted(roots[1])}{self.integer(denominator)}{self.fraction_of}"
                f"{self.rooted(roots[0])}{self.integer(numerator)}")

    def counted(self, text: str, following: str) -> str:
        """An integer before `following`: zero-padded before a counter ('09分', '05시') it is a
        number, not digits."""
        if len(text) == 2 and text[0] == "0" and is_han(following):
            return self.cardinal(int(text))
        return self.integer(text)


def phone_groups(digits: str, country: str, region: str) -> tuple[str, ...] | None:
    """The digit groups libphonenumber gives a number of `region` ('01012345678' → 010, 1234,
    5678), or None. Without a `country` code the number must start with the trunk prefix 0, as
    Japan and Korea write them."""
    if not country and not digits.startswith("0"):
        return None
    return cldr.phone_groups(f"+{country}{digits}" if country else digits, region)


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def numbers_in(text: str, numerals: Numerals, number_word: str) -> str:
    """A token with digits the neutral rules found ('A4', 'COVID-19', '#3'): its numbers read;
    '#' before a number is `number_word` after it (#3 → 三番)."""
    if text.startswith("#"):
        return numbers_in(text[1:].lstrip(), numerals, number_word) + number_word
    return _NUMBER.sub(lambda m: numerals.decimal(*m.group().split(".")) if "." in m.group() else numerals.integer(
        m.group()), text.replace("-", " "))


@dataclass(frozen=True, slots=True)
class Expression:
    """A number expression as written: its kind and its digit strings.

    kind: "integer" (parts: the digits, thousands commas removed), "decimal" (whole, fraction),
    "fraction" (numerator, denominator; `roots` says which is under √), "mixed" (whole,
    numerator, denominator), "time" (hours, minutes[, seconds]), "date" (year, month, day),
    "range" (first, last), "groups" (digit groups joined by hyphens or dots), "phone" (groups;
    `country` is the calling code after '+').
    """

    kind: str
    parts: tuple[str, ...]
    sign: str = ""  # "-" or "+"
    roots: tuple[bool, bool] = (False, False)
    currency: str = ""  # the symbol or code as written ("₩", "US$", "krw")
    scale: str = ""  # 万/億/兆 after an amount of money ("₩12억")
    suffix: str = ""  # "%", "°", "°C", a unit or unit/unit as written
    country: str = ""


@dataclass(frozen=True, slots=True)
class Writing:
    """What one language writes around its numbers."""

    currency_symbols: frozenset[str]
    currency_codes: frozenset[str]  # as written: "KRW", "krw", "US$"
    units: dict[str, str | None]  # symbol → name
    suffixes: dict[str, str]  # '%', '°C' → their words
    per: Callable[[str], str]  # the words for '/h' after a unit, from the symbol after the slash
    scales: frozenset[str]
    mixed_after_space: bool  # '1 1/2' is one mixed number (ja)

    def suffix(self, suffix: str) -> str:
        """The words for what is written right after a number: '%', a unit, a unit per unit ('km/h')."""
        if not suffix or suffix in self.suffixes:
            return self.suffixes.get(suffix, "")
        unit, _, per = suffix.partition("/")
        return self.units[unit] + (self.per(per) if per else "")


def sign_may_follow(prev: str) -> bool:
    """A minus is a sign at the start, after a space or bracket, and after CJK text."""
    return not prev or prev.isspace() or prev in OPENING_BRACKETS or prev == "=" or not (
        prev.isascii() and prev.isalnum()
    ) and not is_digit(prev)


def _is_ascii_letter(c: str) -> bool:
    return c.isascii() and c.isalpha()


def scan(cur: Cursor, pos: int, ctx: Context, writing: Writing) -> tuple[int, Expression] | None:
    """The number expression starting at `pos`, or None when none starts here."""
    c = cur.at(pos)
    if c == "+" or c in _OPEN:
        phone = _phone(cur, pos)
        if phone is not None:
            return phone
    sign, currency, i = "", "", pos
    if (c in MINUS_SIGNS or c == "+") and sign_may_follow(ctx.char_before(cur.text, pos)):
        n = cur.at(pos + 1)
        if not (is_digit(n) or n == "√" and is_digit(cur.at(pos + 2))):
            return None
        sign, i = ("+" if c == "+" else "-"), pos + 1
    elif c in writing.currency_symbols:
        i = pos + 1 + (cur.at(pos + 1) == " ")
        if not is_digit(cur.at(i)):
            return None
        currency = c
    elif c == "√":
        if not is_digit(cur.at(pos + 1)):
            return None
    elif not is_digit(c):
        return None
    return amount(cur, i, writing, sign=sign, currency=currency)


def currency_code(cur: Cursor, pos: int, writing: Writing) -> tuple[int, Expression] | None:
    """'KRW 30,000', 'US$ 1,234', 'krw 5000': a currency code, a space at most, then an amount."""
    j = pos
    while _is_ascii_letter(cur.at(j)):
        j += 1
        if j - pos > 3:
            return None
    if cur.at(j) == "$":
        j += 1
    code = cur.text[pos:j]
    if code not in writing.currency_codes:
        return None
    i = j + (cur.at(j) == " ")
    if not is_digit(cur.at(i)):
        return None
    return amount(cur, i, writing, currency=code)


def amount(cur: Cursor, i: int, writing: Writing, sign: str = "", currency: str = "") -> tuple[int, Expression]:
    """The expression whose digits (or root) start at `i`, with what follows it."""
    end, kind, parts, roots = _body(cur, i)
    scale = ""
    suffix = ""
    try:
        if writing.mixed_after_space and kind == "integer" and cur.at(end) == " " and is_digit(cur.at(end + 1)):
            after, second, fraction, second_roots = _body(cur, end + 1)
            if second == "fraction":
                end, kind, parts, roots = after, "mixed", (parts[0], *fraction), second_roots
        c = cur.at(end)
        if currency and c in writing.scales:
            scale, end = c, end + 1
        elif c in ("%", "％"):
            suffix, end = "%", end + 1
        elif c == "℃":
            suffix, end = "°C", end + 1
        elif c == "°":
            unit = cur.at(end + 1)
            suffix, end = ("°" + unit, end + 2) if unit in ("C", "F") else ("°", end + 1)
        elif _is_ascii_letter(c) and not currency:
            suffix, end = _unit(cur, end, writing)
        elif c == " " and _is_ascii_letter(cur.at(end + 1)) and not currency:  # '5 kg' as '5kg'
            unit, after = _unit(cur, end + 1, writing)
            if unit:
                suffix, end = unit, after
    except TooLong:
        pass
    return end, Expression(kind, parts, sign, roots, currency, scale, suffix)


def _unit(cur: Cursor, i: int, writing: Writing) -> tuple[str, int]:
    """A unit right after a number ('12kg', '60km/h'); ("", i) when the letters are no unit."""
    j = i
    while _is_ascii_letter(cur.at(j)):
        j += 1
        if j - i > _LONGEST_UNIT:
            return "", i
    unit = cur.text[i:j]
    if unit not in writing.units:
        return "", i
    if cur.at(j) == "/" and _is_ascii_letter(cur.at(j + 1)):
        k = j + 1
        while _is_ascii_letter(cur.at(k)):
            k += 1
            if k - j > _LONGEST_UNIT:
                return unit, j
        if cur.text[j + 1:k] in writing.units:
            return cur.text[i:k], k
    return unit, j


def _body(cur: Cursor, i: int) -> tuple[int, str, tuple[str, ...], tuple[bool, bool]]:
    text = cur.text
    root = cur.at(i) == "√"
    start = i + root
    a = lexer.digits_end(cur, start)
    whole = text[start:a]
    n = cur.at(a)
    if root:
        return _fraction(cur, a, whole, True) or (a, "integer", (whole,), (True, False))
    if n == ":" and a - start <= 2:
        return _time(cur, a, whole) or (a, "integer", (whole,), (False, False))
    if n == "/":
        found = _fraction(cur, a, whole, False)
        if found is not None:
            return found
    if n == ",":
        b = a
        while cur.at(b) == "," and all(is_digit(cur.at(b + k)) for k in (1, 2, 3)) and not is_digit(cur.at(b + 4)):
            b += 4
        if b > a:
            whole = text[start:b].replace(",", "")
            if cur.at(b) == "." and is_digit(cur.at(b + 1)):
                e = lexer.digits_end(cur, b + 1)
                return e, "decimal", (whole, text[b + 1:e]), (False, False)
            return b, "integer", (whole,), (False, False)
    groups, seps, e = [whole], [], a
    while (s := cur.at(e)) in ("-", ".") and is_digit(cur.at(e + 1)):
        f = lexer.digits_end(cur, e + 1)
        groups.append(text[e + 1:f])
        seps.append(s)
        e = f
    if len(groups) == 1:
        return a, "integer", (whole,), (False, False)
    if seps == ["."]:
        return e, "decimal", tuple(groups), (False, False)
    if seps == ["-"] and _is_range(*groups):
        return e, "range", tuple(groups), (False, False)
    if seps in (["-", "-"], [".", "."]) and len(groups[0]) == 4 and _is_month_day(groups[1], groups[2]):
        return e, "date", tuple(groups), (False, False)
    return e, "groups", tuple(groups), (False, False)


def _time(cur: Cursor, a: int, hours: str) -> tuple[int, str, tuple[str, ...], tuple[bool, bool]] | None:
    parts = [hours]
    e = a
    while len(parts) < 3 and cur.at(e) == ":" and is_digit(cur.at(e + 1)) and is_digit(cur.at(e + 2)):
        if is_digit(cur.at(e + 3)):
            break
        parts.append(cur.text[e + 1:e + 3])
        e += 3
    if len(parts) == 1 or int(hours) > 30 or any(int(p) > 59 for p in parts[1:]):
        return None
    return e, "time", tuple(parts), (False, False)


def _fraction(cur: Cursor, a: int, first: str, root_first: bool):
    """'1/2', '√1/2', '1/√3', and dates 'Y/M/D', 'D/M/Y', 'M/D/Y'."""
    if cur.at(a) != "/":
        return None
    k = a + 1
    root_second = cur.at(k) == "√"
    k += root_second
    if not is_digit(cur.at(k)):
        return None
    b = lexer.digits_end(cur, k)
    second = cur.text[k:b]
    if not (root_first or root_second) and cur.at(b) == "/" and is_digit(cur.at(b + 1)):
        e = lexer.digits_end(cur, b + 1)
        date = _date(first, second, cur.text[b + 1:e])
        if date is not None:
            return e, "date", date, (False, False)
        return b, "fraction", (first, second), (False, False)
    return b, "fraction", (first, second), (root_first, root_second)


def _is_range(first: str, last: str) -> bool:
    """'2020-2030', '10-20': a range; '555-1234', '02-123' are digit groups."""
    if first[0] == "0" or last[0] == "0" or (len(first), len(last)) == (3, 4):
        return False
    return len(first) <= len(last) <= 4 and int(first) < int(last)


def _is_month_day(month: str, day: str) -> bool:
    return 1 <= int(month) <= 12 and 1 <= int(day) <= 31


def _date(a: str, b: str, c: str) -> tuple[str, str, str] | None:
    """(year, month, day) of a date written with slashes, in whichever order it is written."""
    if len(a) == 4 and _is_month_day(b, c):
        return a, b, c
    if len(c) in (2, 4):
        if _is_month_day(b, a) and int(a) > 12:
            return c, b, a
        if _is_month_day(a, b):
            return c, a, b
    return None


def _phone(cur: Cursor, pos: int) -> tuple[int, Expression] | None:
    """'+82 010-1234-5678', '+1 (123)-123-5678', '(800) 555-0000': groups after a calling code
    or an area code in brackets."""
    text = cur.text
    country, i = "", pos
    if cur.at(i) == "+":
        j = lexer.digits_end(cur, i + 1)
        if not 1 <= j - i - 1 <= 3:
            return None
        country, i = text[i + 1:j], j
        if cur.at(i) in (" ", "-"):
            i += 1
    groups = []
    if cur.at(i) in _OPEN:
        j = lexer.digits_end(cur, i + 1)
        if not 2 <= j - i - 1 <= 4 or cur.at(j) not in _CLOSE:
            return None
        groups.append(text[i + 1:j])
        i = j + 1
        if cur.at(i) in (" ", "-"):
            i += 1
    elif not country:
        return None
    while True:
        j = lexer.digits_end(cur, i)
        if j == i:
            return None
        groups.append(text[i:j])
        if cur.at(j) in ("-", ".", " ") and is_digit(cur.at(j + 1)) and len(groups) < 4:
            i = j + 1
            continue
        break
    if len(groups) + bool(country) < 3:
        return None
    return j, Expression("phone", tuple(groups), country=country)


def weekdays(cur: Cursor, pos: int, days: dict[str, str], joiners: dict[str, str]) -> tuple[int, str] | None:
    """'(土)', '(月・祝)', '(수〜일)': weekdays in brackets after a date, and their reading."""
    if cur.at(pos) not in _OPEN:
        return None
    words, i = [], pos + 1
    while True:
        day = cur.at(i)
        if day not in days:
            return None
        words.append(days[day])
        c = cur.at(i + 1)
        if c in _CLOSE:
            return i + 2, "".join(words)
        if c not in joiners:
            return None
        words.append(joiners[c])
        i += 2


def tilde_range(cur: Cursor, pos: int) -> bool:
    """A tilde between two things ('3〜5日', '10月中旬〜11月上旬') reads 'from … to'; one before
    a space or the end is decoration."""
    n = cur.at(pos + 1)
    return bool(n) and not n.isspace() and (n.isalnum() or is_digit(n))
