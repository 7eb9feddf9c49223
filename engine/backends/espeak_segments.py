"""Where incremental text is cut into pieces that eSpeak NG synthesizes one call at a time.

eSpeak plans intonation per clause, so a piece ends at a clause boundary; audio can start as
soon as the first clause has arrived. A clause cut depends only on the text, never on how it
was split into deltas or when they came.

A clause can be long, and an LLM may stall in the middle of one, so text without a clause end
does not wait for ever (`ClauseWait`, the "max buffer delay" of hosted TTS): the first piece
of a stream is cut after a few complete words, and complete words that have waited too long
are spoken as they are. The word-count cut depends only on the text; the timed one also on when
the text came.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Sentence and clause punctuation that ends a piece only when whitespace follows it: "3.14",
# "e.g.x" and "1,000" must stay whole. Closing quotes and brackets may sit in between.
_ASCII_CLAUSE_END = frozenset(".,!?;:")
_CLOSERS = frozenset("\"')]}’”»")
# Full-width punctuation is never inside a number or a word: it ends a piece at once.
_CJK_CLAUSE_END = frozenset("。！？；，、：…．｡､")
# Pieces are bounded so that one stream's turn on the shared synthesizer stays short.
MAX_PIECE_CHARS = 160


@dataclass(frozen=True)
class ClauseWait:
    """How long text without a clause end waits before it is spoken anyway.

    `first_words`: the stream's first piece is cut after this many complete words (None: wait
    for a clause end). `delay_s`: complete words are spoken once they have waited this long
    without a clause end: before the first audio, counted from the first complete word;
    afterwards, from the last text received (an LLM that stalls mid-clause). None: no time limit.
    """

    first_words: int | None = 4
    delay_s: float | None = 0.3

    def __post_init__(self) -> None:
        if self.first_words is not None and self.first_words < 1:
            raise ValueError("first_words must be at least 1 (or None)")
        if self.delay_s is not None and self.delay_s < 0:
            raise ValueError("delay_s must not be negative (or None)")


_LAST_GAP = re.compile(r"\S\s+\S*\Z")


def complete_words(text: str) -> tuple[int, int]:
    """(end of the last word that whitespace follows, how many such words) in `text`; the
    last word may still grow while nothing follows it."""
    gap = _LAST_GAP.search(text)
    if gap is None:
        return 0, 0
    end = gap.start() + 1
    return end, len(text[:end].split())


@dataclass(frozen=True)
class Piece:
    """`text` starts at character `start` of the stream's spoken text. A piece whose synthesis
    was cut short (its stream yielded the synthesizer) carries the language it is spoken in and
    how many of its samples were produced: synthesis is a function of text and voice, so
    speaking it again from the start and skipping those samples continues it exactly."""

    start: int
    text: str
    language: str | None = None
    done_samples: int = 0

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def take_pieces(text: str, final: bool) -> tuple[list[str], str]:
    """Split `text` into the pieces that are complete now and the rest that must wait.

    With `final` (no more text will come) everything is returned as pieces.
    """
    pieces: list[str] = []
    start = 0
    while start < len(text):
        cut = _clause_end(text, start, final)
        if cut == _UNDECIDED:
            break
        if cut is None:
            if len(text) - start > MAX_PIECE_CHARS:
                cut = _forced_cut(text, start)
            elif final:
                cut = len(text)
            else:
                break
        pieces.append(text[start:cut])
        start = cut
    return pieces, text[start:]


_UNDECIDED = -1


def _clause_end(text: str, start: int, final: bool) -> int | None:
    """End (exclusive) of the first clause that starts within MAX_PIECE_CHARS; None if there
    is none; _UNDECIDED if the text so far ends where a boundary may or may not be."""
    limit = min(len(text), start + MAX_PIECE_CHARS)
    for i in range(start, limit):
        ch = text[i]
        if ch == "\n" or ch in _CJK_CLAUSE_END:
            return i + 1
        if ch in _ASCII_CLAUSE_END:
            j = i + 1
            cap = i + MAX_PIECE_CHARS
            while j < len(text) and j < cap and (text[j] in _CLOSERS or text[j] in _ASCII_CLAUSE_END):
                j += 1
            if j == cap:
                return j
            if j == len(text):
                return j if final else _UNDECIDED
            if text[j].isspace():
                return j
    return None


def _forced_cut(text: str, start: int) -> int:
    """Cut a clause longer than MAX_PIECE_CHARS before its last space, or hard at the limit."""
    limit = start + MAX_PIECE_CHARS
    for i in range(limit - 1, start, -1):
        if text[i].isspace():
            return i
    return limit
