"""Numbers grouped by ten thousand, and the number expressions Japanese and Korean write alike.

Chinese, Japanese and Korean read numbers in myriads (万/亿/兆, 万/億/兆, 만/억/조): `Numbers` reads them with CLDR's cardinals
and the words of a language's table (`chinese` reads its own expressions with it). `scan` finds a number expression
through the Cursor — a sign or a root, a currency before it, digits with thousands commas and a decimal point, a clock
time, a date or a fraction with slashes, digit groups joined by hyphens or dots, a telephone number, and the percent
sign, degree or unit right after it — and `Language` reads its parts with the words of the language's
`<code>_words.json`, CLDR's currency, unit and weekday names and libphonenumber's groups; `ja` and `ko` override its
hooks where they read otherwise. Both languages write no space between a number and its counter, so a scan waits for the
character after the expression (a joiner, a unit, a counter may follow) and never for a word after a space.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import cache

import phonenumbers
from babel.dates import get_day_names
from babel.numbers import get_currency_symbol

from voice_tts.tn import cldr, english, lexer
from voice_tts.tn.chars import is_digit, is_han, is_kana
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor, TooLong
from voice_tts.tn.locales import data, locale_span, words

MINUS_SIGNS = frozenset("-−－")
TILDES = frozenset("~〜～")
_LIST_DOTS = frozenset("·ㆍ")  # between weekdays, a list: ko '월·수·금' 월요일, 수요일, 금요일
_OPEN = frozenset("(（")
_CLOSE = frozenset(")）")
_LONGEST_UNIT = 5
_UNIT_SYMBOL = re.compile(r"μ?[A-Za-z]+[²³]?")
_is_letter = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyzµμ").__contains__  # of a code or a unit
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# after a calling code or an area code in brackets (or both), at most four digit groups with the area code:
# '+82 010-1234-5678', '(800) 555-0000'
_PHONE = re.compile(r"(?:\+(\d{1,3})(?!\d)[ -]?)?(?:[(（](\d{2,4})[)）][ -]?)?"
                    r"(\d+(?(2)(?:[-. ]\d+){0,2}|(?:[-. ]\d+){0,3}))")
_PHONE_MARKS = frozenset("+-. ()（）")
_CODE = re.compile(r"[A-Z][0-9]|[2-6]G")  # a letter and a digit, or a mobile generation: 'A4', '5G'
_UNROOTED = (False, False)  # an expression's `roots`: no number under √
# what an expression's digits read as: their end, the expression's kind, parts and roots
_Body = tuple[int, str, tuple[str, ...], tuple[bool, bool]]


@cache
def unit_words(lang: str) -> dict[str, str]:
    """Unit symbols after a number and their names alone ('kWh' キロワット時, 킬로와트시, 千瓦时): every symbol
    CLDR knows, English's and the language's own, of the kinds cjk_units.json names, and its own names."""
    table, ids, names = data("cjk_units.json"), cldr.english_unit_ids(), {}
    for written, symbol in (
        {s: s for s in {*ids, *cldr.unit_symbols(lang)} if _UNIT_SYMBOL.fullmatch(s)} | table["written_also"]
    ).items():
        # a name the number goes before ('mph' 時速…マイル: none)
        unit = ids.get(symbol) or cldr.unit_for(lang, symbol) or ""
        if (
            written not in table["not_units"]
            and (unit.split("-")[0] in table["categories"] or symbol in table["durations"])
            and "{}" not in (
                name := (
                    cldr.unit_reading("1", symbol, lang, "{}") or "{}" + (cldr.unit_name(lang, unit, 1) or "{}")
                ).removeprefix("{}")
            )
        ):
            names[written] = name.strip()
    return names | {s: by[lang] for s, by in table["names"].items() if lang in by}


@dataclass(frozen=True, slots=True)
class Expression:
    """A number expression as written: its kind and its digit strings.

    kind: "integer" (parts: the digits, thousands commas removed), "decimal" (whole, fraction), "fraction"
    (numerator, denominator; `roots` says which is under √), "mixed" (whole, numerator, denominator), "time" (hours,
    minutes[, seconds]; "elapsed" a time taken), "date" (year, month, day), "range" (first, last), "groups" (digit
    groups joined by hyphens or dots; "code" after a code's word), "version" (parts joined by dots), "lot" (an
    address's numbers after a town or block), "plate", "phone" (groups; `country` is the calling code after '+').
    """

    kind: str
    parts: tuple[str, ...]
    sign: str = ""  # "-" or "+"
    roots: tuple[bool, bool] = _UNROOTED
    currency: str = ""  # the symbol or code as written ("₩", "US$", "krw")
    scale: str = ""  # 万/億/兆 after an amount of money ("₩12억")
    suffix: str = ""  # "%", "°", "°C", a unit or unit/unit as written
    country: str = ""


class Numbers:
    """Numbers read in myriads with the words of a language's `table`, as Chinese, Japanese and Korean read them: a
    subclass names its `code` and overrides `cardinal` where it reads otherwise."""

    code: str

    def __init__(self, table: dict) -> None:
        self.words = table
        self.large = table["large"]  # the names of 10^4, 10^8, 10^12, 10^16: ja 万億兆京

    def cardinal(self, n: int) -> str:
        """CLDR's cardinal (the language's `ruleset`) without the spaces Korean writes between
        myriads (만 일 → 만일); digit by digit from 10^20 on."""
        if n == 0 or n >= 10 ** (4 * len(self.large) + 4):
            return self.digits(str(n)) if n else self.words["zero"]
        kei, rest = divmod(n, 10**16)  # CLDR stops at 10^18: 京 named here
        spoken = (self.cardinal(kei) + self.large[3] if kei else "") + cldr.spell_by_myriads(
            self.code, rest, self.words["ruleset"])
        return spoken.replace(" ", "")

    def digits(self, text: str) -> str:
        """Digit by digit as CLDR writes them: '010' -> 〇一〇, 영일영 (zero alone is 零 in ja: 零時)."""
        return "".join(cldr.spell(self.code, int(c), self.words["ruleset"]) for c in text if c.isdecimal())

    def integer(self, text: str) -> str:
        """A written integer: leading zeros ('007') are read digit by digit, as `cardinal` reads one past 10^20."""
        text = text.replace(",", "")
        return self.digits(text) if len(text) > 1 and text[0] == "0" else self.cardinal(int(text))

    def decimal(self, whole: str, fraction: str) -> str:
        return self.integer(whole) + self.words["point"] + self.digits(fraction)

    def fraction(self, numerator: str, denominator: str, roots: tuple[bool, bool] = _UNROOTED) -> str:
        """Denominator first: '1/2' → 二分の一, '√1/2' → 二分のルート一, '1/√3' → ルート三分の一."""
        return (f"{self.words['root'] * roots[1]}{self.integer(denominator)}{self.words['fraction_of']}"
                f"{self.words['root'] * roots[0]}{self.integer(numerator)}")

    def version(self, parts: list[str] | tuple[str, ...]) -> str:
        """'4.2.1' 四点二点一; parts of three digits or more digit by digit ('192.168.0.1', a build)."""
        return self.words["point"].join(self.digits(x) if len(x) > 2 else self.integer(x) for x in parts)


class Language(Numbers):
    """A language that reads its numbers in myriads, with the words of its `<code>_words.json`: the spans it decides and
    their readings. A subclass names its `code`, a span where no number starts (`other_span`), how an integer with
    nothing of its own around it reads (`bare_integer`) and overrides the hooks where it reads otherwise (`cardinal`,
    `expression`, `hour`)."""

    def __init__(self) -> None:
        table = words(self.code)
        super().__init__(table)
        self.scales = frozenset(self.large)
        self.space = table["space"]  # between words: ko 사십오 달러, ja 四十五ドル
        self.SYMBOLS, self.ADDRESS_SYMBOLS = table["symbols"], table["address_symbols"]
        self.letters = dict(zip(string.ascii_lowercase, table["letters"].split(), strict=True))  # by name: 'F1', '.pdf'
        # digits as English names them, after the letters a key holds ('' after any): 'A4' エーヨン, '2ラン' ツーラン
        self.code_digits = {letters: names.split() for letters, names in table["code_digits"].items()}
        self.units = unit_words(self.code)
        symbols = {s for s in cldr.currency_symbols(self.code) if len(s) == 1 and not s.isalnum()}
        fullwidth = (chr(c) for c in range(0xFF01, 0xFFEF))  # '＄', '￥', '￦'
        self.currency_symbols = frozenset(symbols).union(
            c for c in fullwidth if unicodedata.normalize("NFKC", c) in symbols
        )
        wide = get_day_names("wide", locale=self.code)
        self.weekdays = {short: wide[day] for day, short in get_day_names("abbreviated", locale=self.code).items()}
        self.weekdays |= table["weekdays"]  # ja '祝' 祝日
        self.calling_code = str(phonenumbers.country_code_for_region(table["region"]))

    # --- numbers ------------------------------------------------------------------------------

    def counted(self, text: str, following: str) -> str:
        """An integer before `following`: zero-padded before a counter ('09分', '05시') it is a number, not digits; a
        count of zero is the zero of speech ('0歳' ゼロ歳, '0円'), but before a clock's or a degree's unit (零時, 零度)."""
        if text == "0" and is_han(following) and following not in self.words["written_zero_before"]:
            return self.words["spoken_zero"]
        return (
            self.cardinal(int(text))
            if len(text) == 2 and text[0] == "0" and is_han(following)
            else self.integer(text)
        )

    def number(self, text: str) -> str:
        """A token with digits the neutral rules found ('A4', 'COVID-19', '#3'): its numbers read, zeros after letters
        as a phone's ('KE017' 공일칠); '#' before a number is the language's word for it (ko '#3' 삼번, ja 三番)."""
        if text.startswith("#"):
            number = text[1:].lstrip()
            # a short dial code ('#8000', '#7119') is said as it is dialled: ja シャープ八千
            dialled = len(number) == 4 and number.isdecimal() and self.words["dial_code"]
            return (dialled or self.words["number_sign"]).format(self.number(number))
        # a letter and a digit are a code, read as its letters are: 'F1' 에프원, 'A4' エーヨン, '5G' 파이브지
        if _CODE.fullmatch(text):
            letter, digit = sorted(text, key=str.isdecimal)
            digits = next(names for letters, names in self.code_digits.items() if letter in letters or not letters)
            return "".join((self.letters[letter.lower()], digits[int(digit)])[::1 if text[0] == letter else -1])
        if english.REFERENCE.fullmatch(text) and not re.fullmatch(r"[A-Z]{1,3}\d{4}", text):  # 'JL1172' a count
            return re.sub(r"\d+", lambda m: self._telephone_digits(m[0]), text.replace("-", ""))  # 'KR-3375' KR삼삼칠오
        return _NUMBER.sub(lambda m: self.decimal(*m[0].split(".")) if "." in m[0] else self._telephone_digits(m[0])
                           if m.start() and m[0][0] == "0" else self.integer(m[0]), text.replace("-", " "))

    # --- spans and their readings -------------------------------------------------------------

    def spelled(self, letters: str) -> str:
        return "".join(self.letters.get(c, c) for c in letters.lower())

    def currency(self, written: str) -> str | None:
        """The ISO code of a currency symbol or code as written ('₩', '＄', 'US$', 'krw'). A code
        that is also an English word counts in capitals where the language writes that currency
        with a symbol of its own ('CAD': CA$), never else ('TOP 10')."""
        code = cldr.currency_code(self.code, unicodedata.normalize("NFKC", written))
        return None if (
            code == written
            and code.lower() not in cldr.currency_symbols(self.code)
            and get_currency_symbol(code, self.code) == code
        ) else code

    def find_span(self, cur: Cursor, pos: int, ctx: Context) -> Span | None:
        c, before = cur.at(pos), ctx.char_before(cur.text, pos)
        if c in TILDES:  # '5〜7日' 五から七日, '10月中旬〜11月上旬'; one before a space or the end is decoration
            n = cur.at(pos + 1)  # read 'from', its end is read 'until' (`_until`): ko '9시~6시' 아홉 시부터 여섯 시까지
            if not (n.isalnum() or is_digit(n)):
                return None
            last = scan(cur, pos + 1, ctx, self) if is_digit(n) else None  # ko '9시~12시 사이' 아홉 시에서 열두 시 사이
            k = last[0] + (cur.at(last[0]) in self.words["until"][1]) if last else pos
            before_words = self.words["tilde_before"]
            word = before_words.get(lexer.word_at(cur, k, before_words), self.words["tilde"][""])
            return Span(pos + 1, "locale", self.code, word, agreement="until")
        if c in self.words["units_after"] and is_digit(before) and (
                unit := _unit(cur, pos + 1 + (cur.at(pos + 1) == " "), self))[0]:  # a unit after a myriad: '1만 km'
            return locale_span(unit[1], c + self.suffix(unit[0]), self.code)
        if company := self._company(cur, pos, ctx):
            return company
        if (
            c == "/"
            and _is_letter(before)
            and is_digit(cur.at(pos + 1))
            and (per := scan(cur, pos + 1, ctx, self))
            and per[1].suffix in self.units
        ):
            return locale_span(pos + 1, self.words["per"], self.code)  # '10mg/5mL' 十ミリグラム毎五ミリリットル: a dose per volume
        name = ctx.prev_word[-1:] if before == " " else before  # '경제학원론 II'
        # '⑤番' 五番, '第III章' 第三章, 'II型' 二型, '統計学Ⅱ' 二; 'V型', 'ステージIV'
        if (sign := numeral(cur, pos)) and (
            before in ("第", "제")
            or "①" <= c <= "⑳"
            or (
                (
                    cur.at(sign[0]) in self.words["roman_before"]
                    or sign[1] <= 12 and is_han(name) and not (c < "Ⅰ" and is_kana(name))
                )
                and cur.text[pos:sign[0]] not in ("I", "V", "X")
            )
        ):
            # after katakana: 'ロッキーⅡ」' ツー
            sequel = (
                "・" != before
                and "ァ" <= before <= "ー"
                and c < "①"
                and sign[1] < 10
                and self.code_digits[""]
            )
            return locale_span(sign[0], sequel[sign[1]] if sequel else self.cardinal(sign[1]), self.code)
        # '½錠' 半錠, '½컵' 반 컵: a half before what it counts; '¾' 四分の三
        if fraction := c in cldr.VULGAR_FRACTIONS and cldr.vulgar_fraction(c):
            half = fraction == (1, 2) and not cur.at(pos + 1).isascii() and cur.at(pos + 1).isalpha()
            reading = self.words["half"] + self.space if half else self.fraction(*map(str, fraction))
            return locale_span(pos + 1, reading, self.code)
        if (
            c in self.weekdays
            and (k := lexer.run(cur, pos, lambda x: x in self.weekdays or x in TILDES or x in _LIST_DOTS, 13)) - pos > 2
            and len(joiner := set(cur.text[pos + 1:k:2])) == 1
        ):
            days = [self.weekdays.get(d) for d in cur.text[pos:k:2]]
            # a range's last day written out: '火～金曜日' 火曜日から金曜日, '화~일요일' 화요일부터 일요일까지
            if joiner <= TILDES and days[-1] and cur.startswith(k - 1, days[-1]):
                k += len(days[-1]) - 1
            more, two = self.words["weekday_list"]  # a list's joiners, of more days and of two: ko '월·수·금'
            # '月〜土' 月曜日から土曜日
            if (
                (k - pos) % 2
                and all(days)
                and (two and joiner <= _LIST_DOTS or len(days) == 2 and joiner <= TILDES)
                and not any("一" <= x <= "鿿" or "가" <= x <= "힣" for x in (before, cur.at(k)))
            ):
                return locale_span(
                    k,
                    self.words["weekday_range"].format(*days) if joiner <= TILDES
                    else (two if len(days) == 2 else more).join(days),
                    self.code,
                )
        if c in _OPEN and (found := self._weekdays(cur, pos)):
            return locale_span(found[0], self.space + found[1], self.code)  # '10일(월)': 십일 월요일, never 십일월
        if c in "vV" and not _is_letter(before):  # 'v2.0.1', 'Ver. 2.10': バージョン二点零点一
            i = pos + 1 + 2 * cur.startswith(pos + 1, "er")
            i += cur.at(i) == "."
            i += cur.at(i) == " "
            if (
                is_digit(cur.at(i))
                and (v := amount(cur, i, self))[1].kind in ("decimal", "version")
                and not v[1].suffix
            ):
                return locale_span(
                    v[0],
                    self.words["version_words"][0] + self.space + self._body(replace(v[1], kind="version")),
                    self.code,
                )
        if is_digit(c) and (k := lexer.digits_end(cur, pos)) - pos < 4 and "A" <= cur.at(k) <= "Z" and (  # '搭乗口12A'
                (after := cur.at(k + 1)) in self.words["code_after"] or self.cued(ctx.prev_word, "seat_cues")
                and not _is_letter(after)):  # a seat, a gate: no amperes
            return locale_span(k + 1, self.integer(cur.text[pos:k]) + self.space + cur.at(k), self.code)
        # a code's capitals as written, its digits one by one: '접수번호 ICN40782' I C N 사공칠팔이
        if (
            "A" <= c <= "Z"
            and self.cued(ctx.prev_word, "long_code_cues")
            and (k := lexer.run(cur, pos, str.isupper, 6)) - pos < 6
            and (n := lexer.digits_end(cur, k)) - k > 3
            and not _is_letter(cur.at(n))
        ):
            letters = (
                self.spelled(cur.text[pos:k])
                if k - pos <= self.words["named_code_letters"]
                else " ".join(cur.text[pos:k])
            )
            # ko one or two named: 비 이공구삼일
            return locale_span(n, letters + " " + self._telephone_digits(cur.text[k:n]), self.code)
        if (
            is_digit(c)
            and cur.startswith(k := lexer.digits_end(cur, pos), "W-")
            and (n := lexer.digits_end(cur, k + 2)) > k + 2
        ):
            # '0W-20' an oil's grade: ゼロダブリュー二十
            cold = self.words["spoken_zero"] if cur.text[pos:k] == "0" else self.integer(cur.text[pos:k])
            # W its letter: 영더블유 이십
            return locale_span(n, cold + self.letters["w"] + self.space + self.integer(cur.text[k + 2:n]), self.code)
        if (
            is_digit(c)
            and _CODE.fullmatch(cur.text[pos:pos + 2])
            and not (cur.at(pos + 2).isascii() and cur.at(pos + 2).isalnum())
        ):
            return None  # '5G': a code, read by `number`
        if is_digit(c) and (pace := lexer.pace(cur, pos)) and (per := self.words["pace"].get(pace[3])):  # '3'24"/km'
            return locale_span(pace.end(), per + self.clock(("0", *pace.groups()[:2]), True), self.code)  # キロ三分二十四秒
        if (found := scan(cur, pos, ctx, self)) is None:
            return self.other_span(cur, pos, ctx)
        end, e = found
        grouped = e.kind in ("range", "groups")
        code = grouped and (self.cued(word := ctx.prev_word) or self.cued(word, "long_code_cues"))
        if grouped and (address := self.address(e, before, ctx.prev_word)):
            e = address
        elif code or e.kind in ("range", "version") and self._home_groups(e.parts, "") == e.parts and (
                e.kind == "version" or int(e.parts[1]) > 2100):  # a number to call: '1588-3482' 일오팔팔 삼사팔이
            e = replace(e, kind="code" if code else "groups")  # a code: '注文番号は1234-5678'; years: '1600-1700'
        elif e.kind == "time" and len(e.parts) == 3 and race_time(e.parts, ctx.prev_word, self.cued(
                ctx.prev_word, "elapsed_cues"), self.cued(ctx.prev_word, "clock_cues")):
            e = replace(e, kind="elapsed")
        elif e.kind == "decimal" and ctx.prev_word.lower().endswith(tuple(self.words["version_words"])):
            e = replace(e, kind="version")  # 'バージョン2.10' 二点十, never 二点一〇
        elif e.kind == "fraction" and (
                e.suffix == "mmHg" or not e.suffix and self.cued(ctx.prev_word, "pressure_cues")):
            e = replace(e, kind="pressure")  # a blood pressure: '120/80mmHg' 百二十の八十, '혈압은 135/85' 백삼십오에 팔십오
        elif (
            e.kind in ("fraction", "decimal")
            and not (any(e.roots) or e.suffix)
            and _is_month_day(*e.parts)
            and (
                self.cued(ctx.prev_word, "date_cues")
                or cur.at(end) in _OPEN and self._weekdays(cur, end)
                # '5/12の9:00', '6/3の9時'
                or (
                    cur.at(end) in self.words["before_time"]
                    and is_digit(cur.at(end + 1))
                    and cur.at(lexer.digits_end(cur, end + 1)) in (":", self.words["clock"][0])
                )
            )
        ):
            e = replace(e, kind="date", parts=("", *e.parts))  # '検針日は7/20' 七月二十日, '7/20(月)', '6.15(火)', '12/28 23:59'
        if ctx.prev_word.endswith(tuple(self.words.get("speed_per_" + e.suffix.partition("/")[2], ()))):  # per what: 秒速
            e = replace(e, suffix=e.suffix.partition("/")[0])  # '秒速5m/s' 秒速五メートル
        if e.kind == "decimal" and not e.suffix and cur.at(end) == ":" and is_digit(cur.at(end + 1)):  # a ratio, as
            k = lexer.digits_end(cur, end + 1)  # no clock has decimals: '5.3:1' 오점삼 대 일, 五点三対一
            return locale_span(k, self.read(e) + self.words["ratio"] + self.integer(cur.text[end + 1:k]), self.code)
        if e.kind == "integer" and not (e.sign or e.currency or e.suffix or e.roots[0]):
            if reading := self.telephone(cur.text[pos:end]):
                return locale_span(end, reading, self.code)
            return self._until(cur, pos, self.bare_integer(cur, pos, end, e.parts[0], ctx), e, ctx)
        return self._until(cur, pos, self.expression(cur, pos, end, e, ctx), e, ctx)

    def _until(self, cur: Cursor, pos: int, span: Span, e: Expression, ctx: Context) -> Span:
        """The end of a range read 'from', before a copula, a stop or a word but 사이: 'until' after it
        ('16일~31일이며' 삼십일일까지이며, '09:00~22:00 운영' 이십이시까지 운영, '8:30〜17:15です' 十七時十五分までです), after its
        counter, in place of 에 (이십사시까지)."""
        # a period of the day may come between: '6시~오후 10시'
        until, counters, before, replaced, between, periods = self.words["until"]
        k = span.end + (ctx.agreement == "until" and e.kind == "integer" and cur.at(span.end) in counters)
        swallowed = cur.at(k) in replaced and not cur.at(k + 1).isalpha()
        if (
            ctx.agreement == "until"
            and (ctx.char_before(cur.text, pos) in TILDES or ctx.prev_word in periods)
            and (e.kind == "time" or k > span.end)
            and (
                swallowed
                or lexer.word_at(cur, k, before) and not lexer.word_at(cur, k, between)
            )
        ):
            return locale_span(k + swallowed, span.info + cur.text[span.end:k] + until, self.code)
        return span

    def _weekdays(self, cur: Cursor, pos: int) -> tuple[int, str] | None:
        """'(土)', '(月・祝)', '(수〜일)': weekdays in the brackets opening at `pos`, after a date, and their reading."""
        joiners = self.words["weekday_joiners"]
        words, i = [], pos + 1
        while True:
            if (day := cur.at(i)) not in self.weekdays or (c := cur.at(i + 1)) not in joiners and c not in _CLOSE:
                return None
            if c in _CLOSE:
                return i + 2, "".join((*words, self.weekdays[day]))
            words += self.weekdays[day], joiners[c]
            i += 2

    def _company(self, cur: Cursor, pos: int, ctx: Context) -> Span | None:
        """A company's legal form abbreviated in brackets next to its name: '(주)한빛물류' 주식회사
        한빛물류, '삼성전자㈜' 삼성전자 주식회사, '(株)山田' 株式会社山田 (alone, '(사)' is a list's label)."""
        c = cur.at(pos)
        letter, end = unicodedata.normalize("NFKC", c)[1:-1], pos + 1  # '㈜' is '(주)'
        if c in _OPEN and cur.at(pos + 2) in _CLOSE:
            letter, end = cur.at(pos + 1), pos + 3
        form, named_before = self.words["companies"].get(letter), ctx.char_before(cur.text, pos).isalpha()
        return (
            None
            if form is None or not (named_before or cur.at(end).isalpha())
            else locale_span(end, self.space + form if named_before else form + self.space, self.code)
        )

    def cued(self, word: str, cues: str = "digit_cues") -> bool:
        """`word`, the word before a number, ends in one of `cues` or in one and a particle (a code's: 비밀번호는, 末尾;
        a day's: 検針日は)."""
        cues = tuple(self.words[cues])
        return word.endswith(cues) or word[-1:] in self.words["cue_particles"] and word[:-1].endswith(cues)

    def address(self, groups: Expression, before: str, word_before: str) -> Expression | None:
        """Digit groups that are an address's or a plate's numbers ("lot", "plate"), by what is written before them."""
        return None

    def expression(self, cur: Cursor, pos: int, end: int, e: Expression, ctx: Context) -> Span:
        return locale_span(end, self.read(e), self.code)

    def read(self, e: Expression) -> str:
        sign = self.words["signs"].get(e.sign + e.suffix) or self.words["signs"].get(e.sign, "")  # ko '-7℃' 영하 칠도
        if e.currency:
            return sign + self._money(e)
        if (
            e.kind in ("integer", "decimal")
            and e.suffix not in self.words["suffixes"]  # ja '35m/s' 三十五メートル毎秒
            and cldr.english_unit_ids().get(e.suffix, "").startswith("speed-")
            and (speed := cldr.unit_reading(".".join(e.parts), e.suffix, self.code, self._body(e)))
        ):
            return sign + speed.replace(" ", self.space)  # CLDR's: '100km/h' 時速百キロメートル, 시속 백킬로미터
        unit = self.suffix(e.suffix)
        pressure = e.kind == "pressure" and self.words["pressure_over"].join(map(self.integer, e.parts))
        return sign + (pressure or self._body(e)) + (self.words["unit_space"] + unit if unit else "")  # ko 오밀리미터, as 세시

    def suffix(self, suffix: str) -> str:
        """The words for what is written right after a number: '%', a unit, a unit per unit ('km/h')."""
        suffixes = self.words["suffixes"]
        if not suffix or suffix in suffixes:
            return suffixes.get(suffix, "")
        unit, _, per = suffix.partition("/")
        return self.units[unit] + (self.words["per"] + self.words["per_names"].get(per, self.units[per]) if per else "")

    def _body(self, e: Expression) -> str:
        p = e.parts
        if e.kind == "integer":
            return self.words["root"] * e.roots[0] + self.integer(p[0])
        if e.kind == "decimal":
            return self.decimal(*p)
        if e.kind == "fraction":
            return self.fraction(*p, e.roots)
        if e.kind == "mixed":  # '2 1/2' 二と二分の一
            return self.joined(self.integer(p[0])) + self.fraction(*p[1:], e.roots)
        if e.kind in ("time", "elapsed"):
            return self.clock(p, e.kind == "elapsed")
        if e.kind == "date":  # without its year where none is written ('7/20' 七月二十日)
            date = self.words["date"] if p[0] else self.words["date"][self.words["date"].index("{}", 1):]
            return date.format(
                *([self.cardinal(int(p[0]))] if p[0] else []), self.month(int(p[1])), self.cardinal(int(p[2]))
            )
        if e.kind == "range":
            return self.words["range"].join(map(self.integer, p))
        if e.kind == "version":
            return self.version(p)
        joiner = " " if e.kind == "plate" else self.words["group_joiner"]  # a plate's two numbers apart: 十二 三十四
        return joiner.join(map(self.integer, p)) if e.kind in ("lot", "plate") else self._groups(e)

    def joined(self, whole: str) -> str:
        """The whole of a mixed number with the word that joins its fraction, the first of the
        language's two after a final consonant: 二と, 이와 (삼과)."""
        return whole + self.words["and"][0 if ends_in_consonant(whole) else 1]

    def clock(self, parts: tuple[str, ...], elapsed: bool = False, say_hour: Callable[[int], str] | None = None) -> str:
        """'14:05' 十四時五分, '3:30' 세시 삼십분: minutes and seconds of zero go unread, but for minutes before seconds where
        the language reads them ('7:00:30' 七時零分三十秒); a time `elapsed` in hours, minutes and seconds, none of zero."""
        hour, *rest = (int(p) for p in parts)
        words = self.words["elapsed" if elapsed else "clock"]
        spoken = (say_hour or self.hour)(hour) + words[0] if hour or not elapsed else ""  # ko's in a sentence: its own
        for i, value in enumerate(rest, 1):
            if value or i < len(rest) and self.words["zero_minutes_before_seconds"] and not elapsed:
                spoken += self.space * bool(spoken) + self.cardinal(value) + words[i]
        return spoken

    hour = Numbers.cardinal  # a clock's hour: a number (ko reads 1 to 12 natively)

    def month(self, n: int) -> str:
        return self.words["months"].get(str(n)) or self.cardinal(n)

    def telephone(self, written: str) -> str | None:
        """A telephone number of the language's country written as one run of digits
        ('09012345678' 零九零の一二三四の五六七八), in its groups; None for any other run."""
        groups = (
            written.isdecimal()
            and written.startswith("0")
            and 9 <= len(written) <= 11
            and self._home_groups((written,), "")
        )
        return self.words["group_joiner"].join(map(self._telephone_digits, groups)) if groups else None

    def _telephone_digits(self, group: str) -> str:
        """A group of a telephone number, its zeros as the language says them there (ko 010 공일공)."""
        return self.digits(group).replace(self.digits("0"), self.words["telephone_zero"])

    def _home_groups(self, parts: tuple[str, ...], country: str) -> tuple[str, ...] | None:
        """The groups libphonenumber gives a number of the language's country ('01012345678' → 010, 1234, 5678), or
        None; without a `country` code one with the trunk prefix 0 or written in those groups (ko '1588-3482')."""
        digits = "".join(parts)
        groups = cldr.phone_groups(f"+{country}{digits}" if country else digits, self.words["region"])
        return groups if country or digits.startswith("0") or groups == parts else None

    def _groups(self, e: Expression) -> str:
        """Digit groups: a telephone number, a card number, a code (its zeros as a home number's: ko 공)."""
        home = e.kind == "code" or e.country in ("", self.calling_code) and self._home_groups(e.parts, e.country)
        joiner = " " if len(e.parts) > 2 and min(map(len, e.parts)) > 3 else self.words["group_joiner"]  # a waybill's
        spoken = joiner.join(self._telephone_digits(g) if home else self.digits(g) for g in e.parts)
        if e.country:
            return self.words["calling_code"].format(self.digits(e.country)) + spoken
        return (
            self.words["card"] + spoken
            if e.kind == "groups" and len(e.parts) == 4 and all(len(g) == 4 for g in e.parts)
            else spoken
        )

    def _money(self, e: Expression) -> str:
        code = self.currency(e.currency)
        name = self.words["currency_names"].get(code) or cldr.currency_name(self.code, code, 2)
        space = self.space if " " in name else self.words["unit_space"]  # one word as a counter: 오십달러, 오백 인도 루피
        minor = self.words["minor_units"].get(code)
        if e.kind == "decimal" and len(e.parts[1]) == 2 and minor and not e.scale:  # '$12.50' 十二ドル五十セント
            return (
                self.integer(e.parts[0]) + space + name
                + (self.space + self.cardinal(int(e.parts[1])) + space + minor if int(e.parts[1]) else "")
            )
        return self._body(e) + e.scale + space + name


def race_time(parts: tuple[str, ...], word_before: str, elapsed_cue: bool, clock_cue: bool) -> bool:
    """Whether 'h:mm:ss' (`parts`) after `word_before` is the time a race or a task took, no clock, in Chinese, Japanese
    and Korean: after a word of the time taken (`elapsed_cue`: '用时', 'タイム', '기록'), or an hour of one digit with seconds
    after a word that is no clock's ('以2:26:15的成绩', '2:09:48의 기록'); a clock's: '09:00:05', '1日 9:00:05', '7:00:30'."""
    return elapsed_cue or len(parts[0]) == 1 and parts[2] != "00" and word_before[-1:].isalpha() and not clock_cue


def ends_in_consonant(text: str) -> bool:
    """`text` ends in a Hangul syllable with a final consonant (삼, 원; not 오, 달러's 러)."""
    return "\uac00" <= text[-1:] <= "\ud7a3" and (ord(text[-1]) - 0xAC00) % 28 != 0


def numeral(cur: Cursor, pos: int) -> tuple[int, int] | None:
    """A number in a sign of its own ('Ⅲ', '⑤') or in Roman capitals of I, V and X ('III'; not 'CD', 'VIP'): its end
    and its value."""
    if "Ⅰ" <= (c := cur.at(pos)) <= "Ⅻ" or "①" <= c <= "⑳":
        return pos + 1, int(unicodedata.numeric(c))
    end = lexer.run(cur, pos, "IVX".__contains__)
    return (
        (end, value)
        if end > pos and not _is_letter(cur.at(end)) and (value := english.roman_value(cur.text[pos:end]))
        else None
    )


def letters_end(cur: Cursor, i: int, longest: int) -> int | None:
    """The end of the ASCII letters at `i`; None past `longest` of them (no unit, currency code
    or file type is longer, so a longer word is not waited for)."""
    return None if (j := lexer.run(cur, i, _is_letter, longest + 1)) - i > longest else j


def scan(cur: Cursor, pos: int, ctx: Context, language: Language) -> tuple[int, Expression] | None:
    """The number expression starting at `pos`, or None when none starts here."""
    c = cur.at(pos)
    if (c == "+" or c in _OPEN) and (phone := _phone(cur, pos)):
        return phone
    sign, currency, i = "", "", pos
    # no 'A-3', '5-2'
    if (
        (c in MINUS_SIGNS or c == "+")
        and not is_digit(p := ctx.char_before(cur.text, pos))
        and not (p.isascii() and p.isalnum())
    ):
        if not (is_digit(n := cur.at(pos + 1)) or n == "√" and is_digit(cur.at(pos + 2))):
            return None
        sign, i = ("+" if c == "+" else "-"), pos + 1
    elif c in language.currency_symbols or _is_letter(c):  # '₩500'; a code: 'KRW 30,000', 'US$ 1,234'
        currency = (
            c
            if c in language.currency_symbols
            else (j := letters_end(cur, pos, 3)) and cur.text[pos:j + (cur.at(j) == "$")]
        )
        if (
            not currency
            or not language.currency(currency)  # a symbol's code is known; a code may be a word
            # a space at most, then the amount
            or not is_digit(cur.at(i := pos + len(currency) + (cur.at(pos + len(currency)) == " ")))
        ):
            return None
    elif not is_digit(c) and not (c == "√" and is_digit(cur.at(pos + 1))):
        return None
    return amount(cur, i, language, sign=sign, currency=currency)


def amount(cur: Cursor, i: int, language: Language, sign: str = "", currency: str = "") -> tuple[int, Expression]:
    """The expression whose digits (or root) start at `i`, with what follows it."""
    end, kind, parts, roots = _body(cur, i)
    scale = suffix = ""
    with suppress(TooLong):
        # '2½杯' 二と二分の一杯
        if kind == "integer" and (
            fraction := cur.at(end) in cldr.VULGAR_FRACTIONS and cldr.vulgar_fraction(cur.at(end))
        ):
            end, kind, parts = end + 1, "mixed", (parts[0], *map(str, fraction))
        elif kind == "integer" and cur.at(end) == " " and is_digit(cur.at(end + 1)):
            after, second, fraction, second_roots = _body(cur, end + 1)
            if second == "fraction":
                end, kind, parts, roots = after, "mixed", (parts[0], *fraction), second_roots
        c = cur.at(end)
        if currency and c in language.scales:
            scale, end = c, end + 1
        elif c in ("%", "％"):  # '0.5%p' percentage points where the language writes them so (ko 퍼센트포인트)
            end += len(suffix := max((s for s in language.words["suffixes"] if s[0] == "%" and cur.startswith(
                end + 1, s[1:]) and not _is_letter(cur.at(end + len(s)))), key=len, default="%"))
        elif c in ("°", "℃"):  # '°', '°C', '°F'; '℃' is '°C' by NFKC
            letter = cur.at(end + 1) if c == "°" and cur.at(end + 1) in ("C", "F") else ""
            suffix, end = unicodedata.normalize("NFKC", c) + letter, end + 1 + len(letter)
        elif (
            len(unit := unicodedata.normalize("NFKC", c).replace("2", "²").replace("3", "³")) > 1
            and unit in language.units
        ):
            suffix, end = unit, end + 1  # a unit in one character: '84㎡', '5㎏'
        elif (_is_letter(c) or c == " " and _is_letter(cur.at(end + 1))) and not currency:  # '5 kg' as '5kg'
            suffix, end = unit if (unit := _unit(cur, end + (c == " "), language))[0] else ("", end)
    return end, Expression(kind, parts, sign, roots, currency, scale, suffix)


def _unit(cur: Cursor, i: int, language: Language) -> tuple[str, int]:
    """A unit right after a number ('12kg', '60km/h'); ("", i) when the letters are no unit."""
    j = letters_end(cur, i, _LONGEST_UNIT)
    j = j + 1 if j is not None and cur.at(j) in ("²", "³") and cur.text[i:j + 1] in language.units else j  # 'm²'
    if j is None or cur.text[i:j] not in language.units:
        return "", i
    per = cur.at(j) == "/" and _is_letter(cur.at(j + 1)) and letters_end(cur, j + 1, _LONGEST_UNIT)  # 'km/h'
    return (cur.text[i:per], per) if per and cur.text[j + 1:per] in language.units else (cur.text[i:j], j)


def _body(cur: Cursor, i: int) -> _Body:
    text = cur.text
    root = cur.at(i) == "√"
    start = i + root
    a = lexer.digits_end(cur, start)
    whole = text[start:a]
    n = cur.at(a)
    if root:
        return _fraction(cur, a, whole, True) or (a, "integer", (whole,), (True, False))
    if n == ":" and a - start <= 2:
        return _time(cur, a, whole) or (a, "integer", (whole,), _UNROOTED)
    if n == "/" and (found := _fraction(cur, a, whole, False)) is not None:
        return found
    if n == ",":
        b = a
        while cur.at(b) == "," and lexer.digits_end(cur, b + 1, 4) == b + 4:
            b += 4
        if b > a:
            whole = text[start:b].replace(",", "")
            if cur.at(b) == "." and is_digit(cur.at(b + 1)):
                e = lexer.digits_end(cur, b + 1)
                return e, "decimal", (whole, text[b + 1:e]), _UNROOTED
            return b, "integer", (whole,), _UNROOTED
    groups, seps, e, spaced = [whole], [], a, False
    while (s := cur.at(e)) in ("-", ".") and (
        is_digit(cur.at(e + 1))
        # '2027. 6. 15.' as Korean writes it
        or (
            spaced := (
                s == "."
                and cur.at(e + 1) == " "
                and is_digit(cur.at(e + 2))
                and len(whole) == 4
                and len(groups) < 3
            )
        )
    ):
        f = lexer.digits_end(cur, e + 1 + spaced)
        groups.append(text[e + 1 + spaced:f])
        seps.append(s + " " * spaced)
        e, spaced = f, False
    if len(groups) == 1 or ". " in seps and not (len(seps) == 2 and _is_month_day(groups[1], groups[2])):
        return a, "integer", (whole,), _UNROOTED
    if seps == ["."]:
        return e, "decimal", tuple(groups), _UNROOTED
    # '10-20', '2020-2030'
    if (
        seps == ["-"]
        and "0" not in (groups[0][0], groups[1][0])
        and len(groups[0]) <= len(groups[1]) <= 4
        # '555-1234', '02-123' are digit groups
        and (len(groups[0]), len(groups[1])) != (3, 4)
        and int(groups[0]) < int(groups[1])
    ):
        return e, "range", tuple(groups), _UNROOTED
    if seps in (["-", "-"], [".", "."], [". ", ". "]) and len(groups[0]) == 4 and _is_month_day(groups[1], groups[2]):
        # '2027.06.15.(화)', not a full stop
        final_period = seps[0][0] == "." == cur.at(e) and bool(cur.at(e + 1).strip())
        return e + final_period, "date", tuple(groups), _UNROOTED
    # '555.555.5555'; '4.2.1', '192.168.0.1' are versions
    telephone = min(map(len, groups)) > 2 and len(groups[-1]) == 4
    return e, "version" if set(seps) == {"."} and not telephone else "groups", tuple(groups), _UNROOTED


def _time(cur: Cursor, a: int, hours: str) -> _Body | None:
    parts, e = [hours], a
    while len(parts) < 3 and cur.at(e) == ":" and lexer.digits_end(cur, e + 1, 3) == e + 3:
        parts.append(cur.text[e + 1:e + 3])
        e += 3
    return (
        None
        if len(parts) == 1 or int(hours) > 30 or any(int(p) > 59 for p in parts[1:])
        else (e, "time", tuple(parts), _UNROOTED)
    )


def _fraction(cur: Cursor, a: int, first: str, root_first: bool) -> _Body | None:
    """'1/2', '√1/2', '1/√3', and dates 'Y/M/D', 'D/M/Y', 'M/D/Y'."""
    if cur.at(a) != "/" or not is_digit(cur.at(k := a + 1 + (root_second := cur.at(a + 1) == "√"))):
        return None
    b = lexer.digits_end(cur, k)
    second = cur.text[k:b]
    if not (root_first or root_second) and cur.at(b) == "/" and is_digit(cur.at(b + 1)):
        e = lexer.digits_end(cur, b + 1)
        if (date := _date(first, second, cur.text[b + 1:e])) is not None:
            return e, "date", date, _UNROOTED
    return b, "fraction", (first, second), (root_first, root_second)


def _is_month_day(month: str, day: str) -> bool:
    return 1 <= int(month) <= 12 and 1 <= int(day) <= 31


def _date(a: str, b: str, c: str) -> tuple[str, str, str] | None:
    """(year, month, day) of a date written with slashes, in whichever order it is written."""
    if len(a) == 4 and _is_month_day(b, c):
        return a, b, c
    if len(c) not in (2, 4):
        return None
    if _is_month_day(b, a) and int(a) > 12:
        return c, b, a
    return (c, a, b) if _is_month_day(a, b) else None


def _phone(cur: Cursor, pos: int) -> tuple[int, Expression] | None:
    """'+82 010-1234-5678', '+1 (123)-123-5678', '(800) 555-0000': groups after a calling code
    or an area code in brackets."""
    # no number is that long: a table of numbers is not waited for
    found = _PHONE.match(cur.text, pos, lexer.run(cur, pos, lambda c: is_digit(c) or c in _PHONE_MARKS, 64))
    if found is None or not (found[1] or found[2]):
        return None
    country, area, rest = found.groups(default="")
    groups = re.split("[-. ]", rest)
    if area:
        groups.insert(0, area)
    if len(groups) + bool(country) < 3:
        return None
    return found.end(), Expression("phone", tuple(groups), country=country)
