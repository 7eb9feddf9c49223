"""The frame step's sampling on the PyTorch path: all G draws of a step at once, over candidates.

Sampling draws exactly the reference sampler's noise (`engine.model.sampling.uniform_noise`, a
function of seed, draw index and token id) for all G draws of a step at once, and picks among
the top-k candidates only; greedy rows take the argmax. (With the Triton kernels, the runner's
`kernels.pick` does the same in one launch per draw.)
"""

from __future__ import annotations

import torch
from torch import Tensor

from engine.model.sampling import SamplerRows, uniform_noise


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
