"""Whether a French, Spanish, Italian or Portuguese noun is feminine: the gender of the counted
noun decides the number before it ("une minute", "veintiuna horas", "duas horas", "un'ora"); and
whether a ruler's name is a woman's ("Isabel segunda", "Elisabeth die Zweite").

The rules are data (`<lang>_genders.json`): endings that make a noun feminine, and the nouns those
endings get wrong either way (French "la minute", "le problème"; Spanish "el día");
`feminine_names.json`: the queens' and empresses' names of the five languages.
"""

from __future__ import annotations

from functools import cache

from voice_tts.tn.locales import data


@cache
def _genders(lang: str) -> dict:
    """`<lang>_genders.json`: its endings as tuples, its nouns ("feminine", "masculine") as sets."""
    table = {"masculine_endings": (), **data(f"{lang}_genders.json")}
    return {key: tuple(value) if key.endswith("_endings") else frozenset(value) for key, value in table.items()}


def is_feminine(lang: str, noun: str) -> bool:
    """`noun` as written, singular or plural; an unknown word is masculine unless its ending says not, or says either
    gender, masculine unless listed ('dois motoristas')."""
    word, genders = noun.lower(), _genders(lang)
    head, _, rest = word.partition("-")  # a compound of nouns has its first's gender ('dose-poids' une), one whose
    if rest and head not in genders.get("not_heads", ()):  # first is a verb or a prefix
        return is_feminine(lang, head)  # its last's ('porte-clés' un, 'demi-bouteille' une)
    return word in genders["feminine"] or word not in genders["masculine"] and word.endswith(
        genders["feminine_endings"]) and not word.endswith(genders["masculine_endings"])


def is_known_noun(lang: str, noun: str) -> bool:
    """Whether `noun` is one the gender data lists."""
    return any(noun.lower() in _genders(lang).get(gender, ()) for gender in ("feminine", "masculine"))


def is_feminine_name(name: str) -> bool:
    return name in data("feminine_names.json")  # a short list, parsed once
