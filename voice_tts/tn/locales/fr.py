"""French: "Votre commande coûte 25,50 € et arrive le 1er mai à 14h30." → "… vingt-cinq euros et cinquante centimes
… le premier mai à quatorze heures trente."

Cardinals and ordinals come from CLDR (`voice_tts.tn.cldr`: "soixante-et-onze", "quatre-vingtième"; a feminine count
before a feminine noun: "vingt-et-une personnes"). Thousands are grouped with spaces ("6 492 000"); "1er", "2e", "3ème"
and "6°" are ordinals; decimals are read as a number ("virgule trois cent trois"), longer ones two by two.
"""

from __future__ import annotations

import re
from dataclasses import replace

from voice_tts.tn.chars import ascii_digits, is_digit
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor
from voice_tts.tn.locales.european import Language

_DECADE = re.compile(r"(?:19|20)?[1-9]0s")


class French(Language):
    code = "fr"
    ROMAN_ORDINAL = re.compile(r"([IVXLCDM]{2,}|[IVX])(e|ème|er|re)")  # not "Le", "Ce", "De"

    def phone_digits(self, text: str) -> str:
        """'01 23 45 67 89', '7512 0394' (fours in pairs) and triples after a zero ('0800' zéro huit cents), as French says."""
        words = []
        # '7512' in pairs
        for group in (
            pair
            for piece in re.split(r"[ ./-]", ascii_digits(text).strip("() ").replace(")", ""))
            for pair in ([piece[:2], piece[2:]] if len(piece) == 4 and piece != text and piece[:2] != "08" else [piece])
        ):
            rest = group[1:] if group[:1] == "0" else group
            if len(group) == 2 or len(rest) == 3 and rest[0] != "0" and group != text:  # a lone 'n° 0482' is a code
                words.append(("zéro " if rest != group else "") + self.cardinal(int(rest)))
            elif group:
                words.append(self.digits(group))
        return " ".join(words)

    def fraction_digits(self, digits: str) -> str:
        """After their zeros a long run of decimals two digits at a time ('5332' cinquante-trois trente-deux)."""
        return self._zeros_then_number(digits, lambda run: " ".join(
            self.cardinal(int(run[i:i + 2])) for i in range(0, len(run), 2)))

    def shaped_token(self, token: str, ctx: Context) -> str | None:
        """'les 80s' les années quatre-vingt: a decade."""
        decade = _DECADE.fullmatch(token) and ctx.prev_word.lower() in ("les", "des", "aux")
        return (
            "années " + self.cardinal(int(token[:-1])).removesuffix("s") if decade else super().shaped_token(token, ctx)
        )

    def _word(self, cur: Cursor, pos: int, ctx: Context) -> Span | None:
        """'de 1 °C' d'un degré, 'que 1 fois' qu'une fois; not before 'huit', 'onze', a decimal (said both ways);
        after a noun a plural article leads 'nos' before a number the plural of 'n°' ('les lots nos 3 et 4' numéros;
        not 'nos 3 enfants', 'pour nos 3 à 5 ans')."""
        noun = "".join(ctx.words_before[-1:]).lower() in self.PLURAL_ARTICLES
        if noun and cur.startswith(pos, "nos ") and is_digit(cur.at(pos + 4)):
            return self.locale_span(pos + 3, "numéros")
        word = next((w for w in ("de", "que") if cur.startswith(pos, w + " ", fold=True)), "")
        if word and is_digit(cur.at(end := pos + len(word) + 1)) and (span := self._numeric(cur, end, end, replace(
                ctx, prev_word=word, words_before=(*ctx.words_before, ctx.prev_word)))).kind == "locale" and re.match(
                r"une?\b", span.info) and not re.match(r"\d+[,.]\d", cur.text[end:span.end]):
            return replace(span, info=f"{cur.text[pos:end - 2]}'{span.info}")
        return super()._word(cur, pos, ctx)

    def of(self, noun: str) -> str:
        return ("d'" if noun[0] in "aeiouéèêh" else "de ") + noun


RULES = French()
