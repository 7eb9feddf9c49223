"""Italian: "Il suo ordine costa 25,50 € e arriva il 3 maggio alle 14:30." → "… venticinque euro e cinquanta
centesimi … il tre maggio alle quattordici e trenta minuti."

Cardinals and ordinals come from CLDR (`voice_tts.tn.cldr`: "trentaquattromilacinquecento", "ventitreesimo"); "1 ora"
is "un'ora" by the noun's gender. "1°" and "2ª" are ordinals; times read "diciassette e quindici minuti"; the digits
after the decimal comma are read as a number ("virgola trecentoquarantadue").
"""

from __future__ import annotations

import re

from voice_tts.tn.chars import is_letter
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor
from voice_tts.tn.locales.european import Language
from voice_tts.tn.locales.european_dates import chunk_after


# The masculine article is "uno" before s + consonant, z, gn, ps, pn, x, y ('uno studente').
_UNO_BEFORE = re.compile(r"s[^aeiouàèéìòù]|z|gn|ps|pn|x|y", re.IGNORECASE)


class Italian(Language):
    code = "it"

    def cardinal(self, n: int) -> str:
        # a compound's last 'tre' is stressed, as CLDR writes 'ventitré'
        return re.sub(r"(mille|mila)tre\b", r"\1tré", super().cardinal(n))

    def counted(self, n: int, feminine: bool = False) -> str:
        return ("una" if feminine else "un") if n == 1 else self.cardinal(n)  # un euro, una sterlina; ventuno km

    def count_before_noun(self, cur: Cursor, end: int, n: int, ctx: Context) -> str | None:
        """'un'ora', 'un giorno', 'uno studente'; larger counts keep their form ('ventuno persone');
        '1' after an elided article is the hour ("dall'1" dall'una: l'ora is feminine)."""
        if n == 1 and ctx.char_before(cur.text, end - 1) in ("'", "’"):
            return "una"
        count = super().count_before_noun(cur, end, n, ctx) if n == 1 else None
        return (
            _one_before(count, noun)
            if count and (noun := chunk_after(cur, end, is_letter)[0]) not in ("a", "e", "o")
            else count
        )

    def counted_noun(self, n: int, feminine: bool, noun: str) -> str:
        count = _one_before(self.counted(n, feminine), noun)
        return count + noun if count.endswith("'") else f"{count} {noun}"

    def _word(self, cur: Cursor, pos: int, ctx: Context) -> Span | None:
        """'S.' before a name in a street's is the saint ('via di S. Vitale' San Vitale, 'piazza S. Croce' Santa)."""
        street = {ctx.prev_word.lower(), *map(str.lower, ctx.words_before[-1:])} & self.STREET_WORDS
        if street and cur.startswith(pos, "S. ") and (name := chunk_after(cur, pos + 2, str.isupper)):  # "Sant'Anna"
            saint = "Sant'" if name[0][0] in "AEIOU" else "Santa " if self.is_feminine(name[0].lower()) else (
                "Santo " if re.match("S[^aeiou]", name[0]) else "San ")
            return self.locale_span(name[1], saint + name[0])
        return super()._word(cur, pos, ctx)

    def clock(self, hours: int, minutes: int, seconds: int | None, marker: str, ctx: Context) -> str:
        words = self.counted(hours, True)  # 'all'una': the hour (l'ora) is feminine
        # named alone or with seconds ('dodici e zero minuti e …'); 'alle dieci e quindici'
        if minutes or seconds is not None:
            words += f" e {'un minuto' if minutes == 1 else self.cardinal(minutes) + ' minuti' * (seconds is not None or not ctx.prev_word)}"
        if seconds is not None:
            words += f" e {'un secondo' if seconds == 1 else self.cardinal(seconds) + ' secondi'}"
        return words


RULES = Italian()


def _one_before(count: str, noun: str) -> str:
    """'un' and 'una' as the noun after them takes them: 'uno studente', "un'ora" (elided before a vowel)."""
    return (
        "uno"
        if count == "un" and _UNO_BEFORE.match(noun)
        else ("un'" if count == "una" and noun[:1].lower() in "aeiouàèéìòù" else count)
    )
