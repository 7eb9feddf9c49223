"""Korean: Sino-Korean numbers grouped by 만/억/조, native numbers before counters.

A number is read in Sino-Korean (34892 → 삼만사천팔백구십이, 1004 → 천사, 10000 → 만) unless the Hangul right after it asks for a
native number: an hour (3시 → 세시, up to 12), a counter (3개 → 세개, 20살 → 스무살), an ordinal (12번째 → 열두번째, native up to 39
as the reference data reads them); months read 유월 and 시월. A number after a word that names a code or digits is read
digit by digit (비밀번호 1234 → 일이삼사, 네자리 3456 → 삼사오육). Written forms are read out: decimals (영점오), fractions (이분의 일, the
particle after one agreeing with its reading), clock times (오후 03:30 → 오후 세시 삼십분), dates with slashes, weekdays in
brackets, tilde ranges (부터), percent, units, money (₩, codes), telephone and card numbers, email addresses and
domains (their endings 닷컴, spelled 'co.kr', are electronic's). The words are in ko_words.json.
"""

from __future__ import annotations

from voice_tts.tn import cldr, electronic, english, lexer
from voice_tts.tn.chars import is_digit, is_hangul, is_latin_letter
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor
from voice_tts.tn.locales import locale_span, myriad

_LONGEST_ENDING = 4  # the letters of a file type after a name: 'pptx'


class Korean(myriad.Language):
    code = "ko"

    def __init__(self) -> None:
        super().__init__()
        # Counters that take native numbers; a two-syllable one is known by its first syllable.
        self.counters = frozenset(self.words["counters"])
        self.counter_starts = frozenset(c[0] for c in self.counters)
        # the longest first, so that '봉지' is found before '봉'
        self.counters_longest_first = sorted(self.counters, key=len, reverse=True)
        # after a tilde range a count, not 대 nor 번 ('20~30대' 이삼십 대)
        before_particles = self.words["counters_before_particles"]
        self.range_counters = [c for c in self.counters_longest_first if c not in before_particles]
        # Particles written after a number agree with how it is read: 오가, 삼이.
        self.after_vowel = self.words["particles_after_vowel"]
        self.after_consonant = {v: k for k, v in self.after_vowel.items()}
        self.endings = electronic.FILE_TYPES | electronic.ENDING_WORDS["ko"].keys() | electronic.TLDS

    def other_span(self, cur: Cursor, pos: int, ctx: Context) -> Span | None:
        c = cur.at(pos)
        if c == "[" and cur.at(k := lexer.run(cur, pos + 1, is_hangul, 12)) == "]" and cur.at(k + 1) != "(":
            return locale_span(k + 1, cur.text[pos:k + 1], "ko")  # a label's brackets, as 【】: '[알림]', no link's
        return (
            self._file_type(cur, pos) if c == "." and is_hangul(ctx.char_before(cur.text, pos))
            else self._address(cur, pos) if c.isascii() and c.isalpha()
            else None
        )

    def bare_integer(self, cur: Cursor, pos: int, end: int, digits: str, ctx: Context) -> Span:
        """An integer read by what follows it: an hour, a month, a counter, an ordinal; else digit
        by digit after a word that names a code (비밀번호 1234 일이삼사), else as a number; after 제
        always a Sino-Korean number ('제2장' 제이장, never the counter's 두장)."""
        # '국번 없이 1355' 일삼오오: a number to call, its zeros 공
        cue, c = " ".join((*ctx.words_before[-1:], ctx.prev_word)), cur.at(end)
        before = ctx.char_before(cur.text, pos)
        flight = digits[0] == "0" and english.names_flight(ctx.prev_word, ctx.words_before, digits)  # 'KE 017편' 공일칠
        # a number the word before names, no count ('접수번호 2741번' 이천칠백사십일 번, 'F열 9번,'); of five digits a code's
        numbered = c == "번" and (digits[0] != "0" and self.cued(cue) or self.cued(ctx.prev_word, "numbering_words"))
        cued = self.cued(cue, "phone_cues") or self.cued(cue) and (not numbered or len(digits) > 4) or flight
        code = cur.text[pos:end].isdecimal() and cued
        plain = self._telephone_digits(digits) if code else self.counted(digits, c)  # a code's zeros 공, as a phone's
        plain = "" if digits == "1" and c in self.words["one_unsaid_before"] and not code else plain  # '1만 원' 만 원
        if digits + c in self.words["gold_marks"] and not is_latin_letter(cur.at(end + 1)):  # '18K 금반지' 십팔 케이
            return locale_span(end + 1, f"{self.cardinal(int(digits))} {self.letters['k']}", "ko")
        if 1 < len(digits) < 4 and c in self.words["plate_letters"] and (k := lexer.digits_end(
                cur, j := end + 1 + (cur.at(end + 1) == " "))) == j + 4:  # a plate: '12가 3456' 십이 가 삼사오육
            return locale_span(k, f"{self.cardinal(int(digits))} {c} {self.digits(cur.text[j:k])}", "ko")
        if c in "·ㆍ・" and len(digits) < 3 and 1 < (k := lexer.digits_end(cur, end + 1)) - end < 4:  # an event's date
            day = cur.text[end + 1:k]  # '3·1절' 삼일절, '6·25 전쟁' 육이오: the day digit by digit, a round ten a number
            day = self.cardinal(int(day)) if day[-1] == "0" else self.digits(day)
            return locale_span(k, self.cardinal(int(digits)) + day, "ko")
        if digits.startswith("0") and len(digits) > 2 or len(digits) > 6 or before == "제":
            return locale_span(end, plain, "ko")
        n = int(digits)
        if c in myriad.TILDES and is_digit(cur.at(end + 1)) and before != "월" and (
                cur.at(k := lexer.digits_end(cur, end + 1)) != "년"):  # '3~5일' 삼에서 오일; '11월1~5일', '80~90년대' 부터
            counter = lexer.word_at(cur, k, self.range_counters)
            clock = cur.startswith(k, "시") and cur.at(k + 1) != "간"  # '2~3일' 이삼 일, '2~3개' 두세 개; no clock nor month
            if (
                cur.text[end + 1:k] == str(n + 1)
                and 0 < n < 9
                and is_hangul(cur.at(k))
                and not (clock or code or cur.at(k) == "월")
            ):
                approximate = self.words["approximate"][n - 1] if counter else self.cardinal(n) + self.cardinal(n + 1)
                return locale_span(k, approximate, "ko")
            # 두시에서, 여섯에서
            first = self.hour(n) + "시" if clock else self.native(n, counter, "") if counter and not code else plain
            both = lexer.word_at(cur, k, self.words["counters_at_both_ends"])  # '만 3~12세' 삼세에서
            return locale_span(end + 1, first + both + self.words["tilde"]["counted"], "ko")
        if c == "월":
            return locale_span(end, self.month(n) if 1 <= n <= 12 else plain, "ko")
        if c == "시" and cur.at(end + 1) != "간":
            return locale_span(end, self.hour(n), "ko")
        if c == "번" and cur.at(end + 1) == "째":
            ordinal = "첫" if n == 1 else self.native(n) if n <= self.words["last_native_ordinal"] else plain
            return locale_span(end, ordinal, "ko")
        if c in self.counter_starts and n and not numbered:
            counter = c if c in self.counters else c + cur.at(end + 1)
            # 대 counts before a particle or a mark, never a round ten: '1대와' 한대와; '20대', '3대 도시', '4대강', '1대1'
            particles = self.words["counters_before_particles"].get(counter)
            counts = (particles is None or ctx.prev_word in self.words["counted_after"].get(counter, ()) or n % 10 and (
                (after := cur.at(end + len(counter))) in particles or not (after.isalnum() or after.isspace())))
            if (
                counter in self.counters
                and counts
                and not lexer.word_at(cur, end, self.words["not_counters"])
            ):
                return locale_span(end, self.native(n, counter), "ko")
        return locale_span(end, plain, "ko")

    def expression(self, cur: Cursor, pos: int, end: int, e: myriad.Expression, ctx: Context) -> Span:
        if (
            e.kind == "mixed"
            and e.parts[1:] == ("1", "2")
            and (c := lexer.word_at(cur, end, self.counters_longest_first))
        ):
            return locale_span(end + len(c), self.native(int(e.parts[0])) + c + self.words["half"], "ko")  # '1½컵' 한컵반
        if e.kind == "time" and (ctx.prev_word or cur.at(end)):  # in a sentence every hour native: '17:00에' 열일곱 시에
            return locale_span(end, self.clock(e.parts, say_hour=lambda n: self.hour(n, 24)), "ko")  # alone '18:05' 십팔시
        spoken = self.read(e)
        if e.kind in ("fraction", "mixed") and not e.suffix or e.currency:  # '$5를', '₩500을'
            end, spoken = self._particle(cur, end, spoken)
            if is_hangul(ctx.char_before(cur.text, pos)):  # '1과3/4': 일과 사분의 삼
                spoken = " " + spoken
        return locale_span(end, spoken, "ko")

    def native(self, n: int, counter: str = "", form: str = "-attributive") -> str:
        """A number before a counter, CLDR's: 한, 스무, 스물한 (alone: 스물); from a hundred on Sino-Korean ('120장' 백이십
        장), before some counters from less (`native_below`: a day's hours, '24시간' 이십사 시간, but 세 시간)."""
        below = self.words["native_below"]
        native = n < below.get(counter, below[""])
        return cldr.spell("ko", n, "spellout-cardinal-native" + form) if native else self.cardinal(n)

    def hour(self, n: int, last: int = 12) -> str:
        """Clock hours 1 to `last` native (세시; to 24 in a sentence, '21:47' 스물한시), 0 and on Sino-Korean (영시, 십팔시)."""
        return self.native(n) if 1 <= n <= last else self.cardinal(n)

    def _particle(self, cur: Cursor, end: int, spoken: str) -> tuple[int, str]:
        """'5/6이' → 육분의 오가: a one-syllable particle right after agrees with the reading."""
        if (c := cur.at(end)) not in self.after_vowel and c not in self.after_consonant or is_hangul(cur.at(end + 1)):
            return end, spoken
        return end + 1, spoken + (
            self.after_consonant if myriad.ends_in_consonant(spoken) else self.after_vowel
        ).get(c, c)

    def _file_type(self, cur: Cursor, pos: int) -> Span | None:
        """'사진.png', '문서.PDF': a file type after a Hangul name."""
        j = myriad.letters_end(cur, pos + 1, _LONGEST_ENDING)
        if j is None or cur.at(j).isalnum() or cur.text[pos + 1:j].lower() not in self.endings:
            return None
        return locale_span(j, f" {self.ADDRESS_SYMBOLS['.']} {electronic.ending(cur.text[pos + 1:j], 'ko')}", "ko")

    def _address(self, cur: Cursor, pos: int) -> Span | None:
        """A file's name ('report.pdf'), read as an address is (`electronic.speak`: URLs, email addresses and domains
        are found where any language's are), or a unit a price is per, by its name ('kWh당' 킬로와트시당)."""
        end = lexer.chunk(cur, pos)
        word = cur.text[pos:end]
        if "." in word and word.rsplit(".", 1)[1].lower() in electronic.FILE_TYPES:
            return locale_span(end, electronic.speak(word, "ko"), "ko")
        if word in self.units and cur.at(end) == "당":
            return locale_span(end, self.units[word], "ko")
        return None


RULES = Korean()
