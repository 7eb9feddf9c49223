"""Sampling settings, the talker's logits processors, and counter-based seeded draws."""

from __future__ import annotations

import math

import pytest
import torch

import engine
from engine.model.sampling import (
    MIN_NEW_TOKENS,
    SamplerRows,
    SamplingParams,
    apply_talker_processors,
    choose,
    suppressed_ids,
    uniform_noise,
)


def rows(*params: SamplingParams, predictor: bool = False) -> SamplerRows:
    return SamplerRows.build(list(params), "cpu", predictor=predictor)


def test_exported_from_engine():
    assert engine.SamplingParams is SamplingParams


def test_from_generation_config_reads_the_published_keys():
    published = {
        "do_sample": True, "repetition_penalty": 1.05, "temperature": 0.9, "top_p": 1.0, "top_k": 50,
        "subtalker_dosample": True, "subtalker_temperature": 0.9, "subtalker_top_p": 1.0,
        "subtalker_top_k": 50, "max_new_tokens": 8192,
    }
    p = SamplingParams.from_generation_config(published, seed=5)
    assert (p.do_sample, p.temperature, p.top_k, p.top_p, p.repetition_penalty, p.seed) == (True, 0.9, 50, 1.0, 1.05, 5)
    q = SamplingParams.from_generation_config({**published, "subtalker_dosample": False, "subtalker_top_k": 7})
    assert (q.subtalker_do_sample, q.subtalker_top_k, q.seed) == (False, 7, None)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"temperature": 0}, "temperature"),
        ({"top_k": -1}, "top_k"),
        ({"top_p": 0}, "top_p"),
        ({"top_p": 1.5}, "top_p"),
        ({"repetition_penalty": 0}, "repetition_penalty"),
        ({"subtalker_temperature": -1}, "subtalker_temperature"),
        ({"seed": 1.5}, "seed"),
    ],
)
def test_invalid_settings_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SamplingParams(**kwargs)


def test_with_seed_fills_in_a_seed_once():
    p = SamplingParams().with_seed()
    assert isinstance(p.seed, int)
    assert p.with_seed() is p


def test_processors_penalty_min_tokens_and_suppression():
    vocab, eos = 3072, 2150
    logits = torch.zeros(2, vocab)
    logits[:, 5], logits[:, 6], logits[:, eos] = 2.0, -2.0, 9.0
    seen = torch.zeros(2, vocab, dtype=torch.bool)
    seen[:, 5] = seen[:, 6] = True
    out = apply_talker_processors(
        logits, seen, torch.tensor([0, MIN_NEW_TOKENS]), torch.tensor([1.05, 2.0]),
        eos_id=eos, suppress=suppressed_ids(vocab, eos, "cpu"),
    )
    assert out[0, 5] == pytest.approx(2.0 / 1.05) and out[0, 6] == pytest.approx(-2.0 * 1.05)
    assert out[1, 5] == pytest.approx(1.0) and out[1, 6] == pytest.approx(-4.0)
    assert out[0, eos] == -math.inf  # too early for EOS
    assert out[1, eos] == 9.0  # allowed after MIN_NEW_TOKENS samples
    assert torch.isinf(out[:, 2048:eos]).all() and torch.isinf(out[:, eos + 1 :]).all()
    assert torch.isfinite(out[:, :2048]).all()


def test_greedy_rows_take_the_argmax():
    logits = torch.randn(3, 2048)
    picked = choose(logits, rows(*[SamplingParams.greedy()] * 3, predictor=True), torch.zeros(3, dtype=torch.int64))
    assert torch.equal(picked, logits.argmax(-1))


def test_draws_depend_only_on_seed_and_draw_index():
    logits = torch.randn(1, 3072).repeat(4, 1)
    params = [SamplingParams(seed=11), SamplingParams(seed=11), SamplingParams(seed=12), SamplingParams.greedy()]
    draw = torch.tensor([40, 40, 40, 40])
    batch = choose(logits, rows(*params), draw)
    alone = choose(logits[:1], rows(params[0]), draw[:1])
    assert batch[0] == batch[1] == alone[0]
    assert batch[3] == logits[0].argmax()
    different = {int(choose(logits[:1], rows(SamplingParams(seed=11)), torch.tensor([d]))) for d in range(20)}
    assert len(different) > 1


def test_uniform_noise_is_in_the_open_interval_and_spread():
    u = uniform_noise(torch.tensor([0, 2**32 - 1]), torch.tensor([0, 123456]), 4096)
    assert (u > 0).all() and (u < 1).all()
    assert abs(float(u.mean()) - 0.5) < 0.02
    assert not torch.equal(u[0], u[1])


def test_top_k_limits_the_support():
    logits = torch.arange(100, dtype=torch.float32)[None].repeat(200, 1)
    p = SamplingParams(top_k=3, temperature=5.0, seed=1)
    picked = choose(logits, rows(*[p] * 200), torch.arange(200))
    assert set(picked.tolist()) == {97, 98, 99}


def test_top_p_keeps_the_smallest_nucleus():
    probs = torch.tensor([0.5, 0.3, 0.15, 0.05])
    logits = probs.log()[None].repeat(300, 1)
    p = SamplingParams(top_p=0.7, temperature=1.0, top_k=0, seed=2)
    picked = choose(logits, rows(*[p] * 300), torch.arange(300))
    assert set(picked.tolist()) == {0, 1}


def test_sampled_frequencies_follow_the_softmax():
    probs = torch.tensor([0.6, 0.25, 0.1, 0.05])
    n = 4000
    p = SamplingParams(temperature=1.0, top_k=0, seed=99)
    picked = choose(probs.log()[None].repeat(n, 1), rows(*[p] * n), torch.arange(n))
    freq = torch.bincount(picked, minlength=4).float() / n
    assert torch.allclose(freq, probs, atol=0.03)


def test_temperature_sharpens():
    logits = torch.tensor([[1.0, 0.0]]).repeat(2000, 1)
    cold = choose(logits, rows(*[SamplingParams(temperature=0.25, seed=4, top_k=0)] * 2000), torch.arange(2000))
    warm = choose(logits, rows(*[SamplingParams(temperature=1.0, seed=4, top_k=0)] * 2000), torch.arange(2000))
    assert (cold == 0).float().mean() > (warm == 0).float().mean() + 0.15


def test_predictor_rows_use_the_subtalker_settings():
    p = SamplingParams(do_sample=True, top_k=5, subtalker_do_sample=False, subtalker_top_k=9, seed=3)
    r = rows(p, predictor=True)
    assert r.all_greedy and int(r.top_k[0]) == 9
    assert not rows(p).all_greedy


def test_sampled_rows_without_a_seed_are_refused():
    with pytest.raises(ValueError, match="with_seed"):
        rows(SamplingParams())
    assert rows(SamplingParams(do_sample=False)).all_greedy
