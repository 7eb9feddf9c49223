"""The loader reads an official checkpoint folder and rejects broken ones with clear messages."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from engine.model import CheckpointError, load_model


def clone(src: Path, dst: Path) -> Path:
    """A checkpoint folder whose files are symlinks to `src` (golden/ left out); tests replace the
    files they corrupt."""
    for path in src.rglob("*"):
        rel = path.relative_to(src)
        if rel.parts[0] == "golden" or path.is_dir():
            continue
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        (dst / rel).symlink_to(path)
    return dst


def replace(path: Path, content: bytes | str) -> None:
    path.unlink()
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)


def rewrite_config(folder: Path, edit) -> None:
    file = folder / "config.json"
    data = json.loads(file.read_text())
    edit(data)
    replace(file, json.dumps(data))


def rewrite_weights(folder: Path, edit, name: str = "model.safetensors") -> None:
    file = folder / name
    tensors = load_file(file)
    edit(tensors)
    file.unlink()
    save_file(tensors, file)


@pytest.fixture
def folder(tiny_checkpoint: Path, tmp_path: Path) -> Path:
    return clone(tiny_checkpoint, tmp_path / "ckpt")


def test_loads_the_fixture(tiny_checkpoint):
    model = load_model(tiny_checkpoint)
    assert model.dtype == torch.float32 and model.device.type == "cpu"
    assert model.config.talker.layers.num_kv_heads == 2  # from the file, not a class default
    assert model.config.codec.sliding_window == 16
    assert model.generation_config["max_new_tokens"] == 8192
    assert model.talker.codec_head.dtype == torch.float32


def test_loads_in_bfloat16(tiny_checkpoint):
    model = load_model(tiny_checkpoint, dtype=torch.bfloat16)
    assert model.talker.codec_head.dtype == torch.bfloat16
    assert model.codec.codebooks.dtype == torch.bfloat16
    assert model.tts_pad_embed.dtype == torch.bfloat16


def test_missing_tensor(folder):
    rewrite_weights(folder, lambda t: t.pop("talker.model.norm.weight"))
    with pytest.raises(CheckpointError, match=r"missing tensor\(s\): talker\.model\.norm\.weight"):
        load_model(folder)


def test_unexpected_tensor(folder):
    rewrite_weights(folder, lambda t: t.update({"talker.extra.weight": torch.zeros(2)}))
    with pytest.raises(CheckpointError, match=r"unexpected tensor\(s\): talker\.extra\.weight"):
        load_model(folder)


def test_wrong_shape(folder):
    rewrite_weights(folder, lambda t: t.update({"talker.codec_head.weight": torch.zeros(3072, 63)}))
    with pytest.raises(
        CheckpointError, match=r"shape mismatch: talker\.codec_head\.weight expected \[3072, 64\] found \[3072, 63\]"
    ):
        load_model(folder)


def test_integer_tensor(folder):
    rewrite_weights(folder, lambda t: t.update({"talker.model.norm.weight": torch.zeros(64, dtype=torch.int64)}))
    with pytest.raises(CheckpointError, match=r"not floating point: talker\.model\.norm\.weight \(I64\)"):
        load_model(folder)


def test_truncated_weights(folder, tiny_checkpoint):
    data = (tiny_checkpoint / "model.safetensors").read_bytes()
    replace(folder / "model.safetensors", data[: len(data) // 2])
    with pytest.raises(CheckpointError, match=r"model\.safetensors: not a readable safetensors file, possibly truncated"):
        load_model(folder)


def test_truncated_codec_weights(folder, tiny_checkpoint):
    data = (tiny_checkpoint / "speech_tokenizer" / "model.safetensors").read_bytes()
    replace(folder / "speech_tokenizer" / "model.safetensors", data[:100])
    with pytest.raises(CheckpointError, match=r"speech_tokenizer/model\.safetensors: not a readable safetensors file"):
        load_model(folder)


@pytest.mark.parametrize(
    "name", ["config.json", "merges.txt", "vocab.json", "generation_config.json", "speech_tokenizer/config.json"]
)
def test_missing_file(folder, name):
    (folder / name).unlink()
    with pytest.raises(CheckpointError, match=rf"missing file\(s\): {name}"):
        load_model(folder)


def test_missing_weights_files(folder):
    (folder / "model.safetensors").unlink()
    (folder / "speech_tokenizer" / "model.safetensors").unlink()
    with pytest.raises(CheckpointError, match=r"missing file\(s\): model\.safetensors, speech_tokenizer/model\.safetensors"):
        load_model(folder)


def test_not_a_folder(tmp_path):
    with pytest.raises(CheckpointError, match="does not exist"):
        load_model(tmp_path / "nowhere")


def test_wrong_model_type(folder):
    rewrite_config(folder, lambda c: c.update(model_type="llama"))
    with pytest.raises(CheckpointError, match=r"config\.json: model_type is 'llama', expected 'qwen3_tts'"):
        load_model(folder)


def test_base_checkpoint_without_its_encoders_is_refused(folder):
    """A CustomVoice folder relabelled `base`: the speaker encoder tensors are missing."""
    rewrite_config(folder, lambda c: c.update(tts_model_type="base"))
    with pytest.raises(CheckpointError, match=r"missing tensor\(s\): speaker_encoder\.blocks\.0\.conv\.weight"):
        load_model(folder)


def test_base_checkpoint_loads_its_encoders(base_checkpoint):
    model = load_model(base_checkpoint)
    assert model.config.supports_cloning and not model.config.supports_instruct
    assert model.speaker_encoder is not None and model.codec_encoder is not None
    assert model.config.speaker_encoder.enc_dim == model.config.talker.layers.hidden_size == 48


def test_wrong_codec_type(folder):
    file = folder / "speech_tokenizer" / "config.json"
    data = json.loads(file.read_text())
    data["model_type"] = "qwen3_tts_tokenizer_25hz"
    replace(file, json.dumps(data))
    with pytest.raises(CheckpointError, match=r"speech_tokenizer/config\.json: model_type is 'qwen3_tts_tokenizer_25hz'"):
        load_model(folder)


def test_missing_config_field(folder):
    rewrite_config(folder, lambda c: c["talker_config"].pop("num_key_value_heads"))
    with pytest.raises(CheckpointError, match=r"field 'talker_config\.num_key_value_heads' is missing"):
        load_model(folder)


def test_config_field_of_the_wrong_type(folder):
    rewrite_config(folder, lambda c: c["talker_config"].update(hidden_size="64"))
    with pytest.raises(CheckpointError, match=r"'talker_config\.hidden_size' has value '64', expected an integer"):
        load_model(folder)


def test_config_disagreeing_with_weights(folder):
    rewrite_config(folder, lambda c: c["talker_config"].update(intermediate_size=96))
    with pytest.raises(CheckpointError, match=r"mlp\.gate_proj\.weight expected \[96, 64\] found \[128, 64\]"):
        load_model(folder)


def test_broken_json(folder):
    replace(folder / "generation_config.json", "{not json")
    with pytest.raises(CheckpointError, match=r"generation_config\.json: not valid JSON"):
        load_model(folder)


def shard(folder: Path, tiny_checkpoint: Path) -> None:
    tensors = load_file(tiny_checkpoint / "model.safetensors")
    keys = sorted(tensors)
    halves = {"model-00001-of-00002.safetensors": keys[::2], "model-00002-of-00002.safetensors": keys[1::2]}
    weight_map = {}
    for name, part in halves.items():
        save_file({k: tensors[k].to(torch.bfloat16) for k in part}, folder / name)
        weight_map |= {k: name for k in part}
    (folder / "model.safetensors").unlink()
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))


def test_sharded_bfloat16_weights_load(folder, tiny_checkpoint):
    shard(folder, tiny_checkpoint)
    model = load_model(folder)
    reference = load_file(tiny_checkpoint / "model.safetensors")["talker.codec_head.weight"]
    assert model.talker.codec_head.dtype == torch.float32
    torch.testing.assert_close(model.talker.codec_head, reference.to(torch.bfloat16).float())


def test_missing_shard(folder, tiny_checkpoint):
    shard(folder, tiny_checkpoint)
    (folder / "model-00002-of-00002.safetensors").unlink()
    with pytest.raises(CheckpointError, match=r"shard file\(s\) missing: model-00002-of-00002\.safetensors"):
        load_model(folder)


def test_copy_of_a_folder_loads(folder, tiny_checkpoint, tmp_path):
    real = tmp_path / "copy"
    shutil.copytree(folder, real, symlinks=False)
    assert load_model(real).config == load_model(tiny_checkpoint).config


def test_tensors_inference_never_reads_are_skipped(folder):
    rewrite_weights(folder, lambda t: t.update({
        "speaker_encoder.fc.weight": torch.zeros(4, 4, 1),
        "talker.model.rotary_emb.inv_freq": torch.zeros(8),
    }))
    assert load_model(folder).config.tts_model_type == "custom_voice"
