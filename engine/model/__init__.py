"""Qwen3-TTS model code: checkpoint loading, talker, code predictor, codec decoder, prompt layout,
sampling, the per-step functions the runtime batches and the reference generator (`generate`)
runs at batch 1 (`steps`): both run the model's one forward. No scheduling lives here.

    config          what a checkpoint folder declares (config.json & co.)
    weight_layout   which tensors a checkpoint holds, and their shapes
    loader          folder -> Qwen3TTS on a device, with clear errors for broken folders
    text            text tokenizer (Qwen2 byte-level BPE) and streaming-stable cuts
    transformer     the one decoder-stack forward of talker, predictor and codec (PyTorch or kernels)
    talker          talker stack over an external slot-pool KV cache
    code_predictor  codebooks 1..15 of a frame
    codec           codec decoder, whole or streamed with per-stream state
    codec_encoder   reference audio -> reference codes (Mimi encoder; Base checkpoints)
    speaker_encoder reference audio -> x-vector (log-mel + ECAPA-TDNN; Base checkpoints)
    voice_clone     a cloned voice's prompt (x-vector, reference codes, transcript), made once
    prompt          the dual-track prompt layout and voice resolution
    sampling        sampling settings, logits processors, counter-based draws
    steps           prefill, talker step and frame prediction for the runtime and the generator
    generate        single-stream reference generation (what parity is checked with)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.model.errors import CheckpointError
    from engine.model.loader import load_model
    from engine.model.sampling import SamplingParams
    from engine.model.tts_model import Qwen3TTS

__all__ = ["CheckpointError", "Qwen3TTS", "SamplingParams", "load_model"]

# Each name loads its module on first use: an API worker reads a checkpoint's config and
# tokenizer (`config`, `text`) without paying for torch, which only the engine core runs.
_MODULES = {
    "CheckpointError": "engine.model.errors",
    "Qwen3TTS": "engine.model.tts_model",
    "SamplingParams": "engine.model.sampling",
    "load_model": "engine.model.loader",
}


def __getattr__(name: str):
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_MODULES[name]), name)
