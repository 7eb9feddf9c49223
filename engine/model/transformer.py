"""The one forward of a Qwen3-style decoder stack (talker, code predictor, codec pre-transformer).

Every caller runs the same code: the reference generator at batch 1, the serving runtime's voice
prefills and frame step (eagerly and inside CUDA graphs), and the codec's sliding-window
transformer. Tokens are rows, `x [N, hidden]`, each with its own RoPE position, so streams at
different lengths share one call, as in nano-vllm's model.

The stack does not own a KV cache. Who does is the caller's `attention` argument:

- an `Attention` callable `(layer, q, k, v) -> out` for the PyTorch path: it gets a layer's
  post-norm, post-RoPE queries and keys and its values, writes them wherever its cache lives and
  returns the attention output. `CacheRows` is the one for a slot pool or a per-frame buffer
  (the talker and the code predictor); the codec passes its own sliding-window attention.
- a `CacheRows` with `kernels` given: the fused Triton path (bf16 on CUDA). `kernels` is the
  runtime's kernel set (`engine.runtime.kernels`, see `Kernels`), passed in so that the model
  needs neither Triton nor the runtime. Per layer: RMSNorm, the QKV GEMM, one `attend` launch
  (q/k norm, RoPE, the cache write and attention over each row's live length), the o-projection
  added into `x` in place, RMSNorm, the gate-up GEMM, `silu_mul`, the down-projection added into
  `x` in place: so `x` must be a scratch tensor of the caller's, and every shape is static (CUDA
  graph capture: no host syncs, no allocation that varies per replay).

Weights are held fused: one QKV and one gate-up matrix per layer, the o- and down-projections
transposed for `addmm`, which puts the residual add inside the GEMM. The PyTorch path takes
`F.rms_norm`, the per-head q/k norm of all heads at once and RoPE as `x*cos + (x@R)*sin` (R the
signed half-rotation, exact in any precision); on the CPU in float32 it reproduces the official
greedy codes and logits (the parity goldens).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

import torch
import torch.nn.functional as F
from torch import Tensor

from engine.model.config import TransformerConfig

# attention(layer, q [N, heads, hd], k [N, kv_heads, hd], v [N, kv_heads, hd]) -> [N, heads * hd]
Attention = Callable[[int, Tensor, Tensor, Tensor], Tensor]


class Kernels(Protocol):
    """The fused kernels the stack's Triton path calls (`engine.runtime.kernels`)."""

    def rms_norm(self, x: Tensor, weight: Tensor, eps: float) -> Tensor: ...

    def silu_mul(self, gate_up: Tensor) -> Tensor: ...

    def attend(
        self, qkv: Tensor, qk_norm: Tensor, cos: Tensor, sin: Tensor, k_cache: Tensor, v_cache: Tensor,
        positions: Tensor, heads: int, kv_heads: int, tokens: int, eps: float, block_table: Tensor | None = None,
    ) -> Tensor: ...


class Rotary:
    """Plain 1-D rotary embedding (NeoX `rotate_half` layout)."""

    def __init__(self, head_dim: int, theta: float, device: torch.device) -> None:
        # Same float32 expression as the official initializer, evaluated on the CPU so every
        # device starts from identical frequencies.
        exponent = torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim
        self.inv_freq = (1.0 / (theta**exponent)).to(device)

    def cos_sin(self, positions: Tensor, dtype: torch.dtype) -> tuple[Tensor, Tensor]:
        """positions [..., T] (int) -> cos, sin [..., T, head_dim] in `dtype`."""
        freqs = positions.float()[..., None] * self.inv_freq
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(dtype), emb.sin().to(dtype)


def apply_rotary(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    """x [B, heads, T, hd]; cos/sin [B, T, hd] (the codec encoder's layout)."""
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


def rotation(head_dim: int, device: torch.device, dtype: torch.dtype) -> Tensor:
    """R with x @ R == cat(-x[half:], x[:half]) (NeoX rotate_half); entries are 0 and ±1, so the
    product is exact in any precision."""
    half = head_dim // 2
    r = torch.zeros(head_dim, head_dim)
    idx = torch.arange(half)
    r[idx + half, idx] = -1.0
    r[idx, idx + half] = 1.0
    return r.to(device=device, dtype=dtype)


def sdpa(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None) -> Tensor:
    """Grouped-query attention over [B, heads, T, hd]; `mask` is boolean (True = may attend),
    broadcastable to [B, heads, T, S]. KV head j serves query heads j*g .. j*g+g-1."""
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=k.shape[1] != q.shape[1])


@dataclass
class CacheRows:
    """n rows of a KV cache with `tokens` new tokens each, which follow each other from
    `positions[b]`: the layout both attention paths take (a slot pool's rows [0, n) or one slot,
    a per-frame predictor buffer). Token t of row b is written at min(positions[b] + t, S - 1)
    (rows that sit out a frame step may stand at the end of the cache; their write is thrown
    away) and sees keys 0 .. its own position; keys are read up to `kv_len`. `start`: every row's
    new tokens start there (the code predictor's passes): the PyTorch path then writes a slice and
    needs a mask only among the new tokens.

    Contiguous (`block_table` None): k/v are [layers, n, kv_heads, S, head_dim], row b's position
    p at index p. Paged (`engine.model.talker.PagedKVCache`): k/v are the block pool [layers,
    blocks, kv_heads, block_size, head_dim] and `block_table` [n, S // block_size] names row b's
    blocks; position p lives at row p % block_size of block `block_table[b, p // block_size]`
    (block 0, scratch, where the row owns none: a write there is thrown away, and no live key is
    ever read from it). Both paths gather a paged row's keys in position order, so the attention
    sees the same keys, in the same order, as from a contiguous cache."""

    k: Tensor
    v: Tensor
    positions: Tensor  # [n] int64
    tokens: int = 1
    kv_len: int | None = None  # >= every new token's position + 1; the whole cache when None
    start: int | None = None  # == positions[b] for every row, when the caller knows so
    block_table: Tensor | None = None  # [n, max_blocks] int64, paged caches only
    _masks: dict[int, Tensor] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        length = self.length
        if self.kv_len is None:
            self.kv_len = length
        elif self.kv_len > length:
            raise ValueError(f"position {self.kv_len - 1} is beyond the KV cache length {length}")

    @property
    def n(self) -> int:
        return self.k.shape[1] if self.block_table is None else self.block_table.shape[0]

    @property
    def length(self) -> int:
        """S: positions a row can hold."""
        if self.block_table is None:
            return self.k.shape[3]
        return self.block_table.shape[1] * self.k.shape[3]

    @cached_property
    def token_positions(self) -> Tensor:
        """[n, tokens] RoPE position of every new token (a view when tokens == 1: no launch)."""
        if self.tokens == 1:
            return self.positions[:, None]
        return self.positions[:, None] + torch.arange(self.tokens, device=self.positions.device)

    @cached_property
    def _write(self) -> tuple[Tensor, Tensor]:
        """Where the new tokens go: (cache row or block [n, tokens] or [n, 1], index in it [n, tokens])."""
        at = self.token_positions.clamp(max=self.length - 1)
        if self.block_table is None:
            return torch.arange(self.n, device=self.k.device)[:, None], at
        size = self.k.shape[3]
        return self.block_table.gather(1, at // size), at % size

    def _mask(self, group: int) -> Tensor | None:
        """Query row (head in group g, token t) sees keys 0 .. t's position: [n, 1, group * tokens,
        kv_len], or [group * tokens, kv_len] for rows that share `start` (None for one token)."""
        if self.start is not None and self.tokens == 1:
            return None
        mask = self._masks.get(group)
        if mask is None:
            keys = torch.arange(self.kv_len, device=self.k.device)
            if self.start is not None:
                token = torch.arange(self.start, self.start + self.tokens, device=self.k.device).repeat(group)
                mask = keys[None, :] <= token[:, None]
            else:
                visible = keys[None, None, :] <= self.token_positions[:, :, None]
                mask = (visible.repeat(1, group, 1) if self.tokens > 1 else visible)[:, None]
            self._masks[group] = mask
        return mask

    def _keys_values(self, layer: int) -> tuple[Tensor, Tensor]:
        """Every row's keys and values 0 .. kv_len - 1 of `layer`, [n, kv_heads, kv_len, hd]."""
        k_cache, v_cache = self.k[layer], self.v[layer]
        if self.block_table is None:
            return k_cache[:, :, : self.kv_len], v_cache[:, :, : self.kv_len]
        size = k_cache.shape[2]
        blocks = self.block_table[:, : -(-self.kv_len // size)]
        n, count = blocks.shape

        def gather(cache: Tensor) -> Tensor:
            rows = cache[blocks].transpose(1, 2)  # [n, kv_heads, count, block_size, hd]
            return rows.reshape(n, cache.shape[1], count * size, cache.shape[3])[:, :, : self.kv_len]

        return gather(k_cache), gather(v_cache)

    def __call__(self, layer: int, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
        """`Attention` over these rows with `F.scaled_dot_product_attention`: the q heads of a KV
        head are its query rows, which is grouped-query attention without repeating the cache."""
        n, tokens = self.n, self.tokens
        heads, kv_heads, hd = q.shape[1], k.shape[1], q.shape[2]
        group = heads // kv_heads
        k_cache, v_cache = self.k[layer], self.v[layer]
        if self.start is None or self.block_table is not None:
            rows, at = self._write
            k_cache[rows, :, at] = k.view(n, tokens, kv_heads, hd)
            v_cache[rows, :, at] = v.view(n, tokens, kv_heads, hd)
        else:
            k_cache[:, :, self.start : self.start + tokens] = k.view(n, tokens, kv_heads, hd).transpose(1, 2)
            v_cache[:, :, self.start : self.start + tokens] = v.view(n, tokens, kv_heads, hd).transpose(1, 2)
        keys, values = self._keys_values(layer)
        if tokens == 1:
            grouped = q.reshape(n, kv_heads, group, hd)
            return F.scaled_dot_product_attention(grouped, keys, values, attn_mask=self._mask(group)).reshape(n, -1)
        grouped = q.view(n, tokens, kv_heads, group, hd).permute(0, 2, 3, 1, 4).reshape(n, kv_heads, group * tokens, hd)
        out = F.scaled_dot_product_attention(grouped, keys, values, attn_mask=self._mask(group))
        return out.view(n, kv_heads, group, tokens, hd).permute(0, 3, 1, 2, 4).reshape(n * tokens, -1)


@dataclass
class DecoderLayer:
    input_norm: Tensor
    post_norm: Tensor
    qkv: Tensor  # [(heads + 2 kv_heads) * head_dim, hidden]
    o_t: Tensor  # [heads * head_dim, hidden] (transposed for addmm)
    gate_up: Tensor  # [2 * intermediate, hidden]
    down_t: Tensor  # [intermediate, hidden]
    heads: int
    kv_heads: int
    head_dim: int
    eps: float
    qk_norm: Tensor | None = None  # [heads + kv_heads, head_dim]: q_norm for the q heads, k_norm for the k heads
    qkv_bias: Tensor | None = None
    o_bias: Tensor | None = None
    attn_scale: Tensor | None = None  # codec LayerScale
    mlp_scale: Tensor | None = None

    @classmethod
    def from_weights(
        cls, cfg: TransformerConfig, w: Mapping[str, Tensor], prefix: str, *, layer_scale: bool = False
    ) -> DecoderLayer:
        def get(name: str) -> Tensor | None:
            return w.get(prefix + name)

        attn = "self_attn."
        qkv_bias = None
        if get(attn + "q_proj.bias") is not None:
            qkv_bias = torch.cat([get(f"{attn}{p}_proj.bias") for p in "qkv"])
        qk_norm = None
        if get(attn + "q_norm.weight") is not None:
            qk_norm = torch.cat(
                (get(attn + "q_norm.weight").expand(cfg.num_heads, -1), get(attn + "k_norm.weight").expand(cfg.num_kv_heads, -1))
            )
        return cls(
            input_norm=get("input_layernorm.weight"),
            post_norm=get("post_attention_layernorm.weight"),
            qkv=torch.cat([get(f"{attn}{p}_proj.weight") for p in "qkv"]),
            o_t=get(attn + "o_proj.weight").t(),
            gate_up=torch.cat((get("mlp.gate_proj.weight"), get("mlp.up_proj.weight"))),
            down_t=get("mlp.down_proj.weight").t(),
            heads=cfg.num_heads,
            kv_heads=cfg.num_kv_heads,
            head_dim=cfg.head_dim,
            eps=cfg.rms_norm_eps,
            qk_norm=qk_norm,
            qkv_bias=qkv_bias,
            o_bias=get(attn + "o_proj.bias"),
            attn_scale=get("self_attn_layer_scale.scale") if layer_scale else None,
            mlp_scale=get("mlp_layer_scale.scale") if layer_scale else None,
        )

    def forward(self, x: Tensor, cos: Tensor, sin: Tensor, rot: Tensor, attention: Attention, index: int) -> Tensor:
        """x [N, hidden] -> [N, hidden]; cos/sin [N, 1, head_dim] (or broadcastable)."""
        n, heads, kv_heads = x.shape[0], self.heads, self.kv_heads
        h = F.rms_norm(x, (x.shape[-1],), self.input_norm, self.eps)
        qkv = F.linear(h, self.qkv, self.qkv_bias).view(n, heads + 2 * kv_heads, self.head_dim)
        qk = qkv[:, : heads + kv_heads]
        if self.qk_norm is not None:
            qk = F.rms_norm(qk, (self.head_dim,), None, self.eps) * self.qk_norm
        qk = torch.addcmul(qk * cos, qk @ rot, sin)
        o = attention(index, qk[:, :heads], qk[:, heads:], qkv[:, heads + kv_heads :])
        x = _residual(x, o, self.o_t, self.o_bias, self.attn_scale)
        h = F.rms_norm(x, (x.shape[-1],), self.post_norm, self.eps)
        gate, up = F.linear(h, self.gate_up).chunk(2, dim=-1)
        return _residual(x, F.silu(gate) * up, self.down_t, None, self.mlp_scale)

    def forward_kernels(self, x: Tensor, cos: Tensor, sin: Tensor, rows: CacheRows, index: int, kernels: Kernels) -> Tensor:
        """`forward` with the Triton kernels: 8 launches. The residual adds go into `x` in place
        (an out-of-place `addmm` first copies x: one more launch each)."""
        h = kernels.rms_norm(x, self.input_norm, self.eps)
        o = kernels.attend(
            F.linear(h, self.qkv), self.qk_norm, cos, sin, rows.k[index], rows.v[index], rows.positions,
            self.heads, self.kv_heads, rows.tokens, self.eps, rows.block_table,
        )
        x.addmm_(o, self.o_t)
        h = kernels.rms_norm(x, self.post_norm, self.eps)
        return x.addmm_(kernels.silu_mul(F.linear(h, self.gate_up)), self.down_t)


def _residual(x: Tensor, y: Tensor, w_t: Tensor, bias: Tensor | None, scale: Tensor | None) -> Tensor:
    """x + scale * (y @ w_t + bias); without bias and scale the add happens inside the GEMM."""
    if bias is None and scale is None:
        return torch.addmm(x, y, w_t)
    out = y @ w_t if bias is None else torch.addmm(bias, y, w_t)
    return x + (out if scale is None else scale * out)


class DecoderStack:
    """Decoder layers and the final RMSNorm."""

    def __init__(self, cfg: TransformerConfig, w: Mapping[str, Tensor], prefix: str, norm: str, *, layer_scale: bool = False):
        self.layers = [
            DecoderLayer.from_weights(cfg, w, f"{prefix}{i}.", layer_scale=layer_scale) for i in range(cfg.num_layers)
        ]
        self.norm = w[norm]
        self.eps = cfg.rms_norm_eps
        self.rot = rotation(cfg.head_dim, self.norm.device, self.norm.dtype)

    def forward(
        self, x: Tensor, cos: Tensor, sin: Tensor, attention: Attention | CacheRows, kernels: Kernels | None = None, tokens: int = 1
    ) -> Tensor:
        """x [n * tokens, hidden]: n rows of `tokens` consecutive tokens -> the post-norm hidden
        state of each row's last token [n, hidden]. cos/sin: the tokens' RoPE tables ([N, 1, hd]
        or anything `kernels.attend` and the PyTorch path broadcast alike). With `kernels`,
        `attention` must be a `CacheRows` and `x` is updated in place."""
        if kernels is None:
            for index, layer in enumerate(self.layers):
                x = layer.forward(x, cos, sin, self.rot, attention, index)
        else:
            for index, layer in enumerate(self.layers):
                x = layer.forward_kernels(x, cos, sin, attention, index, kernels)
        last = x.view(-1, tokens, x.shape[-1])[:, -1]
        if kernels is not None:
            return kernels.rms_norm(last, self.norm, self.eps)
        return F.rms_norm(last, (last.shape[-1],), self.norm, self.eps)
