"""Japanese: numbers read in kanji numerals, grouped by 万/億/兆, as the voice reads them.

Counters, dates (年/月/日), times (時/分) and ordinals (第…, …番目) are written in kanji around
the digits, so the digits alone become numerals: 2024年 → 二千二十四年, 第1 → 第一. Written
forms that carry no kanji of their own are read out: decimals (三点六), fractions (二分の一),
clock times (十時三十分), dates with slashes (二千二十四年一月三十日), weekdays in brackets
(土曜日), ranges with a tilde (から), percent, units, money, telephone numbers.
"""

from __future__ import annotations

from voice_tts.tn import lexer, units
from voice_tts.tn.chars import is_digit
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor
from voice_tts.tn.locales import locale_span, myriad

NUMERALS = myriad.Numerals(
    lang="ja",
    ruleset="spellout-cardinal",
    zero="零",
    large="万億兆",
    one_thousand_before_large=True,
    point="点",
    root="ルート",
    fraction_of="分の",
)
_CURRENCIES = {
    "¥": "円", "￥": "円", "JPY": "円", "$": "ドル", "＄": "ドル", "US$": "ドル", "USD": "ドル", "€": "ユーロ",
    "EUR": "ユーロ", "£": "ポンド", "GBP": "ポンド", "₩": "ウォン", "KRW": "ウォン", "元": "元", "CNY": "元",
}
# Currencies whose amounts are read in a major and a minor unit ('$12.50' → 十二ドル五十セント).
_MINOR_UNITS = {"ドル": "セント", "ユーロ": "セント", "ポンド": "ペンス"}
UNITS = units.names(("km", "m", "cm", "mm", "kg", "g", "mg", "t", "L", "l", "mL", "ml", "h", "min", "s", "ms", "W",
                     "kW", "Hz", "kHz", "MHz", "GHz", "KB", "MB", "GB", "TB", "V", "A", "N", "cal", "kcal", "ha"), "ja")
_WEEKDAYS = {"月": "月曜日", "火": "火曜日", "水": "水曜日", "木": "木曜日", "金": "金曜日", "土": "土曜日",
             "日": "日曜日", "祝": "祝日"}
_WEEKDAY_JOINERS = {"・": "", "、": "", "〜": "から", "～": "から", "~": "から"}
_WRITING = myriad.Writing(
    currency_symbols=frozenset(c for c in _CURRENCIES if len(c) == 1 and not c.isalnum()),
    currency_codes=frozenset(c for c in _CURRENCIES if c.isascii() and len(c) > 1),
    units=UNITS,
    suffixes={"%": "パーセント", "°": "度", "°C": "度", "°F": "華氏度"},
    per=lambda unit: "毎" + ("時" if unit == "h" else UNITS[unit]),  # 'per hour' is 毎時, not 毎時間
    scales=frozenset("万億兆"),
    mixed_after_space=True,
)
SYMBOLS = {"〒": "郵便番号", "&": "アンド", "+": "プラス", "=": "イコール", "×": "かける", "÷": "わる", "≠": "ノットイコール",
           "%": "パーセント", "〜": "から", "～": "から"}
ADDRESS_SYMBOLS = {".": "ドット", "/": "スラッシュ", "@": "アットマーク", "?": "クエスチョン", "=": "イコール",
                   "&": "アンド", "-": "ハイフン", "_": "アンダーバー", ":": "コロン", "#": "シャープ",
                   "%": "パーセント", "~": "チルダ", "+": "プラス"}


# The eras a year is abbreviated by ('R.4' 令和四年), with their last year.
_ERAS = {"M": ("明治", 45), "T": ("大正", 15), "S": ("昭和", 64), "H": ("平成", 31), "R": ("令和", 99)}


def _era_year(cur: Cursor, pos: int, ctx: Context) -> Span | None:
    """'R.4' 令和四年, 'H.30年' 平成三十年, 'R.1' 令和元年; not 'H.264' nor a letter inside a word."""
    era = _ERAS.get(cur.at(pos))
    prev = ctx.char_before(cur.text, pos)
    if era is None or (prev.isascii() and prev.isalnum()) or cur.at(pos + 1) != "." or not is_digit(cur.at(pos + 2)):
        return None
    end = lexer.digits_end(cur, pos + 2)
    year, after = int(cur.text[pos + 2:end]), cur.at(end)
    if end - pos > 4 or not 1 <= year <= era[1] or (after.isascii() and after.isalnum()):
        return None
    return locale_span(end + (after == "年"), era[0] + ("元" if year == 1 else NUMERALS.cardinal(year)) + "年", "ja")


def find_span(cur: Cursor, pos: int, ctx: Context) -> Span | None:
    c = cur.at(pos)
    if c in _ERAS and (span := _era_year(cur, pos, ctx)):
        return span
    if c in myriad.TILDES:
        return locale_span(pos + 1, "から", "ja") if myriad.tilde_range(cur, pos) else None
    if c in ("(", "（"):
        found = myriad.weekdays(cur, pos, _WEEKDAYS, _WEEKDAY_JOINERS)
        if found is not None:
            return locale_span(found[0], found[1], "ja")
    if c.isascii() and c.isalpha():
        found = myriad.currency_code(cur, pos, _WRITING)
    else:
        found = myriad.scan(cur, pos, ctx, _WRITING)
    if found is None:
        return None
    end, e = found
    if e.kind == "integer" and not (e.sign or e.currency or e.suffix or e.roots[0]):
        written = cur.text[pos:end]
        if written.isdecimal() and written.startswith("0") and 10 <= len(written) <= 11 and (
            groups := myriad.phone_groups(written, "", "JP")
        ):  # '09012345678' 零九零の一二三四の五六七八
            return locale_span(end, "の".join(NUMERALS.digit_string(g) for g in groups), "ja")
        return locale_span(end, NUMERALS.counted(e.parts[0], cur.at(end)), "ja")
    return locale_span(end, read(e), "ja")


def read(e: myriad.Expression) -> str:
    sign = {"-": "マイナス", "+": "プラス"}.get(e.sign, "")
    if e.currency:
        return sign + _money(e)
    return sign + _body(e) + _WRITING.suffix(e.suffix)


def _body(e: myriad.Expression) -> str:
    p = e.parts
    kind = e.kind
    if kind == "integer":
        return NUMERALS.rooted(e.roots[0]) + NUMERALS.integer(p[0])
    if kind == "decimal":
        return NUMERALS.decimal(p[0], p[1])
    if kind == "fraction":
        return NUMERALS.fraction(p[0], p[1], e.roots)
    if kind == "mixed":  # '2 1/2' 二と二分の一
        return NUMERALS.integer(p[0]) + "と" + NUMERALS.fraction(p[1], p[2], e.roots)
    if kind == "time":
        spoken = NUMERALS.cardinal(int(p[0])) + "時"
        if len(p) > 1 and (int(p[1]) or len(p) > 2):
            spoken += NUMERALS.cardinal(int(p[1])) + "分"
        if len(p) > 2 and int(p[2]):
            spoken += NUMERALS.cardinal(int(p[2])) + "秒"
        return spoken
    if kind == "date":
        year, month, day = (int(x) for x in p)
        return f"{NUMERALS.cardinal(year)}年{NUMERALS.cardinal(month)}月{NUMERALS.cardinal(day)}日"
    if kind == "range":
        return NUMERALS.integer(p[0]) + "から" + NUMERALS.integer(p[1])
    if kind == "phone":
        spoken = "の".join(NUMERALS.digit_string(g) for g in p)
        return f"プラス{NUMERALS.digit_string(e.country)}の{spoken}" if e.country else spoken
    return "の".join(NUMERALS.digit_string(g) for g in p)  # digit groups: codes, telephone numbers


def _money(e: myriad.Expression) -> str:
    word = _CURRENCIES[e.currency]
    if e.kind == "decimal" and len(e.parts[1]) == 2 and word in _MINOR_UNITS and not e.scale:
        whole, cents = e.parts
        spoken = NUMERALS.integer(whole) + word
        return spoken + (NUMERALS.cardinal(int(cents)) + _MINOR_UNITS[word] if int(cents) else "")
    return _body(e) + e.scale + word


def number(text: str) -> str:
    return myriad.numbers_in(text, NUMERALS, "番")


cardinal = NUMERALS.cardinal
digits = NUMERALS.digit_string
