"""What one Qwen3-style decoder layer computes (talker, code predictor and codec pre-transformer).

The layer does not own a KV cache: `DecoderLayer.forward` hands its post-RoPE queries, keys and
values to an `attend` callable supplied by the caller, which writes them wherever its cache lives
(a slot pool, a per-frame buffer, a sliding-window ring) and returns the attention output. That
keeps one copy of the layer math for all three models and lets a runtime own every cache.

Numerics follow the official modules so that CPU fp32 reproduces its greedy codes and CUDA bf16
rounds where it rounds: RMSNorm in fp32 then cast back before the weight multiply, RoPE cos/sin in
fp32 cast to the activation dtype, attention through `scaled_dot_product_attention`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from engine.model.config import TransformerConfig

# attend(q [B, heads, T, hd], k [B, kv_heads, T, hd], v [B, kv_heads, T, hd]) -> [B, heads, T, hd]
Attend = Callable[[Tensor, Tensor, Tensor], Tensor]


def rms_norm(x: Tensor, weight: Tensor, eps: float) -> Tensor:
    xf = x.float()
    xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return weight * xf.to(x.dtype)


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
    """x [B, heads, T, hd]; cos/sin [B, T, hd]."""
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


def sdpa(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None) -> Tensor:
    """Grouped-query attention; `mask` is boolean (True = may attend), broadcastable to
    [B, heads, T, S]. KV head j serves query heads j*g .. j*g+g-1, as `repeat_interleave` does."""
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=k.shape[1] != q.shape[1])


@dataclass
class DecoderLayer:
    cfg: TransformerConfig
    input_norm: Tensor
    post_norm: Tensor
    q_proj: Tensor
    k_proj: Tensor
    v_proj: Tensor
    o_proj: Tensor
    gate_proj: Tensor
    up_proj: Tensor
    down_proj: Tensor
    q_norm: Tensor | None = None
    k_norm: Tensor | None = None
    q_bias: Tensor | None = None
    k_bias: Tensor | None = None
    v_bias: Tensor | None = None
    o_bias: Tensor | None = None
    attn_scale: Tensor | None = None  # codec LayerScale
    mlp_scale: Tensor | None = None

    @classmethod
    def from_weights(
        cls, cfg: TransformerConfig, w: Mapping[str, Tensor], prefix: str, *, layer_scale: bool = False
    ) -> DecoderLayer:
        def opt(name: str) -> Tensor | None:
            return w.get(prefix + name)

        return cls(
            cfg=cfg,
            input_norm=w[prefix + "input_layernorm.weight"],
            post_norm=w[prefix + "post_attention_layernorm.weight"],
            q_proj=w[prefix + "self_attn.q_proj.weight"],
            k_proj=w[prefix + "self_attn.k_proj.weight"],
            v_proj=w[prefix + "self_attn.v_proj.weight"],
            o_proj=w[prefix + "self_attn.o_proj.weight"],
            gate_proj=w[prefix + "mlp.gate_proj.weight"],
            up_proj=w[prefix + "mlp.up_proj.weight"],
            down_proj=w[prefix + "mlp.down_proj.weight"],
            q_norm=opt("self_attn.q_norm.weight"),
            k_norm=opt("self_attn.k_norm.weight"),
            q_bias=opt("self_attn.q_proj.bias"),
            k_bias=opt("self_attn.k_proj.bias"),
            v_bias=opt("self_attn.v_proj.bias"),
            o_bias=opt("self_attn.o_proj.bias"),
            attn_scale=w[prefix + "self_attn_layer_scale.scale"] if layer_scale else None,
            mlp_scale=w[prefix + "mlp_layer_scale.scale"] if layer_scale else None,
        )

    def forward(self, x: Tensor, cos: Tensor, sin: Tensor, attend: Attend) -> Tensor:
        """x [B, T, hidden] -> [B, T, hidden]."""
        c = self.cfg
        b, t, _ = x.shape
        h = rms_norm(x, self.input_norm, c.rms_norm_eps)
        q = F.linear(h, self.q_proj, self.q_bias).view(b, t, c.num_heads, c.head_dim)
        k = F.linear(h, self.k_proj, self.k_bias).view(b, t, c.num_kv_heads, c.head_dim)
        v = F.linear(h, self.v_proj, self.v_bias).view(b, t, c.num_kv_heads, c.head_dim)
        if self.q_norm is not None:
            q = rms_norm(q, self.q_norm, c.rms_norm_eps)
            k = rms_norm(k, self.k_norm, c.rms_norm_eps)
        q = apply_rotary(q.transpose(1, 2), cos, sin)
        k = apply_rotary(k.transpose(1, 2), cos, sin)
        o = attend(q, k, v.transpose(1, 2))
        o = F.linear(o.transpose(1, 2).reshape(b, t, -1), self.o_proj, self.o_bias)
        x = x + (self.attn_scale * o if self.attn_scale is not None else o)
        h = rms_norm(x, self.post_norm, c.rms_norm_eps)
        m = F.linear(F.silu(F.linear(h, self.gate_proj)) * F.linear(h, self.up_proj), self.down_proj)
        return x + (self.mlp_scale * m if self.mlp_scale is not None else m)
