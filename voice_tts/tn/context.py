"""Left context: everything the rules may know about text that is already committed (spec §3.4)."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from voice_tts.tn.lexicon import Lexicon


@dataclass(slots=True)
class Span:
    """A decided span of the tail, from the position where the search started to `end`."""

    end: int
    kind: str
    lang: str = ""
    info: str = ""
    forced: bool = False
    # A language module's word on the next number of the same phrase: the case the first day of
    # Russian 'на 2 или 3 марта' took, which the second day takes too; an open range ('3 – 5 кг').
    agreement: str = ""
    # The cue word a time was read after ('alle 6.40'): times listed after it read as after it too (', 7.10 e 7.40').
    clock_cue: str = ""


@dataclass(slots=True)
class Context:
    default_lang: str = "en"
    # The turn's language module (`voice_tts.tn.locales`) when it is neither English nor Chinese.
    locale: ModuleType | None = None
    # The turn's language is "auto": the first kana or Hangul it commits sets `locale` (ja, ko).
    auto: bool = False
    spell_acronyms: bool = True
    lexicon: Lexicon | None = None
    # raw side
    prev_char: str = ""
    prev_word: str = ""
    # The words before `prev_word` in its phrase, nearest last ('von', 'König' before 'Ludwig II.').
    words_before: tuple[str, ...] = ()
    line_start: bool = True
    block_line: bool = False
    in_table: bool = False
    mode: str = ""  # "", "fence", "skip_url", "skip_link", "digits"
    # sentence state for routing (§3.6)
    sent_han: bool = False
    sent_latin: bool = False
    # The sentence wrote 至 between numbers or days ('周一至周六'): its ranges read 至 ('9:00-18:00' 九点至十八点), not 到;
    # `zhi_pending` after a 至 until the next character shows whether a range's end follows it.
    zhi_ranges: bool = False
    zhi_pending: bool = False
    quote_open: bool = False  # a '"' opened a quotation on this line: a '"' after a number closes it, no inch mark
    # spoken side
    last_spoken: str = ""
    last_visible: str = ""
    pending_sep: bool = False
    after_lexicon: bool = False  # the last span was a dictionary rule's reading
    agreement: str = ""  # the `agreement` of the last span a language module decided
    clock_cue: str = ""  # the `clock_cue` of the last span a language module decided
    # A word committed before the joiner that ends the tail ('Okay.'): the driver reads on from
    # it once the next character shows whether the joiner joins (`streaming.OpenWord`).
    open_word: object | None = None

    def names_code(
        self, number: str, codes: tuple[str, ...], not_after: tuple[str, ...], articles: frozenset[str] = frozenset()
    ) -> bool:
        """Whether a code word ('code', 'PIN', 'Bestätigungscode') is among the words before `number` and no word right
        before it makes that something else ('Código Penal de 1995', 'Ende 2025'), nor, before a year's number, a
        preposition or article ('válido hasta el 2025')."""
        words, before = [w.lower() for w in (*self.words_before, self.prev_word) if w], self.prev_word.lower()
        return (
            before not in not_after
            and not (len(number) == 4 and "1900" <= number < "2100" and before in articles)
            and any(w == c or (len(w) > len(c) + 3 and w.endswith(c)) for w in words for c in codes)
        )

    def char_before(self, text: str, pos: int) -> str:
        """The raw character before `pos` of the tail `text`: before the tail, the last committed."""
        return text[pos - 1] if pos > 0 else self.prev_char

    def last_two_words(self) -> set[str]:
        """`prev_word` and the word before it, in lower case, where a cue may stand ('per kg', 'jedes weitere kg')."""
        return {w.lower() for w in (self.prev_word, *self.words_before[-1:])}

    def sentence_lang(self) -> str:
        # a Japanese sentence's kanji or a German sentence's words stay in the turn's language
        if self.locale is not None:
            return self.default_lang
        return "zh" if self.sent_han else ("en" if self.sent_latin else self.default_lang)

    def new_turn(self) -> Context:
        """The context for text after a flush or a barge-in: a fresh line, keeping the spoken edge."""
        kept = {k: getattr(self, k) for k in ("auto", "spell_acronyms", "lexicon", "last_spoken", "last_visible")}
        return Context(default_lang="en" if self.auto else self.default_lang, locale=None if self.auto else self.locale,
                       pending_sep=bool(self.last_spoken), **kept)
