"""The per-turn options an adapter's app may change at any moment (voice, language, instruct,
lexicon, speed), checked where they arrive: a bad value fails there with a message naming the
option, before any turn is opened with it. Whether the engine has the voice or the language is
the engine's to say, when a turn opens."""

from __future__ import annotations

from typing import Any

from voice_tts.speed import checked_speed
from voice_tts.tn import Lexicon

TURN_OPTIONS = ("voice", "language", "instruct", "lexicon", "speed")


def checked_option(name: str, value: Any) -> Any:
    """`value` as a turn takes it (a `Lexicon` for its rules, a float speed); ValueError
    naming the option otherwise."""
    if name == "speed":
        return checked_speed(value)  # its message names the speed
    if name == "lexicon":
        try:
            return Lexicon.of(value)
        except ValueError as e:  # a LexiconError keeps its type and wire code
            raise type(e)(f"lexicon: {e}") from e
    if name not in TURN_OPTIONS:
        raise ValueError(f"{name!r} is not an option (the options: {', '.join(TURN_OPTIONS)})")
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name} is a string or None, not {value!r}")
    return value
