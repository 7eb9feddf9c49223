"""Where incremental text is cut into pieces that eSpeak NG synthesizes one call at a time.

eSpeak plans intonation per clause, so a piece ends at a clause boundary; audio can start as
soon as the first clause has arrived. A cut depends only on the text, never on how it was
split into deltas or when they came, so the same text always gives the same audio.
"""

from __future__ import annotations

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
class Piece:
    """`text` starts at character `start` of the stream's spoken text."""

    start: int
    text: str

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
