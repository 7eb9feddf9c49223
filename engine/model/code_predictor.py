"""The code predictor: codebooks 1..G-1 of one frame from the talker's hidden state and code 0.

Per frame, for B streams at once (all rows are at the same step):

    x = proj([talker_hidden, C_talker(c0)])       # 2 tokens, positions 0, 1
    c1 = pick(lm_head[0](h[-1]))
    for j in 1 .. G-2:
        x = proj(codec_embedding[j-1](c_j))        # 1 token, position j+1, KV cache
        c_{j+1} = pick(lm_head[j](h[-1]))

`proj` is `small_to_mtp_projection` when the talker is wider than the predictor (1.7B models),
the identity otherwise. The KV cache is fresh every frame; `PredictorCache` lets a runtime keep
one preallocated buffer (static shapes for CUDA graphs).

`CodePredictor.predict` is the one loop every caller runs: the reference generator and the
runtime's frame step, eagerly or in a CUDA graph, on PyTorch or (`kernels`) on the runtime's
Triton kernels. The caller's `pick` chooses each code (the reference sampler, the runtime's
candidate sampler, or its pick kernel, which also gathers the code's embedding).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from engine.model.config import CodePredictorConfig
from engine.model.transformer import CacheRows, DecoderStack, Kernels, Rotary

# pick(logits [B, vocab], j) -> the embedding [B, talker_hidden] of the code j+1 it chose (it
# keeps the code). Logits are float32 on the PyTorch path, the model dtype with `kernels`.
Pick = Callable[[Tensor, int], Tensor]


@dataclass
class PredictorCache:
    k: Tensor  # [layers, B, kv_heads, G, head_dim]
    v: Tensor
    starts: Tensor  # [G + 1, B] int64: row p holds p, each pass's start position as a per-row tensor

    @classmethod
    def allocate(cls, cfg: CodePredictorConfig, batch: int, device: torch.device | str, dtype: torch.dtype) -> PredictorCache:
        c, groups = cfg.layers, cfg.num_code_groups
        shape = (c.num_layers, batch, c.num_kv_heads, groups, c.head_dim)
        starts = torch.arange(groups + 1, device=device)[:, None].repeat(1, batch)
        return cls(torch.empty(shape, device=device, dtype=dtype), torch.empty(shape, device=device, dtype=dtype), starts)


class CodePredictor:
    def __init__(self, cfg: CodePredictorConfig, w: Mapping[str, Tensor], device: torch.device) -> None:
        self.cfg = cfg
        prefix = "talker.code_predictor."
        self.stack = DecoderStack(cfg.layers, w, f"{prefix}model.layers.", f"{prefix}model.norm.weight")
        groups = range(cfg.num_code_groups - 1)
        # [G-1, vocab, talker_hidden]: embeddings of codes 1..G-1, in talker space
        self.codec_embeddings = torch.stack([w[f"{prefix}model.codec_embedding.{j}.weight"] for j in groups])
        self.lm_heads = torch.stack([w[f"{prefix}lm_head.{j}.weight"] for j in groups])  # [G-1, vocab, hidden]
        self.proj_w = w.get(f"{prefix}small_to_mtp_projection.weight")
        self.proj_b = w.get(f"{prefix}small_to_mtp_projection.bias")
        rotary = Rotary(cfg.layers.head_dim, cfg.layers.rope_theta, device)
        # RoPE of positions 0..G, [G + 1, head_dim]: every pass reads its rows of this table.
        self.cos, self.sin = rotary.cos_sin(torch.arange(cfg.num_code_groups + 1, device=device), self.stack.norm.dtype)

    def _project(self, x: Tensor, fresh: bool) -> Tensor:
        """fresh: a new tensor even without a projection (the kernel path adds into it in place)."""
        if self.proj_w is not None:
            return F.linear(x, self.proj_w, self.proj_b)
        return x.contiguous().clone() if fresh else x

    def predict(
        self, talker_hidden: Tensor, c0_embedding: Tensor, pick: Pick, cache: PredictorCache | None = None,
        kernels: Kernels | None = None,
    ) -> None:
        """Codes 1..G-1 of B frames from talker_hidden, c0_embedding [B, talker_hidden], each
        chosen by `pick`. The cache holds at least B rows (a fresh one when None)."""
        n = talker_hidden.shape[0]
        if cache is None:
            cache = PredictorCache.allocate(self.cfg, n, talker_hidden.device, talker_hidden.dtype)
        k, v = cache.k[:, :n], cache.v[:, :n]
        fused = kernels is not None
        x = self._project(torch.stack((talker_hidden, c0_embedding), dim=1), fused).reshape(2 * n, -1)
        for j in range(self.cfg.num_code_groups - 1):
            tokens, start = (2, 0) if j == 0 else (1, j + 1)
            rows = CacheRows(k, v, cache.starts[start, :n], tokens, start + tokens, start)
            # The same rows of the RoPE table, laid out for each path ([N, 1, hd] / [n, tokens, hd]).
            if not fused:
                cos, sin = self.cos[start : start + tokens, None], self.sin[start : start + tokens, None]
                if j == 0:
                    cos, sin = cos.repeat(n, 1, 1), sin.repeat(n, 1, 1)
            elif j == 0:
                cos, sin = self.cos[None, :2], self.sin[None, :2]
            else:
                cos, sin = self.cos[start], self.sin[start]
            h = self.stack.forward(x, cos, sin, rows, kernels, tokens)
            logits = F.linear(h, self.lm_heads[j])
            embedding = pick(logits if fused else logits.float(), j)
            if j + 1 < self.cfg.num_code_groups - 1:
                x = self._project(embedding, fused)

    def embed_code(self, code: Tensor, j: int) -> Tensor:
        """Embedding of code j+1 of the frame (codes [B]) in talker space [B, talker_hidden]."""
        return F.embedding(code, self.codec_embeddings[j])

    def embed(self, codes: Tensor) -> Tensor:
        """Embeddings of codes 1..G-1 in talker space: codes [B, G-1] -> [B, G-1, talker_hidden]."""
        return torch.stack([self.embed_code(codes[:, j], j) for j in range(codes.shape[1])], dim=1)
