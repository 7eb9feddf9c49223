"""A checkpoint named by its Hugging Face Hub id, resolved offline from a Hub cache that holds the
tiny fixture: the id loads like the folder, in the model loader and in `Engine.from_pretrained`;
revisions pick refs and commits; a missing id says which one and why."""

from __future__ import annotations

from pathlib import Path

import huggingface_hub.constants
import pytest
from hub_cache import COMMIT, lay_out_hub_cache

from engine import Engine
from engine.model import CheckpointError, load_model

REPO_ID = "voice-tts-tests/Qwen3-TTS-tiny-CustomVoice"


@pytest.fixture
def offline_cache(tmp_path: Path, monkeypatch, tiny_checkpoint: Path) -> Path:
    """`HF_HUB_CACHE` and `HF_HUB_OFFLINE=1` as this process's huggingface_hub read them at import."""
    lay_out_hub_cache(tmp_path, REPO_ID, tiny_checkpoint, refs=("main", "v1"))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    return tmp_path


def test_a_hub_id_loads_from_the_cache_like_its_folder(offline_cache, tiny_checkpoint):
    by_id = load_model(REPO_ID)
    by_folder = load_model(tiny_checkpoint)
    assert by_id.config == by_folder.config
    ids = by_id.tokenizer.assistant_ids("Hello world.")
    assert ids == by_folder.tokenizer.assistant_ids("Hello world.")
    assert (by_id.talker.codec_embedding == by_folder.talker.codec_embedding).all()


@pytest.mark.parametrize("revision", ["v1", COMMIT])
def test_a_revision_picks_a_ref_or_a_commit(offline_cache, revision):
    assert load_model(REPO_ID, revision=revision).config.tts_model_type == "custom_voice"


async def test_engine_from_pretrained_takes_a_hub_id(offline_cache):
    engine = Engine.from_pretrained(REPO_ID, device="cpu", max_streams=1)
    try:
        assert engine.capabilities()["model"] == "Qwen3-TTS-12Hz-1.7B-CustomVoice"
        assert "ryan" in [voice.name for voice in engine.voices]
    finally:
        await engine.aclose()


def test_an_id_missing_offline_is_named_in_the_error(offline_cache):
    with pytest.raises(CheckpointError) as error:
        load_model("Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice")
    message = str(error.value)
    assert message.startswith("Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice: not in the Hugging Face cache")
    assert "HF_HUB_OFFLINE is set" in message and str(offline_cache) in message


def test_a_missing_revision_offline_is_named_in_the_error(offline_cache):
    with pytest.raises(CheckpointError, match=rf"{REPO_ID} \(revision v2\): not in the Hugging Face cache"):
        load_model(REPO_ID, revision="v2")


def test_a_revision_of_a_local_folder_is_refused(tiny_checkpoint):
    with pytest.raises(CheckpointError, match="names a Hub revision, but this is a local folder"):
        load_model(tiny_checkpoint, revision="main")


@pytest.mark.parametrize("name", ["./no/such/folder", "a/b/c", "nowhere"])
def test_neither_a_folder_nor_a_hub_id(name):
    with pytest.raises(CheckpointError, match="checkpoint folder does not exist"):
        load_model(name)
