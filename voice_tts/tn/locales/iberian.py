"""What Spanish and Portuguese read alike, on top of the shapes `european.Language` decides for every language of
Europe: a date with "de" between its parts ("1 de janeiro de 2000"), year or month first ("2024/03/15", "03/15/2024"),
an abbreviation in any case ("Sr." Senhor), an address piece by piece with its digits one by one, a
telephone number with hyphens ("99999-1234"), units only where the symbol is no word of the language ("2/3 da farinha"),
a unit per another ("GB/s" gigabytes por segundo).
"""

from __future__ import annotations

import string

from voice_tts.tn import cldr, lexer
from voice_tts.tn.chars import is_letter
from voice_tts.tn.context import Context
from voice_tts.tn.cursor import Cursor
from voice_tts.tn.locales.european import Language, Unit
from voice_tts.tn.locales.european_dates import chunk_after
from voice_tts.tn.locales.noun_gender import is_known_noun
from voice_tts.tn.locales.numeric_spans import DATE, IDENTITY, PHONE, date_parts, read_pieces


class Iberian(Language):
    """Spanish or Portuguese: the hooks of `Language` both fill the same way."""

    MINOR_UNIT = Unit("centavo", "centavos")

    def unit(self, written: str) -> Unit | None:
        """The language's units in any case, CLDR's symbols that are no word of the language ('2/3 da farinha') and
        SHORT_UNITS (of a letter or two, units here: '5 g'); one per another ('GB/s' gigabytes por segundo)."""
        folded = written.casefold()
        if (own := self.UNITS.get(written, self.UNITS.get(folded))) is not None:  # 'Mb' megabit, 'MB' megabyte
            return own
        known = folded in self.SHORT_UNITS or folded in cldr.folded_unit_symbols(self.code)  # CLDR's: cached
        return super().unit(written) if written.startswith("°") or known or "/" in written else None

    def is_year(self, cur: Cursor, end: int, n: int, ctx: Context) -> bool:
        """After a year word, four digits are a year unless a noun the gender data knows or a unit follows them: 'en
        1990 costaba' mil novecientos (not the verb's -a), 'desde 1200 casas' mil doscientas, 'hasta 6.000 €'."""
        if ctx.prev_word not in self.YEAR_CUES:  # the word after is looked at (and waited for) only after a year word
            return super().is_year(cur, end, n, ctx)
        after, symbol = chunk_after(cur, end, is_letter), cur.at(lexer.spaces(cur, end))
        noun = after is not None and (
            is_known_noun(self.code, self.singular(after[0])) or self.unit(after[0]) is not None
        )
        # '6.000 €', '1200 casas'
        return not (noun or symbol.strip() and not symbol.isalnum() and symbol not in ".,;:!?)»\"'")

    def abbreviation(self, written: str) -> str | None:
        """Written in any case; read with a capital where written with one ('Sr.' → 'Senhor')."""
        reading = self.ABBREVIATIONS.get(written.lower())
        return string.capwords(reading) if reading and written[0].isupper() else reading

    def address(self, text: str) -> str:
        """Piece by piece: words as written, digits one by one."""
        return read_pieces(text, self.ADDRESS_SYMBOLS, self.digits)

    def shaped_token(self, token: str, ctx: Context) -> str | None:
        """Dates written year or month first ('2024/03/15', '03/15/2024'); telephone numbers written with hyphens
        ('99999-1234') and identity numbers ('123.456.789-09'), digit by digit."""
        m = DATE.fullmatch(token)
        if m and (parts := date_parts(m)):
            return self.date(*parts, Context())
        if PHONE.fullmatch(token) or IDENTITY.fullmatch(token):
            return self.digits(token)
        return super().shaped_token(token, ctx)
