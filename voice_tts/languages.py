"""Language names as people write them, mapped the same way for every engine.

ISO 639-1 codes (`en`), BCP 47 tags in any case or separator (`en-US`, `zh_CN`, `pt-br`),
Pipecat's `Language` values and LiveKit's strings, and the Qwen3-TTS language ids
(`english`) all name one language. Each engine keeps what it can use: the Qwen3 model speaks
one English, so `en-GB` is `english` there; the embedded voice has a British English and uses
it.
"""

from __future__ import annotations

# ISO 639-1 code → Qwen3-TTS language id.
QWEN3_LANGUAGES = {
    "en": "english",
    "zh": "chinese",
    "ja": "japanese",
    "ko": "korean",
    "de": "german",
    "fr": "french",
    "ru": "russian",
    "pt": "portuguese",
    "es": "spanish",
    "it": "italian",
}
_CODES_BY_NAME = {name: code for code, name in QWEN3_LANGUAGES.items()} | {
    "mandarin": "zh",
    "cmn": "zh",  # ISO 639-3 Mandarin (Pipecat's Language.CMN)
    "yue": "zh",
}
AUTO = "auto"


def language_tag(language: object) -> str | None:
    """A lower-case BCP 47 tag with `-` separators (`en-us`), "auto" for None or "auto", or
    None for something that is not a string. Pipecat's `Language` is a `str` enum."""
    if language is None:
        return AUTO
    if not isinstance(language, str):
        return None
    return language.strip().lower().replace("_", "-") or AUTO


def iso_code(language: object) -> str | None:
    """The ISO 639-1 code of a known language (`en-GB` → `en`, `english` → `en`), "auto",
    or None when the language is unknown."""
    tag = language_tag(language)
    if tag is None or tag == AUTO:
        return tag
    if tag in _CODES_BY_NAME:
        return _CODES_BY_NAME[tag]
    base = tag.split("-", 1)[0]
    base = _CODES_BY_NAME.get(base, base)
    return base if base in QWEN3_LANGUAGES else None


def qwen3_language(language: object) -> object:
    """The Qwen3-TTS language id (`english`, "auto") for a known language; anything else
    (a dialect id such as `sichuan_dialect`, a typo) unchanged, for the model to judge."""
    code = iso_code(language)
    if code is None:
        return language
    return AUTO if code == AUTO else QWEN3_LANGUAGES[code]
