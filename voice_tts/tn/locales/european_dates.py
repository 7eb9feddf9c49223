"""Dates and times of the European languages, decided once for all: '02.03.2003', '2003-03-02', '3. März 2003',
'17/18/19 mars', '3-5 Mai', '14:30', '14h30' (French), '2.30 Uhr', a race's time ('in 2:03:17').

`DatesAndTimes` is a part of `european.Language`: it reads with the words and settings the language gives
(`cardinal`, `year`, `date`, `clock`, `MONTHS`, `TIME_ZONES`, ...) and decides through the Cursor like every span.
"""

from __future__ import annotations

import re
from contextlib import suppress
from dataclasses import replace

from voice_tts.tn import cldr, lexer
from voice_tts.tn.chars import is_digit, is_letter, is_space
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor, TooLong
from voice_tts.tn.lexer import chunk_after

_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")
_DOTTED_CLOCK = re.compile(r"(\d{1,2})\.(\d{2})")
_H_CLOCK = re.compile(r"(\d{1,2})[hH](\d{2})?(?:m(?:\d{2}s)?)?")  # '14h30', '12h02m00s'
# '9:00–19:00' (a dash as '-'), '7:30–9', '9–17:30', '7h30-9h': a clock time, the other end one or a bare hour
_CLOCK_RANGE = re.compile(r"([01]?\d|2[0-4])(?:[:.h]([0-5]\d))?h?-([01]?\d|2[0-4])(?:[:.h]([0-5]\d))?h?")
# Numeric dates, tried in this order: day, month and year (of CENTURY where two digits); a first day may be written
# as the ordinal it is said as ('1º/04' primeiro de abril).
_DATES = (
    re.compile(r"(?P<d>\d{1,2})º?(?P<sep>[./-])(?P<m>\d{1,2})(?P=sep)(?P<y>\d{4}|\d{2})"),  # '02.03.2003'
    re.compile(r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"),  # ISO 8601, also unpadded: "2003-3-2"
    re.compile(r"(?P<d>\d{1,2})(?P<sep>\.)(?P<m>\d{1,2})"),  # '24.12.', '11.6.' after a DAY_MONTH_CUES word
    re.compile(r"(?P<d>\d{1,2})º?/(?P<m>\d{1,2})"),  # '05/06' where SLASH_DAY_MONTH; '5/6' a fraction but after a weekday
)
_DAY_LIST = re.compile(r"\d{1,2}(?:[/-]\d{1,2})+")
# Two numbers joined by a hyphen: a range of days before a month name, else of numbers.
NUMBER_RANGE = re.compile(r"(\d+)-(\d+)")


class DatesAndTimes:
    """The date and time spans of `european.Language`."""

    DATE_OF = ""  # the word between a date's day, month and year ('1 de janeiro de 2000'), where the language says one
    FIRST_DAY = ""  # a month's first day where it is no ordinal ('1 de julio' uno, as Spain says)
    CENTURY = 2000  # what a year written with two digits is read from ('05' 2005)
    SLASH_DAY_MONTH = True  # whether '05/06' is a day and month
    DAY_MONTH_CUES: frozenset[str] = frozenset()  # the words after which '11.6.' and '9/6' are dates, not numbers
    FRACTION_OF: frozenset[str] = frozenset()  # the words after which a cued '1/2' stays a fraction ('de', 'dei')

    def date_day(self, day: int, ctx: Context) -> str:
        """The day of a date whose month name follows ('3 mai', '3. Mai'): its number, but the
        first, FIRST_DAY or CLDR's ordinal ('1 de janeiro' primeiro, '1er mai' premier)."""
        return (self.FIRST_DAY or cldr.ordinal(self.code, 1, "masculine")) if day == 1 else self.cardinal(day)

    def _after_day(self, cur: Cursor, end: int, reading: str, day: int, ctx: Context) -> Span:
        """An ordinal or day number; a month name after it (and a year after that) joins it."""
        with suppress(TooLong):
            j = lexer.spaces(cur, end)
            m = lexer.chunk(cur, j) if j > end and is_letter(cur.at(j)) and 1 <= day <= 31 else j  # no word: no month
            if self.DATE_OF and cur.text[j:m] == self.DATE_OF and (month_word := chunk_after(cur, m, is_letter)):
                m = month_word[1]  # '1 de janeiro'
                j = m - len(month_word[0])
            if (month := self.MONTHS.get(cur.text[j:m].lower())) is not None:
                if cur.at(m) == "." and cur.text[j:m].lower() not in self.FULL_MONTHS and _sentence_goes_on(cur, m):
                    m += 1  # 'mär.'; a period that ends the sentence stays punctuation ('am 3. Mär.')
                of = f" {self.DATE_OF}" if self.DATE_OF else ""
                reading = f"{reading}{of} {self.MONTH_NAMES[month - 1]}"
                y = lexer.spaces(cur, month_end := m)
                if self.DATE_OF and y > m and cur.text[y:lexer.chunk(cur, y)] == self.DATE_OF:
                    m, y = y + len(self.DATE_OF), lexer.spaces(cur, y + len(self.DATE_OF))  # '… de 2000'
                year = cur.text[y:lexer.chunk(cur, y)] if y > m and is_digit(cur.at(y)) else ""
                if len(year) == 4 and year.isdecimal():
                    return self.locale_span(y + 4, f"{reading}{of} {self.year(int(year))}")
                # no year: a 'de' stays ('1 de febrero de 10:00 a 12:30')
                return self.locale_span(month_end, reading)
        return self.locale_span(end, reading)

    def hours_from(self, ctx: Context) -> str:
        """The word opening an hour range, with its space; none where the text wrote it ('de 9:00–14:00', 'das
        9h-13h'): the preposition is said once."""
        return "" if ctx.prev_word.lower() == self.HOURS_FROM else f"{self.HOURS_FROM} "

    def _clock_or_date(self, cur: Cursor, pos: int, end: int, token: str, ctx: Context) -> Span | None:
        if self.HOURS_TO and (times := _CLOCK_RANGE.fullmatch(token)) and (times[2] or times[4]):  # 'dalle … alle …'
            start = self.hours_from(ctx)
            ctx = replace(ctx, prev_word=self.HOURS_FROM)  # each time after its preposition: 'dalle otto e trenta'
            last = self._clock_window(cur, end, int(times[3]), int(times[4] or 0), None, ctx, face=True)
            first = self.first_clock(int(times[1]), int(times[2] or 0), ctx)
            return self.locale_span(last.end, f"{start}{first} {self.HOURS_TO} {last.info}")
        listed = ctx.clock_cue and (ctx.prev_word or ctx.last_visible) in (",", self.HALF_AND)
        cued = replace(ctx, prev_word=ctx.clock_cue) if listed else ctx  # 'alle 6.40, 7.10 e 7.40': each after its cue
        m = _CLOCK.fullmatch(token) or self.H_CLOCKS and _H_CLOCK.fullmatch(token) or _DOTTED_CLOCK.fullmatch(token)
        seconds = int(m[3]) if m and m.re is _CLOCK and m[3] else None  # '14:30:05'; '12h02m00s' is read to its minute
        if m and int(m[1]) <= 24 and int(m[2] or 0) < 60 and (seconds or 0) < 60 and (
            m.re is not _DOTTED_CLOCK or self.DOTTED_CLOCKS or cued.prev_word.lower() in self.CLOCK_CUES  # 'alle 10.30'
            or letters_after(cur, end) in self.CLOCK_MARKERS  # or a clock word: '2.30 Uhr'
        ):
            span = self._clock_window(cur, end, int(m[1]), int(m[2] or 0), seconds, cued, face=m.re is _CLOCK)
            cue = cued.prev_word.lower()
            return replace(span, clock_cue=cue) if cue in self.CLOCK_CUES else span
        for pattern in _DATES if self.SLASH_DAY_MONTH else _DATES[:-1]:
            parts = m.groupdict() if (m := pattern.fullmatch(token)) else {}
            day, month, year = int(parts.get("d") or 0), int(parts.get("m") or 0), parts.get("y")
            # '02-03-2003' with hyphens only with its century ('10-11-12' may be a list)
            # '21/3' a date after a date word ('até 5/10', but 'el 1/2 de la población') or where its day is past 12
            slash = "/" in token
            cue = (cur.at(end) == "." or slash) and (ctx.prev_word.lower() or ctx.agreement) in self.DAY_MONTH_CUES
            after = letters_after(cur, end) if cue and slash and day else ""
            cued = cue and not (after.lower() in self.FRACTION_OF or after and self.unit(after)) or slash and day > 12
            unpadded = year is None and (len(parts.get("m", "")) == 1 or slash and len(parts.get("d", "")) == 1)
            if not (1 <= day <= 31 and 1 <= month <= 12) or parts.get("sep") == "-" and len(year) == 2 or (
                    unpadded and not cued):
                continue
            # '24.12.' closes with its period unless the period ends the sentence.
            if (
                year is None
                and parts.get("sep") == "."
                and cur.at(end) == "."
                and (
                    cur.at(end + 1) in (",", ";", ":", ")")
                    or (is_space(cur.at(end + 1)) and not cur.at(lexer.spaces(cur, end + 1)).isupper())
                )
            ):
                end += 1
            year = None if year is None else int(year) + (self.CENTURY if len(year) == 2 else 0)
            return self.locale_span(end, self.date(day, month, year, ctx))
        if (month := re.fullmatch(r"(0[1-9]|1[0-2])/((?:19|20)\d\d)", token)) and not ctx.prev_word.istitle():
            return self.locale_span(end, f"{self.MONTH_NAMES[int(month[1]) - 1]} {self.year(int(month[2]))}")
        return (
            self._day_list(cur, end, [int(x) for x in re.split(r"[/-]", token)], ctx)
            if _DAY_LIST.fullmatch(token) or NUMBER_RANGE.fullmatch(token)
            else None
        )

    def _day_list(self, cur: Cursor, end: int, days: list[int], ctx: Context) -> Span | None:
        """'17/18/19 mars', '3-5 Mai': several days of one month."""
        if max(days) > 31 or 0 in days or letters_after(cur, end).lower() not in self.MONTHS:
            return None
        # 'du 12-15 août' du douze au quinze
        word = self.RANGE_AFTER.get(ctx.prev_word.lower(), self.RANGE if self.DAY_RANGES else "")
        joiner = f" {word} " if len(days) == 2 and word else " "  # '3 bis 5 Mai', '17 18 19 mars'
        return self._after_day(cur, end, joiner.join(self.date_day(d, ctx) for d in days), days[-1], ctx)

    CLOCK_MARKERS: frozenset[str] = frozenset()  # words written after a time that are part of it ('Uhr', 'h')
    CLOCK_CUES: frozenset[str] = frozenset()  # words after which '10.30' is a time (Italian 'alle 10.30')
    DOTTED_CLOCKS = False  # whether '10.30' is a time wherever it stands (Spanish)

    def day_part(self, cur: Cursor, end: int, hours: int, minutes: int, face: bool) -> tuple[str, int, int] | None:
        """The words written after a time that the language reads with it ('da tarde', 'p.m. gmt-3'):
        their reading, their end and the hours then read, or None where none follow."""
        return None

    def _clock_window(self, cur: Cursor, end: int, hours: int, minutes: int, seconds: int | None, ctx: Context,
                      face: bool = False) -> Span:
        """A time with the words after it that the language reads with it: a clock word ('Uhr'),
        a part of the day or a time zone. `face`: written as a clock face shows it ('16:00')."""
        marker = words = unit = ""
        if (word := chunk_after(cur, end, is_letter)) is not None and word[0] in self.CLOCK_MARKERS:
            marker, end = word
        elif word and face and word[0][:3].lower() in ("min", "мин") and (
                unit := self.unit(word[0].lower())):
            per = word[0].partition("/")[2] if unit != self.unit("min") else ""  # 'min/km'
            end = self._past_period(cur, word[1])  # m:ss; 'Min.'
            return self.locale_span(end, self.pace(hours, minutes, per, ctx))
        elif word and self.DURATION_LIST and (self.unit(word[0]) or self.unit(word[0] + ".")) == self.unit("h"):
            unit, end = word[0], self._past_period(cur, word[1])
        day_part = ("", end, hours)  # past the tail bound: the time alone
        with suppress(TooLong):
            day_part = self.day_part(cur, end, hours, minutes, face)
        if day_part is not None:
            words, end, hours = day_part
        elif (zone := chunk_after(cur, end, is_letter)) is not None and zone[0].upper() in self.TIME_ZONES:
            words, end = " ".join(zone[0]), zone[1]
        race = (seconds is not None or unit) and not marker and self.DURATION_LIST and ctx.prev_word.lower() not in {
            "", *self.CLOCK_CUES}  # 'in 2:03:17', '1:05 Std.' (unit read once): after a word, no clock word or cue
        reading = self.duration(((hours, "h"), (minutes, "min"), (seconds, "s")), ctx, unit) if race else self.clock(
            hours, minutes, seconds, marker if face else "", ctx)
        return self.locale_span(end, f"{reading} {words}" if words else reading)


def letters_after(cur: Cursor, end: int) -> str:
    """The word of letters after `end` and its spaces, or "" where none follows."""
    return (chunk_after(cur, end, is_letter) or ("",))[0]


def _sentence_goes_on(cur: Cursor, period: int) -> bool:
    """Whether the text after a period goes on with its sentence: a word in lower case or a year."""
    j = lexer.spaces(cur, period + 1)
    if j == period + 1 and cur.at(j) not in (",", ";"):
        return False
    c = cur.at(j)
    return len(cur.text[j:lexer.chunk(cur, j)]) == 4 if is_digit(c) else c in (",", ";") or c.islower()
