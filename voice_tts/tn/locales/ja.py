"""Japanese: numbers read in kanji numerals, grouped by 万/億/兆, as the voice reads them.

Counters, dates (年/月/日), times (時/分) and ordinals (第…, …番目) are written in kanji around
the digits, so the digits alone become numerals: 2024年 → 二千二十四年, 第1 → 第一. Written
forms that carry no kanji of their own are read out: decimals (三点六), fractions (二分の一),
clock times (十時三十分), dates with slashes (二千二十四年一月三十日), weekdays in brackets
(土曜日), ranges with a tilde (から), percent, units, money, telephone numbers; era years
('R.4' 令和四年). The words are in ja_words.json.
"""

from __future__ import annotations

import re
from dataclasses import replace

from voice_tts.tn import lexer
from voice_tts.tn.chars import is_digit
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor
from voice_tts.tn.locales import locale_span, myriad


class Japanese(myriad.Language):
    code = "ja"

    def cardinal(self, n: int) -> str:
        """一千万 where CLDR writes 千万 (but 千 alone), 二万一千 at the end."""
        large = self.large
        return re.sub(f"(^|[{large}])千(?=[^{large}]*[{large}])|(?<=[{large}])千$", r"\1一千", super().cardinal(n))

    def bare_integer(self, cur: Cursor, pos: int, end: int, digits: str, ctx: Context) -> Span:
        """An integer with nothing of its own around it (`digits`, thousands commas removed), read by what follows it
        ('09分' 九分, '11時00分' 十一時); digit by digit after a word that names a code ('末尾4821', '認証コードは482913'), or
        a long one ('注文番号58302'), but before a counter ('QRコード12枚' 十二枚)."""
        before = ctx.char_before(cur.text, pos)
        cue = ctx.prev_word or (before if len(digits) > 3 else "")  # a PIN in 「」: '「7025」' 七〇二五
        code = (
            (self.cued(cue) or len(digits) > 4 and self.cued(cue, "long_code_cues"))
            and not "一" <= cur.at(end) <= "鿿"
        )
        code = code or digits[0] == "0" and lexer.word_at(cur, end, self.words["routes"])  # '都01系統'
        if (
            digits == "00"
            and before == self.words["clock"][0]
            and cur.at(end) == self.words["clock"][1]
        ):
            return locale_span(end + 1, "", "ja")  # '11時00分' 十一時: on the hour, no minutes
        if len(digits) < 2 and cur.text[end:lexer.run(cur, end, lambda c: "ァ" <= c <= "ー", 9)] in self.words["english"]:
            return locale_span(end, self.code_digits[""][int(digits)], "ja")  # '2ラン' ツーラン
        # '14〜16時' 十四時から十六時 ('4〜5時間' 四から)
        k = lexer.digits_end(cur, end + 1) if cur.at(end) in myriad.TILDES else end
        hour = re.match(self.words["shared_counter"], cur.at(k) + cur.at(k + 1)) if k > end + 1 else None
        spoken = self.digits(digits) if code else self.counted(digits, cur.at(end))
        return locale_span(end, spoken + (hour[0] if hour else ""), "ja")

    def address(self, groups: myriad.Expression, before: str, word_before: str) -> myriad.Expression | None:
        """After a town or a block, an address's numbers: '山下町1-2' 一の二, '3丁目12-5' 十二の五, and three short groups, no
        telephone's: '3-14-7'; after a plate's kana its two numbers: 'あ 12-34' 十二 三十四."""
        plate = before == " " and word_before in self.words["plate_kana"]
        short = len(groups.parts) == 3 and not any(p[0] == "0" or len(p) > 3 for p in groups.parts)
        if before in self.words["lot_before"] or plate or short:
            return replace(groups, kind="plate" if plate else "lot")
        return None

    def other_span(self, cur: Cursor, pos: int, ctx: Context) -> Span | None:
        """An era year: 'R.4' 令和四年, 'H.30年' 平成三十年, 'R.1' 令和元年, without the period before 年 ('R8年3月' 令和八年三月);
        not 'H.264' nor a letter inside a word. An era is named by its letter, up to its last year. A mark's word
        (`marks`): 'No.' before a number ナンバー, a gold's fineness 'K18' 十八金, with no number after it."""
        prev = ctx.char_before(cur.text, pos)
        if prev.isascii() and prev.isalnum():
            return None
        for written, spoken in self.words["marks"].items():
            end = pos + len(written)
            if cur.startswith(pos, written) and is_digit(cur.at(end + (cur.at(end) == " "))) == written.endswith("."):
                return locale_span(end, spoken, "ja")
        era, dot = self.words["eras"].get(cur.at(pos)), cur.at(pos + 1) == "."
        if era is None or not is_digit(cur.at(pos + 1 + dot)):
            return None
        end = lexer.digits_end(cur, pos + 1 + dot)
        year, after = int(cur.text[pos + 1 + dot:end]), cur.at(end)
        glued = after.isascii() and after.isalnum() if dot else after != "年"  # 'R.4a' a code; 'R8' with no 年 no year
        if end - pos > 3 + dot or not 1 <= year <= era[1] or glued:
            return None
        return locale_span(end + (after == "年"), era[0] + ("元" if year == 1 else self.cardinal(year)) + "年", "ja")


RULES = Japanese()
