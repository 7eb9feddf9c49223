"""The spoken form of one decided span (spec §3.7). Pure: reads only the span and left context."""

from __future__ import annotations

import re
import unicodedata

from voice_tts.tn import chinese, electronic, english, locales
from voice_tts.tn.chars import SUFFIX_SYMBOLS
from voice_tts.tn.context import Context, Span
from voice_tts.tn.lexer import is_currency
from voice_tts.tn.locales.european import listed_roman
from voice_tts.tn.locales.myriad import unit_words
from voice_tts.tn.wetext_calls import normalize_span

SILENT_KINDS = frozenset(
    ("ws", "emoji", "drop", "md", "block", "fence_open", "fence_close", "fence_body", "skip", "table_start")
)
_PUNCT = {"en": english.SYMBOLS, "zh": chinese.WORDS["symbols"]}
# What a table's pipe says: a full stop at a row's end, a comma between cells (en, zh).
_PIPE_MARKS = {"end": (".", "。"), "mid": (",", "，")}
# Punctuation that is not spoken but still separates the words around it.
SEPARATING_PUNCT = frozenset("|\\^{}#_*~")
_UNIT_SUFFIX = re.compile(r"(?P<num>\d+(?:\.\d+)?)\s?(?P<unit>[A-Za-z][A-Za-z/]*)")
_SCALED = re.compile(rf"(?P<num>\d[\d,]*(?:\.\d+)?)(?P<scales>(?:\s+(?:{'|'.join(english.SCALE_WORDS)}))+)",
                     re.IGNORECASE)
_PLAIN_EN = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_CLOCK_PERIOD = re.compile(r"\d{1,2}(?::\d{2})?\s?(?:am|pm|AM|PM|a\.m\.?|p\.m\.?|A\.M\.?|P\.M\.?)")
_RATIO = re.compile(r"(\d{1,3}(\.5)?)/(\d{1,3})")  # a score with a half ('5.5/7'), no fraction
_SUFFIXED_FRACTION = re.compile(r"(\d+/\d+)(?:st|nd|rd|th)", re.IGNORECASE)
_ORDINAL_SUFFIX = re.compile(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:st|nd|rd|th)")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?:\D|$))")
_SQUARED = str.maketrans("23", "²³")  # '㎡' is 'm2' by NFKC: m², named by CLDR ('89.5㎡' 八十九点五平方米, '3元/㎡' 三元每平方米)


def verbalize(span: Span, raw: str, ctx: Context) -> str:
    kind, lang = span.kind, span.lang or ctx.sentence_lang()
    if kind in SILENT_KINDS:
        return ""
    if kind == "han":
        return raw
    if kind in ("lexicon", "locale", "reading"):
        return span.info
    if kind == "word":
        return word(raw, ctx, span.lang)
    if kind == "punct":
        symbols = ctx.locale.SYMBOLS if ctx.locale is not None else _PUNCT["zh" if ctx.sent_han else "en"]
        return span.info if raw in SEPARATING_PUNCT else symbols.get(raw, raw)
    if kind == "nl":  # a newline after text with no final punctuation is a sentence pause (§3.8)
        if ctx.last_visible.isalnum():
            return "。" if ctx.sent_han else ". "
        return "" if not ctx.last_visible or ctx.sent_han or ctx.last_spoken.isspace() else " "
    if kind == "num":
        # a plate's number after its dot or its letter ('京A·12345', '京A 12345') is a code
        cue = "·" if re.fullmatch("[A-Z]", ctx.prev_word) else ctx.prev_word or ctx.prev_char
        if lang == "zh" and (reading := chinese.code_digits(raw, cue) or chinese.clock_in_context(raw, ctx.prev_word)):
            return reading
        if lang == "zh" and raw[0] in "-−－" and (mark := re.search(r"[%％℃℉]|°[CF]|^.\d+/\d+$", raw)):  # '-1/5' 负五分之一
            weather = mark[0][0] in "℃℉°" and chinese.WEATHER.search(ctx.prev_word)  # '气温-3℃' 气温零下三摄氏度
            return ("零下" if weather else "负") + number(raw[1:], lang)
        if lang == "en" and (reading := english.code(raw, ctx.prev_word, ctx.words_before) or english.clock_seconds(
                raw, ctx.prev_word)):
            return reading
        reading = number(raw, lang, span.info, ctx.prev_char == "第")
        if lang == "en" and ctx.prev_word.lower() == "between" and re.search("[-–]", raw):  # 'between 8–10' … and ten
            reading = reading.replace(" to ", " and ", 1)
        if {ctx.prev_word, *ctx.words_before[-2:-1]} & {"from", "between", "From", "Between"}:  # 'from 10:00 to 11'
            reading = reading.replace(" o'clock", "")  # a whole hour in a span of times is said bare: ten to eleven
        # a range of times, not of amounts ('30~40分钟' 三十到四十分钟): '周一至周六9:00-18:00' 九点至十八点
        return reading.replace("到", "至") if (ctx.zhi_ranges or ctx.zhi_pending) and ":" in raw else reading
    if kind == "abbr":  # a unit's name after 'per' or one in the singular: 'per sq. ft.' per square foot
        reading = english.abbreviation(raw.rstrip(".").rstrip(), ctx.prev_word, span.info, raw.endswith("."))
        names = english.unit(raw.rstrip(". "))
        one = names and ctx.last_two_words() & {"per", "1", "a", "one"}
        return reading.replace(names[1], names[0]) if one else reading
    if kind == "date":
        return english.written_date(raw, ctx.prev_word) or normalize_span(raw, "en") or raw
    if kind == "phone":
        return english.phone(raw)
    if kind in ("url", "email", "url_head"):  # a URL cut by the tail bound: its host alone
        return electronic.speak(electronic.host(raw) if kind == "url_head" else raw, lang)
    if kind == "olist":
        reader = ctx.locale if ctx.locale is not None else chinese if lang == "zh" else english
        return reader.cardinal(int(span.info)) + ("，" if reader is chinese else ", ")
    if kind == "table_pipe":  # a table's cells are parted like a list's items, its rows like sentences
        return _PIPE_MARKS[span.info][ctx.sent_han]
    if kind == "digit_groups":  # a giant digit run, forced in pieces: four digits at a time
        digits = "".join(c for c in unicodedata.normalize("NFKC", raw) if c.isdecimal())
        reader = locales.rules(lang) if lang in locales.MODEL_LANGUAGES else chinese if lang == "zh" else english
        return ("，" if lang == "zh" else ", ").join(reader.digits(g) for g in re.findall(".{1,4}", digits))
    raise ValueError(f"unknown span kind {kind!r}")


def word(raw: str, ctx: Context, lang: str = "") -> str:
    if ctx.locale is not None:  # English acronym letters and units have no place in another language
        return " ".join(p for p in re.split(r"[_/]+", raw) if p)
    if reading := english.capital_range(raw, ctx.prev_word.rstrip("s").capitalize() in english.ROMAN_COUNTERS):
        return reading
    # a unit with no number after 'per', 'each' or 'every', or one of them and an adjective: 'each additional kg'; a
    # one-letter symbol only right after 'per' ('per m'), never a letter cut from a word ("each player's")
    cues = ctx.last_two_words() & {"per", "each", "every"}
    if cues and (len(raw) > 1 or ctx.prev_word.lower() == "per") and (unit := english.unit(raw)):
        return unit[0]
    listed = ctx.prev_word if raw == "I" else listed_roman(ctx).prev_word  # 'Henry VII and VIII' the eighth; 'and I'
    if raw[:2].isupper() and raw.isascii() and (reading := english.roman(raw, listed) or (
            ctx.spell_acronyms and lang != "zh" and english.acronym(raw))):  # a Chinese voice spells them anyway
        return reading
    if ctx.prev_char == "每" and raw in unit_words("zh"):  # '每kg' 每千克
        return unit_words("zh")[raw]
    # 'upgrade/update' upgrade slash update; the slash of 'w/o', 'n/a' is not said; 'snake_case' snake case.
    slash = " slash " if all(len(part) > 1 for part in raw.split("/")) else " "
    return slash.join(" ".join(p for p in part.split("_") if p) for part in raw.split("/") if part)


# Full-width digits, letters and signs folded to ASCII; symbols such as ℃ are kept.
_FULL_WIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | str.maketrans("−–—\u3000", "--- ")


def number(raw: str, lang: str, currency_code: str = "", ordinal: bool = False) -> str:
    """`ordinal`: the number follows 第 (Chinese 第2名 第二名, never a count's 两)."""
    text = raw.translate(_FULL_WIDTH)
    if lang in locales.MODEL_LANGUAGES:
        return locales.rules(lang).number(text)
    return _number_zh(text, ordinal) if lang == "zh" else _number_en(text, currency_code)


def _checked(spoken: str | None) -> str | None:
    """Accepts an en reading only if no digit survived it."""
    return None if spoken is None or re.search(r"\d", spoken) else spoken


def _number_en(text: str, currency_code: str) -> str:
    text = re.sub(r"(?<=\d)º", "°", text)  # '45º': the ordinal indicator written for a degree sign
    if text.startswith("#"):  # '#4521' number forty-five twenty-one, as a house's; a longer one digit by digit
        body = text[1:].lstrip()
        return "number " + (english.house_number(body) if body.isdecimal() and len(body) >= 4 else _number_en(body, ""))
    if text[0] == "." and text[1:].isdecimal():
        return "point " + english.digits(text[1:])
    if (
        (span := re.fullmatch(r"(\d+(?:\.\d+)?)[-–](\d+(?:\.\d+)?\s?(?:[A-Za-z][A-Za-z/]*|%))", text))
        and (to := english.measure(span[2]) or english.percent(span[2]))
    ):
        # '130–150 bpm' one hundred thirty to one hundred fifty beats per minute, '60–70%' sixty to seventy percent
        return f"{english.number(span[1])} to {to}"
    if (
        (currency_code and (reading := english.money(text[len(currency_code):].strip(), currency=currency_code)))
        or (reading := english.money(text))  # '$5', '-$5'
        or (
            (m := re.fullmatch(r"(.+?)(\S)((?:/\w+)?)", text))
            and is_currency(m[2])
            and (reading := english.money(m[2] + m[1] + m[3]))
        )
    ):
        return reading
    for rule in (english.season, english.decade, english.numeric_date, english.quarter, english.dotted_phone,
                 english.version, english.percent, english.dashed_date, english.era_year, english.clock_seconds,
                 english.clock, english.measure, english.local_phone, english.number_range, english.dashed_range):
        if reading := rule(text):
            return reading
    if m := _SUFFIXED_FRACTION.fullmatch(text):  # '1/4th' one quarter
        return _number_en(m.group(1), "")
    if ratio := _RATIO.fullmatch(text):  # '24/7' twenty four seven; '5.5/7' … and a half out of seven; '45/50' a mark
        score, half, top = ratio.groups()
        above = not half and int(score) >= int(top)
        if above or half or english.is_mark(int(score), int(top)):
            said = english.number(score[:-2]) + " and a half" if half else english.number(score)
            return f"{said} {'' if above else 'out of '}{english.number(top)}"
    if _PLAIN_EN.fullmatch(text):
        return english.plain_number(text)
    if text[0] in "+-" and _PLAIN_EN.fullmatch(text[1:]):  # '-2' minus two
        return ("plus " if text[0] == "+" else "minus ") + english.number(text[1:])
    if m := _SCALED.fullmatch(text):
        return english.number(m.group("num").replace(",", "")) + " " + " ".join(m.group("scales").lower().split())
    if (
        " " in text
        and (unit := text.rpartition(" ")[2]).endswith(".")
        and (name := english.unit(unit) or english.unit(unit[:-1]))
    ):
        # '34 1/2 in.', '2 1/2 ft.': named, as wetext lacks 'in.' and keeps the period
        text = text[: -len(unit)] + name[1]
    known_unit = (m := _UNIT_SUFFIX.fullmatch(text)) is not None and english.unit(m.group("unit"))
    if (_CLOCK_PERIOD.fullmatch(text) or known_unit or any(c in SUFFIX_SYMBOLS for c in text)) and (
            reading := _checked(normalize_span(text, "en"))):
        return reading
    if _ORDINAL_SUFFIX.fullmatch(text):
        return english.suffixed_ordinal(text)
    wetext = " " in text or not any(c.isalpha() for c in text)  # letters in one piece are an id, not wetext's
    return wetext and _checked(normalize_span(text, "en")) or english.identifier(text)


def _number_zh(text: str, ordinal: bool = False) -> str:
    text = re.sub(
        "[㎡㎥㎏㎞㎝㎜㏄㎖㎎]",
        lambda m: unit_words("zh")[unicodedata.normalize("NFKC", m[0]).translate(_SQUARED)],
        _THOUSANDS.sub("", text).replace("°C", "℃"),
    )
    if text.startswith("#"):
        return _number_zh(text[1:].lstrip()) + "号"
    text = re.sub(r"(?<=\d日)[—–-](?=\d+日)", "至", text)  # a range of days: '11月19日—20日' 十一月十九日至二十日
    if (per := re.fullmatch(r"(.*[^\x00-\x7f])/(\d+(?:\.\d+)?)?([A-Za-z]+[²³]?)", text)) and per[3] in unit_words("zh"):
        return _number_zh(per[1]) + "每" + (chinese.number(per[2]) if per[2] else "") + unit_words("zh")[per[3]]
    if ordinal and (m := re.fullmatch(r"([1-9]\d*)([^\dA-Za-z]*?)((?<=[^\x00-\x7f])\d.*)?", text)):  # no amount (两百)
        head = chinese.digits(m[1]) if len(m[1]) > 4 and m[2][:1] == "期" else chinese.cardinal(int(m[1]))  # 第2025138期
        return head + m[2] + (_number_zh(m[3]) if m[3] else "")  # 第210页 第二百一十页, 第2名5分 第二名五分
    if m := re.fullmatch(r"(.*[^\x00-\x7f]|.*\d-)(\d{1,2}:\d{2}.*)", text):  # a clock after a date or a clock: no score
        spoken = _number_zh(m[1].rstrip("-")) + "到" * m[1].endswith("-") + _number_zh(m[2])  # '3月1日14:05' 十四点零五分
        return re.sub("点三十分(?!.*秒)", "点半", spoken) if m[1][-1] in "-到至" else spoken  # '6:30-9:00' 六点半到九点
    for rule in (chinese.clock_in_context, chinese.version, chinese.date, chinese.era_year, chinese.percent,
                 chinese.telephone, chinese.count, chinese.clock_time, chinese.celsius, chinese.number_range,
                 chinese.fraction, chinese.plain, lambda text: chinese.measure(text, unit_words("zh"))):
        if reading := rule(text):
            return reading
    letters = re.search(r"[A-Za-z]", text)
    if letters and not ((m := _UNIT_SUFFIX.match(text)) and unit_words("zh").get(m["unit"])):
        return chinese.identifier(text)
    reading = normalize_span(text, "zh")
    fixed = reading and chinese.fix_wetext(text, reading)  # wetext's, where its checks pass
    if letters:  # wetext glues readings to words it half-read ("两小时ours"), leaves units unread ('1.2g'): no letters
        return reading if fixed and not re.search(r"[A-Za-z]", reading) else chinese.identifier(text)
    return fixed or re.sub(r"\d+(?:\.\d+)?", lambda m: chinese.number(m.group()), text)
