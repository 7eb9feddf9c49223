"""Which raw words the listener has heard: engine progress mapped back through the TN commits.

The engine reports `Progress(spoken_end, audio_time)`: every spoken character before `spoken_end`
starts at or before `audio_time`. The tracker turns that into raw-text words with start times,
and into the raw prefix the listener has heard, which is what the LLM history keeps at a barge-in.

Words are the raw text's non-whitespace runs, except that every Han (or kana/hangul) character is
a word of its own. Chinese has no spaces, and a whole clause would otherwise be one "word" that
is either entirely heard or not at all; one character is one syllable of audio, so per-character
words keep a truncation truthful. Punctuation stays with the word it touches ("world." and "好。"),
so the heard text ends with the punctuation of the last heard word and never with the next word.
Words are cut from the raw text as received (`receive`), not as committed: the normalizer may
commit a word before the punctuation after it ("again" of "again."), and the word still carries
it, as far as the received text shows it when the word starts.

A word starts when the progress high-water mark passes its first spoken character (spec §3.10):
exact inside spans spoken as written; inside a replaced span (a number, a date) a word that does
not begin the span starts only when the whole span has been reached; a word whose raw text is
deleted (markdown, emoji) starts at the next spoken character.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable

from voice_tts.protocol import Word
from voice_tts.tn import Commit
from voice_tts.tn.chars import is_alnum, is_han
from voice_tts.tn.offsets import separator_length

__all__ = ["ProgressTracker", "Word", "WordSplitter", "segment_words"]

def segment_words(text: str) -> list[tuple[int, int]]:
    """Word spans of `text`: whitespace-separated, Han characters on their own."""
    return WordSplitter().feed(text)


class WordSplitter:
    """Word spans of a text that arrives in pieces, each character looked at once (a run
    without spaces that grows piece by piece is never scanned again).

    `feed` returns the spans that end in the new piece; the last one runs to the end of the
    text while the word may still grow (`growing`), and is returned again, longer, by the next
    piece that extends it."""

    def __init__(self) -> None:
        self._length = 0
        self._word_start: int | None = None  # None: between words
        self._word_base = ""  # "han" or "alnum" once the word has either

    @property
    def growing(self) -> bool:
        return self._word_start is not None

    def feed(self, piece: str) -> list[tuple[int, int]]:
        spans = []
        start, base = self._word_start, self._word_base
        for i, c in enumerate(piece, self._length):
            if c.isspace():
                if start is not None:
                    spans.append((start, i))
                    start = None
                continue
            if start is None:
                start, base = i, ""
            if is_han(c):
                if base:
                    spans.append((start, i))
                    start = i
                base = "han"
            elif is_alnum(c):
                if base == "han":
                    spans.append((start, i))
                    start, base = i, ""
                base = base or "alnum"
        self._length += len(piece)
        self._word_start, self._word_base = start, base
        if start is not None:
            spans.append((start, self._length))
        return spans


class ProgressTracker:
    """Feeds on the received raw text, TN commits of it and engine progress; answers which
    words started and what was heard."""

    def __init__(self) -> None:
        # The received raw text in the pieces it came in (joined only where asked for: a long
        # turn must not cost a copy of all its text per commit).
        self._raw_parts: list[str] = []
        self._raw_part_starts: list[int] = []
        self._raw_length = 0
        self._committed = 0  # raw offset the commits have reached
        # What finding a word's trigger needs of each commit, in columns of machine integers:
        # a long turn's hundreds of thousands of commits cost no objects to keep or to free.
        self._raw_starts = array("q")
        self._raw_ends = array("q")
        self._spoken_starts = array("q")
        self._spoken_ends = array("q")
        self._leads = array("q")  # spaces before the first spoken character; -1: none spoken
        self._separators = array("q")  # an identity span's separator length; -1: replaced
        self._splitter = WordSplitter()
        # Word spans; the last one may still grow.
        self._span_starts = array("q")
        self._span_ends = array("q")
        self._started: list[Word] = []
        self._high = 0
        self._audio_time = 0.0

    # --- input ------------------------------------------------------------------------------

    def receive(self, text: str) -> None:
        """Raw text received, committed later by `add_commits`. Word spans are final once
        something follows them; the last one may grow."""
        if not text:
            return
        if self._splitter.growing:
            self._span_starts.pop()  # comes back, grown
            self._span_ends.pop()
        for start, end in self._splitter.feed(text):
            self._span_starts.append(start)
            self._span_ends.append(end)
        self._raw_parts.append(text)
        self._raw_part_starts.append(self._raw_length)
        self._raw_length += len(text)

    def add_commits(self, commits: Iterable[Commit]) -> None:
        """Commits of the received raw text, in order."""
        end = self._committed
        for commit in commits:
            if commit.raw_start != end:
                raise ValueError(
                    f"commit raw_start {commit.raw_start} does not continue the raw stream at {end}"
                )
            if len(commit.raw) != commit.raw_end - commit.raw_start:
                raise ValueError("commit.raw must hold the raw text of the span")
            if commit.raw_end > self._raw_length:
                raise ValueError(f"commit raw_end {commit.raw_end} is past the received raw text")
            visible = commit.spoken.lstrip()
            self._raw_starts.append(commit.raw_start)
            self._raw_ends.append(commit.raw_end)
            self._spoken_starts.append(commit.spoken_start)
            self._spoken_ends.append(commit.spoken_end)
            self._leads.append(len(commit.spoken) - len(visible) if visible else -1)
            self._separators.append(separator_length(commit))
            end = commit.raw_end
        self._committed = end

    def add_started(self, words: Iterable[Word]) -> None:
        """Words another tracker reported (a server's, for the text this side sent), in order.
        A word may end before this side's span of it: the other tracker reported it while it
        was the last word of its text, which grew afterwards ("friend", then ".")."""
        for word in words:
            index = len(self._started)
            if (
                index >= len(self._span_starts)
                or self._span_starts[index] != word.raw_start
                or not word.raw_start < word.raw_end <= self._span_ends[index]
            ):
                raise ValueError(f"word {word.text!r} is not the next word of the raw text")
            self._started.append(word)

    def on_progress(self, spoken_end: int, audio_time: float) -> list[Word]:
        """Words that started by `audio_time`, each reported once, in order."""
        if spoken_end > self._high:
            self._high = spoken_end
        self._audio_time = max(self._audio_time, audio_time)
        new: list[Word] = []
        while len(self._started) < len(self._span_starts):
            index = len(self._started)
            start, end = self._span_starts[index], self._span_ends[index]
            trigger = self._trigger(start)
            if trigger is None or trigger >= self._high:
                break
            word = Word(self._raw_slice(start, end), audio_time, start, end)
            self._started.append(word)
            new.append(word)
        return new

    # --- questions --------------------------------------------------------------------------

    @property
    def raw_text(self) -> str:
        """All raw text received."""
        if len(self._raw_parts) > 1:
            self._raw_parts, self._raw_part_starts = ["".join(self._raw_parts)], [0]
        return self._raw_parts[0] if self._raw_parts else ""

    @property
    def raw_length(self) -> int:
        return self._raw_length

    @property
    def words(self) -> list[Word]:
        """Every word that has started, in order."""
        return list(self._started)

    @property
    def heard_end(self) -> int:
        """Raw offset of the end of the last word that has started (0: none yet)."""
        return self._started[-1].raw_end if self._started else 0

    @property
    def spoken_high_water(self) -> int:
        return self._high

    def words_started_before(self, t: float) -> list[Word]:
        """Started words whose audio starts at or before `t` seconds."""
        return [w for w in self._started if w.start_time <= t]

    def heard_text(self, played_seconds: float | None = None) -> str:
        """The raw prefix the listener heard: up to the end of the last word whose audio started
        by `played_seconds` (None: every word progress has reported), trailing punctuation included."""
        count = len(self._started)
        if played_seconds is not None:
            count = bisect_right([w.start_time for w in self._started], played_seconds)
        if count == 0:
            return ""
        return self._raw_slice(0, self._span_ends[count - 1])

    # --- internals --------------------------------------------------------------------------

    def _raw_slice(self, start: int, end: int) -> str:
        if start >= end:
            return ""
        first = bisect_right(self._raw_part_starts, start) - 1
        last = bisect_left(self._raw_part_starts, end)
        offset = self._raw_part_starts[first]
        return "".join(self._raw_parts[first:last])[start - offset : end - offset]

    def _trigger(self, r: int) -> int | None:
        """Spoken offset whose passing starts the word beginning at raw offset `r`."""
        i = bisect_right(self._raw_ends, r)
        while i < len(self._raw_ends):
            lead = self._leads[i]
            if lead >= 0:
                if self._raw_starts[i] < r:
                    if self._separators[i] >= 0:
                        return self._spoken_starts[i] + self._separators[i] + (r - self._raw_starts[i])
                    return self._spoken_ends[i] - 1
                return self._spoken_starts[i] + lead
            i += 1
        return None

