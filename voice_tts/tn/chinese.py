"""Chinese readings written by hand, and the guards around wetext's zh output (spec §2.2)."""

from __future__ import annotations

import re

from voice_tts.tn import cldr, english, locales
from voice_tts.tn.locales import myriad

_AM_PM = re.compile(r"(?P<h>\d{1,2})(?P<minutes>(?::\d{2}){0,2})\s*(?P<ap>am|pm|a\.m\.?|p\.m\.?)", re.I)
_VERSION = re.compile(r"(?P<v>[vV]?)(?P<parts>(?:0|[1-9]\d*)(?:\.\d+)+)(?P<after>[^\x00-\x7f]*)")
_ID_PART = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+", re.UNICODE)
_CODE_ID = re.compile(r"[A-Z]{1,5}-?(?:\d{3,}|\d+次)|(?=(?:\D*\d){3})(?=.*[A-Z]\d)(?=.*\d[A-Z])[A-Z\d]+")
WORDS = locales.data("zh_words.json", "voice_tts.tn")  # the words around numbers, as data
_DAY_PERIODS, _CODE_WORDS, _PLACE_WORDS, _ROOM_WORDS, _DIAL_WORDS, _ELAPSED_WORDS, _CLOCK_WORDS = (
    tuple(WORDS[k]) for k in (
        "day_periods", "code_words", "place_words", "room_words", "dial_before", "elapsed_before", "clock_before"))
_HUNDREDS_LIANG = re.compile(r"(?<![零一二三四五六七八九十百千万亿两])两百")  # wetext's 两百 not after a digit
_DECIMAL = re.compile(r"[-+]?\d+(?:\.\d+)?")


class Chinese(myriad.Numbers):
    """Numbers as Japanese and Korean read theirs, with the 零 and 万亿 Chinese says in CLDR's cardinal, a quantity's 两."""

    code = "zh"

    def cardinal(self, n: int) -> str:
        """3 -> 三, 11 -> 十一, 105 -> 一百零五, 20000 -> 二万 (两万 is `integer`'s): CLDR's, with
        the 零 it leaves out after 亿 and 兆 where a place is skipped (一亿零五万, CLDR 一亿五万) and
        万亿 for 兆 as Chinese says it; digit by digit from 10^16 on."""
        spoken = super().cardinal(n)
        spoken = re.sub("亿(?!零|$|.千[^亿兆]*万)", "亿零", spoken)
        spoken = re.sub("兆(?!零|$|.千[^兆]*亿)", "兆零", spoken)
        return spoken.replace("零十", "零一十").replace("兆", "万亿")

    def integer(self, text: str) -> str:
        """A quantity: a leading 2 before 千/万/亿 is 两 (两千零二十六, 两万二千); before 百 it stays 二 (二百一十), as in an
        ordinal; leading zeros digit by digit ('0123' 零一二三)."""
        spoken = super().integer(text)
        return "两" + spoken[1:] if spoken.startswith("二") and spoken[1:2] in ("千", "万", "亿") else spoken


NUMBERS = Chinese(WORDS)
cardinal, digits = NUMBERS.cardinal, NUMBERS.digits  # '163' 一六三


def vulgar_fraction(c: str, after: str, before: str) -> str:
    """'½杯' 半杯 (a half before what it counts), '¾' 四分之三, after a number its fraction ('2½' 二又二分之一)."""
    numerator, denominator = cldr.vulgar_fraction(c)
    half = (numerator, denominator) == (1, 2) and "\u4e00" <= after <= "\u9fff" and not before.isdecimal()
    return "半" if half else ("又" if before.isdecimal() else "") + NUMBERS.fraction(str(numerator), str(denominator))


def number(text: str, counted: bool = False) -> str:
    """`counted`: before what it counts, where 2 is 两 ('2个' 两个, '2点' 两点, '2小时' 两小时, '2kW' 两千瓦)."""
    if counted and text == "2":
        return "两"
    whole, _, frac = text.partition(".")
    return NUMBERS.decimal(whole, frac) if frac else NUMBERS.integer(whole)


def elapsed(hours: int, minutes: int, seconds: int) -> str:
    """The time a race or a task took ('1:03:20' 一小时三分二十秒), 零 where no minutes come between ('2:00:30' 两小时零三十秒)."""
    taken = "".join(
        number(str(v), counted=True) + unit
        for v, unit in zip((hours, minutes, seconds), ("小时", "分", "秒"))
        if v
    )
    return re.sub("小时(?=[^分]+秒)", "小时零", taken)


def clock_in_context(text: str, word_before: str = "") -> str | None:
    """'3pm' -> 下午三点, '10:30am' -> 上午十点三十分, with seconds as `clock_time`; a 24-hour time marked pm on the 12-hour
    clock ('13:10pm' 下午一点十分); after a period of the day its word alone ('晚上8pm' 晚上八点); after a word of the time
    a race or a task took no clock but the hours, minutes and seconds taken ('用时1:03:20' 用时一小时三分二十秒)."""
    t = re.fullmatch(r"(\d{1,2}):(\d{2}):(\d{2})", text)
    if t and myriad.race_time(t.groups(), word_before, word_before.rstrip("为是").endswith(_ELAPSED_WORDS),
                              word_before.endswith(_CLOCK_WORDS + _DAY_PERIODS)):
        return elapsed(*map(int, t.groups()))
    if (
        (m := _AM_PM.fullmatch(text)) is None
        or (h := int(m["h"]) - 12 * ((pm := m["ap"][0].lower() == "p") and 12 < int(m["h"]) < 24)) > 12
    ):
        return None
    return (
        ("" if word_before.endswith(_DAY_PERIODS) else "下午" if pm else "上午")
        + (clock_time(f"{h}{m['minutes'] or '点'}") or "")
    )


def version(text: str) -> str | None:
    """'v0.2.1' -> v零点二点一, '5.3.1' 五点三点一, '3.2.1节' (three parts, or after v), parts of three digits or
    more digit by digit ('192.168.0.1' 一九二点一六八点零点一); '2024.3.5' is a date."""
    p = (m := _VERSION.fullmatch(text)) and m["parts"].split(".")
    if p and (m["v"] or len(p) > 2 and not (len(p[0]) == 4 and date(f"{p[0]}年{p[1]}月{p[2]}日"))):
        return m["v"] + NUMBERS.version(p) + m["after"]
    return None


def identifier(text: str) -> str:
    """'Qwen3-TTS-1.7B' -> 'Qwen三 TTS 一点七B': joiners become spaces, letter/digit runs touch; a code's digits one by one
    ('KX-7362' KX七三六二, 'PEKCA60315' PEKCA六零三一五, a train 'G12次', a plate's '8K26M' 八K二六M)."""
    if _CODE_ID.fullmatch(text) or english.REFERENCE.fullmatch(text):  # 'KH-2026-00481' too
        return re.sub(r"\d+", lambda m: digits(m[0]), re.sub("[-/]", "", text))
    parts = ("".join(number(p) if p[0].isdecimal() else p for p in _ID_PART.findall(chunk))
             for chunk in re.split(r"(?<![0-9]W)[-–_/]+", text))  # an oil's grade one word ('0W-20' 零W二十)
    return " ".join(p for p in parts if p)


def fix_wetext(source: str, spoken: str) -> str | None:
    """Checks wetext's zh output for its class; None when the output must not be used. wetext
    reads every long number starting with 1 as a telephone number (幺幺零…): an integer, bare or before a
    measure word, is an amount unless it is a mobile number (`mobile`) or follows a code word.
    A denominator is 二 (二分之一), a floor (二层), a 2 after 零 ('02分' 零二分), and a leading 2 before 百 (二百一十, as 第二百一十)."""
    integer = re.match(r"[1-9]\d*", source)
    if re.search(r"[0-9]", spoken) or integer and "幺" in spoken and not _MOBILE.fullmatch(integer[0]):
        return None
    return _HUNDREDS_LIANG.sub("二百", re.sub("(?<=月)两(?=日)|两(?=分之|层|楼)|(?<=零)两(?![百千万亿])", "二", spoken))


def plain(text: str) -> str | None:
    """A bare integer or decimal: '-2930.19' 负两千九百三十点一九, '0123' 零一二三."""
    return {"-": "负", "+": "正"}.get(text[0], "") + number(text.lstrip("+-")) if _DECIMAL.fullmatch(text) else None


# --- fast paths for the commonest classes (same readings as wetext, without an FST call) ------

# A year, a month, a day or the run of them from the first to the last: '2026年3月', '3月4日', '4号'.
_DATE = re.compile(r"(?:(?P<y>\d{4})年)?(?:(?P<m>\d{1,2})月)?(?:(?P<d>\d{1,2})(?P<day>[日号]))?")
_DOTTED_DATE = re.compile(r"(\d{4})·(\d{1,2})·(\d{1,2})")  # 2019·2·10
_PERCENT = re.compile(r"(?P<num>\d+(?:\.\d+)?)[%％]")
_MOBILE = re.compile(r"1[3-9]\d{9}")
# A landline after its area code ('021-6218 5530'), a mobile in groups ('139 2057 4468', two while one is awaited),
# a waybill or card number in groups of four ('4917 2036 5801': an amount is never grouped so in Chinese).
PHONE_GROUPS = re.compile(r"0\d{2,3}-\d{3,4} ?\d{4}|1[3-9]\d \d{4}(?: \d{4})?|\d{4}(?: \d{4})+")
_ERA = re.compile(r"(?P<y>\d{1,4})(?P<era>a\.?d\.?|b\.?c\.?)", re.IGNORECASE)
WEATHER = re.compile("(?:气温|温度|最低|最高|低温|高温|体感|降至|降到|低至|夜间|白天|早晚)(?:[低高]于|在)?[为是约达]?$")  # then below zero is 零下
SERVICE_NUMBER = re.compile(r"1\d{4}|9[56]\d{3}")  # a service line's five digits: '10086', '12345', '95588', '96110'
_CODE = re.compile(r"(?=(?:-?\d){3})\d+(?:-\d+)*")  # '482913', a pickup code's groups '6-2-3018' (the hyphen 杠)
MEASURE_WORDS = frozenset(WORDS["measure_words"])  # after which a count of 2 is read 两 (两杯, 两点, 两公里)
_MEASURE_WORD = "|".join(sorted(MEASURE_WORDS, key=len, reverse=True))
_COUNT = re.compile(rf"(?P<cur>(?:[A-Z]{{1,3}})?[^\w\s.,%+-])?(?P<num>\d+(?:\.\d+)?)(?P<scale>[万亿]?)(?(cur)元?)"
                    rf"(?P<suffix>(?:½?(?:{_MEASURE_WORD}|折)[^\x00-\x7f/]*)?)(?:/(?P<per>[^\x00-\x7f]+))?")
# '19:50场' 十九点五十分场, '2点30分' 两点三十分, '2点钟'
_TIME = re.compile(r"(?P<h>\d{1,2})(?::(?P<m>\d{2})(?::(?P<s>\d{2}))?|点(?:(?P<zh_m>\d{1,2})分)?)"
                   r"(?P<after>[^\x00-\x7f]*)")
_RANGE = re.compile(rf"(?P<a>\d{{1,4}}(?:\.\d+)?)(?P<to>[-~～〜到至])(?P<b>\d{{1,4}}(?:\.\d+)?)"
                    rf"(?P<suffix>(?:{_MEASURE_WORD}|℃|折|年)?)")
# A number and a unit symbol, per another ('6.1 mmol/L', '10mg/5mL'), two numbers by a unit ('30×60cm') or a range of
# them ('3.9~6.1 mmol/L').
_MEASURE = re.compile(r"(?P<num>\d+(?:\.\d+)?)(?:(?P<op>[×xX*~～到-])(?P<by>\d+(?:\.\d+)?(?:[×xX*]\d+(?:\.\d+)?)?))?"
                      r" ?(?P<unit>μ?[A-Za-z]+[²³]?)"
                      r"(?:/(?P<per_num>\d+(?:\.\d+)?)? ?(?P<per>μ?[A-Za-z]+[²³]?))?")


def date(text: str) -> str | None:
    """'2026年3月4日' -> 二零二六年三月四日 (years digit by digit, month and day as numbers, a
    leading zero unread: '08月' 八月), '2019·2·10' -> 二零一九年二月十日."""
    m = _DATE.fullmatch(_DOTTED_DATE.sub(r"\1年\2月\3日", text))
    if (
        m is None
        or not text
        or m["y"] and m["d"] and not m["m"]
        or not (1 <= int(m["m"] or 1) <= 12 and 1 <= int(m["d"] or 1) <= 31)
    ):
        return None
    year, month, day = m.group("y", "m", "d")
    return (digits(year) + "年" if year else "") + (cardinal(int(month)) + "月" if month else "") + (
        cardinal(int(day)) + m["day"] if day else "")


def era_year(text: str) -> str | None:
    """'2934ad' -> 公元二九三四年, '300BC' -> 公元前三零零年."""
    if (m := _ERA.fullmatch(text)) is None:
        return None
    return ("公元前" if m["era"][0].lower() == "b" else "公元") + digits(m["y"]) + "年"


def percent(text: str) -> str | None:
    return "百分之" + number(m["num"]) if (m := _PERCENT.fullmatch(text)) else None


def telephone(text: str) -> str | None:
    """Telephone numbers digit by digit: a mobile's 1 read as 幺, a landline's as 一 (as wetext reads them); so is
    a room's number ('1502室' 一五零二室, '302教室' 三零二教室, '1208房间' 一二零八房间)."""
    if m := re.fullmatch(r"((?:\d+[\u4e00-\u9fff]+)*)(\d{3,})(教?室|号?房间?)", text):  # after its building ('2号楼1502室')
        return re.sub(r"\d+", lambda n: cardinal(int(n[0])), m[1]) + digits(m[2]) + m[3]
    return (
        digits(text).replace("一", "幺") if _MOBILE.fullmatch(text.replace(" ", ""))
        else digits(text) if PHONE_GROUPS.fullmatch(text)
        else None
    )


def code_digits(text: str, word_before: str) -> str | None:
    """'邮编100080' → 邮编一零零零八零: after a word that names a code (and 是 or 为), its digits
    one by one, short groups joined by 杠 ('取件码6-2-3018'), long ones run on as a telephone number's
    ('工单号20261206-0457'); after a word of dialling ('拨打110', '客服电话95588') its 1 read 幺 but in a service line's
    number, as its callers say it ('12345' 一二三四五)."""
    if (seat := re.fullmatch(r"(\d{1,4})([A-Z])", text)) and word_before.rstrip("是为在").endswith(_PLACE_WORDS):
        return cardinal(int(seat[1])) + seat[2]  # a seat's letter ('座位12A' 十二A), never amperes
    named = (word := word_before.rstrip("是为")).endswith(_DIAL_WORDS + _CODE_WORDS) or word_before.endswith(_CODE_WORDS)
    if (room := re.fullmatch(r"(\d{3,})号", text)) and word.endswith(_ROOM_WORDS):  # '房间是1208号' 一二零八号
        return digits(room[1]) + "号"
    if not (_CODE.fullmatch(text) and named) or word.endswith("起码") or "-" in text and word.endswith(_DIAL_WORDS):
        return None
    if word.endswith(_DIAL_WORDS):
        return digits(text) if SERVICE_NUMBER.fullmatch(text) else digits(text).replace("一", "幺")
    return ("杠" * (min(map(len, groups := text.split("-"))) <= 3)).join(map(digits, groups))


def _quantity(text: str, suffix: str) -> str:
    return digits(text.replace(".", "")) if suffix.startswith("折") else (  # a discount: '8.5折' 八五折, '95折' 九五折
        number(text, counted=re.match(_MEASURE_WORD, suffix) is not None))


def count(text: str) -> str | None:
    """'12.5元' 十二点五元, '2个' 两个, '￥3.8元' 三点八元 (its 元 once), '$1.5万' 一点五万美元, '8.3万元/㎡' 八点三万元每平方米:
    a currency or a measure word, one of them, a scale (万, 亿) only with money, per a unit ('3.45元/吨', '¥5/吨'); money without
    its decimals' final zeros ('¥199.00' 一百九十九元), a sum of yuan to the jiao in 元角 ('41.40元' 四十一元四角: 点四 would
    drop a written zero)."""
    if (
        (m := _COUNT.fullmatch(text)) is None
        and len(pieces := [c[0] for c in _COUNT.finditer(text) if c["suffix"]]) > 1
        and "".join(pieces) == text
    ):
        return "".join(map(count, pieces))  # counts one after another: '11胜2负' 十一胜两负, '2天1晚' 两天一晚
    yuan = m and (m["cur"] in ("￥", "¥") or m["suffix"][:1] == "元")  # ¥ the yuan (CLDR's zh: the yen)
    if (
        m is None
        or bool(m["cur"]) == bool(m["suffix"])
        or m["scale"] and not (m["cur"] or yuan)
    ):
        return None
    if yuan and not m["scale"] and not m["per"] and (jiao := re.fullmatch(r"(\d+)\.(\d)0", m["num"])):
        whole = re.sub("(?<!十)二(?=[千万亿])", "两", _quantity(jiao[1], "元")) + "元" if int(jiao[1]) else ""  # 一万两千元
        return (whole + (cardinal(int(jiao[2])) + "角" if jiao[2] != "0" else "") or "零元") + m["suffix"][1:]
    money = "." in m["num"] and (m["cur"] or m["suffix"].startswith(("元", "块")))
    suffix = re.sub(rf"½({_MEASURE_WORD})", r"\1半", m["suffix"])  # a half after its measure word: '1½杯' 一杯半
    spoken = _quantity(m["num"].rstrip("0").rstrip(".") if money else m["num"], suffix) + m["scale"]
    per = "每" + m["per"] if m["per"] else ""
    if not m["cur"]:
        return spoken + suffix + per
    code = "CNY" if yuan else cldr.currency_code("zh", m["cur"])  # a symbol alone: no suffix 元 came with it
    return spoken + ("元" if code == "CNY" else cldr.currency_name("zh", code, 2)) + per if code else None


def measure(text: str, units: dict[str, str]) -> str | None:
    """A number and a unit of `units` (symbol → name), per another: '6.1 mmol/L' 六点一毫摩尔每升, '5m/s' 五米每秒, '20MB/s'
    二十MB每秒, '2kW' 两千瓦, '40×30×15cm' 四十乘三十乘十五厘米; a speed per hour CLDR's ('120km/h' 每小时一百二十公里)."""
    if (lead := re.match(rf"\d+(?:{_MEASURE_WORD})(?=\d)", text)) and (rest := measure(text[lead.end():], units)):
        return count(lead[0]) + rest  # after a count: '8颗6×60mm' 八颗六乘六十毫米
    if (
        (m := _MEASURE.fullmatch(re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text))) is None
        or m["unit"] not in units
        or m["per"] and m["per"] not in units
    ):
        return None
    if m["per"] == "h" and not m["per_num"] and (
        reading := cldr.unit_reading(m["num"], f"{m['unit']}/h", "zh", number(m["num"]))
    ):
        return reading  # CLDR's speed: 'km/h', the one per hour it has
    by = m["by"] and ("乘" if m["op"] in "×xX*" else "到")  # '30×60cm' 三十乘六十厘米, '2~3kg' 两到三千克
    amount = (
        number(m["num"], counted=by != "乘")
        + (by + "乘".join(map(number, re.split("[×xX*]", m["by"]))) if by else "")
    )
    # 'MB/s' 每秒, 's' alone 秒钟
    per = ""
    if m["per"]:
        per = "每" + (number(m["per_num"]) if m["per_num"] else "") + {"s": "秒"}.get(m["per"], units[m["per"]])
    return amount + units[m["unit"]] + per


def fraction(text: str) -> str | None:
    """'3/4杯' 四分之三杯, '95/100分' 一百分之九十五分 (wetext takes '100分' for a time there)."""
    if (m := re.fullmatch(r"(?P<a>\d+)/(?P<b>[1-9]\d*)(?P<after>[^\x00-\x7f]*)", text)) is None:
        return None
    return f"{cardinal(int(m['b']))}分之{cardinal(int(m['a']))}{m['after']}"


def clock_time(text: str) -> str | None:
    """'3:30' -> 三点三十分, '2:30' and '2点30分' -> 两点三十分, '10:05' -> 十点零五分, '12:00' -> 十二点; with
    seconds every field is read ('00:00:00' 零点零分零秒, '03:04:05' 三点零四分五秒)."""
    if (
        (m := _TIME.fullmatch(text)) is None
        or (h := int(m["h"])) > 24
        or (minutes := int(written := m["m"] or m["zh_m"] or "0")) > 59
        or (seconds := m["s"]) and int(seconds) > 59
    ):
        return None
    spoken = number(str(h), counted=True) + "点"
    if minutes or seconds:
        spoken += "零" * (0 < minutes and written[0] == "0") + cardinal(minutes) + "分"
    return spoken + (cardinal(int(seconds)) + "秒" if seconds else "") + m["after"]


def celsius(text: str) -> str | None:
    """'25℃' 二十五摄氏度, '-4°F' 负四华氏度 (CLDR's names; after a word of the weather 零下, `WEATHER`)."""
    m = re.fullmatch(r"(-?)(\d+(?:\.\d+)?)(℃|℉|°F)", text)
    return "负" * len(m[1]) + number(m[2]) + ("摄氏度" if m[3] == "℃" else "华氏度") if m else None


def number_range(text: str) -> str | None:
    """'3-5天' -> 三到五天 (a hyphen between two numbers is a range, never a minus), '2到3个' 两到三个, '2至3次'
    两至三次; '2~8℃' 二到八摄氏度; two years in a row, a season's, digit by digit ('2026—2027' 二零二六到二零二七)."""
    if (m := _RANGE.fullmatch(text)) is None or "0" in (m["a"][0], m["b"][0]):
        return None
    years = len(m["a"]) == 4 and m["a"].isdecimal() and (
        m["b"] == str(int(m["a"]) + 1) and not m["suffix"] or m["suffix"] == "年")
    read = digits if years else lambda n: _quantity(n, m["suffix"])
    return read(m["a"]) + ("至" if m["to"] == "至" else "到") + read(m["b"]) + m["suffix"].replace("℃", "摄氏度")
