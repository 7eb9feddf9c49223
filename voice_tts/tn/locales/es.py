"""Spanish: numbers, ordinals, decimals, fractions, money, dates, times, measures, phone numbers, addresses, Roman
numerals and abbreviations, read as the Spanish NeMo-text-processing data reads them ("5,50 €" → "cinco euros con
cincuenta céntimos", "21.ª" → "vigesimoprimera").

Cardinals come from CLDR (`voice_tts.tn.cldr`) in the form the context needs; ordinals are built here in the one-word
forms this data reads ("vigesimoprimera", "undécimo").
"""

from __future__ import annotations

import re
from functools import lru_cache

from voice_tts.tn import cldr
from voice_tts.tn.chars import is_letter
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor
from voice_tts.tn.locales.european import Currency
from voice_tts.tn.locales.european_dates import chunk_after
from voice_tts.tn.locales.iberian import Iberian
from voice_tts.tn.locales.noun_gender import is_feminine_name
from voice_tts.tn.locales.numeric_spans import read_pieces, roman_value, to_int


# The CLDR rulesets of the three forms: "uno" alone, "un"/"veintiún" before a masculine noun, feminine.
_FORMS = {"": "spellout-numbering", "un": "spellout-cardinal-masculine", "f": "spellout-cardinal-feminine"}
_UNACCENTED = str.maketrans("áéíóú", "aeiou")  # a number word glued to another: 'veintidós milésimo' veintidosmilésimo


def cardinal(n: int, form: str = "") -> str:
    """`form`: "" (veintiuno), "un" (veintiún, before a noun), "f" (veintiuna, doscientas)."""
    if n >= 10**24:
        return RULES.digits(str(n))
    if n >= 10**18:  # CLDR's Spanish stops at the trillón (long scale: 10¹⁸)
        count, rest = divmod(n, 10**18)
        words = "un trillón" if count == 1 else f"{cardinal(count, 'un')} trillones"
        return f"{words} {cardinal(rest, form)}" if rest else words
    if form == "f" and (thousands := n % 10**6 // 1000) > 1:
        # 'doscientas mil personas': the thousands agree with the noun too (CLDR keeps them masculine)
        words = [cardinal(n - n % 10**6, "un")] if n >= 10**6 else []
        words += [cardinal(thousands, "f"), "mil"] + ([cardinal(n % 1000, "f")] if n % 1000 else [])
        return " ".join(words)
    return cldr.spell("es", n, _FORMS[form])


# --- ordinals ---------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def ordinal(n: int, feminine: bool = False, short: bool = False) -> str:
    """'milésimo primero', `feminine` 'milésima primera', `short` 'primer': CLDR's words in the one-word forms the RAE
    prefers ('undécimo', 'vigesimoprimero'), a larger one's tens and units in two ('centésimo vigésimo quinto')."""
    if n <= 0 or n >= 10**9 or n >= 10**6 and n % 10**6:
        return cardinal(n)
    text = cldr.ordinal("es", n, "masculine").replace("octingésimo", "octingentésimo")
    text = re.sub(r"\bdecimo(primero|segundo)\b", lambda m: "undécimo" if m[1] == "primero" else "duodécimo", text)
    text = re.sub(r"^vigésimo o?(?=\w)", "vigesimo", text)
    text = re.sub(r"^(?:un )?(.*?) ?(mil|millon)ésimo",  # 'dos milésimo' dosmilésimo, 'un millonésimo' millonésimo
                  lambda m: m[1].replace(" ", "").translate(_UNACCENTED) + m[2] + "ésimo", text)
    if short:
        text = re.sub(r"(prim|terc)ero$", r"\1er", text)
    return re.sub(r"o\b", "a", re.sub(r"ientos(?=\w*ésimo)", "ientas", text)) if feminine else text  # 'quinientas'


# --- decimals and fractions -------------------------------------------------------------------

def _denominator(d: int) -> str | None:
    """'medio', 'tercio', then the ordinal ('cuarto' … 'décimo'), 'onceavo' … 'noventainueveavo'."""
    if 2 <= d <= 10:
        return {2: "medio", 3: "tercio"}.get(d) or ordinal(d)
    if 11 <= d <= 99:  # onceavo, treintaiunavo, cincuentavo
        word = cardinal(d).translate(_UNACCENTED).replace(" y ", "i").replace(" ", "")
        return (word[:-1] if word.endswith(("uno", "a")) else word) + "avo"
    return ordinal(d) if d % 100 == 0 and d < 1000 or d % 1000 == 0 and d < 10**6 or d == 10**6 else None


# --- the words around numbers -----------------------------------------------------------------

_GROUPED_FRACTION = re.compile(r"(\d+)/(\d{1,3}(?:\.\d{3})+)")  # '1/1.000.000'
_PIECE = re.compile(r"\d+|[^\W\d_]+|\S")
_EXTENSION_GROUP = re.compile(r"\d{3}-\d{4}-(\d+)$")
_ZONE = re.compile(r"([a-z]+)([-+]\d{1,2})?")


class Spanish(Iberian):
    code = "es"
    cardinal = staticmethod(cardinal)

    def counted(self, n: int, feminine: bool = False) -> str:
        return cardinal(n, "f" if feminine else "un")

    def ordinal(self, n: int, suffix: str, ctx: Context) -> str:
        return ordinal(n, suffix in self.FEMININE_ORDINAL_SUFFIXES, short=suffix in ("er", "ᵉʳ"))

    def fraction_digits(self, text: str, form: str = "") -> str:
        """Digits after the comma: up to three as one number after their zeros ('01' → 'cero uno'),
        more in pairs ('5332' → 'cincuenta y tres treinta y dos')."""
        pieces = [text] if len(text) <= 3 else [text[i:i + 2] for i in range(0, len(text), 2)]
        *heads, last = pieces
        return " ".join([*map(self._zeros_then_number, heads), self._zeros_then_number(last, None, form)])

    def fraction(self, numerator: int, denominator: int, feminine: bool = False) -> str:
        name = _denominator(denominator)
        if numerator == 1 and denominator == 2:
            return "media" if feminine else "medio"
        if name is None or numerator == 0:  # over a smaller number a reference: 'n.º 2027/118' … barra ciento dieciocho
            return (
                f"{cardinal(numerator)} {self.NUMBER_SLASH if numerator > denominator else 'sobre'} "
                f"{cardinal(denominator)}"
            )
        one = ("una " if feminine else "un ") + (name[:-1] + "a" if feminine else name)
        return one if numerator == 1 else f"{cardinal(numerator, 'f' if feminine else '')} {name}s"

    def clock(self, hours: int, minutes: int, seconds: int | None, marker: str, ctx: Context) -> str:
        # in a sentence past :30 (but a round ten: 'a las 8:40' ocho y cuarenta), or 13:10 on, plain
        y, quarters = (
            ("", {})
            if ctx.prev_word and (hours > 12 and minutes >= 10 or minutes > 30 and minutes % 10 and not marker)
            else (" y", self.QUARTERS)
        )
        return (
            cardinal(hours, "f")
            + (f"{y} {quarters.get(str(minutes), cardinal(minutes))}" if minutes else "")
            # '16:30 h' … treinta horas, '6:45 h' seis y cuarenta y cinco
            + (" horas"[:6 - (hours == 1)] * bool(marker and not (minutes and y)))
        )

    def currency(self, written: str) -> Currency | None:
        """The table in any case, else CLDR's codes and symbols ('3 kr'); a code that is a word only in capitals."""
        return self.CURRENCIES.get(written.upper()) or super().currency(written)

    currency_word = currency  # a code in any case before an amount ('usd 2')

    def phone_digits(self, text: str) -> str:
        """Groups each a number where one has two digits or in a 900 ('901 33 55 33'); 'NNN-NNNN-N' an extension."""
        m, groups = _EXTENSION_GROUP.search(text), re.findall(r"\d+", text)
        if m is None and len(groups) > 2 and (min(map(len, groups)) == 2 or groups[0] == "900"):
            return " ".join(map(self._zeros_then_number, groups))
        return (
            self.digits(text) if m is None else f"{self.digits(text[:m.start(1)])} {self.EXTENSION} {self.digits(m[1])}"
        )

    def shaped_token(self, token: str, ctx: Context) -> str | None:
        m = _GROUPED_FRACTION.fullmatch(token)
        return self.fraction(int(m[1]), to_int(m[2])) if m else super().shaped_token(token, ctx)

    def counted_decimal(self, whole: str, fractional: str, feminine: bool, ctx: Context) -> str:
        spoken = cardinal(to_int(whole), "f" if feminine else "")
        return f"{spoken} coma {self.fraction_digits(fractional, 'f' if feminine else 'un')}" if fractional else spoken

    def counted_fraction(self, word: str, whole: int, numerator: int, denominator: int) -> str | None:
        """'tres quintos de milla', 'un metro y medio', 'dos tazas y media', 'una hora y media'."""
        if (numerator, denominator) == (1, 2):  # a half as every language of Europe reads it
            return None if word in self.NOT_NOUNS else super().counted_fraction(word, whole, numerator, denominator)
        if (unit := self.unit(word)) is None:
            return None
        reading = f"{self.fraction(numerator, denominator, unit.feminine)} de {unit.singular}"
        return f"{cardinal(whole, 'f' if unit.feminine else '')} y {reading}" if whole else reading

    def _alphanumeric(self, text: str) -> str:
        """Digits as numbers (long runs one by one), words as written, symbols by name ('a-5' a cinco); no marks."""
        numbers = lambda run: self._zeros_then_number(run) if len(run) <= 6 else self.digits(run)  # noqa: E731
        return read_pieces(text, self.SYMBOLS, numbers, pieces=_PIECE)

    def roman(self, cur: Cursor, end: int, word: str, ctx: Context) -> Span | None:
        """Any that is no word ('xix'; not 'mi', 'civil', nor 'I', 'C', 'D', 'L', 'M' alone but 'Carlos I') an ordinal,
        after a name the ruler's ('Alfonso trece'); after 'siglo' or closing a quoted title a number ('siglo x ec')."""
        chapter = (self.abbreviation(ctx.prev_word + ".") or ctx.prev_word).lower()  # 'cap. IV' as 'capítulo IV'
        if not (self.is_roman(word, chapter) or word == "I" and ctx.prev_word.istitle()):
            return None
        value = roman_value(word)
        # '«El Madrid de Felipe II»' segundo; 'Derecho Civil II' dos, a course's part
        ruler = self.is_ruler(ctx.prev_word)
        article = ctx.prev_word.lower() in self.PREPOSITIONS
        if (
            chapter not in self.CHAPTER_WORDS
            and (ruler or article or not ctx.prev_word.istitle() or set(word) - set("IVX"))
            # '«Rocky II»' dos
            and not self.names_sequel(cur, end, value, ruler)
        ):
            noun = chunk_after(cur, end, is_letter) if article else None  # 'la III Feria'
            return self.locale_span(
                end,
                (
                    ordinal(value, bool(noun) and self.is_feminine(noun[0].lower()))
                    if article or not ctx.prev_word.istitle()
                    # 'Isabel segunda', 'Alfonso trece'
                    else self.regnal(value, is_feminine_name(ctx.prev_word), ctx)
                ),
            )
        if (era := chunk_after(cur, end, is_letter)) is not None and era[0].lower() in self.ERAS:
            return self.locale_span(era[1], f"{cardinal(value)} {self.ERAS[era[0].lower()]}")
        return self.locale_span(end, cardinal(value))

    def day_part(self, cur: Cursor, end: int, hours: int, minutes: int, face: bool) -> tuple[str, int, int] | None:
        """'de la tarde', 'a.m.', 'p.m. est', 'gmt-3' after a time: no connectors, a zone spelled with its offset."""
        words, last, kept = [], end, end
        while (after := chunk_after(cur, last, lambda c: c.isalpha() or c in "+-")) is not None:
            word, last = after
            w = word.lower().replace(".", "")
            zone = _ZONE.fullmatch(w)
            if w in ("de", "del", "la") or w in self.CLOCK_MARKERS:
                continue
            if w in ("am", "pm"):
                noon = "de la noche" if w == "am" else "del mediodía"  # '12 a.m.' de la noche
                evening = "de la noche" if 8 <= hours < 12 else "de la tarde"
                words.append(noon if hours == 12 else "de la mañana" if w == "am" else evening)
                last = self._past_period(cur, last)  # 'a las 7.15 p.m. en punto': the period is the abbreviation's
            # '1 noche gratis' is no hour
            elif w in self.DAY_PARTS and (face or cur.text[kept:last - len(word)].strip()):
                words.append(self.DAY_PARTS[w])
            elif zone and zone[1] in self.ZONES:
                offset = zone[2] or ""  # 'gmt-3' g m t menos tres
                sign = self.PLUS if offset[:1] == "+" else self.MINUS
                words.append(" ".join(zone[1]) + (f" {sign} {cardinal(int(offset[1:]))}" if offset else ""))
            else:
                break
            kept = last
        return (" ".join(words), kept, hours) if words else None


RULES = Spanish()
