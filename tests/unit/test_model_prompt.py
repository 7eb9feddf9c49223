"""Voice resolution and prompt rows (speaker presets, dialect remap, languages, instruct)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import torch

from engine.model import load_model, prompt
from engine.model.prompt import Voice


@pytest.fixture(scope="module")
def model(tiny_checkpoint: Path):
    return load_model(tiny_checkpoint)


@pytest.mark.parametrize(
    "speaker, language, expected",
    [
        ("Ryan", "English", [2154, 2156, 2050, 2157, 3061, 2148, 2149]),
        ("Eric", "Auto", [2154, 2156, 2062, 2157, 2875, 2148, 2149]),  # auto -> sichuan dialect
        ("Eric", "chinese", [2154, 2156, 2062, 2157, 2875, 2148, 2149]),
        ("Eric", "English", [2154, 2156, 2050, 2157, 2875, 2148, 2149]),  # no remap for English
        ("Dylan", "Chinese", [2154, 2156, 2074, 2157, 2878, 2148, 2149]),  # beijing dialect
        ("Aiden", "Auto", [2155, 2156, 2157, 2861, 2148, 2149]),  # nothink, no language row
        (None, "Auto", [2155, 2156, 2157, 2148, 2149]),
    ],
)
def test_codec_prefix(model, speaker, language, expected):
    assert Voice.resolve(model.config, speaker, language, None).codec_prefix_ids(model.config) == expected


def test_languages_are_auto_plus_non_dialects(model):
    assert model.languages[0] == "auto"
    assert "english" in model.languages and not any("dialect" in lang for lang in model.languages)
    assert sorted(model.speakers) == sorted(
        ["serena", "vivian", "uncle_fu", "ryan", "aiden", "ono_anna", "sohee", "eric", "dylan"]
    )


def test_unknown_speaker_and_language_are_named(model):
    with pytest.raises(ValueError, match="unknown speaker 'bob'.*ryan"):
        Voice.resolve(model.config, "bob", "english", None)
    with pytest.raises(ValueError, match="unsupported language 'klingon'"):
        Voice.resolve(model.config, "ryan", "klingon", None)
    with pytest.raises(ValueError, match="unsupported language 'sichuan_dialect'"):
        Voice.resolve(model.config, "eric", "sichuan_dialect", None)


def test_instruct_on_a_small_custom_voice_model_is_ignored_with_a_warning(model, caplog):
    small = dataclasses.replace(model.config, tts_model_size="0b6")
    assert not small.supports_instruct
    with caplog.at_level("WARNING", logger="engine.model.prompt"):
        assert Voice.resolve(small, "ryan", "english", "Speak slowly.").instruct is None
    assert "ignoring the instruct" in caplog.text
    assert Voice.resolve(model.config, "ryan", "english", "Speak slowly.").instruct == "Speak slowly."


def test_prefix_rows_layout(model):
    voice = Voice.resolve(model.config, "ryan", "english", None)
    ids = voice.codec_prefix_ids(model.config)
    rows = prompt.prefix_rows(model, ids, None)
    assert rows.shape == (3 + len(ids) - 1, model.config.talker.layers.hidden_size)
    talker = model.talker
    role = talker.project_text(torch.tensor(model.tokenizer.role_ids))
    torch.testing.assert_close(rows[:3], role)
    torch.testing.assert_close(rows[3], model.tts_pad_embed + talker.embed_codec(torch.tensor(ids[0])))
    torch.testing.assert_close(rows[-1], model.tts_bos_embed + talker.embed_codec(torch.tensor(ids[-2])))
    instruct_ids = model.tokenizer.instruct_ids("Speak slowly.")
    with_instruct = prompt.prefix_rows(model, ids, instruct_ids)
    assert with_instruct.shape[0] == rows.shape[0] + len(instruct_ids)
    torch.testing.assert_close(with_instruct[len(instruct_ids) :], rows)


def test_tails(model):
    c = model.config.talker
    codec = prompt.codec_rows(model, Voice.resolve(model.config, "ryan", "english", None))
    assert codec.shape[0] == 1
    tail = prompt.streaming_head(model, [292, 639], codec, text_ended=False)
    assert tail.shape[0] == 1
    torch.testing.assert_close(
        tail[0], model.talker.project_text(torch.tensor(292)) + model.talker.embed_codec(torch.tensor(c.codec_bos_id))
    )
    rows = prompt.non_streaming_rows(model, [292, 639, 13], codec)
    assert rows.shape[0] == 3 + 2
    torch.testing.assert_close(rows[3], model.tts_eos_embed + model.talker.embed_codec(torch.tensor(c.codec_pad_id)))
    torch.testing.assert_close(rows[4], model.tts_pad_embed + model.talker.embed_codec(torch.tensor(c.codec_bos_id)))
