"""Portuguese (Brazilian scale and words): "Seu pedido custa R$ 25,50 e chega às 14h30." → "… vinte e cinco reais e
cinquenta centavos … às catorze e trinta."

Number words below a thousand come from CLDR; the groups are joined here, as spoken Portuguese joins them: "e" only
before the last group when that group is below a hundred or a round hundred (CLDR puts one after every group).
"""

from __future__ import annotations

import re
from functools import lru_cache

from voice_tts.tn import cldr
from voice_tts.tn.chars import is_digit, is_letter
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor
from voice_tts.tn.locales.european_dates import chunk_after
from voice_tts.tn.locales.iberian import Iberian
from voice_tts.tn.locales.numeric_spans import GROUPED

# A scale word and the "e" CLDR puts after it ('mil e', 'milhões e').
_SCALE = re.compile(r"\b(mil|\w+lhão|\w+lhões) (?:e )?")
_DOTTED = re.compile(r"\d+\.\d+")
_DURATION = re.compile(r"(?:(\d{1,2})h)?(?:(\d{1,2})min)?(?:(\d{1,2})s)?(?:/(km|mi))?")  # '2h11min08s', '3min02s/km'
# '3ªs' terças, '2ª-feira' segunda-feira: the weekdays by number
_WEEKDAY_ORDINAL = re.compile(r"([2-6])ª(s|-feira|s-feiras)")


@lru_cache(maxsize=4096)
def _cardinal(n: int, feminine: bool = False) -> str:
    """CLDR's words, with "e" after a scale word only before the last group below a hundred or a round hundred ('dois
    mil e cem', 'mil novecentos e dez', 'três milhões oitocentos e cinquenta mil'; CLDR puts one after every group)."""
    if n >= 10**21:
        return RULES.digits(str(n))
    words = cldr.cardinal("pt", n % 10**18, "feminine" if feminine else "masculine")
    if n >= 10**18:  # CLDR's Portuguese stops below the quintilhão
        count = n // 10**18
        scale = f"{cldr.cardinal('pt', count, 'masculine')} {'quintilhão' if count == 1 else 'quintilhões'}"
        words = f"{scale} e {words}" if n % 10**18 else scale
    last = int(re.sub(r"(?:000)+$", "", str(n)) or 0)  # the last group that is not zero ('2100000' 2100)
    joiner = "e " if last % 1000 < 100 or last % 100 == 0 else ""
    *groups, rest = _SCALE.split(words)  # the words before each scale word and the scale word, then the last group
    return "".join(part + " " * (i % 2) for i, part in enumerate(groups)) + (joiner if groups else "") + rest


class Portuguese(Iberian):
    code = "pt"
    cardinal = counted = staticmethod(_cardinal)  # a count before a noun in its gender ('duas horas')

    def ordinal(self, n: int, suffix: str, ctx: Context) -> str:
        return _cardinal(n) if n <= 0 or n >= 10**6 else super().ordinal(n, suffix, ctx)

    def counted_decimal(self, whole: str, fractional: str, feminine: bool, ctx: Context) -> str:
        """Before a unit, a noun or a percent sign the decimals read as a number ('1,85 m' um vírgula oitenta e cinco
        metros); alone digit by digit ('3,14' três vírgula um quatro)."""
        return f"{self.cardinal(int(whole))} {self.DECIMAL_WORD} {self._zeros_then_number(fractional, self.digits)}"

    def percent(self, whole: str, fractional: str | None, ctx: Context) -> str:
        return (
            f"{self.counted_decimal(whole, fractional, False, ctx)} {self.PERCENT}"
            if fractional
            else super().percent(whole, fractional, ctx)
        )

    def phone_digits(self, text: str) -> str:
        """Digit by digit, a service number's '0800' as a number (zero oitocentos)."""
        return re.sub(r"^zero oito zero zero\b", "zero oitocentos", self.digits(text))

    def fraction(self, numerator: int, denominator: int) -> str:
        if 2 <= denominator <= 10 or denominator in (100, 1000):  # 'meio', 'terço', then the ordinal
            return super().fraction(numerator, denominator)
        return f"{_cardinal(numerator)} {_cardinal(denominator)} avos"  # 'um onze avos': avos stays plural

    def shaped_token(self, token: str, ctx: Context) -> str | None:
        # '14.30' catorze trinta; 'Gol 1.0' um ponto zero: no clock
        if _DOTTED.fullmatch(token) and not GROUPED.fullmatch(token):
            said = (_cardinal(int(r)) if len(r) <= 6 and r[0] != "0" else self.digits(r) for r in token.split("."))
            return (" " if len(token.partition(".")[2]) > 1 else " ponto ").join(said)  # up to six digits a number
        # duas horas, onze minutos e oito segundos
        if (m := _DURATION.fullmatch(token)) and sum(map(bool, m.groups()[:3])) > 1:
            parts = tuple((int(n), unit) for n, unit in zip(m.groups(), ("h", "min", "s")) if n)
            return self.duration(parts, ctx) + (f" {self.per(self.unit(m[4]))}" if m[4] else "")
        if m := _WEEKDAY_ORDINAL.fullmatch(token):  # WEEKDAYS' first five, Monday to Friday
            return list(self.WEEKDAYS.values())[int(m[1]) - 2] + m[2]
        return super().shaped_token(token, ctx)

    def day_part(self, cur: Cursor, end: int, hours: int, minutes: int, face: bool) -> tuple[str, int, int] | None:
        """'da tarde', 'de manhã' after a time; after '16:00' the hour on the clock face (quatro horas da tarde)."""
        connector = chunk_after(cur, end, is_letter)
        part = chunk_after(cur, connector[1], is_letter) if connector and connector[0] in ("da", "de") else None
        if part is None or part[0] not in self.DAY_PARTS:
            return None
        return self.DAY_PARTS[part[0]], part[1], hours - 12 if face and hours > 12 and not minutes else hours

    def _clock_window(
        self, cur: Cursor, end: int, hours: int, minutes: int, seconds: int | None, ctx: Context, face: bool = False
    ) -> Span:
        """A whole hour opening a range says no 'horas' ('das 8h às 20h' das oito às vinte horas, 'das 20h às 20h30');
        after a morning's half hour a whole morning hour none either ('das 6h30 às 10h' das seis e meia às dez)."""
        span = super()._clock_window(cur, end, hours, minutes, seconds, ctx, face)
        link = ctx.prev_word.lower() in self.RANGE_STARTS and chunk_after(cur, span.end, is_letter)
        last = link and link[0] in self.RANGE_LINKS and chunk_after(cur, link[1], is_digit)
        to = last and re.match(r"(\d{1,2})h(\d*)", last[0])
        if to and not minutes:
            span.info = re.sub(" horas?$", "", span.info)
        elif to and span.info.endswith(" e meia") and not to[2] and int(to[1]) <= 12:
            span.end, span.info = last[1], f"{span.info} {link[0]} {_cardinal(int(to[1]), True)}"
        return span

    def clock(self, hours: int, minutes: int, seconds: int | None, marker: str, ctx: Context) -> str:
        before = ctx.prev_word.lower()
        # 'até 0h' (not 'às 0h')
        midnight = hours == 0 and before in self.MIDNIGHT_CUES
        hour = "meia-noite" if midnight else _cardinal(hours, True)
        words = hour if midnight else f"{hour} {'hora' if hours == 1 else 'horas'}"
        # DURATION_CUES: 'duração de'
        cues = {before, " ".join((*ctx.words_before[-1:], ctx.prev_word)).lower()}
        # 'em 1h30' uma hora e meia, 'dura 2h15'
        if seconds is not None or minutes and not cues.isdisjoint(self.DURATION_CUES):
            named = (
                "meia" if minutes == 30 and seconds is None else f"{_cardinal(minutes)} minuto{'s' * (minutes != 1)}"
            )
            return f"{words} e {named}" + (
                f" e {_cardinal(seconds)} segundo{'s' * (seconds != 1)}" if seconds is not None else ""
            )
        face = midnight or before in self.CLOCK_CUES  # 'às dezenove e quarenta', no 'horas'
        # after the cue a half hour up to noon 'e meia' ('às 8h30' oito e meia; 'às 20h30' vinte e trinta, '9:30' alone
        # nove horas e trinta)
        said = "meia" if face and minutes == 30 and hours <= 12 else _cardinal(minutes)
        return f"{hour if face else words} e {said}" if minutes else words


RULES = Portuguese()
