"""The voice store: saves are atomic (a crash leaves no half-written voice), broken or foreign
folders never stop a start, and a saved voice comes back exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import soundfile as sf
import torch

import engine.voice_store as voice_store
from engine.model import load_model
from engine.model.voice_clone import make_clone_prompt
from engine.voice_store import VoiceStore


@pytest.fixture(scope="module")
def model(base_checkpoint: Path):
    return load_model(base_checkpoint)


@pytest.fixture(scope="module")
def prompt(model, base_checkpoint: Path):
    audio, rate = sf.read(base_checkpoint / "golden" / "ref_c.wav", dtype="float32")
    return make_clone_prompt(model, audio, rate, "A calm voice reads a short line.")


def test_a_saved_voice_comes_back_exactly(model, prompt, tmp_path):
    saved = VoiceStore(tmp_path, model).add("Calm", prompt, {"sample_rate": 24000, "seconds": 1.16}, "consent-7")
    loaded = VoiceStore(tmp_path, model).get("calm")
    assert (loaded.name, loaded.mode, loaded.created_at, loaded.consent) == ("Calm", "icl", saved.created_at, "consent-7")
    assert torch.equal(loaded.prompt.x_vector, prompt.x_vector)
    assert torch.equal(loaded.prompt.ref_codes, prompt.ref_codes)
    assert loaded.prompt.ref_ids == prompt.ref_ids and loaded.prompt.ref_text == prompt.ref_text


def test_a_crash_while_saving_leaves_no_voice(model, prompt, tmp_path, monkeypatch):
    def dies_halfway(tensors, path):
        Path(path).write_bytes(b"half a safetensors file")
        raise KeyboardInterrupt  # the process is being stopped mid-save

    monkeypatch.setattr(voice_store, "save_file", dies_halfway)
    store = VoiceStore(tmp_path, model)
    with pytest.raises(KeyboardInterrupt):
        store.add("calm", prompt, {})
    assert store.list() == [] and list(tmp_path.iterdir()) == []


def test_a_killed_save_is_cleaned_up_at_the_next_start(model, prompt, tmp_path):
    """A process killed between writing and renaming leaves a hidden temporary folder only."""
    VoiceStore(tmp_path, model).add("kept", prompt, {})
    leftover = tmp_path / ".tmp-calm-1234abcd"
    leftover.mkdir()
    (leftover / "voice.json").write_text(json.dumps({"id": "calm"}))
    store = VoiceStore(tmp_path, model)
    assert [v.id for v in store.list()] == ["kept"]
    assert not leftover.exists()
    store.add("calm", prompt, {})  # the name is free
    assert sorted(v.id for v in VoiceStore(tmp_path, model).list()) == ["calm", "kept"]


def test_broken_and_foreign_voices_do_not_stop_a_start(model, prompt, tmp_path, caplog):
    VoiceStore(tmp_path, model).add("good", prompt, {})
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "voice.json").write_text("{not json")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    meta = json.loads((tmp_path / "good" / "voice.json").read_text())
    meta.update(id="foreign", checkpoint={**meta["checkpoint"], "hidden_size": 2048})
    (foreign / "voice.json").write_text(json.dumps(meta))
    with caplog.at_level("WARNING"):
        store = VoiceStore(tmp_path, model)
    assert [v.id for v in store.list()] == ["good"]
    assert "skipping voice folder" in caplog.text and "broken" in caplog.text
    with pytest.raises(ValueError, match="cannot be spoken by this checkpoint: it was made with a base \\(hidden 2048\\)"):
        store.get("foreign")
    with pytest.raises(ValueError, match="already exists"):
        store.add("Foreign", prompt, {})
