"""Email addresses, URLs and telephone numbers in German, French and Italian text, decided once
for the three: 'info@firma.de' and 'https://www.beispiel.it' piece by piece, '+49 30 1234567',
'(0411) 0234-1234', '350 992 4687'.

`AddressesAndPhones` is a part of `european.Language`: it reads with the words and settings the
language gives (`cardinal`, `phone_digits`, `PLUS`, `ADDRESS_READINGS`, `ADDRESS_SYMBOLS`,
`SPACE_GROUPS`).
"""

from __future__ import annotations

from contextlib import suppress

from voice_tts.tn import cldr, lexer
from voice_tts.tn.chars import ascii_digits, is_alnum, is_digit, is_letter
from voice_tts.tn.context import Span
from voice_tts.tn.cursor import Cursor, TooLong
from voice_tts.tn.locales.numeric_spans import read_pieces

# Labels of addresses said as words even when short; everything else of three letters or less is spelled.
_ADDRESS_WORDS = frozenset(("com", "org", "net", "edu", "gov", "info", "shop", "web", "mail", "blog", "app"))


class AddressesAndPhones:
    """The address and telephone spans of `european.Language`."""

    # The countries whose telephone numbers written in groups ("912 345 678") are read as such.
    PHONE_REGIONS: tuple[str, ...] = ()

    def address(self, text: str) -> str:
        """An email address, URL or handle, piece by piece: digits one by one, short names spelled."""
        scheme = next((s for s in ("https://", "http://") if text.lower().startswith(s)), "")
        spelled = " ".join(scheme[:-3]) + " " if scheme else ""  # 'h t t p s' before '://'
        text = text[len(scheme) - 3:] if scheme else text
        return spelled + read_pieces(
            text, self.ADDRESS_SYMBOLS, lambda d: self.cardinal(int(ascii_digits(d))), self._address_word
        )

    def _address_word(self, word: str) -> str:
        return self.ADDRESS_READINGS.get(word.lower()) or (
            " ".join(word) if len(word) <= 3 and word.lower() not in _ADDRESS_WORDS else word
        )

    # --- telephone numbers --------------------------------------------------------------------

    def phone_end(self, cur: Cursor, body: int) -> int | None:
        """The end of a telephone number in digit groups joined by single spaces or hyphens ('912 345 678',
        '333 1234567') that libphonenumber finds valid in one of PHONE_REGIONS (no amount grouped by thousands)."""
        groups, j = [], body
        with suppress(TooLong):
            while len(groups) < 5 and self.PHONE_REGIONS:  # none: no look past the number's first digit
                m = lexer.digits_end(cur, j)
                if not 2 <= m - j <= 8:
                    break
                groups.append(cur.text[j:m])
                j = m
                if cur.at(m) not in " -" or not is_digit(cur.at(m + 1)):
                    break
                j = m + 1
            if not (is_alnum(cur.at(j)) or cur.at(j) in ",." and is_digit(cur.at(j + 1))):
                end = body + len(" ".join(groups))
                return end if len(groups) >= 2 and 8 <= len("".join(groups)) <= 13 and any(
                    cldr.phone_groups(cur.text[body:end], region) for region in self.PHONE_REGIONS) else None
        return None

    def _country_code_phone(self, cur: Cursor, pos: int) -> Span | None:
        """'+49 30 1234567': the country code as a number, the rest digit by digit."""
        spaced = cur.at(j := lexer.digits_end(cur, pos + 1, 3)) in (" ", "-")  # no fourth digit
        if spaced and cur.at(j + 1) == "(" and (area := self._bracketed_phone(cur, j + 1)):  # '+55 (11) 3333-4444'
            end, rest = area.end, area.info
        elif spaced and is_digit(cur.at(j + 1)):
            end = lexer.digit_groups_end(cur, j)
            rest = self.phone_digits(cur.text[j:end])
        else:
            return None
        code = ascii_digits(cur.text[pos + 1:j])
        said = self.cardinal(int(code)) if len(code) <= self.COUNTRY_CODE_AS_NUMBER else self.digits(code)
        return self._phone_span(cur, end, f"{self.PLUS} {said} {rest}")

    # A calling code of this many digits at most is said as a number ('+49' neunundvierzig), longer digit by digit.
    COUNTRY_CODE_AS_NUMBER = 3
    AREA_CODE_AS_NUMBER = 0  # an area code in brackets of this many digits, no leading zero, as a number ('(11)' onze)

    def _bracketed_phone(self, cur: Cursor, pos: int) -> Span | None:
        """'(0411) 0234-1234'."""
        j = lexer.digits_end(cur, pos + 1)
        if cur.at(j) != ")" or j - pos > 6 or cur.at(j + 1) != " " or not is_digit(cur.at(j + 2)):
            return None
        end, area = lexer.digit_groups_end(cur, j + 1), cur.text[pos + 1:j]
        number = len(area) == self.AREA_CODE_AS_NUMBER and area[0] != "0"  # Brazil's '(11)' onze; else digit by digit
        said = self.cardinal(int(area)) if number else self.phone_digits(area)
        return self._phone_span(cur, end, f"{said} {self.phone_digits(cur.text[j:end])}")

    # Words before a telephone number's extension ('ramal 12'), and the one they are read as.
    EXTENSIONS: frozenset[str] = frozenset()
    EXTENSION = ""

    def _phone_span(self, cur: Cursor, end: int, reading: str) -> Span:
        """A telephone number ending at `end`, with the extension written after it ('ext. 12')."""
        word = lexer.chunk_after(cur, end, is_letter)
        with suppress(TooLong):
            if word is not None and word[0].lower() in self.EXTENSIONS:
                k = lexer.spaces(cur, word[1] + (cur.at(word[1]) == "."))
                if k > word[1] and is_digit(cur.at(k)) and not is_alnum(cur.at(e := lexer.digits_end(cur, k))):
                    return self.locale_span(e, f"{reading} {self.EXTENSION} {self.digits(cur.text[k:e])}")
        return self.locale_span(end, reading)

    def _spaced_phone_end(self, cur: Cursor, body: int, end: int) -> int | None:
        """The end of a telephone number in groups with spaces ('350 992 4687'): three groups or more, 9 to 13 digits,
        no number grouped by thousands (a group not three digits long, or a language not grouping with spaces)."""
        if cur.at(end) != " " or not is_digit(cur.at(end + 1)):
            return None
        phone_end = lexer.digit_groups_end(cur, end)
        groups = cur.text[body:phone_end].split()
        grouped = len(groups) >= 3 and 9 <= sum(map(len, groups)) <= 13 and all(g.isdecimal() for g in groups)
        return None if not grouped or self.SPACE_GROUPS and all(len(g) == 3 for g in groups[1:]) else phone_end
