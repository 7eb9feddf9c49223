"""Which lower-case strings are English words: a code that is also a word ("top", "cup") is read
as the word, an unknown capitalized word may be an acronym; a noun that is nothing else after a
unit makes the unit an adjective ("the 150 kW charger")."""

from __future__ import annotations

from functools import cache


@cache
def known_words() -> frozenset[str]:
    """Lower-case English words (Webster's Second, 234,000 entries; about 0.1 s to load)."""
    from english_words import get_english_words_set

    return frozenset(get_english_words_set(["web2"], lower=True))


@cache
def _common_words(lang: str) -> frozenset[str]:
    from spellchecker import SpellChecker  # pyspellchecker's frequency list: words seen 100 times or more (de 12,000 … pt 35,000)
    return frozenset(word for word, count in SpellChecker(language=lang).word_frequency.dictionary.items() if count >= 100)


def common_word(letters: str, lang: str) -> str | None:
    """The language's common word the lower-case letters spell, or its two ('bemvindo' bem vindo), or None."""
    return letters if letters in (words := _common_words(lang)) else next(
        (f"{letters[:i]} {letters[i:]}" for i in range(3, len(letters) - 2) if {letters[:i], letters[i:]} <= words), None)


def only_noun(word: str, pos: str = "NOUN") -> bool:
    """Whether `word` is a noun with a plural and nothing else in LemmInflect's lexicon: 'charger', 'chargers';
    not 'line' (a verb too), 'away', nor 'each' (no plural: the lexicon's pronouns). With `pos` "ADJ": an adjective only ('solar')."""
    from lemminflect import getAllInflections, getAllLemmas
    return (lemmas := getAllLemmas(word.lower())).keys() == {pos} and pos == "ADJ" or lemmas.keys() == {"NOUN"} and any(
        plural != lemma for lemma in lemmas["NOUN"] for plural in getAllInflections(lemma, "NOUN").get("NNS", ()))
