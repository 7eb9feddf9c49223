"""The talker: text/codec input embeddings, the Qwen3 decoder stack over an external KV cache,
and the codebook-0 head.

Cache layout (owned by the caller: the runtime's slot pool, or the reference generator's own):
`KVCache.k` / `KVCache.v` are [layers, slots, kv_heads, max_len, head_dim]. A stream lives in one
slot; its token at position p (= its RoPE position = the number of rows before it) is stored at
index p. `Talker.forward` is the one forward of every caller (prefill, the frame step eagerly or
in a CUDA graph, the reference generator): it takes token rows and a `transformer.CacheRows` that
says which cache rows they belong to and where each row's new tokens start, so streams at
different lengths share one call; each query attends to keys 0..its own position of its own row
(stale entries past a stream's length are masked out). With `kernels` it runs the runtime's
Triton path (see `transformer`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from engine.model.config import TalkerConfig, TransformerConfig
from engine.model.transformer import CacheRows, DecoderStack, Kernels, Rotary


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
        self.stack = DecoderStack(cfg.layers, w, "talker.model.layers.", "talker.model.norm.weight")
        self.codec_head = w["talker.codec_head.weight"]
        self.rotary = Rotary(cfg.layers.head_dim, cfg.layers.rope_theta, device)

    def project_text(self, ids: Tensor) -> Tensor:
        """P(ids): text embedding through the resize MLP -> [..., hidden]."""
        x = F.embedding(ids, self.text_embedding)
        return F.linear(F.silu(F.linear(x, self.fc1_w, self.fc1_b)), self.fc2_w, self.fc2_b)

    def embed_codec(self, ids: Tensor) -> Tensor:
        """C(ids): codec-vocab embedding (codebook-0 codes, control, language and speaker ids)."""
        return F.embedding(ids, self.codec_embedding)

    def forward(self, x: Tensor, rows: CacheRows, kernels: Kernels | None = None) -> Tensor:
        """Run new tokens through the stack, writing their keys/values into the cache rows.

        x [n * tokens, hidden]: `rows.tokens` consecutive tokens of each of the n cache rows.
        Returns the post-final-norm hidden state of each row's last token [n, hidden].
        """
        cos, sin = self.rotary.cos_sin(rows.token_positions.reshape(-1, 1), x.dtype)  # [N, 1, head_dim]
        return self.stack.forward(x, cos, sin, rows, kernels, rows.tokens)

    def logits(self, hidden: Tensor) -> Tensor:
        """Codebook-0 logits in float32 [..., vocab]."""
        return F.linear(hidden, self.codec_head).float()

