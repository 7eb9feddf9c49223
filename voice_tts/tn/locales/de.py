"""German: "Ihre Bestellung kostet 25,50 € und kommt am 3. Mai." → "… fünfundzwanzig Euro fünfzig
Cent und kommt am dritten Mai."

Cardinals, ordinals and years come from CLDR (`voice_tts.tn.cldr`: "einhundertsechsundzwanzig",
"eine Million", "neunzehnhundertneunundachtzig"); this module decides which form a context needs:
the case ending of an ordinal, the article form of "1" before a noun ("mit einem Kind", by the
noun's gender from german_genders.json), a year after a year word or at the start of a sentence. A number followed by a period is an ordinal when a month or a lower-case
word follows, when an article or preposition comes before it ("am 3. Mai", "der 2. Platz"), or
when it stands alone; otherwise the period ends the sentence ("Das kostet 3.").
"""

from __future__ import annotations

import re

from voice_tts.tn import lexer
from voice_tts.tn.chars import is_letter, is_space
from voice_tts.tn.context import Context
from voice_tts.tn.cursor import Cursor
from voice_tts.tn import cldr
from voice_tts.tn.locales import data, words
from voice_tts.tn.locales.european import Language
from voice_tts.tn.locales.european_dates import chunk_after

_WORDS = words("de")


# Words before an ordinal that decide its ending: "am dritten", "der dritte", "ein dritter".
_DATIVE_CUES = frozenset(_WORDS["dative_cues"])
_WEAK_CUES = frozenset(_WORDS["weak_cues"])
_ORDINAL_CUES = _DATIVE_CUES | _WEAK_CUES | frozenset(("ein", "sein", "ihr", "unser", "mein", "dein", "zu", "als"))
_ENDINGS = dict.fromkeys(_WEAK_CUES, "") | dict.fromkeys(_DATIVE_CUES, "n")  # else "r": 'ein dritter'
# The case a preposition or article before a ruler's name gives its number, and the article and
# ending of each case by gender: 'von Ludwig II.' von Ludwig dem Zweiten.
_REGNAL_CASES: dict[str, str] = _WORDS["regnal_cases"]
_REGNAL_FORMS: dict[str, list[list[str]]] = _WORDS["regnal_forms"]


# Nouns by gender (de_genders.json, derived from german-nouns by bench/tn_german_genders.py), and
# the endings that give the gender of a noun it lacks ('Zeitung', 'Mädchen').
_FEMININE_ENDINGS = ("e", "ung", "heit", "keit", "schaft", "ion", "tät", "ei", "ik", "in", "ur")
_NEUTER_ENDINGS = ("chen", "lein", "ment", "um", "tum", "nis")
_GENDERS: dict[str, str] = {noun: gender for gender, nouns in data("de_genders.json").items() for noun in nouns.split()}


def noun_gender(noun: str) -> str:
    """'m', 'f' or 'n': the noun's own entry, else its longest known head ('Kinderzimmer' →
    'Zimmer'), else its ending."""
    for i in range(len(noun) - 2):
        head = noun[i:] if i == 0 else noun[i].upper() + noun[i + 1:]
        if head in _GENDERS:
            return _GENDERS[head]
    if noun.endswith(_FEMININE_ENDINGS):
        return "f"
    return "n" if noun.endswith(_NEUTER_ENDINGS) else "m"


class German(Language):
    code = "de"
    SENTENCE_FINAL = Language.SENTENCE_FINAL | {"s.o.", "s.u.", "u.v.m.", "usf.", "u.a.", "o.Ä.", "u.Ä."}
    ORDINAL_SUFFIX = re.compile(r"(\d+)(s?te[rnms]?)")
    ROMAN_DOT = True

    def regnal(self, n: int, feminine: bool, ctx: Context) -> str:
        """In the case the nearest lower-case word (or cue) before the name and its titles gives: 'Ludwig
        II.' Ludwig der Zweite, 'von König Ludwig II.' von König Ludwig dem Zweiten, 'für …' den Zweiten."""
        cue = next((w.lower() for w in reversed(ctx.words_before) if w[:1].islower() or w.lower() in _REGNAL_CASES), "")
        article, ending = _REGNAL_FORMS[_REGNAL_CASES.get(cue, "nominative")][feminine]
        return f"{article} {cldr.ordinal('de', n).capitalize()}{ending}"

    def count_before_noun(self, cur: Cursor, end: int, n: int, ctx: Context) -> str | None:
        """'1 Kind' ein Kind, 'mit 1 Kind' mit einem Kind, 'für 1 Nacht' für eine Nacht, '1 neue
        Nachricht' eine neue Nachricht: before a noun, "ein" in the noun's gender and the case of the
        preposition before or of the adjective's ending after it; 'Seite 1' stays eins."""
        if n != 1 or (found := _noun_after(cur, end)) is None:
            return None
        (adjective, noun), prev = found, ctx.prev_word.lower()
        # the case a preposition governs (DATIVE, ACCUSATIVE), and the CLDR form of "ein" it takes by gender (ONE)
        case = "dative" if prev in self.DATIVE else "accusative" if prev in self.ACCUSATIVE else "nominative"
        if case == "nominative" and adjective.endswith("en"):  # '1 verpassten Anruf' einen, '1 neuen Karte' einer
            case = "accusative" if noun_gender(noun) == "m" else "dative"
        return cldr.cardinal("de", 1, self.ONE[case][noun_gender(noun)])

    def is_year(self, cur: Cursor, end: int, n: int, ctx: Context) -> bool:
        """Also '1989 fiel die Mauer', 'von 1914 bis 1918': a number from 1100 to 1999 before a
        lower-case word that is no unit, or after 'bis' or 'von', is a year (a count is followed by its
        noun, which German writes capitalized: '1500 Menschen')."""
        if super().is_year(cur, end, n, ctx):
            return True
        if not 1100 <= n <= 1999:
            return False
        after = chunk_after(cur, end, is_letter)
        if after is not None:
            word = after[0]
            return word[0].islower() and self.unit(word) is None and word.lower() not in self.SCALES and self.currency(word) is None
        return ctx.prev_word.lower() in ("bis", "von") and cur.at(end) in (",", ".", ";", "")

    def is_feminine(self, noun: str) -> bool:
        return noun_gender(noun) == "f"

    def ordinal(self, n: int, suffix: str, ctx: Context) -> str:
        if suffix == ".":
            return cldr.ordinal("de", n) + _ENDINGS.get(ctx.prev_word.lower(), "r")
        return cldr.ordinal("de", n) + suffix.lstrip("s")[2:]

    def date_day(self, day: int, ctx: Context) -> str:
        return self.ordinal(day, ".", ctx)

    def fraction_before(self, cur: Cursor, end: int, numerator: int, denominator: int) -> str:
        """'½ Tablette': eine halbe Tablette, ein halber Liter, ein halbes Jahr."""
        found = _noun_after(cur, end) if (numerator, denominator) == (1, 2) else None
        if found is None:
            return self.fraction(numerator, denominator)
        return {"f": "eine halbe", "m": "ein halber", "n": "ein halbes"}[noun_gender(found[1])]

    def fraction(self, numerator: int, denominator: int) -> str:
        if denominator == 2:
            return f"{self.counted(numerator)} {'halb' if numerator == 1 else 'halbe'}"
        return f"{self.counted(numerator)} {cldr.ordinal('de', denominator)[:-1]}el"

    def mixed_fraction(self, whole: int, numerator: int, denominator: int) -> str:
        if numerator == 1 and denominator == 2:  # 'eineinhalb', 'zweieinhalb'
            return self.counted(whole) + "einhalb"
        return super().mixed_fraction(whole, numerator, denominator)

    def year(self, n: int) -> str:
        return cldr.year("de", n) if 1100 <= n < 2000 else self.cardinal(n)

    def clock_hours(self, hours: int) -> str:
        return f"{self.counted(hours)} Uhr"

    def is_ordinal_dot(self, cur: Cursor, pos: int, dot: int, ctx: Context) -> bool:
        if len(cur.text[pos:dot].replace(".", "")) > 4:  # '3.', '1.000.' (der 1.000. Besucher)
            return False
        after = cur.at(dot + 1)
        if after in ("", "\n"):
            return not ctx.last_visible  # '4.' alone is an ordinal; '… kostet 3.' ends a sentence
        if not is_space(after):
            return False
        j = lexer.spaces(cur, dot + 1)
        c = cur.at(j)
        if c in ("", "\n"):
            return not ctx.last_visible
        if not is_letter(c):
            return False
        word = cur.text[j:lexer.chunk(cur, j)]
        if word.lower() in self.MONTHS or word[0].islower():
            return True
        return ctx.prev_word.lower() in _ORDINAL_CUES


_ADJECTIVE_ENDINGS = ("e", "en", "er", "es", "em")
_PRONOUNS = frozenset(_WORDS["pronouns"])  # capitalized, yet no noun a number counts


def _noun_after(cur: Cursor, end: int) -> tuple[str, str] | None:
    """The adjective ('' where none) and the noun that follow `end` ('neue Nachricht'), or None."""
    adjective = chunk_after(cur, end, str.islower)
    if adjective is not None and not adjective[0].endswith(_ADJECTIVE_ENDINGS):
        return None
    noun = chunk_after(cur, adjective[1] if adjective else end, str.isupper)
    noun = noun[0].rstrip(".,;:!?") if noun else ""
    if not noun.isalpha() or noun.isupper() or noun in _PRONOUNS:  # 'ABC', an acronym; 'Punkt 1 finden Sie', a verb's
        return None
    return adjective[0] if adjective else "", noun


RULES = German()
