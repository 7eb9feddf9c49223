"""The per-step API: prefill reports a KV cache overflow. (Batched frame steps over golden cases
are the runtime's tests: tests/unit/test_runtime_engine.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from engine.model import load_model
from engine.model.steps import prefill
from engine.model.talker import KVCache

@pytest.fixture(scope="module")
def model(tiny_checkpoint: Path):
    return load_model(tiny_checkpoint)


@torch.inference_mode()
def test_kv_cache_overflow_is_reported(model):
    cache = KVCache.allocate(model.config.talker.layers, num_slots=1, max_len=4, device="cpu", dtype=model.dtype)
    rows = torch.zeros(5, model.config.talker.layers.hidden_size)
    with pytest.raises(ValueError, match="beyond the KV cache length 4"):
        prefill(model, rows, cache, 0)
