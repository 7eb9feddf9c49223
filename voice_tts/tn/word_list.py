"""Which lower-case strings are English words: a code that is also a word ("top", "cup") is read
as the word, an unknown capitalized word may be an acronym; a noun that is nothing else after a
unit makes the unit an adjective ("the 150 kW charger")."""

from __future__ import annotations

from functools import cache, lru_cache


@cache
def known_words() -> frozenset[str]:
    """Lower-case English words (Webster's Second, 234,000 entries; about 0.1 s to load)."""
    from english_words import get_english_words_set

    return frozenset(get_english_words_set(["web2"], lower=True))


@lru_cache(maxsize=4096)  # asked of the word after every English unit
def only_noun(word: str, pos: str = "NOUN") -> bool:
    """Whether `word` is a noun with a plural and nothing else in LemmInflect's lexicon: 'charger', 'chargers';
    not 'line' (a verb too), 'away', nor 'each' (no plural: the lexicon's pronouns). With `pos` "ADJ": an adjective
    only ('solar'); "": an adjective or a noun with a plural among other senses, or a word no lexicon knows
    ('deductible', 'dose', 'copay'; not 'and', 'you'); "NAMING": a noun or adjective as written, no adverb, or an
    unknown word ('deductible', 'copay'; not 'today')."""
    from lemminflect import getAllInflections, getAllLemmas
    lemmas = getAllLemmas(word.lower())
    counted = any(
        plural != lemma
        for lemma in lemmas.get("NOUN", ())
        for plural in getAllInflections(lemma, "NOUN").get("NNS", ())
    )
    if pos == "NAMING":
        return (
            (counted and word.lower() in lemmas["NOUN"] or word.lower() in lemmas.get("ADJ", ()))
            and "ADV" not in lemmas
            or (only_noun(word, "") and not lemmas)
        )
    return lemmas.keys() - {"ADV"} == {pos} and pos == "ADJ" or lemmas.keys() == {"NOUN"} and counted if pos else (
        "ADJ" in lemmas or counted or word.isalpha() and not lemmas and word.lower() not in known_words())
