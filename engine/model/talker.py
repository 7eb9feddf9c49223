"""The talker: text/codec input embeddings, the Qwen3 decoder stack over an external KV cache,
and the codebook-0 head.

Cache layouts (owned by the caller):
- `KVCache` (the reference generator's): `k` / `v` are [layers, slots, kv_heads, max_len, head_dim];
  a stream lives in one slot, its token at position p (= its RoPE position = the number of rows
  before it) stored at index p.
- `PagedKVCache` (the serving runtime's, `engine.runtime.kv_cache`): `k` / `v` are [layers, blocks,
  kv_heads, block_size, head_dim] and `block_table` [slots, max_blocks] names the block of each
  slot's rows: position p of slot s lives in block `block_table[s, p // block_size]` at row
  `p % block_size`. Block 0 is scratch: table entries of rows a slot does not own point there.
Both hand out `CacheRows` (`rows`), so every forward reads either layout alike. `Talker.forward` is the one forward of every caller (prefill, the frame step eagerly or
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

    def rows(self, first: int, n: int, positions: Tensor, tokens: int = 1, kv_len: int | None = None, start: int | None = None) -> CacheRows:
        """Slots [first, first + n) as `CacheRows`."""
        return CacheRows(self.k[:, first : first + n], self.v[:, first : first + n], positions, tokens, kv_len, start)


@dataclass
class PagedKVCache:
    k: Tensor  # [layers, blocks, kv_heads, block_size, head_dim]
    v: Tensor
    block_table: Tensor  # [slots, max_blocks] int64: block of each slot's rows; 0 (scratch) where it owns none

    @classmethod
    def allocate(
        cls, cfg: TransformerConfig, num_slots: int, blocks: int, block_size: int, max_len: int,
        device: torch.device | str, dtype: torch.dtype,
    ) -> PagedKVCache:
        shape = (cfg.num_layers, blocks, cfg.num_kv_heads, block_size, cfg.head_dim)
        table = torch.zeros(num_slots, -(-max_len // block_size), dtype=torch.int64, device=device)
        return cls(torch.zeros(shape, device=device, dtype=dtype), torch.zeros(shape, device=device, dtype=dtype), table)

    @property
    def num_slots(self) -> int:
        return self.block_table.shape[0]

    @property
    def block_size(self) -> int:
        return self.k.shape[3]

    @property
    def max_len(self) -> int:
        return self.block_table.shape[1] * self.block_size

    def rows(self, first: int, n: int, positions: Tensor, tokens: int = 1, kv_len: int | None = None, start: int | None = None) -> CacheRows:
        """Slots [first, first + n) as `CacheRows` over their blocks."""
        return CacheRows(self.k, self.v, positions, tokens, kv_len, start, block_table=self.block_table[first : first + n])


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

