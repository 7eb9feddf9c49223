"""Token scanners (spec §3.3). Each returns where its token ends, reading through the Cursor.

A token is open while it touches the end of the buffer or ends in a joiner with nothing after it,
so every scanner waits (NeedMore) for the character that closes it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from contextlib import suppress

from voice_tts.tn.chars import JOIN_ANY, JOIN_DIGITS, JOIN_LETTERS, SUFFIX_SYMBOLS
from voice_tts.tn.chars import is_alnum, is_digit, is_emoji, is_letter, is_silent, is_space
from voice_tts.tn.cursor import Cursor, TooLong

# Spec §3.3 class J: a token ending in one of these is open until the next character arrives.
JOINERS = frozenset(".,:/-–_@+#%~～〜=?&^'’×")
URL_STOP = frozenset("<>\"'`|{}^\\")
URL_TRAILING = frozenset(".,;:!?)")


def is_currency(c: str) -> bool:
    return bool(c) and not c.isascii() and unicodedata.category(c) == "Sc" or c == "$"


_ASCII_ALNUM_RUN = re.compile(r"[A-Za-z0-9]+")
# A running pace, minutes and seconds per a unit: '3'24"/km', '4:12/km', '4:12 min/mi', '3:23/км', '3'27"/公里'.
# A North American number with its area code in brackets, after a calling code or not: '+1 (415) 555-0100'.
BRACKETED_PHONE = re.compile(r"(?:\+\d{1,3}[ -]?)?\(\d{3}\)[ -]?\d{3}[- ]\d{4}")
_PHONE_MARKS = frozenset("+()- ")
PACE = re.compile(r"(\d{1,2})[:'’′]([0-5]\d)(?:[\"″]| ?min)?/(km|mi|км|公里)(?![A-Za-zа-я])")


def chunk(cur: Cursor, i: int) -> int:
    """An alphanumeric run with inner joiners: 'Qwen3-TTS-1.7B', '12.5%', 'john.doe@x.org'."""
    while True:
        if run := _ASCII_ALNUM_RUN.match(cur.text, i, min(cur.end, cur.limit)):
            i = run.end()
        c = cur.at(i)
        if is_alnum(c):
            i += 1
            continue
        prev = cur.text[i - 1] if i > 0 else ""
        if c and c in "²³" and is_letter(prev):  # 'm²'
            return i + 1
        if c in SUFFIX_SYMBOLS and is_digit(prev):
            return i + 1 + (c == "°" and cur.at(i + 1) in ("C", "F"))  # '5 °C' with its scale
        # A joiner keeps the token open until the next character shows whether it joins, except
        # one that joins only digits after a letter ('Sure,' ',' joins digits only) or only letters
        # after a digit: that closes the token now, so the word is committed with the delta that
        # brought the punctuation. The others (URL-like '?', '=', '#') wait as spec §3.3 says.
        cannot_join = (c in JOIN_DIGITS and not is_digit(prev)) or (c in JOIN_LETTERS and not is_letter(prev))
        if c in JOINERS and not cannot_join:
            n = cur.at(i + 1)
            if c in JOIN_ANY and is_alnum(n) or c in JOIN_LETTERS and is_letter(prev) and is_letter(n) or (
                    c in JOIN_DIGITS and is_digit(prev) and is_digit(n)):
                i += 2
                continue
        return i


def chunk_after(cur: Cursor, end: int, first: Callable[[str], bool]) -> tuple[str, int] | None:
    """The chunk that spaces after `end` lead to, and its end, when its first character passes
    `first`; None when no space comes first, the character fails, or the tail bound is reached."""
    with suppress(TooLong):
        j = spaces(cur, end)
        if j > end and first(cur.at(j)):
            m = chunk(cur, j)
            return cur.text[j:m], m
    return None


def spaces(cur: Cursor, i: int) -> int:
    """Spaces and tabs (not newlines) starting at `i`, waiting to see what follows them."""
    return run(cur, i, is_space)


def run(cur: Cursor, i: int, accept: Callable[[str], bool], most: int | None = None) -> int:
    """The end of the characters `accept` takes from `i` on, waiting to see what follows them;
    after `most` of them it stops without looking further."""
    start = i
    while (most is None or i - start < most) and accept(cur.at(i)):
        i += 1
    return i


def word_at(cur: Cursor, i: int, words: Iterable[str]) -> str:
    """The first of `words` written at `i`, or ''."""
    return next((w for w in words if cur.startswith(i, w)), "")


def pace(cur: Cursor, i: int) -> re.Match | None:
    """A running pace at `i`: minutes and seconds per a unit after a slash ('3'27"/公里')."""
    with suppress(TooLong):
        if cur.at(digits_end(cur, i, 3)) in (":", "'", "’", "′"):  # no wait after other numbers ('12人'), nor CJK words
            return PACE.match(cur.text, i, run(cur, i, lambda c: c.isalnum() and c <= "ӿ" or c in ":'’′\"″/公里", 16))
    return None


def digits_end(cur: Cursor, i: int, most: int | None = None) -> int:
    """The end of the digits starting at `i` (at most `most`), waiting to see what follows them."""
    return run(cur, i, is_digit, most)


def digit_groups_end(cur: Cursor, j: int) -> int:
    """Digit groups separated by single spaces, hyphens or slashes (one between spaces too: '089 / 12 34 56-0'), from a
    separator at `j`."""
    end = j
    with suppress(TooLong):
        while (
            cur.at(end) in (" ", "-", "/")
            and is_digit(cur.at(group := end + (3 if cur.startswith(end, " / ") else 1)))
        ):
            k = digits_end(cur, group)
            if is_letter(cur.at(k)):
                return end
            end = k
    return end


def greedy(cur: Cursor, i: int, accept) -> int:
    """A run that is complete in itself: takes what is present now and never waits."""
    while (c := cur.peek(i)) and accept(c):
        i += 1
    return i


def is_dropped(c: str) -> bool:
    """Silent code points; spaces and emoji are classified first, so a run never swallows them."""
    return is_silent(c) and not is_emoji(c) and not c.isspace()


def scheme_url_end(cur: Cursor, i: int, schemes: tuple[str, ...]) -> int | None:
    """The end of a URL that starts at `i` with one of `schemes` ('https://', 'www.'), else None."""
    return next((url_end(cur, i + len(s)) for s in schemes if cur.startswith(i, s, fold=True)), None)


def url_end(cur: Cursor, i: int) -> int:
    """A URL body ends at whitespace, CJK, or trailing `.,;:!?)` followed by a space or the end."""
    depth = 0
    while True:
        c = cur.at(i)
        if not c or not is_url_char(c):
            return i
        if c == ")" and depth > 0:
            depth -= 1
        elif c in URL_TRAILING:
            n = cur.at(i + 1)
            if not n or n.isspace() or n in URL_TRAILING or _is_cjk(n) or c == ")":
                return i
        elif c == "(":
            depth += 1
        i += 1


def is_url_char(c: str) -> bool:
    return not c.isspace() and c not in URL_STOP and (c.isascii() or c.isalnum()) and not _is_cjk(c)


def _is_cjk(c: str) -> bool:
    cp = ord(c)
    return 0x2E80 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF or 0xFF00 <= cp <= 0xFFEF or cp >= 0x20000


def phone_end(cur: Cursor, i: int) -> int | None:
    """'+1 (415) 555-0100' or '(415) 555-0100': the bracket would otherwise split the number."""
    found = BRACKETED_PHONE.match(cur.text, i, run(cur, i, lambda c: is_digit(c) or c in _PHONE_MARKS, 24))
    return found.end() if found and not is_alnum(cur.at(found.end())) else None
