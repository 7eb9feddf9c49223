"""Weight layout at full size, and the random-checkpoint writer round-tripping through the loader."""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
from pathlib import Path

import pytest
import torch

from engine.model import SamplingParams, load_model
from engine.model.config import read_config
from engine.model.generate import synthesize
from engine.model.weight_layout import codec_encoder_shapes, codec_shapes, model_shapes

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("make_random_checkpoint", REPO_ROOT / "bench" / "make_random_checkpoint.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def millions(shapes: dict, prefix: str = "") -> float:
    return sum(math.prod(shape) for key, shape in shapes.items() if key.startswith(prefix)) / 1e6


@pytest.mark.parametrize(
    "size, total, talker_layers, predictor",
    # parameter counts of the official classes (spec section 1), without the Base-only speaker encoder
    [("1.7b", 1916.7, 1409.4, 175.1), ("0.6b", 905.8, 440.5, 141.6)],
)
def test_full_size_layout_matches_the_published_parameter_counts(bench, tmp_path, size, total, talker_layers, predictor):
    (tmp_path / "speech_tokenizer").mkdir()
    (tmp_path / "config.json").write_text(json.dumps(bench.model_config(size)))
    (tmp_path / "speech_tokenizer" / "config.json").write_text(json.dumps(bench.CODEC_CONFIG))
    config = read_config(tmp_path)
    shapes = model_shapes(config)
    assert millions(shapes) == pytest.approx(total, abs=0.1)
    assert millions(shapes, "talker.model.layers.") == pytest.approx(talker_layers, abs=0.1)
    assert millions(shapes, "talker.code_predictor.") == pytest.approx(predictor, abs=0.1)
    assert millions(shapes, "talker.model.text_embedding") == pytest.approx(311.2, abs=0.1)
    assert ("talker.code_predictor.small_to_mtp_projection.weight" in shapes) == (size == "1.7b")
    # decoder 114.3 M in the spec counts the encode-only input projections (2 x 256 x 512)
    assert millions(codec_shapes(config.codec)) + 2 * 256 * 512 / 1e6 == pytest.approx(114.3, abs=0.1)
    assert config.talker.speaker_dialects["eric"] == "sichuan_dialect"


@pytest.mark.parametrize("size, total, speaker_encoder", [("1.7b", 1928.7, 12.0), ("0.6b", 914.6, 8.9)])
def test_base_layout_matches_the_published_parameter_counts(bench, tmp_path, size, total, speaker_encoder):
    """Base checkpoints add the ECAPA speaker encoder (class defaults, enc_dim = talker hidden)
    and the Mimi encoder; the totals are the official classes' (spec section 1)."""
    (tmp_path / "speech_tokenizer").mkdir()
    (tmp_path / "config.json").write_text(json.dumps(bench.model_config(size, "base")))
    (tmp_path / "speech_tokenizer" / "config.json").write_text(json.dumps(bench.CODEC_CONFIG))
    config = read_config(tmp_path)
    shapes = model_shapes(config)
    assert millions(shapes) == pytest.approx(total, abs=0.1)
    assert millions(shapes, "speaker_encoder.") == pytest.approx(speaker_encoder, abs=0.1)
    assert config.languages == ["auto", "chinese", "english", "german", "italian", "portuguese", "spanish",
                                "japanese", "korean", "french", "russian"]
    assert 50 < millions(codec_encoder_shapes(config.codec_encoder)) < 60  # Mimi's encoder, "about 56 M"


def test_random_weights_round_trip_through_the_loader(bench, tiny_checkpoint, tmp_path):
    folder = tmp_path / "random"
    (folder / "speech_tokenizer").mkdir(parents=True)
    for path in tiny_checkpoint.glob("*.json"):
        shutil.copyfile(path, folder / path.name)
    shutil.copyfile(tiny_checkpoint / "merges.txt", folder / "merges.txt")
    shutil.copyfile(tiny_checkpoint / "speech_tokenizer" / "config.json", folder / "speech_tokenizer" / "config.json")
    config = read_config(folder)
    bench.write_weights(folder, model_shapes(config), 2, "cpu", torch.bfloat16, seed=0)
    bench.write_weights(folder / "speech_tokenizer", codec_shapes(config.codec), 1, "cpu", torch.bfloat16, seed=1)
    assert (folder / "model.safetensors.index.json").is_file()
    model = load_model(folder)
    result, wav = synthesize(model, "Hello world.", speaker="vivian", max_new_tokens=4, sampling=SamplingParams(seed=1))
    assert result.codes.shape[1] == 16 and len(result.codes) <= 3
    assert torch.isfinite(wav).all() and wav.shape == (len(result.codes) * 1920,)
