"""Shapes of written numbers that the languages writing numbers the European way ("25,50",
"10.000", "1 000") share: amounts, dates, telephone numbers, IP addresses, Roman numerals, email
addresses and domains, and the piece-by-piece reading of an address.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from voice_tts.tn import electronic, english, lexer
from voice_tts.tn.chars import is_letter
from voice_tts.tn.cursor import Cursor, TooLong

TLDS = electronic.TLDS | electronic.EUROPEAN_TLDS
_EMAIL = re.compile(r"@?[\w.+&-]*\w@[\w-]+(?:\.[\w-]+)+|@\w[\w.-]*")
_DOMAIN = re.compile(r"[\w-]+(?:\.[\w-]+)+(?:/\S*)?")
# A Roman numeral before one closes a quoted title ('«Il Gladiatore II»'): a sequel's number, a cardinal, no ruler's.
CLOSING_QUOTES = frozenset("»“”\"’")
GROUP_SPACES = frozenset(" \u00a0\u202f")


def word_after(cur: Cursor, end: int) -> str:
    """What follows a span after its spaces: the next word in lower case, a punctuation mark, or
    "" at the end of the line. Past the tail bound it counts as a mark."""
    try:
        j = lexer.spaces(cur, end)
        if not is_letter(cur.at(j)):
            return "" if cur.at(j) in ("", "\n") else cur.at(j)
        return cur.text[j:lexer.run(cur, j, is_letter)].lower()
    except TooLong:
        return "…"


def is_address(word: str) -> bool:
    """An email address, a handle or a domain of a known top-level domain, in any script ('ivan@почта.рф')."""
    if "@" in word:
        return _EMAIL.fullmatch(word) is not None
    if word.lower().startswith("www."):
        return True
    return _DOMAIN.fullmatch(word) is not None and word.split("/")[0].rsplit(".", 1)[1].lower() in TLDS and any(
        ch.isalpha() for ch in word)


def roman_value(word: str) -> int:
    """The value of a Roman numeral in either case, else 0."""
    return english.roman_value(word.upper()) or 0


# --- readings shared by the languages ---------------------------------------------------------

_ADDRESS_PIECE = re.compile(r"\d|[^\W\d_]+|.", re.DOTALL)


def read_pieces(raw: str, symbols: dict[str, str], digits: Callable[[str], str], letters: Callable[[str], str] = str,
                pieces: re.Pattern[str] = _ADDRESS_PIECE) -> str:
    """Text read piece by piece: words as they are (or spelled by `letters`), digits by `digits`
    (of an address each on its own: 'a1b2@abc.com' → 'a uno b dos arroba abc punto com'),
    symbols by name; other marks are dropped."""
    out = []
    for piece in pieces.findall(raw):
        if piece[:1].isdecimal():  # a number, also one with a decimal comma ('1,02') where `pieces` finds one
            out.append(digits(piece))
        elif piece.isalpha():
            out.append(letters(piece))
        elif piece in symbols:
            out.append(symbols[piece])
    return " ".join(out)


# --- shapes of written numbers, shared by the readers -----------------------------------------

DATE = re.compile(r"(?P<a>\d{1,4})(?P<s>[/.-])(?P<b>\d{1,2})(?P=s)(?P<c>\d{1,4})")
# and a Brazilian CEP; not years
PHONE = re.compile(r"\d+(?:-\d+){2,}|(?!(?:1[89]|20)\d\d-(?:1[89]|20)\d\d)\d{4,5}-\d{4}|\d{5}-\d{3}")
IP = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
# CPF '123.456.789-09', RG, CNPJ '12.345.678/0001-90'; Chile's RUT
IDENTITY = re.compile(r"\d{1,3}(?:\.\d{3})+(?:/\d{4})?-\d\d?")
GROUPED = re.compile(r"\d{1,3}(?:\.\d{3})+")


def to_int(text: str) -> int:
    return int(re.sub(r"\D", "", text) or "0")


# An amount after a currency symbol written the English way: '$829,522.80', '€1,345,402'. One
# comma alone ('$2,200') is the language's decimal comma, as these languages write it.
_ENGLISH_CENTS = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+)\.(\d{2})")
_ENGLISH_GROUPS = re.compile(r"\d{1,3}(?:,\d{3}){2,}")


def english_amount(text: str) -> tuple[str, str | None] | None:
    """(whole, cents) of an amount written the English way, else None."""
    return (
        (m.group(1).replace(",", ""), m.group(2))
        if (m := _ENGLISH_CENTS.fullmatch(text))
        else ((text.replace(",", ""), None) if _ENGLISH_GROUPS.fullmatch(text) else None)
    )


def date_parts(m: re.Match, short_year_separators: str = "") -> tuple[int, int, int] | None:
    """(day, month, year) of a DATE match: year first, day first, or month first where the day
    could not be a month ('03/15/2024'); 'дд.мм.гг' with one of `short_year_separators` ('31.01.06'; not '1.12.05', a
    version); None when it is no date."""
    a, b, c = int(m.group("a")), int(m.group("b")), int(m.group("c"))
    if len(m.group("a")) == 4:
        year, month, day = a, b, c
    elif len(m.group("c")) >= 3 or m.group("s") == "/":
        day, month, year = (b, a, c) if b > 12 >= a else (a, b, c)
    elif m.group("s") in short_year_separators and len(m.group("a")) == len(m.group("b")) == len(m.group("c")) == 2:
        day, month, year = a, b, c
    else:
        return None
    return (day, month, year) if 1 <= month <= 12 and 1 <= day <= 31 else None
