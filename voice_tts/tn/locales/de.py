"""German: "Ihre Bestellung kostet 25,50 € und kommt am 3. Mai." → "… fünfundzwanzig Euro fünfzig
und kommt am dritten Mai."

Cardinals, ordinals and years come from CLDR (`voice_tts.tn.cldr`: "einhundertsechsundzwanzig", "eine Million",
"neunzehnhundertneunundachtzig"); this module decides which form a context needs: the case ending of an ordinal, the
article form of "1" before a noun ("mit einem Kind", by the noun's gender from de_genders.json), a year after a
year word or at the start of a sentence. A number followed by a period is an ordinal when a month or a lower-case word
follows, when an article or preposition comes before it ("am 3. Mai", "der 2. Platz"), or when it stands alone;
otherwise the period ends the sentence ("Das kostet 3.").
"""

from __future__ import annotations

import re

from voice_tts.tn import cldr, lexer
from voice_tts.tn.chars import is_digit, is_letter, is_space
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor
from voice_tts.tn.locales import data, words
from voice_tts.tn.locales.european import Language, Unit, letters_after
from voice_tts.tn.locales.european_dates import chunk_after

_WORDS = words("de")


# Words before an ordinal that decide its ending: "am dritten", "der dritte"; else the case the word
# before gives (`cases`: prepositions, articles, "ein" and its kin, verbs whose object is in the
# accusative) and the noun's gender decide it ('sein vierzigstes Jubiläum', 'an dritter Stelle').
_DATIVE_CUES = frozenset(_WORDS["dative_cues"])
_WEAK_CUES = frozenset(_WORDS["weak_cues"])
_CASES: dict[str, str] = _WORDS["cases"]
_ORDINAL_CUES = _DATIVE_CUES | _WEAK_CUES | {word for word, case in _CASES.items() if case == "nominative"}
_ENDINGS = dict.fromkeys(_WEAK_CUES, "") | dict.fromkeys(_DATIVE_CUES, "n")
# The article and ending of each case by gender of a ruler's number: 'von Ludwig II.' von Ludwig dem Zweiten.
_REGNAL_FORMS: dict[str, list[list[str]]] = _WORDS["regnal_forms"]
_APPOSITION, _WEEKDAYS = _WORDS["apposition_articles"], {*_WORDS["weekdays"], *_WORDS["weekdays"].values()}


# Nouns by gender (de_genders.json, derived from german-nouns by bench/tn_german_genders.py), and
# the endings that give the gender of a noun it lacks ('Zeitung', 'Mädchen'; else masculine).
_GENDER_ENDINGS = {gender: tuple(endings) for gender, endings in _WORDS["gender_endings"].items()}
_GENDERS: dict[str, str] = {noun: gender for gender, nouns in data("de_genders.json").items() for noun in nouns.split()}


def noun_gender(noun: str) -> str:
    """'m', 'f' or 'n': the noun's own entry, else its longest known head ('Kinderzimmer' Zimmer), else its ending."""
    for i in range(max(len(noun) - 2, 1)):  # also a two-letter noun's own entry ('OG' Obergeschoss)
        head = noun[i:] if i == 0 else noun[i].upper() + noun[i + 1:]
        if head in _GENDERS:
            return _GENDERS[head]
    if noun[:1].islower() and not noun.islower():  # a loan word's small first letter ('iPhone', 'eBook'): neuter
        return "n"
    return next((gender for gender, endings in _GENDER_ENDINGS.items() if noun.endswith(endings)), "m")


class German(Language):
    code = "de"

    def regnal(self, n: int, feminine: bool, ctx: Context) -> str:
        """In the case the nearest lower-case word (or cue) before the name and its titles gives, or its genitive -s: 'Ludwig
        II.' Ludwig der Zweite, 'von König Ludwig II.' dem Zweiten, 'für …' den Zweiten, 'das Schloss Ludwigs II.' des Zweiten."""
        cue = next((w.lower() for w in reversed(ctx.words_before[-3:]) if w[:1].islower() or w.lower() in _CASES), "")
        article, ending = _REGNAL_FORMS[
            "genitive" if re.search(r"[^aeiousxz]s$", ctx.prev_word) else _CASES.get(cue, "nominative")
        ][feminine]
        return f"{article} {cldr.ordinal('de', n).capitalize()}{ending}"

    def find_span(self, cur: Cursor, pos: int, ctx: Context) -> Span | None:
        """A number's span keeps the word that gave it its case for the next number of its list; a
        weekday before a date, the article of its case for the date ('am Do., 18.03.' dem)."""
        c = cur.at(pos)
        town = ctx.prev_word in self.AREA_WORDS and lexer.digits_end(cur, pos) == pos + 5 and _noun_after(cur, pos + 5)
        if town and not town[0] and not _is_noun(town[1]):
            return self.locale_span(pos + 5, self.digits(cur.text[pos:pos + 5]))  # postcode: 'nach 80331 München'
        # 'M-AB 4521'
        plate = is_letter(c) and "-" in (word := cur.text[pos:lexer.chunk(cur, pos)]) and word.isupper()
        if (
            plate
            and (digits := chunk_after(cur, pos + len(word), is_digit))
            and _PLATE.fullmatch(code := cur.text[pos:digits[1]])
        ):
            return self.locale_span(digits[1], self.number(code))
        ranged = (
            is_digit(c)
            and (dot := lexer.digits_end(cur, pos)) - pos <= 2
            and cur.at(dot) == "."
            and cur.at(dot + 1) in "–-"
            and is_digit(cur.at(dot + 2))
        )
        ordinal = self.ordinal(int(cur.text[pos:dot]), ".", ctx) if ranged else ""  # 'vom 12.–15. Mai' zwölften bis
        span = (
            self.locale_span(dot + 2, f"{ordinal} {self.RANGE} ") if ranged else super().find_span(cur, pos, ctx)
        )
        # '12 Säcke à 40 l und 1'
        if span is not None and (is_digit(c) or c in cldr.VULGAR_FRACTIONS):
            # the list's case goes on past its numbers ('½ TL Senf und 1 EL'), none after a heading's colon
            cue = _cue(ctx)
            span.agreement = ctx.agreement if cue in _SIZE_CUES else cue * (ctx.last_visible != ":")
            share = re.fullmatch(r"(\d+)/(\d+)", cur.text[pos:span.end])
            parts = share and tuple(map(int, share.groups()))  # a share after a dative cue as '¼': 'zu 1/4' einem
            if parts and _CASES.get(cue) == "dative" and span.info == self.fraction(*parts):  # no 'von' score
                span.info = self.fraction_before(cur, span.end, *parts, ctx)
        elif (
            span
            and not ctx.prev_word
            and ctx.agreement == "des"
            and (noun := span.info.rstrip(".")) in self.ABBREVIATIONS.values()
        ):
            # after its number: 'des 19. Jh.' Jahrhunderts
            span.info = span.info.replace(noun, noun + "s" * (noun_gender(noun) != "f"))
        elif span and span.info.lower() in _ADJECTIVES and (found := _noun_after(cur, span.end)) and not found[0]:
            span.info += "e" + _ending(_cue(ctx), noun_gender(found[1]))  # before its noun: 'mtl. Rate' monatliche
        elif span and cur.text[pos:span.end].rstrip(".").lower() in _HEDGES.union(_LIST_WORDS):
            span.agreement = ctx.agreement  # '20 Tropfen bzw. ca. 1 ml' einen: the list's case past them
        elif is_letter(c) and word in _WEEKDAYS:  # the word the plate's test read
            # 'am Fr.', after an ordinal 'jeden 2. Fr.'
            cued = _DATIVE_CUES & {_cue(ctx), ctx.agreement * (not ctx.prev_word)}
            if (
                word in self.WEEKDAYS
                and cur.at(pos + 2) == "."
                and cur.at(pos + 3) in (",", " ")
                # a date or time after: 'Fr., 12.3.'
                and (cued or chunk_after(cur, pos + 3 + (cur.at(pos + 3) == ","), is_digit))
            ):
                span = self.locale_span(pos + 3, self.WEEKDAYS[word])  # Freitag, not Frau
            weekday = span or self.locale_span(pos + len(word), self.WEEKDAYS.get(word, word))
            if (
                (date := chunk_after(cur, weekday.end + (cur.at(weekday.end) == ","), is_digit))
                and "." in date[0] + cur.at(date[1])
            ):
                case = _CASES.get(cue := _cue(ctx)) or ("dative" if cue in _DATIVE_CUES else "nominative")
                span, span.agreement = weekday, _APPOSITION[case]  # a date follows: 'am Do., 18.03.' dem achtzehnten
        if span is not None and ctx.last_spoken:  # as speakers say it: 'Nr. 112' hundertzwölf; alone einhundertzwölf
            span.info = re.sub(r"\bein(?=hundert|tausend)", "", span.info)
        return span

    # a plate letter by letter, digit by digit: 'M-AB 4521' M A B vier fünf zwei eins
    def number(self, raw: str) -> str:
        if word := _WORD_CODE.fullmatch(raw):  # a voucher's word (two vowels) and number: 'WINTER10' Winter zehn
            return f"{word[1].capitalize()} {self.cardinal(int(word[2]))}"
        return " ".join(self.digits(c) or c for c in raw if c.isalnum()) if _PLATE.match(raw) else super().number(raw)

    def _alphanumeric(self, text: str) -> str:
        """'3-mal' dreimal, '5-jährig' fünfjährig: a number and a lower-case ending are one word (a word joiner
        stands for the hyphen, which no space then follows); with '-er' a word of its own ('8er-Dübel' Achter-Dübel)."""
        text = re.sub(r"(?<![\d,])(\d+)(ern?)(?![a-zäöüß])", lambda m: (  # 'ein 1990er Wein' neunzehnhundert…
            str if m[2] == "er" and len(m[1]) == 4 else str.title)(self.year(int(m[1]))) + m[2], text)
        if compound := _COMPOUND.fullmatch(text):  # its hyphens kept, as most write it: 'Drei-Zimmer-Wohnung'
            return re.sub("^ein(?=hundert|tausend)", "", self.counted(int(compound[1]))).capitalize() + compound[2]
        return super()._alphanumeric(
            re.sub(r"(?<=\d)-(?=([a-zäöüß]\w*))", lambda m: "-" if self.unit(m[1]) else "\u2060", text)
        ).replace("\u2060", "")

    def count_before_noun(self, cur: Cursor, end: int, n: int, ctx: Context) -> str | None:
        """'mit 1 Kind' mit einem Kind, 'erhalten Sie 1 Gutschein' einen, '1 neue Nachricht' eine: before a noun, "ein"
        in its gender and the case of the word before (`_cue`) or of the adjective after; 'Art. 1 GG' eins."""
        if n != 1 or self.follows_chapter_word(ctx):
            return None
        if (found := _noun_after(cur, end)) is None or f"{found[1]}." in self.ABBREVIATIONS:  # '§ 1 Abs. 2' eins
            return None
        (adjective, noun), case = found, _CASES.get(cue := _cue(ctx), "nominative")
        verb = (
            cue == ctx.agreement
            and not ctx.prev_word
            and chunk_after(cur, cur.text.index(noun, end) + len(noun), str.islower)
        )
        # 'seit 1 Stunde, 1 großer Tisch': ein großer; ', 1 Artikel folgt' ein
        if adjective.endswith(("e", "er", "es")) or verb and verb[0].endswith(("t", "en")) and verb[0] not in _CASES:
            case = "nominative"
        elif case == "nominative" and adjective:  # '1 verpassten Anruf' einen, '1 neuen Karte' einer
            case = "accusative" if noun_gender(noun) == "m" else "dative"
        return cldr.cardinal("de", 1, _ONE[case][noun_gender(noun)])

    def _counted_quantity(self, whole: str, fractional: str | None, unit: Unit, ctx: Context) -> str:
        """'auf 1 l Wasser' auf einen Liter, 'mit 1 kg' mit einem Kilogramm: one unit in the case of the word
        before; an hour of the clock is none ('um 1 Uhr' ein Uhr)."""
        # '1,5 Std.' eineinhalb Stunden
        if (whole, fractional) == ("1", "5") and unit.singular.lower() not in self.SCALES:
            return f"{self.mixed_fraction(1, 1, 2)} {unit.plural}"
        if whole != "1" or fractional is not None or unit.singular in self.CLOCK_MARKERS:
            return super()._counted_quantity(whole, fractional, unit, ctx)
        gender = noun_gender(unit.singular.split()[0])
        return f"{cldr.cardinal('de', 1, _ONE[_quantity_case(ctx)][gender])} {unit.singular}"

    def percent(self, whole: str, fractional: str | None, ctx: Context) -> str:
        """'von 1 %' von einem Prozent, 'um 1 %' um ein Prozent: one percent is counted as one unit is ('eins' alone)."""
        if (whole, fractional) != ("1", None):
            return super().percent(whole, fractional, ctx)
        return self._counted_quantity(whole, fractional, self.unit("%"), ctx)

    def unit_at(self, cur: Cursor, word: str, end: int, ctx: Context | None = None) -> Unit | None:
        """A unit of one word takes the dative plural's -n after -e ('unter 14 J.' Jahren; not 'Gigabyte'), after -er
        where it ends its phrase ('von 8 cm' Zentimetern; 'mit 3 l Wasser' Liter; 'mg/dl' pro Deziliter)."""
        unit, noun = super().unit_at(cur, word, end, ctx), letters_after(cur, end)[:1].isupper()
        plural = unit.plural if unit and " " not in unit.plural else ""
        ending = plural.endswith("e") and plural != unit.singular or plural.endswith("er") and not noun
        dative = ctx is not None and _CASES.get(_cue(ctx)) == "dative"
        return Unit(unit.singular, plural + "n", unit.feminine) if dative and ending else unit

    def is_year(self, cur: Cursor, end: int, n: int, ctx: Context) -> bool:
        """'1989 fiel die Mauer', 'von 1914 bis 1918': 1100 to 1999 before a lower-case word that is no unit, or after
        'bis', 'von', is a year too (a count is followed by its noun, which German capitalizes: '1500 Menschen')."""
        if (year := super().is_year(cur, end, n, ctx)) or not 1100 <= n <= 1999:
            return year
        if word := letters_after(cur, end):
            return (
                word[0].islower()
                and self.unit(word) is None
                and word.lower() not in self.SCALES
                and self.currency(word) is None
            )
        return ctx.prev_word.lower() in ("bis", "von") and cur.at(end) in (",", ".", ";", "")

    def is_feminine(self, noun: str) -> bool:
        return noun_gender(noun) == "f"

    def ordinal(self, n: int, suffix: str, ctx: Context) -> str:
        return cldr.ordinal("de", n) + (_ENDINGS.get(_cue(ctx), "r") if suffix == "." else suffix.lstrip("s")[2:])

    def date_day(self, day: int, ctx: Context) -> str:
        return _apposition(ctx, date=True) + self.ordinal(day, ".", ctx)

    def fraction_before(self, cur: Cursor, end: int, numerator: int, denominator: int, ctx: Context) -> str:
        """'½ Tablette': eine halbe Tablette, ein halber Liter; 'mit ½ l' mit einem halben Liter: "ein" and "halb" in
        the gender of the noun or unit after it and the case of the word before."""
        unit, found = (after := chunk_after(cur, end, is_letter)) and self.unit(after[0]), _noun_after(cur, end)
        case = _quantity_case(ctx)
        # a share, a noun: 'von ¼ des Preises' einem Viertel
        if not unit and (not found or found[0] in _WORDS["genitive_articles"]):
            # 'zu ¾' zu drei Vierteln
            one = cldr.cardinal("de", 1, _ONE[case]["n"]) if numerator == 1 else self.counted(numerator)
            return (
                f"{_REGNAL_FORMS[case][1][0]} Hälfte"
                if (numerator, denominator) == (1, 2)
                else (
                    f"{one} {cldr.ordinal('de', denominator)[:-1].capitalize()}el"
                    f"{'n' * (numerator > 1 and case == 'dative')}"
                )
            )
        if (numerator, denominator) != (1, 2):
            return self.fraction(numerator, denominator)
        gender = noun_gender(unit.singular.split()[0] if unit else found[1])
        # 'eine ½ Stunde', 'jede weitere ½ Std.' halbe: after an article or its adjective
        article = ctx.prev_word.lower()
        if (
            article in _ARTICLES
            or article.endswith(_ADJECTIVE_ENDINGS) and " ".join(ctx.words_before[-1:]).lower() in _ARTICLES
        ):
            return "halbe" + "n" * (article.endswith(("n", "m")) or article.endswith("r") and gender == "f")
        return (
            f"{cldr.cardinal('de', 1, _ONE[case][gender])} halbe"
            f"{_STRONG_ENDINGS[case][gender] if case in ('nominative', 'accusative') else 'n'}"
        )

    def fraction(self, numerator: int, denominator: int) -> str:
        return (
            (f"{self.counted(numerator)} {'halb' if numerator == 1 else 'halbe'}")
            if denominator == 2
            else f"{self.counted(numerator)} {cldr.ordinal('de', denominator)[:-1]}el"
        )

    def mixed_fraction(self, whole: int, numerator: int, denominator: int) -> str:
        if denominator in (2, 4):  # one word with halves and quarters: 'eineinhalb', 'zweieinviertel'
            return self.counted(whole) + self.fraction(numerator, denominator).replace(" ", "")
        return super().mixed_fraction(whole, numerator, denominator)

    def year(self, n: int) -> str:
        return cldr.year("de", n) if 1100 <= n < 2000 else self.cardinal(n)

    def hours_from(self, ctx: Context) -> str:
        return ""  # no 'von' the text does not write ('Di.–Fr. 10–18:30 Uhr' zehn bis achtzehn Uhr dreißig)

    def first_clock(self, hours: int, minutes: int, ctx: Context) -> str:
        # a first full hour says no 'Uhr' its last says ('18:00–19:15 Uhr' achtzehn bis neunzehn Uhr fünfzehn)
        return super().first_clock(hours, minutes, ctx) if minutes else self.counted(hours)

    def clock_hours(self, hours: int) -> str:
        return f"{self.counted(hours)} Uhr"

    def ordinal_dot(self, cur: Cursor, pos: int, dot: int, n: int, ctx: Context) -> str | None:
        """'3.' is an ordinal alone, before a month or a lower-case word, after a cue ('am', 'der',
        'sein'), or after a preposition before a noun ('an 3. Stelle'; 'um 3. Danach' ends a sentence).
        Its ending: the cue's ('am dritten'), else the case's and the noun's gender ('sein vierzigstes')."""
        after = cur.at(dot + 1)  # '1.000.' (der 1.000. Besucher) may be an ordinal, '1.000.000.' not
        if len(cur.text[pos:dot].replace(".", "")) > 4 or after not in ("", "\n") and not is_space(after):
            return None
        c, cue = cur.at(j := lexer.spaces(cur, dot + 1)), _cue(ctx)
        word = cur.text[j:lexer.chunk(cur, j)] if is_letter(c) else ""
        month = word.lower() in self.MONTHS
        # a name's genitive before the noun is its article ('für Beethovens 9. Sinfonie' neunte), no ruler's
        owner = (
            word in _GENDERS and re.fullmatch(r"[A-ZÄÖÜ]\w+s", name := ctx.prev_word) and name[:-1] not in self.RULERS
        )
        if c in ("", "\n"):
            if ctx.last_visible:  # '… kostet 3.' ends a sentence
                return None
        elif not word or not (month or word[0].islower() or cue in _ORDINAL_CUES or owner
                              or (cue in _CASES or word in self.ABBREVIATIONS) and word in _GENDERS
                              or not ctx.prev_word and word.lower() in self.CENTURY_WORDS):  # '7. Etappe:' Siebte
            return None
        found = _noun_after(cur, dot + 1) if word and not month else None  # 'Mär.' is no Mär
        gender = noun_gender(self.ABBREVIATIONS.get(found[1] + ".", found[1])) if found else "m"  # 'Etg.' Etage
        cue = next((w.lower() for w in ctx.words_before[-1:] if w.lower() in _CASES), "ein") if owner else cue
        return _apposition(ctx, date=True) * month + cldr.ordinal("de", n) + _ending(cue, gender)


_ADJECTIVE_ENDINGS = ("e", "en", "er", "es", "em")
_PRONOUNS, _HEDGES = frozenset(_WORDS["pronouns"]), frozenset(_WORDS["hedges"])  # capitalized, no noun; 'ca.'
_ADJECTIVES = frozenset(_WORDS["abbreviated_adjectives"])  # the readings of abbreviated adjectives: 'mtl.' monatlich
_LIST_WORDS, _MEASURE_NOUNS = _WORDS["list_words"], frozenset(_WORDS["measure_nouns"])
_SIZE_CUES = _WORDS["size_cues"]  # before a list member's size or price, which leaves the list's case as it was
_PASSED = {*_HEDGES, *map(str.title, _HEDGES), *(p for p in _PRONOUNS if p.lower() not in _ORDINAL_CUES)}
# a car's plate 'B-MW 123E'; codes: english.REFERENCE
_PLATE = re.compile(r"[A-ZÄÖÜ]{1,3}-[A-Z]{1,2} [1-9]\d{0,3}[EH]?\Z")
_WORD_CODE = re.compile(r"(?=[A-ZÄÖÜ]{4})([A-ZÄÖÜ]*[AEIOUÄÖÜ][A-ZÄÖÜ]*[AEIOUÄÖÜ][A-ZÄÖÜ]*)([1-9]\d{0,2})")
_ARTICLES = (_DATIVE_CUES | _WEAK_CUES) - {"ab", "bis", "seit"}  # before '½' no 'ein': 'nach einer ½ Stunde' halben
_COMPOUND = re.compile(r"(\d{1,4})((?:-[A-ZÄÖÜ][a-zäöüß]+)+)")  # a number joined to nouns: '3-Zimmer-Wohnung'
# CLDR's form of "ein" and an ordinal's ending with no article before it, by case and gender.
_ONE, _STRONG_ENDINGS = _WORDS["one"], _WORDS["strong_endings"]


def _cue(ctx: Context) -> str:
    """The word that gives a number its case: the one before it past pronouns and hedges ('in ca. 1 Woche'; past a
    subject to an unlisted verb, its accusative: 'Trinken Sie 1 l' einen); after ',', 'und' its list's."""
    nearest = [word for word in (ctx.prev_word, *reversed(ctx.words_before)) if word]
    # 'morgens und abends 1 Tablette': an 'und' between two passed words joins them, no list of numbers
    skipped = next((i for i, word in enumerate(nearest) if word not in _PASSED and not (
        0 < i < len(nearest) - 1 and word in _LIST_WORDS and nearest[i + 1] in _PASSED)), len(nearest))
    prev = nearest[skipped].lower() if skipped < len(nearest) else "und" * (skipped > 0)
    prev = next((w.lower() for w in nearest[:skipped] if w in _PRONOUNS and prev not in _CASES), prev)
    return (
        ctx.agreement
        if (
            prev in _LIST_WORDS
            or not prev and (ctx.last_visible == "," or ctx.prev_char in ("–", "-"))
            or _apposition(ctx)
        )
        else prev
    )


def _quantity_case(ctx: Context) -> str:
    """One unit's case ('1 l', '½ TL'): its cue's; after a noun an object's ('Für den Teig … ½ TL Salz' einen
    halben, 'kostet jede weitere ½ Stunde 1 €' einen); after 'Zutaten:' or 'ist' (a noun too: das Ist) nominative."""
    cue = _cue(ctx) * (ctx.last_visible != ":")
    return _CASES.get(cue) or ("accusative" if cue != "ist" and _is_noun(cue.title()) else "nominative")


def _is_noun(word: str) -> bool:
    """Whether `word` is a noun de_genders.json lists, or its plural or genitive ('Personen', 'Kinder')."""
    return any(word.removesuffix(ending) in _GENDERS for ending in ("", "n", "en", "er", "s"))


def _ending(cue: str, gender: str) -> str:
    """What an -e adjective takes after `cue` before a noun of `gender`: the cue's ('am dritten'), else its case's."""
    cue = "den" if (cue, gender) == ("der", "f") else cue  # a feminine's 'der' is no nominative: 'in der 3. Etage'
    return _ENDINGS.get(cue, _STRONG_ENDINGS[_CASES.get(cue, "nominative")][gender])


def _apposition(ctx: Context, date: bool = False) -> str:
    """The article of a date after a weekday and its comma, in the weekday's case: 'am Mo., 3. Mai' dem; of a `date`
    after 'ab' dem, as 'ab' is said before a day ('ab 1. Juni' ab dem ersten Juni)."""
    if date and ctx.prev_word.lower() == "ab":
        return "dem "
    return (
        f"{ctx.agreement} "
        if not ctx.prev_word and ctx.last_visible not in ".!?" and ctx.agreement in _APPOSITION.values()
        else ""
    )


def _noun_after(cur: Cursor, end: int) -> tuple[str, str] | None:
    """The adjective ('' where none) and the noun that follow `end` ('neue Nachricht'), or None."""
    adjective = chunk_after(cur, end, str.islower)
    if adjective is not None and not adjective[0].islower():  # 'eSIM', 'iPhone': a noun with a small first letter
        adjective, noun = None, adjective
    elif adjective is not None and not adjective[0].endswith(_ADJECTIVE_ENDINGS):
        return None
    else:
        noun = chunk_after(cur, adjective[1] if adjective else end, str.isupper)
    head = noun and noun[0].endswith("er") and noun[0] not in _MEASURE_NOUNS and chunk_after(cur, noun[1], str.isupper)
    noun = head if head and head[0] not in _PRONOUNS else noun  # a place's adjective: '1 Schwarzwälder Torte' eine
    noun = noun[0].rstrip(".,;:!?") if noun else ""
    # 'ABC' (not 'DVD'); 'Punkt 1 finden Sie'
    if not noun.isalpha() or noun.isupper() and noun not in _GENDERS or noun in _PRONOUNS:
        return None
    return adjective[0] if adjective else "", noun


# A compound whose head is a chapter or room word is one too: 'Hörsaal III' drei, 'Pflegestufe II' zwei.
German.CHAPTER_WORDS |= {noun.lower() for noun in _GENDERS if noun.lower().endswith(tuple(German.CHAPTER_WORDS))}
RULES = German()
