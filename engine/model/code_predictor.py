"""The code predictor: codebooks 1..G-1 of one frame from the talker's hidden state and code 0.

Per frame, for B streams at once (all rows are at the same step, so no masks are needed):

    x = proj([talker_hidden, C_talker(c0)])       # 2 tokens, positions 0, 1
    c1 = pick(lm_head[0](h[-1]))
    for j in 1 .. G-2:
        x = proj(codec_embedding[j-1](c_j))        # 1 token, position j+1, KV cache
        c_{j+1} = pick(lm_head[j](h[-1]))

`proj` is `small_to_mtp_projection` when the talker is wider than the predictor (1.7B models),
the identity otherwise. The KV cache is fresh every frame; `PredictorCache` lets a runtime keep
one preallocated buffer (static shapes for CUDA graphs).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from engine.model.config import CodePredictorConfig
from engine.model.transformer import DecoderLayer, Rotary, rms_norm, sdpa

# pick(logits [B, vocab] float32, j) -> codes [B] int64 for code j+1 of the frame
Pick = Callable[[Tensor, int], Tensor]


@dataclass
class PredictorCache:
    k: Tensor  # [layers, B, kv_heads, G, head_dim]
    v: Tensor

    @classmethod
    def allocate(cls, cfg: CodePredictorConfig, batch: int, device: torch.device | str, dtype: torch.dtype) -> PredictorCache:
        c = cfg.layers
        shape = (c.num_layers, batch, c.num_kv_heads, cfg.num_code_groups, c.head_dim)
        return cls(torch.empty(shape, device=device, dtype=dtype), torch.empty(shape, device=device, dtype=dtype))


class CodePredictor:
    def __init__(self, cfg: CodePredictorConfig, w: Mapping[str, Tensor], device: torch.device) -> None:
        self.cfg = cfg
        prefix = "talker.code_predictor."
        self.layers = [
            DecoderLayer.from_weights(cfg.layers, w, f"{prefix}model.layers.{i}.") for i in range(cfg.layers.num_layers)
        ]
        self.norm = w[f"{prefix}model.norm.weight"]
        groups = range(cfg.num_code_groups - 1)
        # [G-1, vocab, talker_hidden]: embeddings of codes 1..G-1, in talker space
        self.codec_embeddings = torch.stack([w[f"{prefix}model.codec_embedding.{j}.weight"] for j in groups])
        self.lm_heads = torch.stack([w[f"{prefix}lm_head.{j}.weight"] for j in groups])  # [G-1, vocab, hidden]
        self.proj_w = w.get(f"{prefix}small_to_mtp_projection.weight")
        self.proj_b = w.get(f"{prefix}small_to_mtp_projection.bias")
        self.rotary = Rotary(cfg.layers.head_dim, cfg.layers.rope_theta, device)

    def _project(self, x: Tensor) -> Tensor:
        return x if self.proj_w is None else F.linear(x, self.proj_w, self.proj_b)

    def _run(self, x: Tensor, start: int, cache: PredictorCache) -> Tensor:
        """x [B, T, hidden] at positions start..start+T-1 -> last post-norm hidden [B, hidden]."""
        b, t, _ = x.shape
        positions = torch.arange(start, start + t, device=x.device).expand(b, t)
        cos, sin = self.rotary.cos_sin(positions, x.dtype)
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril() if t > 1 else None
        for index, layer in enumerate(self.layers):
            k_cache, v_cache = cache.k[index, :b], cache.v[index, :b]

            def attend(q: Tensor, k: Tensor, v: Tensor, k_cache: Tensor = k_cache, v_cache: Tensor = v_cache) -> Tensor:
                k_cache[:, :, start : start + t] = k
                v_cache[:, :, start : start + t] = v
                return sdpa(q, k_cache[:, :, : start + t], v_cache[:, :, : start + t], mask)

            x = layer.forward(x, cos, sin, attend)
        return rms_norm(x[:, -1], self.norm, self.cfg.layers.rms_norm_eps)

    def predict(
        self, talker_hidden: Tensor, c0_embedding: Tensor, pick: Pick, cache: PredictorCache | None = None
    ) -> Tensor:
        """talker_hidden, c0_embedding [B, talker_hidden] -> codes 1..G-1 [B, G-1] int64."""
        b = talker_hidden.shape[0]
        if cache is None:
            cache = PredictorCache.allocate(self.cfg, b, talker_hidden.device, talker_hidden.dtype)
        x = self._project(torch.stack((talker_hidden, c0_embedding), dim=1))
        codes = []
        for j in range(self.cfg.num_code_groups - 1):
            if j:
                x = self._project(F.embedding(codes[-1], self.codec_embeddings[j - 1]))[:, None]
            h = self._run(x, 0 if j == 0 else j + 1, cache)
            codes.append(pick(F.linear(h, self.lm_heads[j]).float(), j))
        return torch.stack(codes, dim=1)

    def embed(self, codes: Tensor) -> Tensor:
        """Embeddings of codes 1..G-1 in talker space: codes [B, G-1] -> [B, G-1, talker_hidden]."""
        return torch.stack([F.embedding(codes[:, j], self.codec_embeddings[j]) for j in range(codes.shape[1])], dim=1)
