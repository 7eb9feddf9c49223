"""Chinese readings written by hand, and the guards around wetext's zh output (spec §2.2)."""

from __future__ import annotations

import re

_DIGITS = "零一二三四五六七八九"
_SMALL_UNITS = ("", "十", "百", "千")
_BIG_UNITS = ("", "万", "亿", "万亿")


def digits(text: str) -> str:
    """Digit by digit: '163' -> '一六三'; a decimal point reads 点."""
    return "".join(_DIGITS[int(c)] if c.isdecimal() else "点" if c == "." else "" for c in text)


def _below_10000(n: int) -> str:
    out, zero = "", False
    for power in (3, 2, 1, 0):
        d = (n // 10**power) % 10
        if d == 0:
            zero = bool(out)
            continue
        if zero:
            out += "零"
            zero = False
        out += _DIGITS[d] + _SMALL_UNITS[power]
    return out


def cardinal(n: int) -> str:
    """3 -> 三, 11 -> 十一, 105 -> 一百零五, 20000 -> 两万 is left to wetext; here 二万 is acceptable."""
    if n == 0:
        return "零"
    if n >= 10**16:
        return digits(str(n))
    groups = []
    while n:
        groups.append(n % 10000)
        n //= 10000
    out, need_zero = "", False
    for index in range(len(groups) - 1, -1, -1):
        g = groups[index]
        if g == 0:
            need_zero = bool(out)
            continue
        if out and (need_zero or g < 1000):
            out += "零"
        out += _below_10000(g) + _BIG_UNITS[index]
        need_zero = False
    if out.startswith("一十"):
        out = out[1:]
    return out


def number(text: str) -> str:
    whole, _, frac = text.partition(".")
    head = digits(whole) if len(whole) > 1 and whole.startswith("0") else cardinal(int(whole or 0))
    return f"{head}点{digits(frac)}" if frac else head


_AM_PM = re.compile(r"(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>am|pm|a\.m\.?|p\.m\.?)", re.IGNORECASE)


def clock_with_period(text: str) -> str | None:
    """'3pm' -> 下午三点, '10:30am' -> 上午十点三十分."""
    m = _AM_PM.fullmatch(text)
    if m is None or int(m.group("h")) > 12:
        return None
    period = "上午" if m.group("ap")[0].lower() == "a" else "下午"
    spoken = cardinal(int(m.group("h"))) + "点"
    if m.group("m") and int(m.group("m")):
        spoken += cardinal(int(m.group("m"))) + "分"
    return period + spoken


_VERSION = re.compile(r"(?P<v>[vV])(?P<parts>\d+(?:\.\d+)+)")


def version(text: str) -> str | None:
    """'v0.2.1' -> v零点二点一."""
    m = _VERSION.fullmatch(text)
    if m is None:
        return None
    return m.group("v") + "点".join(number(p) for p in m.group("parts").split("."))


_ID_PART = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+", re.UNICODE)


def identifier(text: str) -> str:
    """'Qwen3-TTS-1.7B' -> 'Qwen三 TTS 一点七B': joiners become spaces, letter/digit runs touch."""
    parts = []
    for chunk in re.split(r"[-–_/]+", text):
        pieces = _ID_PART.findall(chunk)
        parts.append("".join(number(p) if p[0].isdecimal() else p for p in pieces))
    return " ".join(p for p in parts if p)


def fix_wetext(source: str, spoken: str) -> str | None:
    """Checks wetext's zh output for its class; None when the output must not be used."""
    if re.fullmatch(r"[-+]?\d+\.\d+", source) and ("月" in spoken or "日" in spoken):
        return None
    if re.search(r"[0-9]", spoken):
        return None
    return spoken.replace("月两日", "月二日")


_DECIMAL = re.compile(r"[-+]?\d+(?:\.\d+)?")


def plain(text: str) -> str | None:
    """A bare integer or decimal read without wetext (used when wetext's output fails a guard)."""
    if _DECIMAL.fullmatch(text) is None:
        return None
    sign = "负" if text.startswith("-") else ""
    return sign + number(text.lstrip("+-"))


# --- fast paths for the commonest classes (same readings as wetext, without an FST call) ------

_DATE = re.compile(r"(?P<y>\d{4})年(?:(?P<m>\d{1,2})月(?:(?P<d>\d{1,2})(?P<day>[日号]))?)?")
_PERCENT = re.compile(r"(?P<num>\d+(?:\.\d+)?)[%％]")
_MOBILE = re.compile(r"1[3-9]\d{9}")


def date(text: str) -> str | None:
    """'2026年3月4日' -> 二零二六年三月四日 (years digit by digit, month and day as numbers)."""
    m = _DATE.fullmatch(text)
    if m is None:
        return None
    spoken = digits(m.group("y")) + "年"
    if m.group("m"):
        if not 1 <= int(m.group("m")) <= 12:
            return None
        spoken += cardinal(int(m.group("m"))) + "月"
        if m.group("d"):
            if not 1 <= int(m.group("d")) <= 31:
                return None
            spoken += cardinal(int(m.group("d"))) + m.group("day")
    return spoken


def percent(text: str) -> str | None:
    m = _PERCENT.fullmatch(text)
    return "百分之" + number(m.group("num")) if m else None


def mobile(text: str) -> str | None:
    """Mobile numbers digit by digit, 1 read as 幺."""
    return digits(text).replace("一", "幺") if _MOBILE.fullmatch(text) else None
