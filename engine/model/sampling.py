"""How the next code is chosen: sampling settings, the talker's logits processors, and sampling.

The order is the official one (HF `generate` in transformers 4.57.3), in float32:

    repetition penalty -> min new tokens -> suppressed ids -> temperature -> top-k -> top-p -> draw

The talker uses all of it (penalty over the codebook-0 ids this stream has generated, EOS
forbidden for the first `MIN_NEW_TOKENS` samples, ids `vocab-1024 .. vocab-1` suppressed except
EOS); the code predictor uses only temperature / top-k / top-p. Greedy rows take the argmax of the
processed logits, exactly as HF greedy search does.

Randomness is counter-based: the noise for a draw is a hash of (stream seed, draw index, token id),
so a stream's samples depend only on its own seed and position, never on which other streams
share the batch, on pauses, or on the device. Talker sample t uses draw index t * G and code j of
frame t uses t * G + j (G = codebooks per frame). Sampling is Gumbel-max over the filtered logits,
which draws from the same distribution as softmax + multinomial.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

MIN_NEW_TOKENS = 2
_MASK32 = 0xFFFFFFFF


@dataclass(frozen=True)
class SamplingParams:
    """Sampling settings of one stream.

    The first six fields drive the talker (codebook 0); `subtalker_*` drive the code predictor
    (codebooks 1..15), which has no repetition penalty. `seed=None` picks a random seed when the
    stream starts. `top_k=0` disables top-k, `top_p=1.0` disables top-p.
    """

    do_sample: bool = True
    temperature: float = 0.9
    top_k: int = 50
    top_p: float = 1.0
    repetition_penalty: float = 1.05
    seed: int | None = None
    subtalker_do_sample: bool = True
    subtalker_temperature: float = 0.9
    subtalker_top_k: int = 50
    subtalker_top_p: float = 1.0

    def __post_init__(self) -> None:
        for prefix in ("", "subtalker_"):
            temperature = getattr(self, f"{prefix}temperature")
            top_k = getattr(self, f"{prefix}top_k")
            top_p = getattr(self, f"{prefix}top_p")
            if not temperature > 0:
                raise ValueError(f"{prefix}temperature must be > 0, got {temperature}")
            if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0:
                raise ValueError(f"{prefix}top_k must be an integer >= 0, got {top_k!r}")
            if not 0 < top_p <= 1:
                raise ValueError(f"{prefix}top_p must be in (0, 1], got {top_p}")
        if not self.repetition_penalty > 0:
            raise ValueError(f"repetition_penalty must be > 0, got {self.repetition_penalty}")
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(self.seed, int)):
            raise ValueError(f"seed must be an integer or None, got {self.seed!r}")

    @classmethod
    def from_generation_config(cls, config: Mapping[str, Any], seed: int | None = None) -> SamplingParams:
        """Settings from a checkpoint's `generation_config.json` (keys as published)."""
        defaults = cls()
        return cls(
            do_sample=bool(config.get("do_sample", defaults.do_sample)),
            temperature=float(config.get("temperature", defaults.temperature)),
            top_k=int(config.get("top_k", defaults.top_k)),
            top_p=float(config.get("top_p", defaults.top_p)),
            repetition_penalty=float(config.get("repetition_penalty", defaults.repetition_penalty)),
            seed=seed,
            subtalker_do_sample=bool(config.get("subtalker_dosample", defaults.subtalker_do_sample)),
            subtalker_temperature=float(config.get("subtalker_temperature", defaults.subtalker_temperature)),
            subtalker_top_k=int(config.get("subtalker_top_k", defaults.subtalker_top_k)),
            subtalker_top_p=float(config.get("subtalker_top_p", defaults.subtalker_top_p)),
        )

    @classmethod
    def greedy(cls, repetition_penalty: float = 1.05) -> SamplingParams:
        """Greedy talker and predictor, as the parity goldens were produced."""
        return cls(do_sample=False, subtalker_do_sample=False, repetition_penalty=repetition_penalty, seed=0)

    def with_seed(self) -> SamplingParams:
        """These settings with a concrete seed (a random one if none was given)."""
        if self.seed is not None:
            return self
        return SamplingParams(**{**self.__dict__, "seed": random.getrandbits(32)})


@dataclass
class SamplerRows:
    """Per-row settings of one sampler (talker or code predictor) for a batch of streams."""

    do_sample: Tensor  # [B] bool
    temperature: Tensor  # [B] float32
    top_k: Tensor  # [B] int64, 0 = off
    top_p: Tensor  # [B] float32
    seed: Tensor  # [B] int64, 0 .. 2**32-1 (greedy rows without a seed use 0)
    all_greedy: bool

    @classmethod
    def build(cls, params: Sequence[SamplingParams], device: torch.device | str, *, predictor: bool) -> SamplerRows:
        prefix = "subtalker_" if predictor else ""
        do_sample = [getattr(p, f"{prefix}do_sample") for p in params]
        if any(sample and p.seed is None for sample, p in zip(do_sample, params)):
            raise ValueError("sampled rows need a seed: resolve it with SamplingParams.with_seed() when the stream starts")
        return cls(
            do_sample=torch.tensor(do_sample, dtype=torch.bool, device=device),
            temperature=torch.tensor([getattr(p, f"{prefix}temperature") for p in params], dtype=torch.float32, device=device),
            top_k=torch.tensor([getattr(p, f"{prefix}top_k") for p in params], dtype=torch.int64, device=device),
            top_p=torch.tensor([getattr(p, f"{prefix}top_p") for p in params], dtype=torch.float32, device=device),
            seed=torch.tensor([(p.seed or 0) & _MASK32 for p in params], dtype=torch.int64, device=device),
            all_greedy=not any(do_sample),
        )


def _hash32(x: Tensor) -> Tensor:
    """A 32-bit integer mixer on int64 tensors holding values in [0, 2**32); every product stays
    below 2**63, so it is exact on every device."""
    x = x ^ (x >> 16)
    x = (x * 0x45D9F3B) & _MASK32
    x = x ^ (x >> 16)
    x = (x * 0x45D9F3B) & _MASK32
    return x ^ (x >> 16)


def uniform_noise(seed: Tensor, draw: Tensor, vocab: int) -> Tensor:
    """[B, vocab] float64 uniforms in (0, 1), a pure function of (seed, draw index, token id)."""
    token = torch.arange(vocab, device=seed.device, dtype=torch.int64)
    row = _hash32(_hash32(seed & _MASK32) ^ (draw & _MASK32))
    bits = _hash32(_hash32(row[:, None] ^ token[None, :]) ^ (row[:, None] >> 7))
    return (bits.double() + 0.5) / 2.0**32


def apply_talker_processors(
    logits: Tensor,
    seen: Tensor,
    generated: Tensor,
    repetition_penalty: Tensor,
    *,
    eos_id: int,
    suppress: Tensor,
) -> Tensor:
    """Repetition penalty, min-new-tokens and suppression on float32 logits [B, V].

    seen [B, V] bool: ids this stream has generated; generated [B]: how many it has generated;
    suppress [V] bool: ids that may never be sampled.
    """
    penalty = repetition_penalty[:, None]
    penalized = torch.where(logits < 0, logits * penalty, logits / penalty)
    logits = torch.where(seen, penalized, logits)
    too_early = (generated < MIN_NEW_TOKENS)[:, None] & (torch.arange(logits.shape[1], device=logits.device) == eos_id)
    logits = logits.masked_fill(too_early, float("-inf"))
    return logits.masked_fill(suppress, float("-inf"))


def suppressed_ids(vocab_size: int, eos_id: int, device: torch.device | str) -> Tensor:
    """The talker may only emit an audio code or EOS: ids vocab-1024 .. vocab-1 except EOS."""
    mask = torch.zeros(vocab_size, dtype=torch.bool, device=device)
    mask[max(vocab_size - 1024, 0):] = True
    mask[eos_id] = False
    return mask


def _warp(logits: Tensor, rows: SamplerRows) -> Tensor:
    """Temperature, then top-k, then top-p, each row with its own settings."""
    vocab = logits.shape[1]
    logits = logits / rows.temperature[:, None]
    ordered, _ = torch.sort(logits, dim=-1, descending=True)
    k = torch.where(rows.top_k > 0, rows.top_k.clamp(max=vocab), vocab)
    kth = ordered.gather(1, (k - 1)[:, None])
    logits = logits.masked_fill(logits < kth, float("-inf"))
    # top-p as HF: drop the lowest-probability ids whose cumulative mass is <= 1 - top_p,
    # always keeping the most likely one.
    ascending, order = torch.sort(logits, dim=-1)
    cumulative = ascending.softmax(dim=-1).cumsum(dim=-1)
    drop = cumulative <= (1 - rows.top_p)[:, None]
    drop[:, -1] = False
    return logits.masked_fill(torch.zeros_like(drop).scatter(1, order, drop), float("-inf"))


def choose(logits: Tensor, rows: SamplerRows, draw: Tensor) -> Tensor:
    """Pick one id per row from processed float32 logits [B, V]; draw [B] int64 draw indices."""
    greedy = logits.argmax(dim=-1)
    if rows.all_greedy:
        return greedy
    warped = _warp(logits, rows)
    gumbel = -torch.log(-torch.log(uniform_noise(rows.seed, draw, logits.shape[1])))
    sampled = (warped.double() + gumbel).argmax(dim=-1)
    return torch.where(rows.do_sample, sampled, greedy)
