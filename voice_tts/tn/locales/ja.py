"""Japanese: numbers read in kanji numerals, grouped by 万/億/兆, as the voice reads them.

Counters, dates (年/月/日), times (時/分) and ordinals (第…, …番目) are written in kanji around
the digits, so the digits alone become numerals: 2024年 → 二千二十四年, 第1 → 第一. Written
forms that carry no kanji of their own are read out: decimals (三点六), fractions (二分の一),
clock times (十時三十分), dates with slashes (二千二十四年一月三十日), weekdays in brackets
(土曜日), ranges with a tilde (から), percent, units, money, telephone numbers; era years
('R.4' 令和四年). The words are in ja_words.json.
"""

from __future__ import annotations

from voice_tts.tn import lexer
from voice_tts.tn.chars import is_digit
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor
from voice_tts.tn.locales import locale_span, myriad


class Japanese(myriad.Language):
    code = "ja"

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
