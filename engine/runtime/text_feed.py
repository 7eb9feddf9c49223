"""Which text tokens of a growing string are final (spec §3.4).

Spoken text arrives in pieces. A token may be fed to the model only once no later text can change
it, so that the ids fed equal the tokenization of the final string. BPE merges never cross the
pre-tokenizer's chunks, and the pre-tokenizer scans left to right without look-behind, so a chunk
is final once the character after it is known — except whitespace, whose split depends on what
follows the whole run (`\\s+(?!\\S)`, `\\s*[\\r\\n]+`: "a\\n " + "\\n" re-chunks the "\\n"). The feed
therefore commits every chunk up to and including the last chunk that has a non-whitespace
character and is followed by at least one more character; trailing whitespace and the last word
wait for more text or for the end of input.

The caller may know more than the text: normalized text ends a word before its separator space
is committed (it comes with the next word). `end_word()` takes the caller's word that the next
character is neither a letter, a mark nor a digit; the split patterns end a chunk that ends in a
letter or a digit before any such character (a trailing mark may sit in a punctuation chunk that
punctuation extends), so such a last chunk is final then, and the word reaches the model with the
text that ended it, not one word later.

Each committed chunk is tokenized on its own (the same ids as tokenizing the whole string, since
merges stay inside chunks), and its tokens carry the chunk's end as their spoken end: progress
moves word by word. A chunk's ids depend on nothing else, so they are cached per tokenizer and
shared by all streams: hundreds of streams speaking everyday words mostly tokenize none.

This runs in the caller's thread (`push_text`), never in the step loop.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from typing import Callable

from tokenizers import Regex, pre_tokenizers


@dataclass(frozen=True)
class TextToken:
    """One final text token and the end of the spoken characters it covers."""

    id: int
    spoken_end: int


@functools.lru_cache(maxsize=8)
def _splitter(pattern: str) -> pre_tokenizers.Split:
    """The compiled pre-tokenizer split (stateless, so streams share it): compiling the pattern
    takes about a millisecond, which every `open_stream` paid in the caller's thread."""
    return pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False)


# Distinct chunks (words, with their leading space, and punctuation) whose ids are kept per tokenizer.
ENCODED_CHUNKS_CACHED = 1 << 16


@functools.lru_cache(maxsize=8)
def _chunk_encoder(encode: Callable[[str], list[int]]) -> Callable[[str], tuple[int, ...]]:
    """`encode` of one pre-tokenizer chunk, cached (one cache per tokenizer's encode)."""
    return functools.lru_cache(maxsize=ENCODED_CHUNKS_CACHED)(lambda chunk: tuple(encode(chunk)))


class TextFeed:
    """Turns appended text into final tokens; `finish()` flushes what is held back."""

    def __init__(self, encode: Callable[[str], list[int]], split_pattern: str) -> None:
        self._encode = _chunk_encoder(encode)
        self._split = _splitter(split_pattern)
        self._pending = ""
        self._pending_start = 0  # characters committed before `_pending`
        self.characters_received = 0

    def push(self, text: str) -> list[TextToken]:
        self._pending += text
        self.characters_received += len(text)
        chunks = self._chunks()
        stable = 0
        for index, (start, end) in enumerate(chunks):
            if end < len(self._pending) and self._pending[start:end].strip():
                stable = index + 1
        return self._commit(chunks[:stable])

    def end_word(self, space_follows: bool = False) -> list[TextToken]:
        """The text so far ends a word: the next character (if any) is not a letter, mark or
        digit. Commits the last chunk too when it ends in a letter or a digit; with
        `space_follows` (the next characters are a space and a letter) also when it ends in
        punctuation, which only newlines extend."""
        chunks = self._chunks()
        if not chunks or self._pending[-1].isspace():
            return []
        if not space_follows and unicodedata.category(self._pending[-1])[0] not in "LN":
            return []
        return self._commit(chunks)

    def finish(self) -> list[TextToken]:
        tokens = self._commit(self._chunks())
        if tokens:
            # Trailing whitespace makes no token of its own but belongs to the spoken text.
            tokens[-1] = TextToken(tokens[-1].id, self.characters_received)
        return tokens

    def _chunks(self) -> list[tuple[int, int]]:
        return [offsets for _, offsets in self._split.pre_tokenize_str(self._pending)]

    def _commit(self, chunks: list[tuple[int, int]]) -> list[TextToken]:
        if not chunks:
            return []
        tokens = []
        for start, end in chunks:
            spoken_end = self._pending_start + end
            tokens.extend(TextToken(i, spoken_end) for i in self._encode(self._pending[start:end]))
        length = chunks[-1][1]
        self._pending = self._pending[length:]
        self._pending_start += length
        return tokens
