"""Where a written number, date, amount, measure, phone number, address or abbreviation ends, in a
language that writes numbers the European way ("25,50", "10.000", "1 000"): the span finder of
Russian, and the shapes of written numbers the other readers share.

Each language names its words (`SpanWords`) and reads the span it gets (`reader`); this module only
decides how far a span reaches, through the Cursor, so a span decided on a prefix is the span
decided on the whole text. A number waits for the token after it while that token may still be a
unit, a currency, a scale word, a month or a time of day ("3" · "3 k" · "3 kg"); the tail bound
(TooLong) ends the wait with the number alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from voice_tts.tn import electronic, english, lexer
from voice_tts.tn.chars import OPENING_BRACKETS, SIGNS, is_alnum, is_digit, is_letter
from voice_tts.tn.cldr import VULGAR_FRACTIONS, vulgar_fraction
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor, TooLong
from voice_tts.tn.locales import locale_span

# Top-level domains of the addresses the European languages' agents read out, besides electronic.TLDS.
TLDS = electronic.TLDS | {"es", "pt", "br", "mx", "ar", "cl", "me", "su", "рф", "gob", "gov", "at", "be", "lu", "it",
                          "pl", "se", "no", "dk", "fi", "cz", "shop", "sm", "va", "mc"}
_EMAIL = re.compile(r"@?[\w.+&-]*\w@[\w-]+(?:\.[\w-]+)+|@\w[\w.-]*")
_DOMAIN = re.compile(r"[\w-]+(?:\.[\w-]+)+(?:/\S*)?")
_GROUP = re.compile(r"\d{3}(?!\d)")
_FRACTION = re.compile(r"\d+/\d+")
_ZONE = re.compile(r"([^\W\d_]+)(?:[-+]\d{1,2})?")
_ROMAN = re.compile(r"(?=[MDCLXVI])M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})", re.IGNORECASE)
# Spaces inside a grouped number: a space, a no-break space, a narrow no-break space.
GROUP_SPACES = frozenset(" \u00a0\u202f")


@dataclass(frozen=True)
class SpanWords:
    """The words of one language that change how far a span reaches (all lower-case)."""

    # Words that join the number before them: units, currencies, scale words, "h", time zones.
    after: frozenset[str]
    # Of those, the abbreviations whose period belongs to them ("a.m.", "руб.").
    dotted: frozenset[str] = frozenset()
    # Month names and their abbreviations, without periods.
    months: frozenset[str] = frozenset()
    # Currency codes and words written before the amount ("usd 5", "usd21").
    before: frozenset[str] = frozenset()
    # Written abbreviations with their periods and spaces ("ee. uu.") → their reading.
    abbreviations: dict[str, str] = field(default_factory=dict)
    # Words after which a Roman numeral is read ("siglo xix"), and what follows it ("ec").
    roman_after: frozenset[str] = frozenset()
    # Lower-case words that spell a Roman numeral but are words ("mi", "di").
    not_roman: frozenset[str] = frozenset()


Reader = Callable[[str, str], str]


def find_span(cur: Cursor, pos: int, ctx: Context, words: SpanWords, read: Reader) -> Span | None:
    """The span that starts at `pos`, read by `read(raw, kind)`, or None for the neutral rules.

    Kinds: "number" (a number with what joined it), "phone", "address", "abbreviation",
    "date" (a date that starts with a month), "roman", "counted_roman" (a Roman numeral after a
    word such as 'век')."""
    c = cur.at(pos)
    prev = ctx.char_before(cur.text, pos)
    if is_alnum(prev):
        return None
    if c in VULGAR_FRACTIONS or is_digit(c) and cur.at(lexer.digits_end(cur, pos)) in VULGAR_FRACTIONS:
        return _vulgar_fraction(cur, pos, ctx, read)
    if is_digit(c):
        return _span(cur, pos, _number(cur, pos, pos, words), "number", ctx, read)
    n = cur.at(pos + 1) if c in SIGNS or c in "(@" or lexer.is_currency(c) else ""
    if c == "+" and is_digit(n) and _sign_may_follow(prev):
        return _span(cur, pos, _phone(cur, pos), "phone", ctx, read)
    if c == "(" and is_digit(n):
        end = _phone(cur, pos)
        return _span(cur, pos, end, "phone", ctx, read) if end is not None else None
    if c in SIGNS and is_digit(n) and _sign_may_follow(prev):
        return _span(cur, pos, _number(cur, pos, pos + 1, words), "number", ctx, read)
    if lexer.is_currency(c):
        body = pos + 2 if n == " " else pos + 1
        if is_digit(cur.at(body)):
            return _span(cur, pos, _number(cur, pos, body, words), "number", ctx, read)
        return None
    if c == "@" and is_alnum(n):
        end = lexer.chunk(cur, pos + 1)
        return _span(cur, pos, end, "address", ctx, read)
    if is_letter(c):
        return _word(cur, pos, ctx, words, read)
    return None


def _vulgar_fraction(cur: Cursor, pos: int, ctx: Context, read: Reader) -> Span:
    """'⅖', '2½': read as the fraction written with digits ('2/5', '2 1/2')."""
    end = lexer.digits_end(cur, pos)
    numerator, denominator = vulgar_fraction(cur.at(end))
    whole = cur.text[pos:end]
    written = f"{whole} {numerator}/{denominator}" if whole else f"{numerator}/{denominator}"
    return locale_span(end + 1, read(written, "number"), ctx.default_lang)


def _span(cur: Cursor, pos: int, end: int | None, kind: str, ctx: Context, read: Reader) -> Span | None:
    if end is None:
        return None
    return locale_span(end, read(cur.text[pos:end], kind), ctx.default_lang)


def word_after(cur: Cursor, end: int) -> str:
    """What follows a span after its spaces: the next word in lower case, a punctuation mark, or
    "" at the end of the line. Past the tail bound it counts as a mark."""
    try:
        j = lexer.spaces(cur, end)
        if not is_letter(cur.at(j)):
            return "" if cur.at(j) in ("", "\n") else cur.at(j)
        k = j
        while is_letter(cur.at(k)):
            k += 1
        return cur.text[j:k].lower()
    except TooLong:
        return "…"


def _sign_may_follow(prev: str) -> bool:
    return not prev or prev.isspace() or prev in OPENING_BRACKETS or prev in "=:"


# --- numbers ----------------------------------------------------------------------------------

def _number(cur: Cursor, pos: int, body: int, words: SpanWords) -> int:
    end = lexer.chunk(cur, body)
    token = cur.text[body:end]
    try:
        if token.isdecimal() and len(token) <= 3:
            end = _groups(cur, end)
        return _window(cur, pos, end, words)
    except TooLong:
        return end


def _groups(cur: Cursor, end: int) -> int:
    """'1 000 000': groups of three digits after single spaces belong to the number."""
    while cur.at(end) in GROUP_SPACES:
        for k in range(1, 4):
            if not is_digit(cur.at(end + k)):
                return end
        m = lexer.chunk(cur, end + 1)
        if not _GROUP.match(cur.text, end + 1, m):
            return end
        if m - end - 1 > 3:  # '1 000,5' or '1 001.ᵉʳ': the last group, with what it carries
            return m
        end = m
    return end


def _window(cur: Cursor, pos: int, end: int, words: SpanWords) -> int:
    """Units, currencies, scale words, months, times of day and mixed fractions after a number."""
    integer = cur.text[pos:end].lstrip("+-−").isdecimal()
    day = integer and len(cur.text[pos:end]) <= 2
    if cur.text[end - 1] == "°":  # the token took the degree sign: '-8° c'
        return _degree(cur, end - 1)
    while True:
        c = cur.at(end)
        if c in ("%", "‰") or lexer.is_currency(c):
            return end + 1
        if c == "°":
            return _degree(cur, end)
        j = lexer.spaces(cur, end)
        if j == end:
            if c == "/" and is_letter(cur.at(end + 1)):  # '1/кг'
                m = lexer.chunk(cur, end + 1)
                return m if cur.text[end + 1:m].lower() in words.after else end
            return end
        c = cur.at(j)
        if c in ("%", "‰") or (lexer.is_currency(c) and not is_digit(cur.at(j + 1))):
            return j + 1
        if c == "°":
            return _degree(cur, j)
        if is_digit(c):
            m = lexer.chunk(cur, j)
            if integer and _FRACTION.fullmatch(cur.text, j, m):  # '3 3/5'
                end = m
                integer = day = False
                continue
            return end
        if not is_letter(c):
            return end
        m = lexer.chunk(cur, j)
        word = cur.text[j:m].lower()
        zone = _ZONE.fullmatch(word)
        if "/" in word and all(part in words.after for part in word.split("/")):  # 'км/ч'
            end = m
            integer = day = False
            continue
        if word in words.after or (zone and zone.group(1) in words.after):
            end = m + 1 if word in words.dotted and cur.at(m) == "." and not _ends_sentence(cur, m, words) else m
            integer = day = False
            continue
        if word in words.months and day:
            end = _month_year(cur, m, words)
            integer = day = False
            continue
        return end


def _ends_sentence(cur: Cursor, period: int, words: SpanWords) -> bool:
    """A period after an abbreviation closes the sentence when the end or a capital follows,
    unless the capital starts a word that joins the amount ('долл. США')."""
    j = lexer.spaces(cur, period + 1)
    nxt = cur.at(j)
    if nxt and nxt.isupper() and j > period + 1:
        return cur.text[j:lexer.chunk(cur, j)].lower() not in words.after
    return not nxt or nxt.isupper() or nxt == "\n"


def _degree(cur: Cursor, i: int) -> int:
    """'°', '° c', '°C': the scale letter joins when it is a word of one letter."""
    j = lexer.spaces(cur, i + 1)
    if cur.at(j) and cur.at(j).lower() in "cfk" and not is_alnum(cur.at(j + 1)):
        return j + 1
    return i + 1


def _next_word(cur: Cursor, i: int) -> tuple[int, int, str] | None:
    j = lexer.spaces(cur, i)
    if j == i or not is_alnum(cur.at(j)):
        return None
    m = lexer.chunk(cur, j)
    return j, m, cur.text[j:m].lower()


def _month_year(cur: Cursor, m: int, words: SpanWords) -> int:
    """After a month name: its period, then a year ('2020')."""
    if cur.at(m) == ".":
        if not _month_period(cur, m, words):
            return m
        m += 1
    nxt = _next_word(cur, m)
    return nxt[1] if nxt is not None and _is_year(nxt[2]) else m


def _month_period(cur: Cursor, period: int, words: SpanWords) -> bool:
    """Whether the period after a month name belongs to it ('3 abr. de 2020', '3 апр. 2024'). One
    that ends the sentence stays punctuation, so the sentence end is heard ('llega el 3 de mayo.'),
    and so does one before a number that is no year ('1 января. 3 мая')."""
    if _ends_sentence(cur, period, words):
        return False
    nxt = _next_word(cur, period + 1)
    return nxt is None or not nxt[2].isdecimal() or len(nxt[2]) == 4


def _is_year(word: str) -> bool:
    return word.isdecimal() and len(word) <= 4


# --- phone numbers ----------------------------------------------------------------------------

def _phone(cur: Cursor, pos: int) -> int | None:
    """'+7 495 123-45-67', '+1 (123) 123-5678'; None: not a phone."""
    j = pos
    try:
        if cur.at(j) == "+":
            j = lexer.digits_end(cur, j + 1)
        groups = 0
        while True:
            k = j + 1 if cur.at(j) in " -" and j > pos else j
            if cur.at(k) == "(":
                m = lexer.digits_end(cur, k + 1)
                if m == k + 1 or cur.at(m) != ")":
                    break
                j = m + 1
            elif is_digit(cur.at(k)):
                m = lexer.chunk(cur, k)
                if not all(p.isdecimal() for p in cur.text[k:m].split("-")):
                    break
                j = m
            else:
                break
            groups += 1
        if cur.text[pos] == "(" and groups < 2:
            return None
        return j
    except TooLong:
        return j if j > pos + 1 else None


# --- words ------------------------------------------------------------------------------------

def _word(cur: Cursor, pos: int, ctx: Context, words: SpanWords, read: Reader) -> Span | None:
    end = lexer.chunk(cur, pos)
    word = cur.text[pos:end]
    low = word.lower()
    if low in ("http", "https") and cur.startswith(end, "://"):
        return _span(cur, pos, lexer.url_end(cur, end), "address", ctx, read)
    if is_address(word):
        return _span(cur, pos, end, "address", ctx, read)
    if cur.at(end) in "&-_.+" and cur.at(end) and is_letter(c := cur.at(pos)) and c.isascii():
        run = _address_run(cur, end)  # 'b3_c&-d@x.com': joiners that do not join words
        if run is not None:
            return _span(cur, pos, run, "address", ctx, read)
    for written in words.abbreviations:
        if written.startswith(low) and written[len(low):len(low) + 1] in (".", " ", "") and cur.startswith(
            pos, written, fold=True
        ):
            after = pos + len(written)
            if not is_letter(cur.at(after)):
                return _span(cur, pos, after, "abbreviation", ctx, read)
    try:
        if low in words.before:
            j = lexer.spaces(cur, end)
            if is_digit(cur.at(j)):
                return _span(cur, pos, _number(cur, pos, j, words), "number", ctx, read)
            return None
        if low.rstrip("0123456789,.") in words.before and any(ch.isdigit() for ch in low):  # 'nio21,1'
            head = len(low.rstrip("0123456789,."))
            return _span(cur, pos, _number(cur, pos, pos + head, words), "number", ctx, read)
        if is_roman(word, ctx.prev_word, words):
            if ctx.prev_word.lower() in words.roman_after:
                return _span(cur, pos, end, "counted_roman", ctx, read)
            return _span(cur, pos, end, "roman", ctx, read)
    except TooLong:
        return None
    return None


def _address_run(cur: Cursor, end: int) -> int | None:
    """Where an email address that continues past `end` ends, or None if it is no address."""
    try:
        i = end
        while (c := cur.at(i)) and lexer.is_url_char(c) and c not in ",;!?()":
            i += 1
    except TooLong:
        return None
    while cur.text[i - 1] in ".:":
        i -= 1
    return i if "@" in cur.text[end:i] and is_address(cur.text[cur.text.rfind(" ", 0, end) + 1:i]) else None


def is_address(word: str) -> bool:
    if "@" in word:
        return _EMAIL.fullmatch(word) is not None
    if word.lower().startswith("www."):
        return True
    return _DOMAIN.fullmatch(word) is not None and word.split("/")[0].rsplit(".", 1)[1].lower() in TLDS and any(
        ch.isalpha() for ch in word
    )


def is_roman(word: str, prev_word: str, words: SpanWords) -> bool:
    """Upper-case numerals ('XIX', 'V'; not 'I', 'C', 'D', 'L', 'M' alone); lower-case ones of two
    letters or more that are not words, or any after a word such as 'siglo'."""
    if not _ROMAN.fullmatch(word):
        return False
    if prev_word.lower() in words.roman_after:
        return True
    if word.isupper():
        return len(word) > 1 or word in "VX"
    return word.islower() and len(word) > 1 and word not in words.not_roman


def roman_value(word: str) -> int:
    """The value of a numeral `is_roman` accepted, in either case."""
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
        if piece.isdecimal():
            out.append(digits(piece))
        elif piece.isalpha():
            out.append(letters(piece))
        elif piece in symbols:
            out.append(symbols[piece])
    return " ".join(out)


# --- shapes of written numbers, shared by the readers -----------------------------------------

# An amount: groups of three after dots or spaces, a comma before the decimals ('1.000.000', '5,50').
NUM = r"\d+(?:[.\s\u00a0\u202f]\d{3})*(?:,\d+)?|,\d+"
DATE = re.compile(r"(?P<a>\d{1,4})(?P<s>[/.-])(?P<b>\d{1,2})(?P=s)(?P<c>\d{1,4})")
PHONE = re.compile(r"\d+(?:-\d+){2,}|\d{4,5}-\d{4}")
IP = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
GROUPED = re.compile(r"\d{1,3}(?:\.\d{3})+")


def to_int(text: str) -> int:
    return int(re.sub(r"\D", "", text) or "0")


# An amount after a currency symbol written the English way: '$829,522.80', '€1,345,402'. One
# comma alone ('$2,200') is the language's decimal comma, as these languages write it.
_ENGLISH_CENTS = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+)\.(\d{2})")
_ENGLISH_GROUPS = re.compile(r"\d{1,3}(?:,\d{3}){2,}")


def english_amount(text: str) -> tuple[str, str | None] | None:
    """(whole, cents) of an amount written the English way, else None."""
    if m := _ENGLISH_CENTS.fullmatch(text):
        return m.group(1).replace(",", ""), m.group(2)
    if _ENGLISH_GROUPS.fullmatch(text):
        return text.replace(",", ""), None
    return None


def local_amount(text: str, currency_first: bool) -> str:
    """An amount after a currency symbol in the English way ('1,250.50', '2342.65') in the
    decimal-comma way ('1250,50', '2342,65'); anything else as it is."""
    amount = english_amount(text) if currency_first else None
    if amount is None:
        return text
    whole, cents = amount
    return whole + ("," + cents if cents else "")


def split_amount(text: str) -> tuple[str, str]:
    """'1.000.000' → ('1000000', ''); '5.002,132' → ('5002', '132'); ',5' → ('0', '5')."""
    integer, _, fraction = text.partition(",")
    return re.sub(r"\D", "", integer) or "0", fraction


def date_parts(m: re.Match) -> tuple[int, int, int] | None:
    """(day, month, year) of a DATE match: year first, day first, or month first where the day
    could not be a month ('03/15/2024'); None when it is no date."""
    a, b, c = int(m.group("a")), int(m.group("b")), int(m.group("c"))
    if len(m.group("a")) == 4:
        year, month, day = a, b, c
    elif len(m.group("c")) >= 3 or m.group("s") == "/":
        day, month, year = (b, a, c) if b > 12 >= a else (a, b, c)
    else:
        return None
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return day, month, year
