"""Language and voice names as people write them work the same on every engine: ISO codes,
BCP 47 tags, Pipecat's `Language`, LiveKit's strings, the Qwen3 ids; the embedded voice takes
the Qwen3 preset speakers' names."""

from __future__ import annotations

import pytest

from engine.backends.espeak_voices import VoiceSelection
from voice_tts.languages import iso_code, qwen3_language

SAME_LANGUAGE = {
    "en": ["en", "EN", "en-US", "en_us", "en-GB", "english", "English", " en-au "],
    "zh": ["zh", "zh-CN", "zh_TW", "chinese", "mandarin", "cmn"],
    "pt": ["pt", "pt-BR", "portuguese"],
    "es": ["es-MX", "spanish"],
}


@pytest.mark.parametrize("code", SAME_LANGUAGE)
def test_every_name_of_a_language_maps_to_its_code(code):
    for name in SAME_LANGUAGE[code]:
        assert iso_code(name) == code, name


def test_auto_unknown_and_non_strings():
    assert iso_code(None) == iso_code("auto") == iso_code("") == "auto"
    assert iso_code("klingon") is None and iso_code(3) is None
    # The Qwen3 model judges what is not a known language (its dialect ids, typos).
    assert qwen3_language("sichuan_dialect") == "sichuan_dialect"
    assert qwen3_language("en-GB") == "english" and qwen3_language("zh-CN") == "chinese"


def test_pipecat_languages_map_like_their_tags():
    from pipecat.transcriptions.language import Language

    assert iso_code(Language.EN_US) == iso_code(Language.EN_GB) == iso_code(Language.EN) == "en"
    assert iso_code(Language.ZH_CN) == iso_code(Language.CMN) == "zh"
    assert iso_code(Language.JA_JP) == "ja"


def test_the_embedded_voice_takes_tags_and_keeps_british_english():
    assert VoiceSelection.resolve(None, "en-US").language == "en"
    assert VoiceSelection.resolve(None, "en-GB").language == "en-gb"
    assert VoiceSelection.resolve(None, "es-MX").language == "es"
    assert VoiceSelection.resolve(None, "zh-CN").language == "zh"


def test_the_embedded_voice_takes_the_qwen3_preset_names():
    assert VoiceSelection.resolve("ryan", "en").voice == "male"
    assert VoiceSelection.resolve("Serena", None).voice == "female"
    with pytest.raises(ValueError, match="ryan"):
        VoiceSelection.resolve("nobody", None)


async def test_the_qwen3_engine_takes_iso_codes_and_tags(tiny_checkpoint):
    from engine.runtime.qwen3_engine import Qwen3Engine
    from voice_tts.protocol import Done, Error

    engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=2)
    try:
        for language in ("en", "en-US", "zh-CN", "english"):
            stream = engine.open_stream(voice="ryan", language=language, max_new_tokens=3)
            stream.push_text("Hi.")
            stream.end_input()
            events = [event async for event in stream.events()]
            assert not [e for e in events if isinstance(e, Error)], language
            assert isinstance(events[-1], Done)
        stream = engine.open_stream(voice="ryan", language="klingon")
        events = [event async for event in stream.events()]
        assert events[0].code == "unsupported_language" or events[0].code == "invalid_voice"
    finally:
        engine.close()
