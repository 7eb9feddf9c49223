"""The streaming driver (spec §3.2): raw deltas in, append-only commits out."""

from __future__ import annotations

import dataclasses
import re
import time
import unicodedata
from collections.abc import Callable

from voice_tts.tn import electronic, english, locales
from voice_tts.tn.chars import CLOSING, HARD_STOPS, JOIN_ANY, is_alnum, is_cjk_punct, is_han, is_hangul, is_kana
from voice_tts.tn.chars import is_latin_letter, is_letter, is_space, is_unspaced
from voice_tts.tn.commit import Commit
from voice_tts.tn.context import Context, Span
from voice_tts.tn.cursor import Cursor, NeedMore, TooLong
from voice_tts.tn.holdback import find_span
from voice_tts.tn.lexicon import Lexicon, LexiconRules
from voice_tts.tn.stall import StallPolicy, cut_position, digit_run_reaches, ends_in_plain_word
from voice_tts.tn.verbalize import verbalize

_SURROGATES = re.compile("[\ud800-\udfff]")
# A tail that is one word and a joiner after it, and what the joiner may have joined so far
# ('Okay.', 'Well-kno', "I'm"): the token is open until the character after it comes.
_WORD_AND_JOINER = re.compile(r"([^\W\d_]+)[.'’-][^\W_]*")
# What may come after such a joiner when it does not join: the word must read the same before
# each of them (an abbreviation reads the token after it: 'No. 5').
_NOT_JOINING = (" a", " A", " 5", "\n", ")", ",", "")
# What may follow a punctuation mark: a character of each kind, and two where a rule reads two
# (a letter after '.' may start a file extension or a domain).
_NEXT_CHARACTERS = ("", " ", "a", "5", "\n", ")", "가", "中", "ab", "a ", "a.", "a5", "5a", "5 ")
_WORDLIKE = frozenset(("word", "abbr", "num", "date", "url", "email", "lexicon", "reading"))


class StreamingNormalizer:
    """Streaming text normalization with a mutable tail (spec §3).

    `push` appends raw LLM text and returns the spans that no later text can change. `flush`
    commits everything at the end of a turn, `reset` drops the held tail at a barge-in, and
    `poll` applies the time-outs of §3.9 with the injected clock. Concatenating every commit's
    `spoken` gives exactly `normalize(raw)` unless a commit is flagged `forced`.

    `lexicon`: a pronunciation dictionary (a `Lexicon` or its rules, see `voice_tts.tn.lexicon`),
    applied before every other rule; `spell_acronyms`: capitals that are not words are spelled.
    """

    def __init__(self, language: str = "auto", clock: Callable[[], float] = time.monotonic, *,
                 policy: StallPolicy | None = None, spell_acronyms: bool = True, lexicon: LexiconRules = None) -> None:
        if language not in ("auto", "en", "zh") and language not in locales.available():
            raise ValueError(f"language must be one of {('auto', 'en', 'zh', *locales.available())}, got {language!r}")
        self.language = language
        self._clock = clock
        self._policy = policy or StallPolicy()
        locale = locales.rules(language) if language in locales.MODEL_LANGUAGES else None
        self._ctx = Context(
            default_lang=language if language in ("zh", *locales.MODEL_LANGUAGES) else "en",
            locale=locale,
            auto=language == "auto",
            spell_acronyms=spell_acronyms,
            lexicon=Lexicon.of(lexicon),
        )
        self._tail = ""
        self._raw_end = 0
        self._spoken_end = 0
        self._last_delta = clock()

    @property
    def raw_committed_end(self) -> int:
        """Raw code points committed so far; at a barge-in the LLM history is cut here."""
        return self._raw_end

    @property
    def pending(self) -> str:
        """The raw text held back (the mutable tail)."""
        return self._tail

    @property
    def word_end(self) -> bool:
        """The spoken text committed so far ends a word: the next spoken character, if any, is a
        space or closing punctuation, never a letter, mark or digit. True once the raw text shows
        the last word ended (a space after it), before the separator is committed with the next
        word; so a tokenizer downstream may close the last word now instead of one word later.

        Certain only where the lazy separator is owed (`_emit` adds " " before any spoken text
        that does not start with closing punctuation or a space) after a spoken letter or digit
        outside Han text (Han joins Han without a separator). Held numbers, abbreviations and
        dictionary rules are not committed yet, so they never count here."""
        ctx = self._ctx
        if ctx.open_word is not None:  # the joiner, or what its token says after the word, is next
            return True
        if not (last := ctx.last_spoken) or last.isspace():
            return False
        if ctx.pending_sep and not is_han(last):
            return True
        return self._punctuation_is_next() or (not ctx.mode and is_space(self._tail[:1]))

    def _punctuation_is_next(self) -> bool:
        """The tail starts with punctuation that waits for the character after it (a Korean
        '요.' may go on as '요.5'), and whatever that character is, the tail's first span is
        spoken starting with neither a letter, a mark nor a digit: the word before it is closed."""
        if len(self._tail) != 1:  # a mark alone in the tail is one that waits for what follows
            return False
        first = self._tail
        if is_space(first) or is_alnum(first) or self._ctx.mode:
            return False
        decided = set()
        for follower in _NEXT_CHARACTERS:
            if (probe := _probe(first + follower, self._ctx)) is None:
                return False
            span, reached = probe
            if follower and reached > len(follower):
                continue  # it read on past the follower ('.ab…'): a follower that ends its run decides
            decided.add(follower[:1])
            if span.end != 1 or span.kind != "punct":
                return False
            spoken = verbalize(span, first, self._ctx)[:1]
            if spoken and unicodedata.category(spoken)[0] in "LMN":
                return False
        return decided == {follower[:1] for follower in _NEXT_CHARACTERS}

    @property
    def space_follows(self) -> bool:
        """The spoken text committed so far goes on with a space and then a letter: the raw text
        shows a letter (Hangul too, not Han or kana) after the space that ended the committed text. Stronger than
        `word_end`: it closes committed punctuation too ("Sure," before " I"), which a closing
        bracket could still extend. Whatever span a letter starts is spoken with a letter first,
        and `_emit` owes the lazy separator before it; dictionary rules may say anything, and
        modes and line starts read on, so those promise nothing."""
        ctx = self._ctx
        if not ctx.pending_sep or not ctx.last_spoken or ctx.last_spoken.isspace() or ctx.mode or ctx.line_start:
            return False
        return not ctx.lexicon and (is_letter(self._tail[:1]) or is_hangul(self._tail[:1]))

    def push(self, delta: str) -> list[Commit]:
        if not isinstance(delta, str):
            raise TypeError(f"push() takes str, not {type(delta).__name__}")
        if not delta:
            return []
        self._last_delta = self._clock()
        # Lone surrogates cannot be encoded; U+FFFD keeps every later offset where it was.
        self._tail += delta if delta.isascii() else _SURROGATES.sub("\ufffd", delta)
        return self._advance(final=False)

    def flush(self) -> list[Commit]:
        """End of the turn: commit everything that is held."""
        commits = self._advance(final=True)
        ctx = self._ctx
        if ctx.block_line and ctx.last_visible.isalnum():  # a line's last word ends a sentence
            commits.append(self._emit(Span(0, "eol"), "", "。" if ctx.sent_han else ".", forced=False))
        self._ctx = ctx.new_turn()
        return commits

    def reset(self) -> None:
        """Barge-in: drop the held tail without speaking it; history and offsets stay."""
        self._tail = ""
        self._ctx = self._ctx.new_turn()

    def poll(self, now: float | None = None, *, starving: bool = False) -> list[Commit]:
        """Forced commits after a stall (§3.9); `starving`: downstream has < 200 ms of audio queued."""
        if not self._tail:
            return []
        idle = (self._clock() if now is None else now) - self._last_delta
        level = self._policy.level(idle, starving)
        if level == 2:
            commits = self._advance(final=True, forced=True)
        elif level == 1 and ends_in_plain_word(self._tail):
            commits = self._advance(final=False, forced=True, virtual_space=True)
        else:
            return []
        if commits:
            self._ctx.pending_sep = True
        return commits

    # --- the loop ---------------------------------------------------------------------------

    def _advance(self, final: bool, forced: bool = False, virtual_space: bool = False) -> list[Commit]:
        real = len(self._tail)
        text = self._tail + " " if virtual_space else self._tail
        commits: list[Commit] = []
        pos = 0
        cursor, policy = Cursor(text, final, 0), self._policy
        while pos < real:
            bound = policy.max_tail_zh if self._ctx.sentence_lang() == "zh" else policy.max_tail_en
            limit = cursor.limit = pos + bound
            try:
                if self._ctx.open_word is not None:
                    rest = self._rest_of_open_word(cursor, pos)
                    if rest is not None:
                        commits.append(rest)
                        pos += len(rest.raw)
                        continue
                span = find_span(cursor, pos, self._ctx)
            except NeedMore:
                if (word := self._word_before_joiner(text, pos, real)) is not None:
                    commits.append(word)
                    pos += len(word.raw)
                break
            except TooLong:
                pos = self._force_cut(text, pos, limit, commits)
                continue
            if span.end > real:
                break
            commits.append(self._emit(span, text[pos:span.end], None, forced or span.forced))
            pos = span.end
        self._tail = self._tail[pos:]
        return commits

    def _word_before_joiner(self, text: str, pos: int, real: int) -> Commit | None:
        """The tail is a word and a joiner ('Okay.', "I'm") whose token waits for the next
        character: the word is committed now, when it is a plain word that reads the same whatever follows the
        joiner, so that it reaches the engine with the delta that brought the joiner (the raw
        text's tokenizer closes it there too). The joiner waits in the tail; `_rest_of_open_word`
        reads on once the next character comes."""
        ctx = self._ctx
        match = _WORD_AND_JOINER.fullmatch(text, pos, real)
        if ctx.mode or ctx.lexicon or match is None or not all(map(is_letter, match[1])):
            return None
        word = match[1]
        # 'U.S.', 'KV-3817'
        if (
            (len(word) == 1 and text[pos + 1] in ".-")
            or (ctx.locale and word.isupper() and text[pos + len(word)] == "-")
        ):
            return None
        for follower in _NOT_JOINING:
            # A rule that read past the character after the joiner reads on ('т. д.', 'ee. uu.'):
            # no follower tried here can stand for what it waits for.
            if (probe := _probe(text[pos : pos + len(word) + 1] + follower, ctx)) is None or probe[1] > len(word) + 1:
                return None
            span = probe[0]
            if span.kind != "word" or span.end != len(word) or verbalize(span, word, ctx) != word:
                return None
        if text[pos + len(word)] == "." and not _reads_first(word, word + ".com", ctx):
            return None  # a domain may follow, which this language reads with the word spelled ('ivan.com')
        before = dataclasses.replace(ctx)
        commit = self._emit(Span(pos + len(word), "word", span.lang, span.info), word, None, False)
        self._ctx.open_word = OpenWord(word, word, before)
        return commit

    def _rest_of_open_word(self, cursor: Cursor, pos: int) -> Commit | None:
        """The tail starts with the joiner after an open word. When the next character does not
        join, nothing: the joiner is read as it would have been. When it does, the whole token
        (word, joiner and what follows: 'Okay.com', 'Well-known') is read from the word's start
        with the context before it, as a one-shot run reads it, and the commit carries what it
        says after the word; a reading that does not start with the word goes out as it is, flagged
        forced (a domain after a period, which may read the word otherwise, is ruled out before
        the word is committed)."""
        ctx = self._ctx
        open_word: OpenWord = ctx.open_word
        following = cursor.at(pos + 1)
        joiner = cursor.text[pos]
        if not (is_alnum(following) if joiner in JOIN_ANY else is_letter(following)):
            ctx.open_word = None
            return None
        shift = len(open_word.raw) - pos
        token = open_word.raw + cursor.text[pos:]
        whole = Cursor(token, cursor.final, cursor.limit + shift, end=cursor.end + shift)
        span = find_span(whole, 0, open_word.before)
        if span.end <= len(open_word.raw):  # read as the word alone after all: the joiner is next
            ctx.open_word = None
            return None
        raw = token[: span.end]
        said = verbalize(span, raw, open_word.before)
        rest = raw[len(open_word.raw) :]
        forced = not said.startswith(open_word.spoken)
        spoken = said[len(open_word.spoken) :] if not forced else " " + said
        one_shot = dataclasses.replace(open_word.before)
        _update(one_shot, span, raw, said, None)
        ctx.open_word = None
        rest_span = dataclasses.replace(span, end=pos + len(rest))
        commit = self._emit(rest_span, rest, spoken, forced)
        self._ctx = one_shot
        return commit

    def _force_cut(self, text: str, pos: int, limit: int, commits: list[Commit]) -> int:
        """The span at `pos` would outgrow the tail bound: commit it in pieces, flagged forced. A rule
        may have read past a bound that lies beyond the text come so far: the pieces end inside it."""
        limit = min(limit, len(text))
        ctx = self._ctx
        lang = ctx.sentence_lang()
        if digit_run_reaches(text, pos, limit):
            end = pos + (limit - pos) // 4 * 4
            commits.append(self._emit(Span(end, "digit_groups", lang), text[pos:end], None, True, mode="digits"))
            return end
        url = ctx.mode in ("skip_url", "skip_link") or text[pos:pos + 8].lower().startswith(electronic.SCHEMES)
        if url or text.startswith("](", pos):  # a URL is skipped on (its head said), as a link's target is
            kind, mode = ("skip" if ctx.mode else "url_head", ctx.mode or "skip_url") if url else ("skip", "skip_link")
            commits.append(self._emit(Span(limit, kind, lang), text[pos:limit], None, True, mode=mode))
            return limit
        cut = cut_position(text, pos, limit)
        bounded = Cursor(text, True, cut + 1, end=cut)
        while pos < cut:
            try:
                span = find_span(bounded, pos, ctx)
            except TooLong:
                span = Span(cut, "word")
            end = max(min(span.end, cut), pos + 1)
            commits.append(self._emit(span, text[pos:end], None, True))
            pos = end
        return pos

    # --- one commit -------------------------------------------------------------------------

    def _emit(self, span: Span, raw: str, spoken: str | None, forced: bool, mode: str | None = None) -> Commit:
        ctx = self._ctx
        if spoken is None:
            spoken = verbalize(span, raw, ctx)
        # A symbol said as a word ('#' number, '&' and, '№' номер) glues onto neither word beside it ('B#4', '№5').
        spoken_word = (
            (span.kind == "punct" or raw[:1] in "#&№")
            and (first := spoken.lstrip()[:1]).isalpha()
            and not is_han(first)
        )
        # A dictionary reading that starts or ends inside a raw word is a word of its own.
        inside_word = (span.kind == "lexicon" or ctx.after_lexicon) and is_alnum(ctx.prev_char) and is_alnum(raw[:1])
        if spoken_word or inside_word:
            ctx.pending_sep = True
        if spoken and ctx.pending_sep and ctx.last_spoken and not ctx.last_spoken.isspace():
            # Chinese writes no space between words; a Japanese text's space is written on purpose ('〒150-0002 東京都')
            between_han = ctx.sentence_lang() == "zh" and is_unspaced(spoken[0], False) and is_unspaced(
                ctx.last_spoken, False)
            if (
                (spoken[0] not in CLOSING or spoken[0] in getattr(ctx.locale, "SPACED_MARKS", ""))
                and not spoken[0].isspace()
                and not between_han
                and not (spoken[0] in "»“\"" and not is_space(ctx.prev_char))  # a quote closed on a symbol: 'Плюс+»'
            ):
                spoken = " " + spoken
        commit = Commit(self._raw_end, self._raw_end + len(raw), spoken, self._spoken_end, forced, raw, span.kind)
        self._raw_end = commit.raw_end
        self._spoken_end = commit.spoken_end
        _update(ctx, span, raw, spoken, mode)
        if spoken_word:
            ctx.pending_sep = True
        return commit


def _reads_first(word: str, token: str, ctx: Context) -> bool:
    """Whether `token`, read as a whole turn, says `word` first, as the word alone says it."""
    if (probe := _probe(token, ctx)) is None:
        return False
    span = probe[0]
    reading = verbalize(span, token[: span.end], ctx)
    return reading == word if span.end == len(word) else reading.startswith(word + " ")


def _probe(text: str, ctx: Context) -> tuple[Span, int] | None:
    """The first span of `text` read as a whole turn, and the furthest character its decision
    read; None where it waits or outgrows the bound."""
    cursor = _ReadingCursor(text, True, len(text) + 1)
    try:
        return find_span(cursor, 0, ctx), cursor.reached
    except (NeedMore, TooLong):
        return None


class _ReadingCursor(Cursor):
    """A cursor that remembers the furthest character a decision read."""

    __slots__ = ("reached",)

    def __init__(self, text: str, final: bool, limit: int) -> None:
        super().__init__(text, final, limit)
        self.reached = -1

    def at(self, i: int) -> str:
        self.reached = max(self.reached, i)
        return super().at(i)


@dataclasses.dataclass(frozen=True, slots=True)
class OpenWord:
    """A word committed before its joiner (`StreamingNormalizer._word_before_joiner`): its raw
    text, what it said, and the context before it, which a token that the joiner joins is
    read with."""

    raw: str
    spoken: str
    before: Context


# How much of a Chinese or Japanese run the next number may look back on: '邮政编码', 'バージョン'.
_HAN_WORD_CHARS = 5
_RANGE_ENDS = frozenset("0123456789〇一二三四五六七八九十百千万日号月年元点时天周星")  # a range's ends next to its 至
# how many words before the last the next number may look back on: 'code de vérification est le 482 913'
_WORDS_BEFORE = 4


def _update(ctx: Context, span: Span, raw: str, spoken: str, mode: str | None) -> None:
    """What the next span may know about this one."""
    kind = span.kind
    ctx.after_lexicon = kind == "lexicon"
    if kind == "locale":
        ctx.agreement = span.agreement
        ctx.clock_cue = span.clock_cue
    if ctx.auto and ctx.locale is None and not raw.isascii():
        # An auto turn reads on with Japanese or Korean rules from the first kana or Hangul it commits: decided from
        # committed text only, so a stream switches where one-shot does. Han alone stays Chinese, Latin script English.
        for code, in_script in (("ja", is_kana), ("ko", is_hangul)):
            if code in locales.available() and any(in_script(c) for c in raw):
                ctx.locale = locales.rules(code)
                ctx.default_lang = code
                break
    before = ctx.prev_char
    if ctx.zhi_pending or raw == "至" and not ctx.zhi_ranges and before in _RANGE_ENDS:  # '周一至周六'
        ctx.zhi_ranges = raw != "至" and raw[:1] in _RANGE_ENDS
        ctx.zhi_pending = raw == "至"
    ctx.prev_char = raw[-1:] or ctx.prev_char
    # raw side: modes, lines, words
    if mode is not None:
        ctx.mode = mode
    elif kind == "fence_open":
        ctx.mode = "fence"
    elif kind != "fence_body" and (kind not in ("skip", "digit_groups") or span.info == "done"):
        ctx.mode = ""  # a fence's body, a skipped link or a run of digit groups goes on until it ends
    ctx.line_start = kind == "nl" or kind == "fence_body" and raw.endswith("\n") or kind == "ws" and ctx.line_start
    # a '"' opens or closes a quotation on its line
    ctx.quote_open = kind != "nl" and ctx.quote_open != (kind == "punct" and raw.count('"') % 2 == 1)
    ctx.block_line = kind in ("block", "olist", "table_start") or ctx.block_line and kind != "nl"  # until the line ends
    ctx.in_table = kind == "table_start" or ctx.in_table and kind != "nl"
    words_before_next = (*ctx.words_before, ctx.prev_word)[-_WORDS_BEFORE:]  # `prev_word` joins them: a new word starts
    # An abbreviation is a word ('Hauptstr.', 'n.º', '№', 'Kunden-Nr.'; not a range of days, 'lun.-ven.').
    if (
        kind in _WORDLIKE
        or raw == "№"
        or (kind == "locale" and re.sub(r"\.|-(?=[A-Z])", "", raw.rstrip(".º°")).isalpha())
    ):
        ctx.words_before = words_before_next if ctx.prev_word else ()
        ctx.prev_word = raw.rstrip(".")
    elif kind == "han" and is_hangul(raw):  # Hangul commits a syllable at a time: the word is their run
        if is_hangul(before):
            ctx.prev_word += raw
        else:
            ctx.prev_word, ctx.words_before = raw, words_before_next
    elif kind == "han":  # Chinese, Japanese: the last characters of the run ('邮编', '电话', '末尾')
        ctx.prev_word = (ctx.prev_word + raw)[-_HAN_WORD_CHARS:] if is_han(before) else raw
    elif kind == "punct" and (
        (raw in "：:" and (before.isalpha() or before == " " and ctx.prev_word))
        or (raw == "," and ctx.prev_word in english.EXAMPLE_WORDS)
    ):
        # '邮编：100080', 'код подтверждения: 482913', 'Code: 4829', 'code de retrait : 418 207' (French spaces its
        # colon), 'e.g., 10001': the word still names what the number is
        pass
    # 'ваш код — 482913': a code's word, no case's
    elif kind == "punct" and raw in "—–" and not before.isalpha() and ctx.prev_word:
        ctx.prev_word, ctx.words_before = "", words_before_next
    elif kind != "ws":
        ctx.prev_word, ctx.words_before = "", ()
    # sentence state for routing
    if kind == "nl" or kind == "punct" and (raw in HARD_STOPS or raw == "."):  # '好的。Your total is $25': decided anew
        ctx.sent_han = ctx.sent_latin = False
        ctx.zhi_ranges = ctx.zhi_pending = False
    elif kind == "han" or (kind in ("num", "punct") and any(is_han(c) or is_cjk_punct(c) for c in raw)):
        ctx.sent_han = True
    elif kind in ("word", "abbr", "lexicon") and any(is_latin_letter(c) for c in raw):
        ctx.sent_latin = True
    # spoken side
    ctx.pending_sep = not spoken and (ctx.pending_sep or kind in ("ws", "emoji", "drop", "punct"))
    ctx.last_spoken = spoken[-1:] or ctx.last_spoken
    ctx.last_visible = spoken.rstrip()[-1:] or ctx.last_visible


def normalize(text: str, language: str = "auto", *, spell_acronyms: bool = True, lexicon: LexiconRules = None) -> str:
    """One-shot normalization: the same engine fed once and flushed (spec I2)."""
    normalizer = StreamingNormalizer(language, spell_acronyms=spell_acronyms, lexicon=lexicon)
    return "".join(c.spoken for c in normalizer.push(text) + normalizer.flush())
