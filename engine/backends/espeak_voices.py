"""Which eSpeak NG voice speaks a piece: the product's voice and language names mapped onto
eSpeak language voices and variants, with "auto" choosing by the script of the text."""

from __future__ import annotations

from dataclasses import dataclass

from voice_tts.languages import iso_code
from voice_tts.protocol import ErrorCode


@dataclass(frozen=True)
class VoiceInfo:
    name: str
    gender: str
    description: str


@dataclass(frozen=True)
class LanguageInfo:
    code: str
    name: str
    espeak_voice: str
    aliases: tuple[str, ...]


VOICES: dict[str, tuple[VoiceInfo, str | None]] = {
    info.name: (info, variant)
    for info, variant in [
        (VoiceInfo("default", "male", "eSpeak NG's standard voice for the language"), None),
        (VoiceInfo("male", "male", "a lower, fuller male voice"), "m3"),
        (VoiceInfo("female", "female", "a female voice"), "f3"),
        (VoiceInfo("whisper", "male", "a whispered voice"), "whisper"),
    ]
}

# The Qwen3-TTS preset speakers, so that code written for the GPU server runs unchanged here.
VOICE_ALIASES = {
    **dict.fromkeys(("ryan", "aiden", "dylan", "eric", "uncle_fu"), "male"),
    **dict.fromkeys(("vivian", "serena", "ono_anna", "sohee"), "female"),
}

LANGUAGES: tuple[LanguageInfo, ...] = (
    LanguageInfo("en", "English", "gmw/en-US", ("english", "en-us", "american english")),
    LanguageInfo("en-gb", "British English", "gmw/en", ("british english", "british", "en-uk")),
    LanguageInfo("zh", "Chinese", "sit/cmn", ("chinese", "mandarin", "cmn", "zh-cn", "zh-hans")),
    LanguageInfo("ja", "Japanese", "jpx/ja", ("japanese",)),
    LanguageInfo("ko", "Korean", "ko", ("korean",)),
    LanguageInfo("de", "German", "gmw/de", ("german",)),
    LanguageInfo("fr", "French", "roa/fr", ("french",)),
    LanguageInfo("ru", "Russian", "zle/ru", ("russian",)),
    LanguageInfo("pt", "Portuguese", "roa/pt-BR", ("portuguese", "pt-br")),
    LanguageInfo("es", "Spanish", "roa/es", ("spanish",)),
    LanguageInfo("it", "Italian", "roa/it", ("italian",)),
)
AUTO = "auto"
_BY_NAME = {
    key: lang for lang in LANGUAGES for key in (lang.code, lang.name.lower(), *lang.aliases)
}
_BY_CODE = {lang.code: lang for lang in LANGUAGES}


class VoiceNotFound(ValueError):
    code = ErrorCode.INVALID_VOICE


class LanguageNotSupported(ValueError):
    code = ErrorCode.UNSUPPORTED_LANGUAGE


def script_language(text: str) -> str | None:
    """The language code a script implies (kana before Han, since Japanese uses both), or
    None when `text` has no letters that say anything."""
    han = cyrillic = latin = False
    for ch in text:
        cp = ord(ch)
        if 0x3040 <= cp <= 0x30FF or 0x31F0 <= cp <= 0x31FF or 0xFF66 <= cp <= 0xFF9D:
            return "ja"
        if 0xAC00 <= cp <= 0xD7AF or 0x1100 <= cp <= 0x11FF or 0x3130 <= cp <= 0x318F:
            return "ko"
        if 0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0xF900 <= cp <= 0xFAFF or 0x20000 <= cp <= 0x2FFFF:
            han = True
        elif 0x0400 <= cp <= 0x04FF:
            cyrillic = True
        elif ch.isalpha():
            latin = True
    if han:
        return "zh"  # the Mandarin voice reads Latin words in English
    if cyrillic:
        return "ru"
    return "en" if latin else None


@dataclass(frozen=True)
class VoiceSelection:
    """A stream's voice: an eSpeak variant plus a fixed language, or AUTO."""

    voice: str
    variant: str | None
    language: str

    @classmethod
    def resolve(cls, voice: str | None, language: str | None) -> VoiceSelection:
        voice_key = (voice or "default").strip().lower() if isinstance(voice, (str, type(None))) else ""
        voice_key = VOICE_ALIASES.get(voice_key, voice_key)
        if voice_key not in VOICES:
            raise VoiceNotFound(
                f"unknown voice {voice!r}; available: {', '.join(VOICES)}"
                f" (or a Qwen3 preset name: {', '.join(VOICE_ALIASES)})"
            )
        language_key = (
            (language or AUTO).strip().lower().replace("_", "-")
            if isinstance(language, (str, type(None)))
            else ""
        )
        if language_key == AUTO:
            code = AUTO
        elif language_key in _BY_NAME:
            code = _BY_NAME[language_key].code
        elif (base := iso_code(language_key)) in _BY_CODE:  # en-AU, es-MX, zh-TW, ...
            code = base
        else:
            raise LanguageNotSupported(
                f"unsupported language {language!r}; use 'auto' or one of "
                + ", ".join(lang.code for lang in LANGUAGES)
            )
        return cls(voice_key, VOICES[voice_key][1], code)

    def language_for(self, text: str, previous: str | None) -> str:
        """The language that speaks `text`; with AUTO, text without telling letters keeps
        the previous piece's language."""
        if self.language != AUTO:
            return self.language
        return script_language(text) or previous or "en"

    def espeak_voice(self, language: str) -> str:
        base = _BY_CODE[language].espeak_voice
        return f"{base}+{self.variant}" if self.variant else base
