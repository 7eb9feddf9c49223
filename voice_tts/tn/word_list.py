"""Which lower-case strings are English words: a code that is also a word ("top", "cup") is read
as the word, an unknown capitalized word may be an acronym."""

from __future__ import annotations

from functools import cache


@cache
def known_words() -> frozenset[str]:
    """Lower-case English words (Webster's Second, 234,000 entries; about 0.1 s to load)."""
    from english_words import get_english_words_set

    return frozenset(get_english_words_set(["web2"], lower=True))
