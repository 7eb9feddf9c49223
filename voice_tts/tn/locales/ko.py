"""Korean: Sino-Korean numbers grouped by 만/억/조, native numbers before counters.

A number is read in Sino-Korean (34892 → 삼만사천팔백구십이, 1004 → 천사, 10000 → 만) unless the
Hangul right after it asks for a native number: an hour (3시 → 세시, up to 12), a counter
(3개 → 세개, 20살 → 스무살), an ordinal (12번째 → 열두번째, native up to 39 as the reference
data reads them); months read 유월 and 시월. A number after a word that names a code or digits
is read digit by digit (비밀번호 1234 → 일이삼사, 네자리 3456 → 삼사오육). Written forms are read
out: decimals (영점오), fractions (이분의 일, the particle after one agreeing with its reading),
clock times (오후 03:30 → 오후 세시 삼십분), dates with slashes, weekdays in brackets, tilde ranges
(부터), percent, units, money (₩, codes), telephone and card numbers, email addresses and domains.
"""

from __future__ import annotations

import re

from voice_tts.tn import cldr, electronic, lexer, units
from voice_tts.tn.chars import is_hangul
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor
from voice_tts.tn.locales import locale_span, myriad

NUMERALS = myriad.Numerals(
    lang="ko",
    ruleset="spellout-cardinal-sinokorean",
    zero="영",
    large="만억조",
    one_thousand_before_large=False,
    point="점",
    root="루트 ",
    fraction_of="분의 ",
)
# Counters that take native numbers; a two-syllable one is known by its first syllable.
_COUNTERS = frozenset(("개", "명", "살", "잔", "병", "권", "장", "벌", "채", "곳", "달", "통", "마리", "그루", "송이",
                       "켤레", "가지", "사람", "시간", "자리"))
_COUNTER_STARTS = frozenset(c[0] for c in _COUNTERS)
_LAST_NATIVE_ORDINAL = 39
_MONTHS = {6: "유", 10: "시"}
# A number after these words is read digit by digit (비밀번호 1234 → 일이삼사, 네자리 3456 → 삼사오육),
# also with a particle on the word (인증번호는).
_DIGIT_CUES = ("번호", "비번", "자리", "코드")
_CUE_PARTICLES = frozenset("는은이가을를도의")

_CURRENCIES = {
    "₩": "원", "￦": "원", "KRW": "원", "$": "달러", "US$": "달러", "USD": "달러", "HK$": "홍콩 달러",
    "€": "유로", "EUR": "유로", "¥": "엔", "￥": "엔", "JPY": "엔", "£": "파운드", "GBP": "파운드",
    "CAD": "캐나다 달러", "NZD": "뉴질랜드 달러", "AUD": "호주 달러", "CHF": "스위스 프랑", "CNY": "위안",
    "AED": "아랍에미리트 디르함",
}
_MINOR_UNITS = {"달러": "센트", "유로": "센트"}
# CLDR's names; Koreans say 톤 (CLDR 메트릭 톤), and CLDR has no revolutions per minute.
UNITS = units.names(("km", "m", "cm", "mm", "kg", "g", "mg", "L", "l", "mL", "ml", "h", "min", "s", "ms", "N", "W",
                     "kW", "Hz", "kHz", "MHz", "GHz", "KB", "MB", "GB", "TB", "V", "A", "kcal", "cal"), "ko") | {
    "t": "톤", "rpm": "분당회전수"}
_WEEKDAYS = {"월": "월요일", "화": "화요일", "수": "수요일", "목": "목요일", "금": "금요일", "토": "토요일", "일": "일요일"}
_WEEKDAY_JOINERS = {"〜": "부터", "～": "부터", "~": "부터", "・": "", ",": ""}
_WRITING = myriad.Writing(
    currency_symbols=frozenset(c for c in _CURRENCIES if len(c) == 1),
    currency_codes=frozenset(c for code in _CURRENCIES if len(code) > 1 for c in (code, code.lower())),
    units=UNITS,
    suffixes={"%": "퍼센트", "°": "도", "°C": "도", "°F": "화씨 도"},
    per=lambda unit: " 퍼 " + UNITS[unit],
    scales=frozenset("만억조"),
    mixed_after_space=True,
)
# Particles written after a number agree with how it is read: 오가, 삼이.
_PARTICLES_AFTER_VOWEL = {"이": "가", "을": "를", "은": "는"}
_PARTICLES_AFTER_CONSONANT = {v: k for k, v in _PARTICLES_AFTER_VOWEL.items()}

SYMBOLS = {"&": "앤드", "+": "플러스", "=": "이퀄", "×": "곱하기", "÷": "나누기", "%": "퍼센트"}
ADDRESS_SYMBOLS = {".": "닷", "/": "슬래시", "@": "골뱅이", "?": "물음표", "=": "이퀄", "&": "앰퍼샌드",
                   "-": "대시", "_": "언더바", ":": "콜론", "#": "샵", "%": "퍼센트", "~": "물결", "+": "플러스"}
# Latin letters by their Korean names, for domain endings and file types ('co.kr', '.pdf').
_LETTERS = dict(zip("abcdefghijklmnopqrstuvwxyz", (
    "에이 비 씨 디 이 에프 지 에이치 아이 제이 케이 엘 엠 엔 오 피 큐 알 에스 티 유 브이 더블유 엑스 와이 제트"
).split(), strict=True))
# Domain endings said as words (the rest are spelled).
_ENDING_WORDS = {"com": "컴", "net": "넷", "gov": "거브", "edu": "에듀", "app": "앱", "dev": "데브", "me": "미",
                 "cloud": "클라우드", "shop": "샵", "store": "스토어", "info": "인포", "biz": "비즈"}
_FILE_TYPES = frozenset((
    "pdf", "png", "jpg", "jpeg", "gif", "txt", "csv", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "hwp", "zip",
    "mp3", "mp4", "wav", "html", "json", "py", "exe", "svg",
))
_LONGEST_ENDING = 5


def find_span(cur: Cursor, pos: int, ctx: Context) -> Span | None:
    c = cur.at(pos)
    if c in myriad.TILDES:
        return locale_span(pos + 1, "부터 ", "ko") if myriad.tilde_range(cur, pos) else None  # '5~7일' 오부터 칠일
    if c in ("(", "（"):
        found = myriad.weekdays(cur, pos, _WEEKDAYS, _WEEKDAY_JOINERS)
        if found is not None:
            return locale_span(found[0], " " + found[1], "ko")  # '10일(월)': 십일 월요일, never 십일월
    if c == "." and is_hangul(ctx.char_before(cur.text, pos)):
        return _file_type(cur, pos)
    if c.isascii() and c.isalpha():
        found = myriad.currency_code(cur, pos, _WRITING)
        if found is None:
            return _address(cur, pos)
    else:
        found = myriad.scan(cur, pos, ctx, _WRITING)
    if found is None:
        return None
    end, e = found
    if e.kind == "integer" and not (e.sign or e.currency or e.suffix or e.roots[0]):
        code = cur.text[pos:end].isdecimal() and _asks_for_digits(ctx.prev_word)
        if groups := _phone_run(e.parts[0], cur.text[pos:end]):
            return locale_span(end, " ".join(_phone_digits(g) for g in groups), "ko")
        sino = ctx.char_before(cur.text, pos) == "제"  # '제2장' 제이장: an ordinal prefix, never a counter
        end, spoken = _before_hangul(cur, end, e.parts[0], code, sino)
        return locale_span(end, spoken, "ko")
    spoken = read(e)
    if e.kind in ("fraction", "mixed") and not e.suffix or e.currency:  # '$5를', '₩500을'
        end, spoken = _particle(cur, end, spoken)
        if is_hangul(ctx.char_before(cur.text, pos)):  # '1과3/4': 일과 사분의 삼
            spoken = " " + spoken
    return locale_span(end, spoken, "ko")


def read(e: myriad.Expression) -> str:
    sign = {"-": "마이너스 ", "+": "플러스 "}.get(e.sign, "")
    if e.currency:
        return sign + _money(e)
    unit = _WRITING.suffix(e.suffix)
    return sign + _body(e) + (" " + unit if unit else "")


def _body(e: myriad.Expression) -> str:
    p = e.parts
    kind = e.kind
    if kind == "integer":
        return NUMERALS.rooted(e.roots[0]) + NUMERALS.integer(p[0])
    if kind == "decimal":
        return NUMERALS.decimal(p[0], p[1])
    if kind == "fraction":
        return NUMERALS.fraction(p[0], p[1], e.roots)
    if kind == "mixed":  # '2 1/2' 이와 이분의 일: the whole joined to the fraction by 와 or 과
        whole = NUMERALS.integer(p[0])
        return whole + ("과" if _has_final_consonant(whole[-1]) else "와") + " " + NUMERALS.fraction(p[1], p[2], e.roots)
    if kind == "time":
        return _clock(p)
    if kind == "date":
        year, month, day = (int(x) for x in p)
        return f"{NUMERALS.cardinal(year)}년 {month_name(month)}월 {NUMERALS.cardinal(day)}일"
    if kind == "range":
        return NUMERALS.integer(p[0]) + " 부터 " + NUMERALS.integer(p[1])
    if kind in ("phone", "groups") and e.country in ("", "82") and myriad.phone_groups("".join(p), e.country, "KR"):
        spoken = " ".join(_phone_digits(g) for g in p)  # a Korean number: 공일공
        return f"국가번호 {NUMERALS.digit_string(e.country)} {spoken}" if e.country else spoken
    spoken = " ".join(NUMERALS.digit_string(g) for g in p)
    if kind == "phone":
        return f"국가번호 {NUMERALS.digit_string(e.country)} {spoken}" if e.country else spoken
    if len(p) == 4 and all(len(g) == 4 for g in p):
        return "신용카드 " + spoken
    return spoken


def _money(e: myriad.Expression) -> str:
    word = _CURRENCIES[e.currency.upper() if e.currency.upper() in _CURRENCIES else e.currency]
    space = "" if word == "원" else " "
    if e.kind == "decimal" and len(e.parts[1]) == 2 and word in _MINOR_UNITS and not e.scale:
        whole, cents = e.parts
        spoken = NUMERALS.integer(whole) + " " + word
        return spoken + (f" {NUMERALS.cardinal(int(cents))} {_MINOR_UNITS[word]}" if int(cents) else "")
    return _body(e) + e.scale + space + word


def _phone_digits(group: str) -> str:
    """A group of a Korean telephone number, its zeros 공 as Koreans say them (010 공일공)."""
    return NUMERALS.digit_string(group).replace("영", "공")


def native(n: int) -> str:
    """A number before a counter, CLDR's: 한, 스무, 스물한; hundreds and above in Sino-Korean (백한)."""
    return cldr.spell("ko", n, "spellout-cardinal-native-attributive")


def hour(n: int) -> str:
    """Clock hours 1 to 12 are native (세시), 0 and 13 on Sino-Korean (영시, 십팔시)."""
    return native(n) if 1 <= n <= 12 else NUMERALS.cardinal(n)


def month_name(n: int) -> str:
    return _MONTHS.get(n) or NUMERALS.cardinal(n)


def _clock(parts: tuple[str, ...]) -> str:
    spoken = hour(int(parts[0])) + "시"
    for value, unit in zip(parts[1:], ("분", "초"), strict=False):
        if int(value):
            spoken += f" {NUMERALS.cardinal(int(value))}{unit}"
    return spoken


def _phone_run(digits: str, written: str) -> list[str] | None:
    """A Korean telephone number written as one run of digits ('01012345678'), in its groups."""
    if not (written.isdecimal() and written.startswith("0") and 9 <= len(written) <= 11):
        return None
    return myriad.phone_groups(digits, "", "KR")


def _before_hangul(cur: Cursor, end: int, written: str, code: bool, sino: bool = False) -> tuple[int, str]:
    """An integer read by what follows it: an hour, a month, a counter, an ordinal; else digit by
    digit where it is a `code` (the word before it names one), else as a number; after 제
    (`sino`) always a Sino-Korean number."""
    c = cur.at(end)
    plain = NUMERALS.digit_string(written) if code else NUMERALS.counted(written, c)
    if written.startswith("0") and len(written) > 2 or len(written) > 6 or sino:
        return end, plain
    n = int(written)
    if c == "월":
        return end, month_name(n) if 1 <= n <= 12 else plain
    if c == "시" and cur.at(end + 1) != "간":
        return end, hour(n)
    if c == "번" and cur.at(end + 1) == "째":
        if n == 1:
            return end, "첫"
        return end, native(n) if n <= _LAST_NATIVE_ORDINAL else plain
    if c in _COUNTER_STARTS and n:
        counter = c if c in _COUNTERS else c + cur.at(end + 1)
        if counter in _COUNTERS and not (counter == "개" and cur.at(end + 1) == "월") and not (
            counter == "달" and cur.at(end + 1) == "러"  # 3개월 삼개월, 79달러 칠십구달러: no counters
        ):
            return end, native(n)
    return end, plain


def _asks_for_digits(word: str) -> bool:
    """`word`, the word before a number, names a code or digits (번호, 비밀번호는, 네자리)."""
    return word.endswith(_DIGIT_CUES) or word[-1:] in _CUE_PARTICLES and word[:-1].endswith(_DIGIT_CUES)


def _has_final_consonant(syllable: str) -> bool:
    return "\uac00" <= syllable <= "\ud7a3" and (ord(syllable) - 0xAC00) % 28 != 0


def _particle(cur: Cursor, end: int, spoken: str) -> tuple[int, str]:
    """'5/6이' → 육분의 오가: a one-syllable particle right after agrees with the reading."""
    c = cur.at(end)
    if c not in _PARTICLES_AFTER_VOWEL and c not in _PARTICLES_AFTER_CONSONANT or is_hangul(cur.at(end + 1)):
        return end, spoken
    if _has_final_consonant(spoken[-1]):
        return end + 1, spoken + _PARTICLES_AFTER_CONSONANT.get(c, c)
    return end + 1, spoken + _PARTICLES_AFTER_VOWEL.get(c, c)


def _spelled(letters: str) -> str:
    return "".join(_LETTERS.get(c, c) for c in letters.lower())


def _ending(label: str) -> str:
    """A domain ending or file type: said as a word where Koreans do (닷컴), else spelled."""
    lowered = label.lower()
    if lowered in _ENDING_WORDS:
        return _ENDING_WORDS[lowered]
    return _spelled(label) if len(label) <= 3 or lowered in _FILE_TYPES else label


def _file_type(cur: Cursor, pos: int) -> Span | None:
    """'사진.png', '문서.PDF': a file type after a Hangul name."""
    j = pos + 1
    while (c := cur.at(j)).isascii() and c.isalpha():
        j += 1
        if j - pos > _LONGEST_ENDING:
            return None
    ending = cur.text[pos + 1:j]
    if j == pos + 1 or cur.at(j).isalnum() or ending.lower() not in _FILE_TYPES | _ENDING_WORDS.keys() | (
        electronic.TLDS
    ):
        return None
    return locale_span(j, " 닷 " + _ending(ending), "ko")


_ADDRESS_PIECE = re.compile(r"\d+|[A-Za-z]+|.")


def _address(cur: Cursor, pos: int) -> Span | None:
    """A URL, an email address or a domain: names as written, endings spelled, symbols in Korean."""
    for scheme in electronic.SCHEMES:
        if cur.startswith(pos, scheme, fold=True):
            end = lexer.url_end(cur, pos + len(scheme))
            url = cur.text[pos:end]
            host = electronic.host(url)
            path = electronic.strip_scheme(url)[len(host):].rstrip("/")
            if len(url) > electronic.HOST_ONLY_AFTER:
                path = ""
            return locale_span(end, " ".join(p for p in (_domain(host), _address_part(path)) if p), "ko")
    end = lexer.chunk(cur, pos)
    word = cur.text[pos:end]
    if "@" in word and electronic.is_email(word):
        local, _, domain = word.rpartition("@")
        spoken = _address_part(local) + " 골뱅이 " + _domain(domain)
    elif electronic.is_domain(word) or "." in word and word.rsplit(".", 1)[1].lower() in _FILE_TYPES:
        spoken = _domain(word)
    else:
        return None
    return locale_span(end, spoken, "ko")


def _domain(domain: str) -> str:
    first, *rest = domain.split(".")
    words = [_spelled(first) if first.lower() == "www" else _address_part(first)]
    words += [_ending(label) if label.isascii() and label.isalpha() else _address_part(label) for label in rest]
    return " 닷 ".join(words)


def _address_part(text: str) -> str:
    words = []
    for piece in _ADDRESS_PIECE.findall(text):
        if piece.isdecimal():
            short = len(piece) <= 2 and not piece.startswith("0")  # 'user01' 영일
            words.append(NUMERALS.cardinal(int(piece)) if short else NUMERALS.digit_string(piece))
        elif piece.isalnum():
            words.append(piece)
        elif piece in ADDRESS_SYMBOLS:
            words.append(ADDRESS_SYMBOLS[piece])
    return " ".join(words)


def number(text: str) -> str:
    return myriad.numbers_in(text, NUMERALS, "번")


cardinal = NUMERALS.cardinal
digits = NUMERALS.digit_string
