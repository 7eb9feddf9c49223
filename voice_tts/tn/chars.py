"""Character classes of the streaming lexer (spec §3.3), without the third-party `regex` module."""

from __future__ import annotations

import unicodedata
from bisect import bisect_right

from voice_tts.tn.locales import data

# Extended_Pictographic (Unicode 15 emoji-data.txt) plus the emoji components that only make sense
# inside a sequence: ZWJ, VS16, keycap, skin tones, regional indicators, tag characters; as data
# (emoji_ranges.json, written as emoji-data.txt writes ranges: '2194..2199').
_EMOJI_RANGES = tuple(tuple(int(cp, 16) for cp in r.split("..")) for r in data("emoji_ranges.json", "voice_tts.tn"))
_EMOJI_STARTS = [start for start, _ in _EMOJI_RANGES]

# Characters that sit between two alphanumerics inside one token (spec §3.3, class J), split by
# what may stand on either side.
JOIN_ANY = frozenset(".-–_@/&")
JOIN_LETTERS = frozenset("'’")
JOIN_DIGITS = frozenset(",:~～〜×")
SUFFIX_SYMBOLS = frozenset("%‰°℃℉²³")
SIGNS = frozenset("-+−")
HARD_STOPS = frozenset("。！？；!?")
# Punctuation that never takes the lazy separator in front of it (§3.8).
CLOSING = frozenset(".,!?;:)]}…%’”。，、；：？！）」』》〉】")
OPENING_BRACKETS = frozenset("([{（「『《〈【“‘\"'")

# §3.4: Han characters that may follow a number and change its reading (zh_words.json), and the measure words' (两).
_ZH_WORDS = data("zh_words.json", "voice_tts.tn")
ZH_SUFFIXES = frozenset(_ZH_WORDS["number_suffixes"]) | frozenset("".join(_ZH_WORDS["measure_words"]))


def is_emoji(c: str) -> bool:
    cp = ord(c or "\0")
    if cp < 0xA9:
        return False
    i = bisect_right(_EMOJI_STARTS, cp) - 1
    return i >= 0 and cp <= _EMOJI_RANGES[i][1]


def is_han(c: str) -> bool:
    """Han, kana and hangul: spoken as written, one character per span."""
    cp = ord(c or "\0")
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x3134F
        or 0xF900 <= cp <= 0xFAFF
        or cp in (0x3005, 0x3007)  # '々' repeats the Han character before it ('月々'); '〇'
        or 0x3040 <= cp <= 0x30FF
        or is_hangul(c)
    )


def is_kana(c: str) -> bool:
    """Hiragana and katakana (not the middle dot '・', which Chinese writes too)."""
    cp = ord(c or "\0")
    return (0x3041 <= cp <= 0x30FF and cp != 0x30FB) or 0x31F0 <= cp <= 0x31FF or 0xFF66 <= cp <= 0xFF9D


def is_hangul(c: str) -> bool:
    """Korean letters: spoken as written like Han, but Korean puts spaces between its words."""
    cp = ord(c or "\0")
    return 0xAC00 <= cp <= 0xD7AF or 0x1100 <= cp <= 0x11FF or 0x3130 <= cp <= 0x318F


def is_cjk_punct(c: str) -> bool:
    """Full-width punctuation: evidence that the sentence is Chinese (§3.6)."""
    cp = ord(c or "\0")
    return 0x3000 <= cp <= 0x303F or 0xFF01 <= cp <= 0xFF0F or 0xFF1A <= cp <= 0xFF20 or 0xFF5B <= cp <= 0xFF65


def is_unspaced(c: str, marks: bool = True) -> bool:
    """Chinese and Japanese characters and, with `marks`, full-width punctuation: writing without spaces between
    words or sentences (Korean, whose words are spaced, is not)."""
    return (is_han(c) and not is_hangul(c)) or marks and is_cjk_punct(c)


def is_digit(c: str) -> bool:
    return "0" <= c <= "9" or "０" <= c <= "９"


def is_letter(c: str) -> bool:
    """A character that belongs to a word: letters of any alphabetic script and their combining marks."""
    if c.isascii():
        return c.isalpha()
    return not (is_han(c) or is_emoji(c)) and (c.isalpha() or unicodedata.category(c) in ("Mn", "Mc"))


def is_latin_letter(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or ("ａ" <= c <= "ｚ") or ("Ａ" <= c <= "Ｚ") or (
        "\u00c0" <= c <= "\u024f" and c.isalpha()
    )


def is_alnum(c: str) -> bool:
    return is_digit(c) or is_letter(c)


def is_space(c: str) -> bool:
    return c != "\n" and c.isspace()


def sign_may_follow(prev: str) -> bool:
    """A minus or plus is a sign after the start, a space, an opening bracket, '=', ':', '/', CJK or a mark other than
    '°' ('20°-25°' is a range)."""
    return not prev or prev.isspace() or prev in OPENING_BRACKETS or prev in "=:/" or is_han(prev) or not (
        prev.isascii() or is_alnum(prev) or prev == "°")


def is_silent(c: str) -> bool:
    """Control, format, surrogate, private-use and unassigned code points: kept in raw, never spoken."""
    if c.isascii():
        return c < " " and c not in "\t\n\r" or c == "\x7f"
    return unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") or c == "\ufffd"


# Full-width digits, the minus sign and the en dash as ASCII: numbers, telephone country codes and
# address pieces are read from ASCII digits.
_ASCII = str.maketrans({cp: cp - 0xFEE0 for cp in range(0xFF10, 0xFF1A)} | {ord("−"): ord("-"), ord("–"): ord("-")})


def ascii_digits(text: str) -> str:
    return text.translate(_ASCII)
