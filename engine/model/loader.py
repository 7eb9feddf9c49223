"""Loading an official Qwen3-TTS checkpoint folder (or a Hugging Face Hub id: `hub`) onto a device.

Layout (as published on the Hugging Face hub):

    config.json, generation_config.json
    model.safetensors | model.safetensors.index.json + shards     talker + code predictor
    vocab.json, merges.txt, tokenizer_config.json                  text tokenizer
    speech_tokenizer/config.json
    speech_tokenizer/model.safetensors (or sharded)                codec (decoder; encoder for base)

Base (voice-cloning) checkpoints also carry the speaker encoder in `model.safetensors` and need
the codec's Mimi encoder; other checkpoints skip both.

Before any tensor is read, every file is checked and every tensor's name and shape is compared
with what the config implies (`weight_layout`), so a wrong or damaged folder fails fast with a
message naming the file and tensor. Tensors are then read one at a time straight onto the
target device (safetensors `safe_open` with `device=`) and cast to the target dtype there: no
float32 copy of the whole model is ever built on the CPU.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open
from tqdm import tqdm

from engine.model.code_predictor import CodePredictor
from engine.model.codec import CodecDecoder
from engine.model.config import read_config, read_generation_config
from engine.model.errors import CheckpointError
from engine.model.hub import checkpoint_folder
from engine.model.talker import Talker
from engine.model.text import TOKENIZER_FILES, Split, TextTokenizer
from engine.model.tts_model import Qwen3TTS
from engine.model.codec_encoder import CodecEncoder
from engine.model.speaker_encoder import SpeakerEncoder
from engine.model.weight_layout import (
    Shapes,
    codec_encoder_shapes,
    codec_shapes,
    is_unused_codec_tensor,
    is_unused_model_tensor,
    model_shapes,
)

_FLOAT_DTYPES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2}
_PROGRESS_MIN_BYTES = 256 * 2**20
_LISTED = 5


@dataclass(frozen=True)
class _TensorInfo:
    file: Path
    shape: tuple[int, ...]
    dtype: str


def default_dtype(device: torch.device) -> torch.dtype:
    return torch.bfloat16 if device.type == "cuda" else torch.float32


def load_model(
    folder: str | Path,
    device: str | torch.device = "cpu",
    dtype: torch.dtype | None = None,
    *,
    split: Split = "official",
    progress: bool | None = None,
    revision: str | None = None,
) -> Qwen3TTS:
    """Load a checkpoint folder, or the Hub repository `folder` names (such as
    "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice") at `revision`. dtype defaults to bfloat16 on CUDA and
    float32 elsewhere; progress=None shows a progress bar only for large loads."""
    folder = checkpoint_folder(folder, revision)
    _check_files(folder)
    device = torch.device(device)
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    dtype = dtype or default_dtype(device)
    config = read_config(folder)
    generation_config = read_generation_config(folder)
    tokenizer = TextTokenizer(folder, config, split)

    cloning = config.supports_cloning
    model_tensors = _inspect(_weight_files(folder), model_shapes(config), ignore=lambda key: is_unused_model_tensor(key, cloning))
    codec_expected = codec_shapes(config.codec)
    if config.codec_encoder is not None:
        codec_expected |= codec_encoder_shapes(config.codec_encoder)
    codec_tensors = _inspect(
        _weight_files(folder / "speech_tokenizer"), codec_expected, ignore=lambda key: is_unused_codec_tensor(key, cloning)
    )
    total = sum(_nbytes(info) for info in (*model_tensors.values(), *codec_tensors.values()))
    show = progress if progress is not None else total >= _PROGRESS_MIN_BYTES
    with tqdm(total=total, unit="B", unit_scale=True, desc=f"loading {folder.name}", disable=not show) as bar:
        weights = _read(model_tensors, device, dtype, bar)
        codec_weights = _read(codec_tensors, device, dtype, bar)
    return Qwen3TTS(
        config=config,
        generation_config=generation_config,
        tokenizer=tokenizer,
        talker=Talker(config.talker, weights, device),
        code_predictor=CodePredictor(config.code_predictor, weights, device),
        codec=CodecDecoder(config.codec, codec_weights, device, dtype),
        device=device,
        dtype=dtype,
        speaker_encoder=SpeakerEncoder(config.speaker_encoder, weights) if config.speaker_encoder else None,
        codec_encoder=CodecEncoder(config.codec_encoder, codec_weights, device) if config.codec_encoder else None,
    )


def _check_files(folder: Path) -> None:
    required = ["config.json", "generation_config.json", *TOKENIZER_FILES, "speech_tokenizer/config.json"]
    missing = [name for name in required if not (folder / name).is_file()]
    for weights_folder in (folder, folder / "speech_tokenizer"):
        if not any((weights_folder / name).is_file() for name in ("model.safetensors", "model.safetensors.index.json")):
            missing.append(str((weights_folder / "model.safetensors").relative_to(folder)))
    if missing:
        raise CheckpointError(f"{folder}: missing file(s): {', '.join(missing)}")


def _weight_files(folder: Path) -> list[Path]:
    """The safetensors files of one weights folder: the shards named by the index, or the single file."""
    index = folder / "model.safetensors.index.json"
    if not index.is_file():
        return [folder / "model.safetensors"]
    try:
        weight_map = json.loads(index.read_text(encoding="utf-8"))["weight_map"]
    except (json.JSONDecodeError, KeyError, TypeError) as e:
        raise CheckpointError(f"{index}: not a safetensors index with a 'weight_map' ({e})") from e
    shards = sorted(set(weight_map.values()))
    missing = [name for name in shards if not (folder / name).is_file()]
    if missing:
        raise CheckpointError(f"{index}: shard file(s) missing: {', '.join(missing)}")
    return [folder / name for name in shards]


def _inspect(files: list[Path], expected: Shapes, ignore: Callable[[str], bool]) -> dict[str, _TensorInfo]:
    """Names, shapes and dtypes of every tensor, checked against `expected` before any data is read."""
    found: dict[str, _TensorInfo] = {}
    for file in files:
        try:
            with safe_open(file, framework="pt") as f:
                for key in f.keys():
                    if ignore(key):
                        continue
                    if key in found:
                        raise CheckpointError(f"{file}: tensor {key} also appears in {found[key].file.name}")
                    piece = f.get_slice(key)
                    found[key] = _TensorInfo(file, tuple(piece.get_shape()), piece.get_dtype())
        except SafetensorError as e:
            raise CheckpointError(f"{file}: not a readable safetensors file, possibly truncated ({e})") from e
    where = files[0].parent
    problems = []
    missing = [key for key in expected if key not in found]
    if missing:
        problems.append(f"missing tensor(s): {_listing(missing)}")
    unexpected = [key for key in found if key not in expected]
    if unexpected:
        problems.append(f"unexpected tensor(s): {_listing(unexpected)}")
    mismatched = [
        f"{key} expected {list(expected[key])} found {list(info.shape)} (in {info.file.name})"
        for key, info in found.items()
        if key in expected and info.shape != expected[key]
    ]
    if mismatched:
        problems.append(f"shape mismatch: {_listing(mismatched)}")
    not_float = [f"{key} ({info.dtype})" for key, info in found.items() if info.dtype not in _FLOAT_DTYPES]
    if not_float:
        problems.append(f"tensor(s) not floating point: {_listing(not_float)}")
    if problems:
        raise CheckpointError(f"{where}: weights do not match config.json: " + "; ".join(problems))
    return found


def _listing(items: list[str]) -> str:
    more = f" ... and {len(items) - _LISTED} more" if len(items) > _LISTED else ""
    return ", ".join(items[:_LISTED]) + more


def _nbytes(info: _TensorInfo) -> int:
    count = 1
    for dim in info.shape:
        count *= dim
    return count * _FLOAT_DTYPES[info.dtype]


def _read(tensors: dict[str, _TensorInfo], device: torch.device, dtype: torch.dtype, bar: tqdm) -> dict[str, torch.Tensor]:
    by_file: dict[Path, list[str]] = {}
    for key, info in tensors.items():
        by_file.setdefault(info.file, []).append(key)
    out = {}
    # Non-CPU devices receive each tensor directly; casting then happens on the device.
    target = str(device)
    for file, keys in by_file.items():
        try:
            with safe_open(file, framework="pt", device=target) as f:
                for key in keys:
                    out[key] = f.get_tensor(key).to(device=device, dtype=dtype)
                    bar.update(_nbytes(tensors[key]))
        except SafetensorError as e:
            raise CheckpointError(f"{file}: failed reading tensor data ({e})") from e
    return out
