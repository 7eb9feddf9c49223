"""Which span starts here, and is it closed yet? The hold-back rules of spec §3.4.

`find_span` decides the first span of the tail. It reads only through the Cursor, so it raises
NeedMore exactly when a character it needs has not arrived, and TooLong when the decision would
read past the tail bound. Its decisions use the left context and the text it waited for, never
anything else; this is what makes streaming output equal one-shot output.
"""

from __future__ import annotations

import re
from contextlib import suppress

from voice_tts.tn import chinese, cldr, electronic, english, lexer, locales
from voice_tts.tn.chars import HARD_STOPS, JOIN_ANY, SIGNS, ZH_SUFFIXES
from voice_tts.tn.chars import (
    is_alnum, is_digit, is_emoji, is_han, is_latin_letter, is_letter, is_space, sign_may_follow
)
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor, NeedMore, TooLong
from voice_tts.tn.locales.myriad import unit_words
from voice_tts.tn.word_list import only_noun


def find_span(cur: Cursor, pos: int, ctx: Context) -> Span:
    c = cur.at(pos)
    before = ctx.char_before(cur.text, pos)
    if ctx.mode and (span := _continuation(cur, pos, ctx)) is not None:
        return span
    if c == "\n":
        return Span(pos + 1, "nl")
    for kind, test in (("ws", is_space), ("emoji", is_emoji), ("drop", lexer.is_dropped)):  # a run of one kind
        if test(c):
            return Span(lexer.greedy(cur, pos, test), kind)
    if c in "0123456789#*" and cur.at(pos + 1) in ("\ufe0f", "\u20e3"):  # a keycap emoji ('1️⃣', '#⃣')
        return Span(lexer.greedy(cur, pos + 1, is_emoji), "emoji")
    if c in "'’" and not is_alnum(before) and lexer.digits_end(cur, pos + 1) == pos + 3:
        return Span(pos + 1, "skip")  # a year's century left out: "del '97" novantasette, "the '90s"
    # A language module reads a number opening a line itself: German '1. Mai' is a date, not a list.
    if (
        ctx.line_start
        and not (ctx.locale is not None and is_digit(c))
        and (span := _line_start(cur, pos, ctx)) is not None
    ):
        return span
    if ctx.lexicon and (span := _lexicon(cur, pos, ctx)) is not None:
        return span
    if is_digit(c) and (span := _score(cur, pos, ctx)) is not None:  # a match's score, in any language
        return span
    if ctx.locale is not None and (span := ctx.locale.find_span(cur, pos, ctx)) is not None:
        return span
    if c in "#*" and ctx.locale is None and not ctx.sent_han:  # said between words or numbers
        n = cur.at(pos + 1)
        if c == "#" and is_alnum(before) and is_letter(n) or c == "*" and is_digit(before) and is_digit(n):
            return Span(pos + 1, "punct", "en", info="hash" if c == "#" else "times")  # 'a#b', '2*8'
        if c == "#" and before and before in "ABCDEFG" and ctx.prev_word == before and not is_alnum(n):
            return Span(pos + 1, "punct", "en", info="sharp")  # 'C#', 'F# minor'
    if c in "*_~`":
        return Span(lexer.run(cur, pos, lambda x: x == c), "md")
    if c == "]" and cur.at(pos + 1) == "(":
        return _link_target(cur, pos + 2)
    if c in ("[", "]") or c == "!" and not before.strip() and cur.at(pos + 1) == "[":
        return Span(pos + 1, "md")  # a link's text, an image's
    if c == "<":  # an HTML tag (at most _TAG_CAP characters), else a mark
        opens = (n := cur.at(pos + 1)) == "/" or n.isascii() and n.isalpha()
        i = lexer.run(cur, pos + 1, _TAG_CHARS.__contains__, _TAG_CAP - 1) if opens else pos
        if pos < i < pos + _TAG_CAP and cur.at(i) == ">":  # a self-closing tag parts words: 'go<noise/>home' go home
            return Span(i + 1, "drop" if cur.text[i - 1] == "/" else "md")
        return Span(pos + 1, "punct")
    if c == "|" and ctx.in_table:
        return Span(pos + 1, "table_pipe", info="end" if cur.at(lexer.spaces(cur, pos + 1)) in ("", "\n") else "mid")
    if c in "hHwW" and (end := lexer.scheme_url_end(cur, pos, electronic.SCHEMES)) is not None:
        return Span(end, "url", _lang_after(cur, ctx, None))
    if c == "#":
        n = cur.at(pos + 1)
        if is_digit(n) or n == " " and is_digit(cur.at(pos + 2)):  # '#10', '# 10': number ten
            return _number(cur, pos, pos + 1 + (n == " "), ctx)
        if is_letter(n):  # a hashtag's sign, or a code's number ('order #W48213' order number W four…)
            return (
                _english_reading(pos + 1, "number ")
                if _CODE.fullmatch(cur.text[pos + 1:lexer.chunk(cur, pos + 1)])
                else Span(pos + 1, "md")
            )
    if c == "@":
        return Span(pos + 1, "md" if is_letter(cur.at(pos + 1)) else "punct")
    if c in "(（" and ctx.sent_han and cur.at(pos + 1) in "周星":  # '8月9日（周一）' 八月九日周一, as ja and ko read it
        day = pos + 2 + cur.startswith(pos + 1, "星期")
        if cur.at(day) in "一二三四五六日天" and cur.at(day + 1) in ("）", ")"):
            return Span(day + 2, "reading", "zh", info=cur.text[pos + 1:day + 1])
    if is_han(c):
        return Span(pos + 1, "han")
    if c in "'’" and ctx.locale is None and is_digit(cur.at(pos + 1)) and is_digit(cur.at(pos + 2)) and (
            cur.at(pos + 3) == "s" and not is_alnum(cur.at(pos + 4))):  # '90s
        return Span(pos + 4, "num", "en")
    if c in "(+" and ctx.sentence_lang() == "en" and (end := lexer.phone_end(cur, pos)) is not None:
        return Span(end, "phone", "en")
    if is_digit(c):
        return _number(cur, pos, pos, ctx)
    signed = (c in SIGNS or c == "." and not ctx.sent_han) and sign_may_follow(before)
    if (lexer.is_currency(c) or signed) and is_digit(cur.at(pos + 1)):
        return _number(cur, pos, pos + 1, ctx)  # '-5', '$5', '.878' (a decimal without its zero)
    if lexer.is_currency(c) and (gap := cur.at(pos + 1)) in (" ", ".") and is_digit(cur.at(pos + 2)):
        return _number(cur, pos, pos + 1 + (gap == " "), ctx)  # '$ 250'; '$.01' one cent
    if is_letter(c):
        return _word(cur, pos, ctx)
    if (
        c == "×"
        and ctx.locale is None
        and (measured := re.fullmatch(r"[\d.,]+( ?[a-z]+)?", ctx.prev_word))
        and (n := _next_token(cur, pos + 1))[0].isdecimal()
        and (measured[1] or english.unit(after := _next_token(cur, n[1])[0]) or "×" in (after, *ctx.words_before[-1:]))
    ):  # '30 × 60 cm', each × of '40 × 30 × 15 cm', '12 in. × 16 in.' (Chinese 乘); '2 × 3 = 6' times
        return Span(pos + 1, "reading", info="乘" if ctx.sent_han else "by")
    if ctx.locale is None and c in cldr.VULGAR_FRACTIONS:  # Chinese '½杯' 半杯, '2½' 二又二分之一
        return (
            Span(
                pos + 1,
                "reading",
                "zh",
                info=chinese.vulgar_fraction(c, cur.at(pos + 1), before),
            )
            if ctx.sentence_lang() == "zh"
            else _vulgar_fraction(cur, pos, pos + 1, ctx)
        )
    return Span(pos + 1, "punct")


def _score(cur: Cursor, pos: int, ctx: Context) -> Span | None:
    """A match's score in any language: two numbers after a word of a match or before one ('ganó 3-1', '5-2で勝利') or
    with a colon before one digit ('4:2'); a list of pairs, one not rising, joined by commas or 'and' (not spaces), its
    sets ('won 6–4, 3–6, 7–6'), never ranges ('9–13 e 15–19') nor clocks; in ja, ko a particle after ('3:2로')."""
    words = _SCORES[lang := ctx.sentence_lang()]
    cued = any(w.lower() in words.get("cues", ()) for w in (*ctx.words_before[-3:], ctx.prev_word)) or any(
        part in ctx.prev_word for part in words.get("cue_parts", ()))
    say, sets, joint, end = (ctx.locale or (chinese if lang == "zh" else english)).cardinal, [], pos, pos
    spaced = cued or ctx.prev_word in words.get("articles", [])  # 'o 2 x 1 sobre o Grêmio': after an article too
    with suppress(TooLong):
        while not cur.text[end:joint].isspace() and (pair := _score_pair(cur, joint, spaced)):
            sets.append((*pair[:2], cur.text[end:joint], pair[3]))  # a set's numbers, what joins it to the one before
            joint = lexer.spaces(cur, (end := pair[2]) + (cur.at(pair[2]) in ",、，"))  # a comma, 'and' ('y'), both
            joint = next((lexer.spaces(cur, joint + len(w)) for w in words["and"] if cur.startswith(joint, w)), joint)
    if not sets or not (sets[0][3] or cur.at(end) in words.get("after", cur.at(end)) and (cued or len(sets) > 1 and any(
            a >= b for a, b, *_ in sets) or any(cur.startswith(end, w) for w in words.get("next", ())))):
        return None
    between = words["set"][len(sets) > 1]  # 'won 3-1' three to one, 'won 6-4, 6-3' six four, six three
    info = "".join(f"{joined}{say(a)}{between}{say(b)}" for a, b, joined, _ in sets)
    noun = cur.at(end) == "-" and cur.at(end + 1).isupper()  # one word with its noun: '2:1-Sieg' Zwei-zu-eins-Sieg
    return Span(end, "reading", lang, info=info.replace(" ", "-").capitalize() if noun else info)


def _score_pair(cur: Cursor, i: int, cued: bool) -> tuple[int, int, int, bool] | None:
    """A set's numbers at `i` ('6-4', '7:6'; no clock's '10:30' nor '01'; cued also '3x1', '3 x 1'), end, colon."""
    mark = lexer.digits_end(cur, i, 3)
    sign = cur.at(mark + (gap := cued and cur.at(mark) == " " and cur.at(mark + 1) in "x×" and cur.at(mark + 2) == " "))
    if not 0 < mark - i < 3 - (cur.at(i) == "0") or not sign or sign not in "-–:x×"[:3 + 2 * cued]:
        return None
    end = lexer.digits_end(cur, start := mark + 1 + 2 * gap, 3)
    if not 0 < end - start < 3 - (sign == ":" or cur.at(start) == "0") or is_latin_letter(cur.at(end)) or (
            cur.at(end) in "-–:./" and is_digit(cur.at(end + 1))):  # '6-4-3', '6:4.5'
        return None
    return int(cur.text[i:mark]), int(cur.text[start:end]), end, sign == ":"


def _vulgar_fraction(cur: Cursor, pos: int, end: int, ctx: Context) -> Span:
    """'¾ cup' three quarters of a cup, '1½ cups' one and a half cups: the fraction up to `end`, with the measure
    noun it reads; one written with a slash the same ('1/4 cup' a quarter cup)."""
    glued = is_digit(ctx.char_before(cur.text, pos))  # '1½': one| and a half
    after_number = glued or bool(re.fullmatch(r"[\d.,]+", ctx.prev_word))
    j = k = end  # past the tail bound no noun
    with suppress(TooLong):
        j = lexer.spaces(cur, end)
        k = lexer.chunk(cur, j) if is_letter(cur.at(j)) else j
    # '¾ tsp. of' teaspoon
    reading, took_noun = english.vulgar_fraction(cur.text[pos:end], cur.text[j:k], after_number)
    return _english_reading(k + _abbreviation_period(cur, k) if took_noun else end, " " * glued + reading)


_HAS_DIGIT = re.compile("[0-9０-９]")
_YEAR = re.compile(r"(?:^|\D)\d{4}")  # the four digits of a year, at the end of a window of five
_SCORES = locales.data("scores.json", "voice_tts.tn")  # each language's words of a score and around one
# A weekday's abbreviation ends at its period before a word, a number, a dash or a clause's mark ('Mon. – chicken'), and
# may run to a second one ('Mon.–Sat.')
_WEEKDAY_PERIOD = re.compile(
    r"\.(?:[-–—]([A-Z][a-z]{1,4})(\.(?= [a-z\d(]|[,;:)]))?|(?= [a-z\d(–—&]|[,;:)]))|(?=\.(?:\n|$))")


# --- pronunciation dictionary ---------------------------------------------------------------

def _lexicon(cur: Cursor, pos: int, ctx: Context, inside_word: bool = False) -> Span | None:
    """A dictionary rule matching at `pos` (voice_tts.tn.lexicon); waits while more text could change the match."""
    c = cur.at(pos)
    inside_word = inside_word or (is_alnum(ctx.char_before(cur.text, pos)) and is_alnum(c))
    end, final = min(cur.end, cur.limit), cur.final and cur.end <= cur.limit
    found, waiting = ctx.lexicon.matches(cur.text, pos, end, final, inside_word)
    if waiting:
        if cur.end > cur.limit:
            return None  # past the tail bound: no rule can be decided here
        raise NeedMore
    for match in found:
        if not match.whole_word or not (is_alnum(cur.text[match.end - 1]) and is_alnum(cur.at(match.end))):
            return Span(match.end, "lexicon", info=match.say)
    return None


# --- modes that continue across spans ---------------------------------------------------------

def _continuation(cur: Cursor, pos: int, ctx: Context) -> Span | None:
    c = cur.at(pos)
    if ctx.mode == "fence":
        if ctx.line_start and c == "`" and cur.startswith(pos, "```"):
            return Span(pos + 3, "fence_close")
        end = lexer.greedy(cur, pos, lambda x: x != "\n")
        return Span(max(end + (cur.peek(end) == "\n"), pos + 1), "fence_body")  # with its line's end
    if ctx.mode == "skip_url":
        end = lexer.greedy(cur, pos, lexer.is_url_char)
        return Span(end, "skip") if end > pos else None
    if ctx.mode == "skip_link":
        end = lexer.greedy(cur, pos, lambda x: x != ")" and not x.isspace())
        return (
            Span(end + 1, "skip", info="done")
            if cur.peek(end) == ")"
            else (Span(end, "skip") if end > pos else None)
        )
    return (
        Span(lexer.digits_end(cur, pos), "digit_groups", info="done", forced=True)
        if ctx.mode == "digits" and is_digit(c)
        else None
    )


# --- line starts ------------------------------------------------------------------------------

def _line_start(cur: Cursor, pos: int, ctx: Context) -> Span | None:
    c = cur.at(pos)
    if c == "`" and cur.startswith(pos, "```"):
        return Span(pos + 3, "fence_open")
    if c == "#":
        end = lexer.run(cur, pos, lambda x: x == "#", 6)
        return Span(lexer.spaces(cur, end), "block") if is_space(cur.at(end)) else None
    if c in "-*_" and cur.at(pos + 1) == c and cur.at(pos + 2) == c and cur.at(
            end := lexer.run(cur, pos, lambda x: x == c or is_space(x))) in ("", "\n"):
        return Span(end, "md")
    if c in "-*+>":
        n = cur.at(pos + 1)
        return Span(lexer.spaces(cur, pos + 1), "block") if is_space(n) or (c == ">" and n in (">", "\n", "")) else None
    if is_digit(c):
        end = lexer.digits_end(cur, pos, 3)
        if cur.at(end) in (".", ")") and is_space(cur.at(end + 1)):
            after = lexer.spaces(cur, end + 1)
            return Span(after, "olist", "zh" if is_han(cur.at(after)) else ctx.default_lang, info=cur.text[pos:end])
    if c == "|":
        end = lexer.run(cur, pos, lambda x: x != "" and x in "|-: \t")
        return (
            Span(end, "md")
            if cur.at(end) in ("", "\n") and "-" in cur.text[pos:end]
            else Span(pos + 1, "table_start")
        )
    return None


# --- markup -----------------------------------------------------------------------------------

def _link_target(cur: Cursor, i: int) -> Span:
    """`](url)`: everything up to the closing bracket is skipped."""
    depth = 0
    while True:
        c = cur.at(i)
        if c == "" or c == "\n" or is_space(c) or c == ")" and depth == 0:  # the target's end, with its bracket
            return Span(i + (c == ")"), "md")
        depth += (c == "(") - (c == ")")
        i += 1


_TAG_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 =\"'-/:._;#?&%")
_TAG_CAP = 40


# --- numbers and codes ------------------------------------------------------------------------

_CODE = re.compile(r"(?=(?:\D*\d){3})[A-Z]{1,3}[A-Z\d]*(?:-[A-Z\d]+)*")  # three digits or more: 'W48213', 'A7-30915'


def _next_visible(cur: Cursor, i: int) -> str:
    """The first non-space character from `i` (waits for it); "" at the end or past the bound."""
    with suppress(TooLong):
        return cur.at(lexer.spaces(cur, i))
    return ""


def _lang_after(cur: Cursor, ctx: Context, end: int | None) -> str:
    """§3.6 routing for a semiotic span ending at `end` (None: decide from the left only); among Latin words a
    Chinese turn's reads in Chinese where Chinese follows in its sentence ('iPhone 15 Pro很好' 十五)."""
    if ctx.locale is None and (ctx.sent_han or end is not None and is_han(cur.at(end))):
        return "zh"
    if ctx.locale is not None or not (ctx.sent_latin or end is not None and is_latin_letter(_next_visible(cur, end))):
        return ctx.default_lang  # a language module's turn, or no Latin word around
    with suppress(TooLong):
        while ctx.default_lang == "zh" and end is not None and (c := cur.at(end)) not in ("", "\n", *HARD_STOPS):
            if is_han(c) or c == "." and is_space(cur.at(end + 1) or " "):
                return "zh" if is_han(c) else "en"
            end += 1
    return "en"


def _zh_chain(cur: Cursor, end: int, money: bool) -> int:
    """A zh number takes up to 3 suffix characters; a number right after them extends the span, and
    so do a year's month and day after middle dots ('2019·2·10'); `money` (after its symbol) a unit after a slash."""
    if _YEAR.fullmatch(cur.text, max(0, end - 5), end):
        while cur.at(end) == "·" and is_digit(cur.at(end + 1)):
            end = lexer.chunk(cur, end + 1)
    while True:
        if cur.at(end) in "—到至" and is_digit(cur.at(end + 1)):  # a range: '14:00—16:00' 十四点到十六点, '2到3个' 两到三个
            end = lexer.chunk(cur, end + 1)
        if not (is_digit(last := cur.text[end - 1]) or last in "%‰°℃"):
            return end
        half = cur.at(end) == "½" and cur.at(end + 1) in chinese.MEASURE_WORDS  # a half after its measure word: 一杯半
        suffixed = lexer.run(cur, end + half, ZH_SUFFIXES.__contains__, 3)
        suffixed -= cur.at(suffixed) == "于" and cur.text[suffixed - 1] in "大小"  # a comparison, no count: '2大于1' 二大于一
        if (
            (suffixed > end or money)
            and cur.at(suffixed) == "/"
            and (
                (per := lexer.run(cur, suffixed + 1, ZH_SUFFIXES.__contains__, 3)) > suffixed + 1
                or (
                    cur.text[suffixed + 1:(per := lexer.chunk(cur, suffixed + 1))].lstrip("0123456789.")
                    in unit_words("zh")
                )
            )
        ):
            return per  # a price per unit: '3.45元/吨' 三点四五元每吨, '¥5/吨', '0.56元/kWh' 零点五六元每千瓦时, '3元/10MB' 每十MB
        # a day range: '19日—20日' 十九日至二十日
        suffixed += cur.text[suffixed - 1] == "日" and cur.at(suffixed) in "—–-" and is_digit(cur.at(suffixed + 1))
        if suffixed == end or not is_digit(cur.at(suffixed)):
            return suffixed
        end = lexer.chunk(cur, suffixed)


def _number(cur: Cursor, pos: int, body: int, ctx: Context, currency_code: str = "") -> Span:
    end = lexer.chunk(cur, body)
    if ctx.locale is not None:  # a number its language module left: read as the module's `number`
        return Span(end, "num", ctx.default_lang)
    dash = lexer.chunk(cur, end + 1) if cur.at(end) == "—" and is_digit(cur.at(end + 1)) else end
    if ctx.sent_han or is_han(cur.at(dash)):
        if clause := _CLAUSE_COMMA.search(cur.text, body, end):  # '¥268.50,12月' 二百六十八元五角, 十二月
            end = clause.end() - 1
        if (pace := lexer.pace(cur, body)) and (per := chinese.WORDS["pace_per"].get(pace[3])):  # '3'27"/公里' 三分二十七秒每公里
            return Span(pace.end(), "reading", "zh", info=chinese.elapsed(0, int(pace[1]), int(pace[2])) + per)
        if chinese.SERVICE_NUMBER.fullmatch(cur.text[body:end]) and lexer.word_at(
                cur, end, chinese.WORDS["dial_after"]):  # a line to call: '95588客服' 九五五八八
            return Span(end, "reading", "zh", info=chinese.digits(cur.text[body:end]))
        while (
            (last := lexer.chunk_after(cur, end, is_digit))
            and chinese.PHONE_GROUPS.fullmatch(cur.text[body:last[1]])
        ):
            end = last[1]  # '021-6218 5530', '139 2057 4468': a telephone number's next group
        if (
            cur.at(end) == " "
            and is_latin_letter(cur.at(end + 1))
            and (
                (unit := lexer.chunk(cur, end + 1)) - end > 2
                or not (cur.at(unit).isalnum() or cur.at(unit).isspace())
            )
            and chinese.measure(cur.text[body:unit], unit_words("zh"))
        ):
            # '6.1 mmol/L' 六点一毫摩尔每升, '1100 W，': a unit after a space, of one letter before a mark ('2 A 座': a letter)
            end = unit
        return Span(_zh_chain(cur, end, body > pos), "num", "zh")
    written = cur.text[pos:end]  # with its sign or currency
    if pos == body:  # no sign or currency before it: a date, a difference, a retirement plan, an address
        if english.is_day(written) and (date_end := _day_month(cur, end)) is not None:
            return Span(date_end, "date", "en")
        if _DIFFERENCE.fullmatch(written) and _next_visible(cur, end) == "=":  # '1-2=5' one minus two
            a, b = written.split("-")
            return _english_reading(end, f"{english.number(a)} minus {english.number(b)}")
        # '401(k)' four oh one k
        if plan := next((p for p in english.PLAN_NAMES if cur.startswith(pos, p)), None):
            return _english_reading(pos + len(plan), english.PLAN_NAMES[plan])
        if re.fullmatch(r"\d+[A-Z]?", written) and (address := _street_address(cur, pos, end)):
            return address
        if cur.at(end) in ".,;!?" and (date := english.numeric_date(written, paused=True)):
            return _english_reading(end, date)  # a US date ending a clause pauses before its year: '12/15/2026.'
    if re.fullmatch(r"\d+(?:\.\d+)?x", times := cur.text[body:end]) and _next_visible(cur, end).islower():
        return _english_reading(end, english.number(times[:-1]) + " times")  # '3x a day'; a bare '2x' two x
    # 'card ending in 8876'
    cued = f" {' '.join(w for w in (*ctx.words_before, ctx.prev_word) if w)}".lower().endswith(english.DIGIT_CUES)
    cued |= len(written) == 5 and _next_token(cur, end)[0].lower() in ("zip", "zipcode")  # 'the 30309 ZIP'
    trunk = cur.at(pos) == "0" and 10 <= sum(map(str.isdecimal, cur.text[pos:lexer.digit_groups_end(cur, end)])) <= 11
    # 'code is 604 218' six zero four…
    if (
        pos == body
        and written.isdecimal()
        and (cued or trunk or ctx.names_code(written, *english.CODE_WORDS))
        and sum(map(str.isdecimal, cur.text[pos:(code_end := lexer.digit_groups_end(cur, end))])) >= (2 if cued else 4)
    ):
        return _english_reading(code_end, english.digits(cur.text[pos:code_end], "oh" if trunk else "zero"))
    # '30×60cm', 'a 4x8 sheet' four by eight
    if (m := _DIMENSIONS.fullmatch(cur.text[body:end])) and (not m[3] or english.unit(m[3])):
        unit, end = (m[3], end) if m[3] or not english.unit((word := _next_token(cur, end))[0]) else word
        by = english.measure(f"{m[2]} {unit}") if unit else english.number(m[2])
        return _english_reading(end, f"{english.number(m[1])} by {by}")
    # '1/4 cup' as '¼ cup' (a quarter cup), not a date's ('on 1/2 in Rome')
    if written in english.FRACTIONS and not english.code(written, ctx.prev_word, ctx.words_before) and (
            fraction := _vulgar_fraction(cur, pos, end, ctx)).end > end:
        return fraction
    end = _en_window(cur, body, end)
    amount = cur.text[body:end].replace(",", "").isdecimal()
    money = (currency_code or lexer.is_currency(cur.text[pos]) and cur.text[pos]) if amount else ""
    if (english.measure(unit := cur.text[body:end]) or money) and (
        # 'the 150 kW charger'
        only_noun((word := _next_token(cur, end))[0])
        # 'a 65W USB-C charger', 'an 8.4 kW solar system'
        or ((word[0].isupper() or only_noun(word[0], "ADJ")) and only_noun(_next_token(cur, word[1])[0]))
        # 'a 12 x 9 x 4 in. box' four inch; 'the easy 5 km runs' five kilometer
        or (
            (
                ctx.prev_word.lower() in ("a", "an", "x", "by")
                or (
                    ctx.words_before[-1:]
                    and ctx.words_before[-1].lower() in english.DETERMINERS
                    and only_noun(ctx.prev_word, "ADJ")
                )
            )
            and only_noun(word[0], "")
        )
        # 'the $89 fee', 'the $49 annual fee', 'your $500 deductible'
        or (
            ctx.prev_word.lower() in english.DETERMINERS
            and (
                (word[0].isupper() and len(word[0]) > 1)
                or only_noun(word[0], "NAMING")
                or (only_noun(word[0], "") and only_noun(_next_token(cur, word[1])[0], "NAMING"))
            )
        )
    ):
        reading = english.money(unit, money, adjective=True) if money else english.measure(unit, adjective=True)
        return _english_reading(end, reading)
    return Span(end, "num", _lang_after(cur, ctx, end), info=currency_code)


# A comma after a decimal fraction, or before no group of three digits, ends a clause: it groups no thousands
_CLAUSE_COMMA = re.compile(r"\.\d+,|,(?!\d{3}(?!\d))")
_DIFFERENCE, _DIMENSIONS = (
    re.compile(r"\d+(?:\.\d+)?-\d+(?:\.\d+)?"),
    re.compile(r"(\d+(?:\.\d+)?)[x×](\d+(?:\.\d+)?)([^\W\d_]*)"),
)


def _english_reading(end: int, reading: str) -> Span:
    """A span up to `end` that English reads as `reading` says."""
    return Span(end, "reading", "en", info=reading)


def _next_token(cur: Cursor, i: int) -> tuple[str, int]:
    """The next word or mark after spaces, and where it ends."""
    j = lexer.spaces(cur, i)
    return (cur.text[j:(k := lexer.chunk(cur, j))], k) if is_alnum(cur.at(j)) else (cur.at(j), j + 1)


def _street_address(cur: Cursor, pos: int, end: int) -> Span | None:
    """'2788 San Tomas Expy, Santa Clara, CA 95051' twenty seven eighty eight San Tomas Expressway, …: a house number,
    up to three words of the street's name and its abbreviated type; then, where they follow, a city, state and ZIP."""
    words, kind = [english.house_number(cur.text[pos:end])], None
    with suppress(TooLong):
        while not kind:
            token, end = _next_token(cur, end)
            kind = len(words) > 1 and english.STREET_TYPES.get(token.capitalize())
            if not (word := kind or len(words) < 4 and english.street_word(token, len(words) == 1)):
                return None
            words.append(word)
            end += token in english.DIRECTIONS and len(words) == 2 and cur.at(end) == "."  # '400 W. 59th St.'
        # 'Ave. NW' Northwest
        if (
            len((quadrant := _next_token(cur, end + (cur.at(end) == ".")))[0]) == 2
            and quadrant[0] in english.DIRECTIONS
        ):
            words, end = [*words, english.DIRECTIONS[quadrant[0]]], quadrant[1]
        best, state = (end, words[:]), ""
        for _ in range(8):
            token, end = _next_token(cur, end)
            if token == ",":
                words[-1] += ","
            elif words[-1].endswith(",") and not state and (state := english.US_STATES.get(token, "")):
                words.append(state)
            elif state and len(token) == 5 and token.isdecimal():
                best = (end, words + [english.digits(token)])
                break
            elif token.isalpha() and token[0].isupper() and not state:
                words.append(token)
            else:
                break
            best = (end, words[:]) if state and token != "," else best
        end, words = best
        # 'Elm St. 4 doors down': the period of the abbreviation, not a sentence's end
        end += _abbreviation_period(cur, end)
        return _english_reading(end, " ".join(words))
    return None


_OPERATORS = frozenset("=+*/×÷<>")
# '10:30', '1.59' before 'p.m.', '5', '2–7:45' before 'pm'
_CLOCK_START = re.compile(r"(?:\d{1,2}[-–])?(\d{1,2})(?:[:.]\d\d)?")


def _en_window(cur: Cursor, body: int, end: int) -> int:
    """An en code token waits for the next token; a scale word, unit, am/pm or fraction joins it, and again (§3.4)."""
    text = cur.text[body:end]
    numeric = not any(is_letter(ch) for ch in text)
    plain_int = text.isdecimal()
    money = body > 0 and lexer.is_currency(cur.text[body - 1])
    clock_like = numeric and (hour := _CLOCK_START.fullmatch(text)) and int(hour[1]) <= 12
    with suppress(TooLong):
        while True:
            if money and cur.at(end) in ("-", "–") and lexer.is_currency(cur.at(end + 1)) and is_digit(cur.at(end + 2)):
                end = lexer.chunk(cur, end + 2)  # '$150-$250'
                money = False
                continue
            j = lexer.spaces(cur, end)
            c = cur.at(j)
            if numeric and not money and lexer.is_currency(c) and not is_digit(cur.at(j + 1)):
                # '14¢/kWh'
                per = lexer.chunk(cur, j + 2) if cur.at(j + 1) == "/" and is_letter(cur.at(j + 2)) else j + 1
                # '25¢', '25 €': the currency after its amount
                return per if english.unit(cur.text[j + 2:per]) else j + 1
            if (
                c
                and c in '"″'
                and j == end
                and numeric
                and "/" not in text
                and len(re.findall(r'(?<!\d)"', cur.text[cur.text.rfind("\n", 0, end) + 1:end])) % 2 == 0
            ):
                return end + 1  # '15.6" laptop': inches where no quotation is open
            if j == end:  # '$65/mo. for': the period of the period's abbreviation; a unit's: 'a 10-in. cake'
                unit = (m := re.fullmatch(r"[\d.,]+-([a-z]+)", text)) and (
                    english.unit(m[1]) or english.unit(m[1] + ".")
                )
                return end + bool(
                    ((money and "/" in text) or unit) and cur.at(end) == "." and _abbreviation_period(cur, end)
                )
            if c == "%" and numeric:  # '87 %'
                return j + 1
            if c == "°" and numeric and cur.at(j + 1) in ("C", "F"):  # '38 °C'
                return j + 2
            if c and c in "-–" and plain_int:  # '1960 - 1962'
                last = lexer.chunk_after(cur, j + 1, is_digit)
                if last is None or not re.fullmatch(r"\d{1,4}", last[0]) or _next_visible(cur, last[1]) in _OPERATORS:
                    return end  # '5 - 3 = 2' is arithmetic
                end = last[1]
                plain_int = clock_like = False
                continue
            if not is_alnum(c):
                return end
            m = lexer.chunk(cur, j)
            word = cur.text[j:m]
            if not numeric:
                return end
            if clock_like and (head := re.match(r"([^\W\d_]+)[-–]\d", word)) and head[1] in english.AM_PM:
                m, word = j + len(head[1]), head[1]  # '6:30 am–9 pm': the am before the range's dash
            if (
                re.fullmatch(r"[^\W\d_]+/\d+", word)
                and english.unit(word.partition("/")[0])
                and english.unit((per := _next_token(cur, m))[0])
            ):
                return per[1]  # '100 mg/5 mL': a dose per an amount
            if word.lower() in english.SCALE_WORDS or (money and word in english.SCALE_SUFFIXES):  # '¥30 b'
                end, money, plain_int, clock_like = m, False, False, False
                continue
            # an era or a decade ('340 A.D.', '1980 s'), a fraction ('2 1/2'), a unit or am/pm
            era = plain_int and (english.era_year(f"{text} {word}") or english.decade(f"{text} {word}"))
            if (
                era
                or (plain_int and re.fullmatch(r"\d+/\d+", word))
                or english.unit(word)
                or (clock_like and word in english.AM_PM)
                # '2 in. wide'
                or (english.unit(word + ".") and _abbreviation_period(cur, m))
            ):
                # the period of an abbreviation where the sentence goes on ('8 oz. of'; 'at 10 a.m.' keeps the
                # sentence's)
                end = m + 1 if ("." in word or word.isalpha()) and _abbreviation_period(cur, m) else m
                if clock_like and word in english.AM_PM and (after := _clock_after_dash(cur, end)):
                    end = after  # '9:00 am - 5:30 pm'
                numeric = plain_int and not era and bool(re.fullmatch(r"\d+/\d+", word))  # '34 1/2 in.': then a unit
                plain_int = clock_like = False
                continue
            return end
    return end


def _clock_after_dash(cur: Cursor, end: int) -> int | None:
    """Where a second time with its am/pm ends after ' - ' ('9:00 am - 5:30 pm'), or None."""
    dash, k = _next_token(cur, end)
    if dash not in ("-", "–"):
        return None
    time, m = _next_token(cur, k)
    period, q = _next_token(cur, m)
    return (
        None
        if period not in english.AM_PM or not english.clock(f"{time} {period}")
        else q + ("." in period and _abbreviation_period(cur, q))
    )


# --- words ------------------------------------------------------------------------------------

def _word(cur: Cursor, pos: int, ctx: Context) -> Span:
    end = lexer.chunk(cur, pos)
    if ctx.lexicon:  # a rule that may start inside the word ends the word there
        for k in range(pos + 1, end):
            if ctx.lexicon.may_start_inside_word(cur.text[k]) and _lexicon(cur, k, ctx, inside_word=True):
                return Span(k, "word")
    word = cur.text[pos:end]
    if "@" in word and electronic.is_email(word):
        return Span(end, "email", _lang_after(cur, ctx, end))
    # 'a-1.b3_c&-d@x.com': the scanner stopped at two joiners in a row inside an address (a plain
    # word before a joiner is not looked past: it is committed with the joiner's delta).
    if any(ch in JOIN_ANY for ch in word) and cur.peek(end) in JOIN_ANY and cur.peek(end + 1) in lexer.JOINERS and (
            email := _email_end(cur, pos)):
        return Span(email, "email", _lang_after(cur, ctx, email))
    if electronic.is_domain(word):
        return Span(end, "url", _lang_after(cur, ctx, end))
    if ctx.locale is not None:
        return Span(end, "num" if _HAS_DIGIT.search(word) else "word", ctx.default_lang)
    if _HAS_DIGIT.search(word):  # 'A4', 'v2.1': read as a number
        return _number(cur, pos, pos, ctx)
    # a word in Chinese text as written; a Roman number after 第, before a type or ending a title
    if ctx.sent_han or is_han(cur.at(end)):
        roman = set(word) <= set("IVX") and english.roman_value(word) or 0
        before = ctx.char_before(cur.text, pos)
        named = (
            (cur.at(end) in "型期类级度章部卷》」』’”" and word not in "VX")
            or before == "第"
            # after a name: '大学物理II'; not 'XX'
            or (is_han(before) and len(word) > 1 and roman <= 12)
        )
        return Span(end, "reading", "zh", info=chinese.cardinal(roman)) if roman and named else Span(end, "word", "zh")
    if len(days := re.split("[-–—]", word, maxsplit=1)) == 2 and (reading := english.day_range(*days)):
        return _english_reading(end, reading)  # 'Monday–Friday' Monday to Friday
    # 'for Tu (2/22)' for Tuesday, 'Friday, 3/14' March fourteenth
    if word in english.NAMED_DAYS[0] and (day_end := _weekday_end(cur, end)):
        return _english_reading(day_end, english.NAMED_DAYS[0][word] + cur.text[end:day_end].replace(".", ""))
    # 'Mon.–Sat. from' Monday to Saturday, 'by Fri.' Friday.
    if (
        word in english.WEEKDAYS
        and (m := _WEEKDAY_PERIOD.match("".join(cur.at(i) for i in range(end, end + 10))))
        and (day := english.day_range(word, m[1]) if m[1] else english.WEEKDAYS[word])
    ):
        return _english_reading(end + m.end(), day)
    if english.month_name(word):
        return _month(cur, pos, end)
    if len(word) == 2 and word.isupper() and is_digit(cur.at(end + 1)) and (
            m := english.SPACED_TRACKING.match("".join(cur.at(i) for i in range(pos, pos + 17)))):
        return _english_reading(pos + 16, english.identifier(m[0].replace(" ", "")))  # 'RB 4582 7136 9GB'
    if word in english.DIRECTIONS and (direction := _direction_end(cur, end)):  # 'W 42nd St' West
        return _english_reading(direction, english.DIRECTIONS[word])
    if word == "x" and re.fullmatch(r"[\d.,]+", ctx.prev_word) and _next_visible(cur, end).isdecimal():
        return _english_reading(end, "by")  # '25 x 7 m' twenty five by seven meters
    if ctx.prev_word in ("sq", "cu") and (names := english.unit(word)):  # '850 sq ft' square feet, 'per sq ft' foot
        one = " ".join(ctx.words_before[-1:]).lower() in ("per", "a", "1", "one")
        return _english_reading(end + _abbreviation_period(cur, end), names[not one])
    if word in ("c", "C", "cent") and cur.at(end) == "." and re.fullmatch(r"\d+(?:st|nd|rd|th)", ctx.prev_word):
        return _english_reading(end + _abbreviation_period(cur, end), "century")  # 'the 18th c.'
    if cur.at(end) == "/" and word + "/" in english.ABBREVIATIONS and cur.at(end + 1) == " ":  # 'w/ fees' with
        return _english_reading(end + 1, english.ABBREVIATIONS[word + "/"])
    if word in english.ABBREVIATIONS:
        if cur.at(end) == ".":
            return Span(end + 1, "abbr", info=_next_token_start(cur, end + 1, word=word in ("No", "no")))
        if word in english.ABBREVIATIONS_WITHOUT_PERIOD:
            return Span(end, "abbr", info=_next_token_start(cur, end))
    # '6:30 p.m. ET', '8–9 a.m. ET' Eastern Time
    if (zone := english.TIME_ZONES.get(word)) and english.clock(re.split("[-–]", ctx.prev_word)[-1].strip()):
        return _english_reading(end, zone)
    # 'Chicago, IL 60607' Illinois
    if word in english.US_STATES and english.code(_next_token_start(cur, end, word=True), word):
        return _english_reading(end, english.US_STATES[word])
    code = word + "$" if cur.at(end) == "$" else word  # 'US$76.3' as 'USD 76.3'
    if code in english.CURRENCY_CODES:
        j = lexer.spaces(cur, pos + len(code))
        if (j > end or code != word) and is_digit(cur.at(j)):
            return _number(cur, pos, j, ctx, currency_code=code)
    return Span(end, "word")


def _direction_end(cur: Cursor, end: int) -> int | None:
    """Where a compass letter ends before a numbered street's ordinal and type ('W 42nd St', 'E. 5th Ave', with no
    house number before it), or None."""
    with suppress(TooLong):
        end += cur.at(end) == "."
        number, k = _next_token(cur, end)
        ordinal = re.fullmatch(r"\d+(?:st|nd|rd|th)", number)
        return end if ordinal and _next_token(cur, k)[0].capitalize() in english.STREET_TYPES else None
    return None


def _weekday_end(cur: Cursor, end: int) -> int | None:
    """Where an abbreviated weekday before a date or time ends ('Tu (2/22)', 'Sat. 3 May'), with its comma and space
    ('Wed., June 9', 'Sat., 6/12': the date's reading knows its weekday), or None."""
    with suppress(TooLong):
        j = lexer.spaces(cur, k := end + (cur.at(end) == "."))
        if cur.at(j) == ",":  # the comma and space join the weekday
            k = j = lexer.spaces(cur, j + 1)
        elif cur.at(j) == "(":
            j = lexer.spaces(cur, j + 1)
        return k if is_digit(cur.at(j)) or english.month_name(cur.text[j:lexer.chunk(cur, j)].rstrip(".")) else None
    return None


def _email_end(cur: Cursor, pos: int) -> int | None:
    """Where an email address that the token scanner split at two joiners in a row ends, or None."""
    with suppress(TooLong):
        end = lexer.url_end(cur, pos)
        return end if "@" in cur.text[pos:end] and electronic.is_email(cur.text[pos:end]) else None
    return None


def _abbreviation_period(cur: Cursor, i: int) -> bool:
    """Whether a period at `i` after an abbreviation is only its own: the sentence goes on (no capital but a time zone's
    or a day's, 'at 5 p.m. Eastern', '5 p.m. Mon.–Fri.'; no new line or end, where it is the sentence's too)."""
    return cur.at(i) == "." and (after := _next_token_start(cur, i + 1, word=True)) not in ("", "\n") and (
        not after[0].isupper() or after in english.TIME_ZONES or after in english.NAMED_DAYS[0])


def _next_token_start(cur: Cursor, i: int, word: bool = False) -> str:
    """The next token's first character (the whole token: `word`) once it is closed ("" at the end or too far)."""
    with suppress(TooLong):
        return _next_token(cur, i)[0][:None if word else 1]
    return ""


def _month(cur: Cursor, begin: int, end: int) -> Span:
    """'March 3, 2024', 'Nov. 5' and 'April 2008' are one date span; a month name without a number is a word."""
    with suppress(TooLong):
        day, m = _next_token(cur, _month_period(cur, begin, end))
        if english.is_day(day) or len(day) == 4 and day.isdecimal():  # 'April 2008', 'March 3, 2024'
            return Span(m if len(day) == 4 else _year_after(cur, m, comma=True), "date", "en")
        # 'Dec. 18–21' December eighteenth to twenty first, 'Oct. 23–Nov. 1' October twenty third to November first
        days = re.fullmatch(r"(\d\d?)[-–](\d\d?|[A-Z][a-z]+)", day)
        if days and english.is_day(days[1]) and (english.is_day(days[2]) or english.month_name(days[2])):
            last, k = (days[2], m) if days[2].isdecimal() else _next_token(cur, _month_period(cur, m - len(days[2]), m))
            until = english.ordinal(int(last)) if days[2].isdecimal() else english.written_date(f"{days[2]} {last}")
            if english.is_day(last):
                first = english.written_date(f"{cur.text[begin:end]} {days[1]}")
                return _english_reading(k, f"{first} to {until}")
        month = english.month_name(cur.text[begin:end])
        if cur.text[begin].isupper() and month in english.MONTH_ABBREVIATIONS and cur.at(end) == ".":  # 'in Jan., to'
            return _english_reading(end + _abbreviation_period(cur, end), english.NAMED_DAYS[1][month])
    return Span(end, "word")


def _month_period(cur: Cursor, start: int, end: int) -> int:
    """Where a month name ends: past its abbreviation's period ('Nov.') unless that ends the sentence, else at `end`."""
    return end + (
        english.month_name(cur.text[start:end]) in english.MONTH_ABBREVIATIONS and _abbreviation_period(cur, end)
    )


def _year_after(cur: Cursor, end: int, comma: bool) -> int:
    """A four-digit year after a date (optionally after a comma) joins it."""
    year, k = _next_token(cur, end)
    if comma and year == ",":
        year, k = _next_token(cur, k)
    return k if len(year) == 4 and year.isdecimal() else end


def _day_month(cur: Cursor, end: int) -> int | None:
    """'25 April 2011', '21st of October', '01 August': where the date ends, or None."""
    with suppress(TooLong):
        month, m = _next_token(cur, end)
        if month == "of":
            month, m = _next_token(cur, m)
        if english.month_name(month) is None:  # '25 jul 2012', '25 Sept.'
            return None
        return _year_after(cur, _month_period(cur, m - len(month), m), comma=False)
    return None
