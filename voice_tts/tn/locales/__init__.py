"""Normalization rules of the languages other than English and Chinese, one module per language.

`voice_tts.tn.locales.<code>` (an ISO 639-1 code: `de`, `ja`, …) reads its language inside the
one streaming driver. English and Chinese keep their own rules (`english`, `chinese`); a turn in
any language found here is read with that language's module, never with English rules.

A language module provides (itself, or the `Language` it names `RULES`, for the languages read on
the shared machinery of `european.py` or `myriad.py`):

- `find_span(cur, pos, ctx) -> Span | None` — the span that starts at `pos` in a turn of this
  language, decided through the Cursor exactly like the rules in `holdback` (reading a character
  that has not arrived raises NeedMore, so a span decided on a prefix is the span decided on the
  whole text: stream output equals one-shot output). A span it decides has kind "locale" and its
  reading in `info` (`locale_span`). None leaves `pos` to the language-neutral rules: spaces,
  plain words, punctuation, markup. It is asked after the pronunciation dictionary and before
  everything else, so it also decides abbreviations, month names and units next to numbers.
- `number(text) -> str` — the reading of a numeric token it left to the neutral rules.
- `cardinal(n) -> str` and `digits(text) -> str` — list numbers, giant digit runs cut in pieces.
- `SYMBOLS` — symbols read in running text (`&`, `+`, `=` …) and `ADDRESS_SYMBOLS` — those read
  inside URLs and email addresses (`.`, `@`, `/` …).
"""

from __future__ import annotations

import importlib
import importlib.resources
import importlib.util
import json
from functools import cache
from typing import Any

from voice_tts.tn.context import Span

# The languages of Qwen3-TTS besides English and Chinese.
MODEL_LANGUAGES = ("de", "fr", "es", "it", "pt", "ru", "ja", "ko")


@cache
def available() -> tuple[str, ...]:
    """The languages that have a module here (looked up once: the normalizer asks per span)."""
    return tuple(code for code in MODEL_LANGUAGES if importlib.util.find_spec(f"{__name__}.{code}") is not None)


@cache
def rules(code: str) -> Any:
    """What answers the contract above for a language: the `Language` of a module that reads on
    the shared machinery (its `RULES`), else the module itself."""
    if code not in MODEL_LANGUAGES:
        raise ValueError(f"no normalization rules for language {code!r}")
    module = importlib.import_module(f"{__name__}.{code}")
    return getattr(module, "RULES", module)


def locale_span(end: int, reading: str, lang: str) -> Span:
    """A span a language module decided, with its reading."""
    return Span(end, "locale", lang, info=reading)


@cache
def data(name: str, package: str = __name__) -> Any:
    """A data file of `package`, parsed: this one's (`de_genders.json`, `feminine_names.json` …) or voice_tts.tn's."""
    return json.loads(importlib.resources.files(package).joinpath(name).read_text(encoding="utf-8"))


def abbreviations(code: str) -> dict[str, str]:
    """A language's abbreviations and their readings, from its `<code>_abbreviations.json`."""
    return data(f"{code}_abbreviations.json")


def words(code: str) -> dict:
    """A language's word tables (units, currencies, symbols, cue words), from its `<code>_words.json`."""
    return data(f"{code}_words.json")
