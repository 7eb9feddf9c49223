"""The talker: text/codec input embeddings, the Qwen3 decoder stack over an external KV cache,
and the codebook-0 head.

Cache layout (owned by the caller, typically the runtime's slot pool):
`KVCache.k` / `KVCache.v` are [layers, slots, kv_heads, max_len, head_dim]. A stream lives in one
slot; its token at position p (= its RoPE position = the number of rows before it) is stored at
index p. `Talker.forward` takes B rows of T new tokens each, the slot of every row and the
position of every new token, so streams at different lengths share one call: each query attends
to keys 0..its own position of its own slot and nothing else (stale entries past a stream's length
are masked out).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from engine.model.config import TalkerConfig, TransformerConfig
from engine.model.transformer import DecoderLayer, Rotary, rms_norm, sdpa


@dataclass
class KVCache:
    k: Tensor  # [layers, slots, kv_heads, max_len, head_dim]
    v: Tensor

    @classmethod
    def allocate(
        cls, cfg: TransformerConfig, num_slots: int, max_len: int, device: torch.device | str, dtype: torch.dtype
    ) -> KVCache:
        shape = (cfg.num_layers, num_slots, cfg.num_kv_heads, max_len, cfg.head_dim)
        return cls(torch.zeros(shape, device=device, dtype=dtype), torch.zeros(shape, device=device, dtype=dtype))

    @property
    def num_slots(self) -> int:
        return self.k.shape[1]

    @property
    def max_len(self) -> int:
        return self.k.shape[3]


class Talker:
    def __init__(self, cfg: TalkerConfig, w: Mapping[str, Tensor], device: torch.device) -> None:
        self.cfg = cfg
        self.text_embedding = w["talker.model.text_embedding.weight"]
        self.codec_embedding = w["talker.model.codec_embedding.weight"]
        self.fc1_w = w["talker.text_projection.linear_fc1.weight"]
        self.fc1_b = w["talker.text_projection.linear_fc1.bias"]
        self.fc2_w = w["talker.text_projection.linear_fc2.weight"]
        self.fc2_b = w["talker.text_projection.linear_fc2.bias"]
        self.layers = [
            DecoderLayer.from_weights(cfg.layers, w, f"talker.model.layers.{i}.") for i in range(cfg.layers.num_layers)
        ]
        self.norm = w["talker.model.norm.weight"]
        self.codec_head = w["talker.codec_head.weight"]
        self.rotary = Rotary(cfg.layers.head_dim, cfg.layers.rope_theta, device)

    def project_text(self, ids: Tensor) -> Tensor:
        """P(ids): text embedding through the resize MLP -> [..., hidden]."""
        x = F.embedding(ids, self.text_embedding)
        return F.linear(F.silu(F.linear(x, self.fc1_w, self.fc1_b)), self.fc2_w, self.fc2_b)

    def embed_codec(self, ids: Tensor) -> Tensor:
        """C(ids): codec-vocab embedding (codebook-0 codes, control, language and speaker ids)."""
        return F.embedding(ids, self.codec_embedding)

    def forward(
        self, x: Tensor, cache: KVCache, slots: Tensor | int, positions: Tensor, kv_len: int | None = None
    ) -> Tensor:
        """Run new tokens through the stack, writing their keys/values into the cache.

        x [B, T, hidden]; slots [B] int64 (or one int when B == 1); positions [B, T] int64.
        kv_len: how many cache positions to attend over (>= max position + 1); computed from
        `positions` when omitted, which costs a device sync.
        Returns the post-final-norm hidden states [B, T, hidden].
        """
        if kv_len is None:
            kv_len = int(positions.max()) + 1
        if kv_len > cache.max_len:
            raise ValueError(f"position {kv_len - 1} is beyond the KV cache length {cache.max_len}")
        cos, sin = self.rotary.cos_sin(positions, x.dtype)
        visible = torch.arange(kv_len, device=x.device)[None, None, :] <= positions[:, :, None]
        mask = visible[:, None]
        for index, layer in enumerate(self.layers):
            x = layer.forward(x, cos, sin, _SlotAttention(cache, index, slots, positions, kv_len, mask))
        return rms_norm(x, self.norm, self.cfg.layers.rms_norm_eps)

    def logits(self, hidden: Tensor) -> Tensor:
        """Codebook-0 logits in float32 [..., vocab]."""
        return F.linear(hidden, self.codec_head).float()


class _SlotAttention:
    """Writes a layer's new keys/values into the stream slots, then attends over the slots."""

    def __init__(self, cache: KVCache, layer: int, slots: Tensor | int, positions: Tensor, kv_len: int, mask: Tensor):
        self.k_cache, self.v_cache = cache.k[layer], cache.v[layer]
        self.slots, self.positions, self.kv_len, self.mask = slots, positions, kv_len, mask

    def __call__(self, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
        if isinstance(self.slots, int):
            s = self.slots
            self.k_cache[s, :, self.positions[0]] = k[0]
            self.v_cache[s, :, self.positions[0]] = v[0]
            keys = self.k_cache[s : s + 1, :, : self.kv_len]
            values = self.v_cache[s : s + 1, :, : self.kv_len]
        else:
            rows = self.slots[:, None]
            self.k_cache[rows, :, self.positions] = k.transpose(1, 2)
            self.v_cache[rows, :, self.positions] = v.transpose(1, 2)
            keys = self.k_cache[self.slots, :, : self.kv_len]
            values = self.v_cache[self.slots, :, : self.kv_len]
        return sdpa(q, keys, values, self.mask)
