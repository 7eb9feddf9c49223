"""The frame step's math on fused weights, with as few kernels as plain PyTorch allows.

At batch 1 a frame step is bound by its chain of ~2,000 dependent kernels (28 talker layers and
75 predictor layer passes), not by memory, so every kernel saved is latency saved. Per layer:
one QKV GEMM and one gate-up GEMM on concatenated weights, `F.rms_norm`, the per-head q/k norm of
all heads at once, RoPE as `x*cos + (x@R)*sin` with R the signed half-rotation, attention of a
single query token as grouped rows of one KV head (no repeated cache), and the residual adds
inside `addmm`. The same functions run on the CPU in float32, where they reproduce the official
greedy codes (the parity tests run them), and on CUDA in bfloat16 inside CUDA graphs.

On CUDA in bfloat16, `layer_forward_kernels` runs the same layer with the Triton kernels of
`engine.runtime.kernels` (q/k norm + RoPE + cache write + attention in one launch).

Sampling draws exactly the reference sampler's noise (`engine.model.sampling.uniform_noise`, a
function of seed, draw index and token id) for all 16 draws of a step at once, and picks among
the top-k candidates only; greedy rows take the argmax.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from engine.model.sampling import SamplerRows, uniform_noise
from engine.model.transformer import DecoderLayer
from engine.runtime import kernels


@dataclass
class FusedLayer:
    input_norm: Tensor
    post_norm: Tensor
    qkv: Tensor  # [(heads + 2 kv_heads) * head_dim, hidden]
    qk_norm: Tensor  # [heads + kv_heads, head_dim]: q_norm for the q heads, k_norm for the k heads
    o_t: Tensor  # [heads * head_dim, hidden] (transposed for addmm)
    gate_up: Tensor  # [2 * intermediate, hidden]
    down_t: Tensor  # [intermediate, hidden]
    heads: int
    kv_heads: int
    head_dim: int
    eps: float

    @classmethod
    def of(cls, layer: DecoderLayer) -> FusedLayer:
        """Fuse a layer's weights; the layer's own fields become views of the fused tensors, so
        the weights are held once."""
        c = layer.cfg
        if layer.q_bias is not None or layer.attn_scale is not None:
            raise ValueError("fused layers cover the talker and code predictor (no biases, no layer scale)")
        qkv = torch.cat((layer.q_proj, layer.k_proj, layer.v_proj))
        q_out, kv_out = layer.q_proj.shape[0], layer.k_proj.shape[0]
        layer.q_proj, layer.k_proj, layer.v_proj = qkv.split((q_out, kv_out, kv_out))
        gate_up = torch.cat((layer.gate_proj, layer.up_proj))
        layer.gate_proj, layer.up_proj = gate_up.split(layer.gate_proj.shape[0])
        qk_norm = torch.cat((layer.q_norm.expand(c.num_heads, -1), layer.k_norm.expand(c.num_kv_heads, -1)))
        return cls(
            input_norm=layer.input_norm, post_norm=layer.post_norm, qkv=qkv, qk_norm=qk_norm,
            o_t=layer.o_proj.t(), gate_up=gate_up, down_t=layer.down_proj.t(),
            heads=c.num_heads, kv_heads=c.num_kv_heads, head_dim=c.head_dim, eps=c.rms_norm_eps,
        )


def rotation(head_dim: int, device: torch.device, dtype: torch.dtype) -> Tensor:
    """R with x @ R == cat(-x[half:], x[:half]) (NeoX rotate_half); entries are 0 and ±1, so the
    product is exact in any precision."""
    half = head_dim // 2
    r = torch.zeros(head_dim, head_dim)
    idx = torch.arange(half)
    r[idx + half, idx] = -1.0
    r[idx, idx + half] = 1.0
    return r.to(device=device, dtype=dtype)


def layer_forward(layer: FusedLayer, x: Tensor, cos: Tensor, sin: Tensor, rot: Tensor, attend) -> Tensor:
    """x [N, hidden] (N tokens) -> [N, hidden]. cos/sin [N, 1, head_dim].
    attend(q [N, heads, hd], k [N, kv_heads, hd], v [N, kv_heads, hd]) -> [N, heads * hd]."""
    n = x.shape[0]
    h = F.rms_norm(x, (x.shape[-1],), layer.input_norm, layer.eps)
    qkv = F.linear(h, layer.qkv).view(n, layer.heads + 2 * layer.kv_heads, layer.head_dim)
    qk = F.rms_norm(qkv[:, : layer.heads + layer.kv_heads], (layer.head_dim,), None, layer.eps) * layer.qk_norm
    qk = torch.addcmul(qk * cos, qk @ rot, sin)
    o = attend(qk[:, : layer.heads], qk[:, layer.heads :], qkv[:, layer.heads + layer.kv_heads :])
    x = torch.addmm(x, o, layer.o_t)
    h = F.rms_norm(x, (x.shape[-1],), layer.post_norm, layer.eps)
    gate, up = F.linear(h, layer.gate_up).chunk(2, dim=-1)
    return torch.addmm(x, F.silu(gate) * up, layer.down_t)


def layer_forward_kernels(layer: FusedLayer, x: Tensor, attend) -> Tensor:
    """`layer_forward` with the Triton kernels (bf16 on CUDA): 8 launches per layer.
    attend(qkv [N, (heads + 2 kv_heads) * hd]) -> [N, heads * hd] does q/k norm, RoPE, the
    cache write and attention in one (`kernels.attend`). The residual adds go into `x` in place
    (an out-of-place `addmm` first copies x: one more launch each), so `x` must be a scratch
    tensor of the caller's."""
    h = kernels.rms_norm(x, layer.input_norm, layer.eps)
    x.addmm_(attend(F.linear(h, layer.qkv)), layer.o_t)
    h = kernels.rms_norm(x, layer.post_norm, layer.eps)
    return x.addmm_(kernels.silu_mul(F.linear(h, layer.gate_up)), layer.down_t)


def step_noise(rows: SamplerRows, base_draw: Tensor, groups: int, vocab: int) -> Tensor:
    """Gumbel noise [B, groups, vocab] (float64) of draws base .. base + groups - 1 of every row."""
    b = base_draw.shape[0]
    draws = base_draw[:, None] + torch.arange(groups, device=base_draw.device)
    u = uniform_noise(rows.seed[:, None].expand(b, groups).reshape(-1), draws.reshape(-1), vocab)
    return -torch.log(-torch.log(u)).view(b, groups, vocab)


def choose_candidates(logits: Tensor, rows: SamplerRows, gumbel: Tensor, candidates: int, top_p: bool) -> Tensor:
    """The reference `choose` for rows with 0 < top_k <= candidates: temperature, top-k, top-p and
    Gumbel-max over the top-k ids only (the others are -inf there). logits [B, V] float32,
    gumbel [B, V] float64. Returns ids [B].

    top_p=False skips the top-p filter, for batches whose rows all have top_p == 1: there it only
    drops ids of probability exactly 0 (an fp32 softmax underflow, > 100 below the best logit),
    which Gumbel noise (< 25 for any draw) can never lift to the top anyway."""
    greedy = logits.argmax(dim=-1)
    if rows.all_greedy:
        return greedy
    scaled = logits / rows.temperature[:, None]
    values, ids = scaled.topk(candidates, dim=-1)  # descending
    rank = torch.arange(candidates, device=logits.device)
    values = values.masked_fill(rank[None, :] >= rows.top_k[:, None], float("-inf"))
    if top_p:
        # As the reference: cumulative mass in ascending order, drop what stays <= 1 - top_p,
        # never the most likely id.
        ascending = values.flip(-1)
        cumulative = ascending.softmax(dim=-1).cumsum(dim=-1).flip(-1)
        drop = (cumulative <= (1 - rows.top_p)[:, None]) & (rank[None, :] > 0)
        values = values.masked_fill(drop, float("-inf"))
    pick = (values.double() + gumbel.gather(1, ids)).argmax(dim=-1, keepdim=True)
    sampled = ids.gather(1, pick)[:, 0]
    return torch.where(rows.do_sample, sampled, greedy)
