"""Which raw words the listener has heard: engine progress mapped back through the TN commits.

The engine reports `Progress(spoken_end, audio_time)`: every spoken character before `spoken_end`
starts at or before `audio_time`. The tracker turns that into raw-text words with start times,
and into the raw prefix the listener has heard, which is what the LLM history keeps at a barge-in.

Words are the raw text's non-whitespace runs, except that every Han (or kana/hangul) character is
a word of its own. Chinese has no spaces, and a whole clause would otherwise be one "word" that
is either entirely heard or not at all; one character is one syllable of audio, so per-character
words keep a truncation truthful. Punctuation stays with the word it touches ("world." and "好。"),
so the heard text ends with the punctuation of the last heard word and never with the next word.

A word starts when the progress high-water mark passes its first spoken character (spec §3.10):
exact inside spans spoken as written; inside a replaced span (a number, a date) a word that does
not begin the span starts only when the whole span has been reached; a word whose raw text is
deleted (markdown, emoji) starts at the next spoken character.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from voice_tts.tn import Commit
from voice_tts.tn.chars import is_alnum, is_han
from voice_tts.tn.offsets import is_identity, separator_length


@dataclass(frozen=True, slots=True)
class Word:
    """A raw-text word (without surrounding whitespace) and when its audio starts, in seconds."""

    text: str
    start_time: float
    raw_start: int
    raw_end: int


def segment_words(text: str, start: int = 0) -> list[tuple[int, int]]:
    """Word spans of `text[start:]`: whitespace-separated, Han characters on their own."""
    spans = []
    i, n = start, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        j, base = i, ""
        while j < n and not text[j].isspace():
            c = text[j]
            if is_han(c):
                if base:
                    break
                base = "han"
            elif is_alnum(c):
                if base == "han":
                    break
                base = base or "alnum"
            j += 1
        spans.append((i, j))
        i = j
    return spans


class ProgressTracker:
    """Feeds on TN commits and engine progress; answers which words started and what was heard."""

    def __init__(self) -> None:
        self._raw = ""
        self._commits: list[Commit] = []
        self._raw_ends: list[int] = []
        self._spans: list[tuple[int, int]] = []  # word spans; the last one may still grow
        self._started: list[Word] = []
        self._high = 0
        self._audio_time = 0.0

    # --- input ------------------------------------------------------------------------------

    def add_commits(self, commits: Iterable[Commit]) -> None:
        old_len = len(self._raw)
        added = False
        for commit in commits:
            if commit.raw_start != len(self._raw):
                raise ValueError(
                    f"commit raw_start {commit.raw_start} does not continue the raw stream at {len(self._raw)}"
                )
            if len(commit.raw) != commit.raw_end - commit.raw_start:
                raise ValueError("commit.raw must hold the raw text of the span")
            self._raw += commit.raw
            self._commits.append(commit)
            self._raw_ends.append(commit.raw_end)
            added = True
        if added:
            self._resegment(old_len)

    def on_progress(self, spoken_end: int, audio_time: float) -> list[Word]:
        """Words that started by `audio_time`, each reported once, in order."""
        if spoken_end > self._high:
            self._high = spoken_end
        self._audio_time = max(self._audio_time, audio_time)
        new: list[Word] = []
        while len(self._started) < len(self._spans):
            index = len(self._started)
            start, end = self._spans[index]
            trigger = self._trigger(start)
            if trigger is None or trigger >= self._high:
                break
            word = Word(self._raw[start:end], audio_time, start, end)
            self._started.append(word)
            new.append(word)
        return new

    # --- questions --------------------------------------------------------------------------

    @property
    def raw_text(self) -> str:
        """All raw text covered by the commits received."""
        return self._raw

    @property
    def words(self) -> list[Word]:
        """Every word that has started, in order."""
        return list(self._started)

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
        _, end = self._spans[count - 1]
        return self._raw[:end]

    # --- internals --------------------------------------------------------------------------

    def _resegment(self, old_len: int) -> None:
        """Word spans are final once something follows them; the one touching the old end may grow."""
        if self._spans and self._spans[-1][1] == old_len:
            start = self._spans.pop()[0]
        else:
            start = self._spans[-1][1] if self._spans else 0
        self._spans.extend(segment_words(self._raw, start))

    def _trigger(self, r: int) -> int | None:
        """Spoken offset whose passing starts the word beginning at raw offset `r`."""
        i = bisect_right(self._raw_ends, r)
        while i < len(self._commits):
            c = self._commits[i]
            visible = c.spoken.lstrip()
            if visible:
                if c.raw_start < r:
                    if is_identity(c):
                        return c.spoken_start + separator_length(c) + (r - c.raw_start)
                    return c.spoken_end - 1
                return c.spoken_start + len(c.spoken) - len(visible)
            i += 1
        return None
