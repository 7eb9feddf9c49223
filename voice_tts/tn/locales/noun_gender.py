"""Whether a French, Spanish, Italian or Portuguese noun is feminine: the gender of the counted
noun decides the number before it ("une minute", "veintiuna horas", "duas horas", "un'ora"); and
whether a ruler's name is a woman's ("Isabel segunda", "Elisabeth die Zweite").

The rules are data (`<lang>_genders.json`): endings that make a noun feminine, and the nouns those
endings get wrong either way (French "la minute", "le problème"; Spanish "el día");
`feminine_names.json`: the queens' and empresses' names of the five languages.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from voice_tts.tn.locales import data


@dataclass(frozen=True, slots=True)
class _Genders:
    feminine_endings: tuple[str, ...]
    masculine_endings: tuple[str, ...]  # nouns of either gender, masculine unless said ('dois motoristas')
    feminine: frozenset[str]
    masculine: frozenset[str]


@cache
def _genders(lang: str) -> _Genders:
    table = data(f"{lang}_genders.json")
    return _Genders(tuple(table["feminine_endings"]), tuple(table.get("masculine_endings", ())), frozenset(table["feminine"]), frozenset(table["masculine"]))


def is_feminine(lang: str, noun: str) -> bool:
    """`noun` as written, singular or plural; an unknown word is masculine unless its ending says not."""
    word, genders = noun.lower(), _genders(lang)
    return word in genders.feminine or word not in genders.masculine and word.endswith(genders.feminine_endings) and not word.endswith(
        genders.masculine_endings)


def is_known_noun(lang: str, noun: str) -> bool:
    """Whether `noun` is one the gender data lists."""
    return any(noun.lower() in nouns for nouns in (_genders(lang).feminine, _genders(lang).masculine))


@cache
def _feminine_names() -> frozenset[str]:
    return frozenset(data("feminine_names.json"))


def is_feminine_name(name: str) -> bool:
    return name in _feminine_names()
