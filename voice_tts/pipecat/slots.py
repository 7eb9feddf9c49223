"""How a turn's LLM text becomes Pipecat's sentence slots, and its words Pipecat's timestamps.

Pipecat matches each word timestamp against its whole sentence slot: text without a sentence
end is cut into slots of about `NORMALIZE_SLICE_CHARS` (the size a session takes text in, at a
space), and longer LLM tokens into pieces. A run without spaces longer than that is cut too, and
the timestamps of a word cut so go out in pieces, one per slot, that join without spaces.
Chinese and Japanese join their words without spaces as well ("a script written without
spaces" is `voice_tts.tn.chars`'s: Han and kana, not hangul).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from voice_tts.progress import Word
from voice_tts.tn.chars import is_han, is_hangul
from voice_tts.turn_text import NORMALIZE_SLICE_CHARS as MAX_SLOT_CHARS

__all__ = ["MAX_SLOT_CHARS", "WORDS_PER_BATCH", "SlotCut", "SlotCutter", "word_batches"]

# Words handed to Pipecat at a time (at most MAX_SLOT_CHARS characters of them).
WORDS_PER_BATCH = 8

_SENTENCE_ENDS = frozenset(".!?。！？\n")
_TRAILING_WORD = re.compile(r"\S*\Z")
_SPACE = re.compile(r"\s")


def written_without_spaces(char: str) -> bool:
    """Whether `char` is of a script written without spaces between words (Han, kana)."""
    return is_han(char) and not is_hangul(char)


def _spaceless_end(text: str) -> int | None:
    """The offset just past the first character of a script written without spaces, if any."""
    return next((i + 1 for i, char in enumerate(text) if written_without_spaces(char)), None)


@dataclass(frozen=True)
class SlotCut:
    """A piece of LLM text, and whether Pipecat's pending slot ends before it (`inside_word`:
    the cut falls inside a word, whose timestamps then go out in pieces)."""

    text: str
    cut: bool = False
    inside_word: bool = False


class SlotCutter:
    """A service's slot state across a turn's LLM tokens (TOKEN aggregation)."""

    def __init__(self) -> None:
        # Characters of the turn's text since its last sentence end, and since its last space.
        self._unsentenced_chars = 0
        self._unspaced_chars = 0
        # The pending slot holds words that join without spaces (Chinese, or the rest of a
        # word cut at a slot's end).
        self._joins_without_spaces = False

    def pieces(self, token: str) -> Iterator[SlotCut]:
        """`token` in the pieces Pipecat takes, each saying whether the pending slot ends
        before it. The slot ends where words that join without spaces do."""
        pieces = deque(_cut_at_spaces(token, MAX_SLOT_CHARS))
        while pieces:
            piece = pieces.popleft()
            after = 1 if self._joins_without_spaces else _spaceless_end(piece)
            if after is not None and (space := _SPACE.search(piece, after)):
                pieces.appendleft(piece[space.start() :])
                piece = piece[: space.start()]
            inside_word = not piece[:1].isspace()
            if inside_word:
                cut = self._unspaced_chars >= MAX_SLOT_CHARS <= self._unsentenced_chars
            else:
                # Pipecat joins every word of a slot without spaces once one word has been
                # so: the slot ends with those words.
                cut = self._unsentenced_chars >= MAX_SLOT_CHARS or self._joins_without_spaces
            if cut:
                self._unsentenced_chars = 0
                self._joins_without_spaces = inside_word
            yield SlotCut(piece, cut, cut and inside_word)
            self._unsentenced_chars += len(piece)
            if _SENTENCE_ENDS.intersection(piece):
                self._unsentenced_chars = 0
            unspaced = len(_TRAILING_WORD.search(piece)[0])
            self._unspaced_chars = unspaced + (self._unspaced_chars if unspaced == len(piece) else 0)
            if _spaceless_end(piece) is not None:
                self._joins_without_spaces = True


def word_batches(words: list[Word], cuts: list[int]) -> Iterator[tuple[list[tuple[str, float]], bool]]:
    """The words as Pipecat's word timestamps, (text, start time), a few at a time, each batch
    with whether its words join without spaces; a word is cut where a slot ends inside it
    (`cuts`: ascending offsets in the turn's text)."""
    batch: list[tuple[str, float]] = []
    batch_chars, batch_spaceless = 0, False
    for text, spaceless, start_time in _word_pieces(words, cuts):
        if batch and (spaceless != batch_spaceless or len(batch) == WORDS_PER_BATCH or batch_chars >= MAX_SLOT_CHARS):
            yield batch, batch_spaceless
            batch, batch_chars = [], 0
        batch.append((text, start_time))
        batch_chars += len(text)
        batch_spaceless = spaceless
    if batch:
        yield batch, batch_spaceless


def _cut_at_spaces(text: str, size: int) -> list[str]:
    """`text` in pieces of about `size` characters, each cut before a space, or at `size`
    characters inside a longer run without spaces."""
    if len(text) <= size:
        return [text]
    pieces, start = [], 0
    while len(text) - start > size:
        cut = text.find(" ", start + size, start + 2 * size)
        if cut < 0:
            cut = start + size
        pieces.append(text[start:cut])
        start = cut
    pieces.append(text[start:])
    return pieces


def _word_pieces(words: list[Word], cuts: list[int]) -> Iterator[tuple[str, bool, float]]:
    """(text, joins without spaces, start time) of the words, each cut where a slot ends
    inside it."""
    for word in words:
        inside = cuts[bisect_right(cuts, word.raw_start) : bisect_left(cuts, word.raw_end)]
        for start, end in zip([word.raw_start, *inside], [*inside, word.raw_end]):
            piece = word.text[start - word.raw_start : end - word.raw_start]
            yield piece, bool(inside) or _spaceless_end(piece) is not None, word.start_time
