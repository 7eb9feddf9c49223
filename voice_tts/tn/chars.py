"""Character classes of the streaming lexer (spec §3.3), without the third-party `regex` module."""

from __future__ import annotations

import unicodedata
from bisect import bisect_right

from voice_tts.tn.chinese import MEASURE_WORDS

# Extended_Pictographic (Unicode 15 emoji-data.txt) plus the emoji components that only make sense
# inside a sequence: ZWJ, VS16, keycap, skin tones, regional indicators, tag characters.
_EMOJI_RANGES: tuple[tuple[int, int], ...] = (
    (0x00A9, 0x00A9), (0x00AE, 0x00AE), (0x200D, 0x200D), (0x203C, 0x203C), (0x2049, 0x2049),
    (0x20E3, 0x20E3), (0x2122, 0x2122), (0x2139, 0x2139), (0x2194, 0x2199), (0x21A9, 0x21AA),
    (0x231A, 0x231B), (0x2328, 0x2328), (0x2388, 0x2388), (0x23CF, 0x23CF), (0x23E9, 0x23F3),
    (0x23F8, 0x23FA), (0x24C2, 0x24C2), (0x25AA, 0x25AB), (0x25B6, 0x25B6), (0x25C0, 0x25C0),
    (0x25FB, 0x25FE), (0x2600, 0x2605), (0x2607, 0x2612), (0x2614, 0x2685), (0x2690, 0x2705),
    (0x2708, 0x2712), (0x2714, 0x2714), (0x2716, 0x2716), (0x271D, 0x271D), (0x2721, 0x2721),
    (0x2728, 0x2728), (0x2733, 0x2734), (0x2744, 0x2744), (0x2747, 0x2747), (0x274C, 0x274C),
    (0x274E, 0x274E), (0x2753, 0x2755), (0x2757, 0x2757), (0x2763, 0x2767), (0x2795, 0x2797),
    (0x27A1, 0x27A1), (0x27B0, 0x27B0), (0x27BF, 0x27BF), (0x2934, 0x2935), (0x2B05, 0x2B07),
    (0x2B1B, 0x2B1C), (0x2B50, 0x2B50), (0x2B55, 0x2B55), (0x3030, 0x3030), (0x303D, 0x303D),
    (0x3297, 0x3297), (0x3299, 0x3299), (0xFE0F, 0xFE0F), (0x1F000, 0x1F0FF), (0x1F10D, 0x1F10F),
    (0x1F12F, 0x1F12F), (0x1F16C, 0x1F171), (0x1F17E, 0x1F17F), (0x1F18E, 0x1F18E),
    (0x1F191, 0x1F19A), (0x1F1AD, 0x1F1FF), (0x1F201, 0x1F20F), (0x1F21A, 0x1F21A),
    (0x1F22F, 0x1F22F), (0x1F232, 0x1F23A), (0x1F23C, 0x1F23F), (0x1F249, 0x1F3FF),
    (0x1F400, 0x1F53D), (0x1F546, 0x1F64F), (0x1F680, 0x1F6FF), (0x1F774, 0x1F77F),
    (0x1F7D5, 0x1F7FF), (0x1F80C, 0x1F80F), (0x1F848, 0x1F84F), (0x1F85A, 0x1F85F),
    (0x1F888, 0x1F88F), (0x1F8AE, 0x1F8FF), (0x1F90C, 0x1F93A), (0x1F93C, 0x1F945),
    (0x1F947, 0x1FAFF), (0x1FC00, 0x1FFFD), (0xE0020, 0xE007F),
)
_EMOJI_STARTS = [start for start, _ in _EMOJI_RANGES]

# Characters that sit between two alphanumerics inside one token (spec §3.3, class J), split by
# what may stand on either side.
JOIN_ANY = frozenset(".-–_@/&")
JOIN_LETTERS = frozenset("'’")
JOIN_DIGITS = frozenset(",:~×")
SUFFIX_SYMBOLS = frozenset("%‰°℃℉²³")
SIGNS = frozenset("-+−")
HARD_STOPS = frozenset("。！？；!?")
# Punctuation that never takes the lazy separator in front of it (§3.8).
CLOSING = frozenset(".,!?;:)]}…%’”。，、；：？！）」』》〉】")
OPENING_BRACKETS = frozenset("([{（「『《〈【“‘\"'")

# §3.4: Han characters that may follow a number and change its reading, with those of the
# measure words after which 2 is 两 (chinese.MEASURE_WORDS); 之 makes '2分之1' one fraction (二分之一).
ZH_SUFFIXES = frozenset(
    "年月日号时点分秒个只位名元块角毛万亿千百十度岁次楼层米克斤吨升倍成折人天周代后届期章节页条台辆张本件部首家所种之"
) | frozenset("".join(MEASURE_WORDS))


def is_emoji(c: str) -> bool:
    if not c:
        return False
    cp = ord(c)
    if cp < 0xA9:
        return False
    i = bisect_right(_EMOJI_STARTS, cp) - 1
    return i >= 0 and cp <= _EMOJI_RANGES[i][1]


def is_han(c: str) -> bool:
    """Han, kana and hangul: spoken as written, one character per span."""
    if not c:
        return False
    cp = ord(c)
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x3134F
        or 0xF900 <= cp <= 0xFAFF
        or cp == 0x3007
        or 0x3040 <= cp <= 0x30FF
        or 0xAC00 <= cp <= 0xD7AF
        or 0x1100 <= cp <= 0x11FF
        or 0x3130 <= cp <= 0x318F
    )


def is_kana(c: str) -> bool:
    """Hiragana and katakana (not the middle dot '・', which Chinese writes too)."""
    if not c:
        return False
    cp = ord(c)
    return (0x3041 <= cp <= 0x30FF and cp != 0x30FB) or 0x31F0 <= cp <= 0x31FF or 0xFF66 <= cp <= 0xFF9D


def is_hangul(c: str) -> bool:
    """Korean letters: spoken as written like Han, but Korean puts spaces between its words."""
    if not c:
        return False
    cp = ord(c)
    return 0xAC00 <= cp <= 0xD7AF or 0x1100 <= cp <= 0x11FF or 0x3130 <= cp <= 0x318F


def is_cjk_punct(c: str) -> bool:
    """Full-width punctuation: evidence that the sentence is Chinese (§3.6)."""
    if not c:
        return False
    cp = ord(c)
    return 0x3000 <= cp <= 0x303F or 0xFF01 <= cp <= 0xFF0F or 0xFF1A <= cp <= 0xFF20 or 0xFF5B <= cp <= 0xFF65


def is_unspaced(c: str) -> bool:
    """Chinese and Japanese characters and full-width punctuation: writing without spaces between
    words or sentences (Korean, whose words are spaced, is not)."""
    return (is_han(c) and not is_hangul(c)) or is_cjk_punct(c)


def is_digit(c: str) -> bool:
    return "0" <= c <= "9" or "０" <= c <= "９"


def is_letter(c: str) -> bool:
    """A character that belongs to a word: letters of any alphabetic script and their combining marks."""
    if c.isascii():
        return c.isalpha()
    if is_han(c) or is_emoji(c):
        return False
    return c.isalpha() or unicodedata.category(c) in ("Mn", "Mc")


def is_latin_letter(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or ("ａ" <= c <= "ｚ") or ("Ａ" <= c <= "Ｚ") or (
        "\u00c0" <= c <= "\u024f" and c.isalpha()
    )


def is_alnum(c: str) -> bool:
    return is_digit(c) or is_letter(c)


def is_space(c: str) -> bool:
    return c != "\n" and c.isspace()


def is_silent(c: str) -> bool:
    """Control, format, surrogate, private-use and unassigned code points: kept in raw, never spoken."""
    if c.isascii():
        return c < " " and c not in "\t\n\r" or c == "\x7f"
    return unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") or c == "\ufffd"


def is_spoken_alnum(c: str) -> bool:
    """Whether a spoken form starting with `c` takes the lazy separator."""
    return c.isalnum()


# Full-width digits, the minus sign and the en dash as ASCII: numbers, telephone country codes and
# address pieces are read from ASCII digits.
_ASCII = str.maketrans({cp: cp - 0xFEE0 for cp in range(0xFF10, 0xFF1A)} | {ord("−"): ord("-"), ord("–"): ord("-")})


def ascii_digits(text: str) -> str:
    return text.translate(_ASCII)
