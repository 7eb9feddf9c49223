"""Every golden case of the tiny fixture reproduces: text ids, codes, waveform, hidden states."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from engine.model import load_model
from engine.model.generate import StreamingGenerator, synthesize
from engine.model.sampling import SamplingParams

CASE_IDS = [
    "A01_en_ryan_english_nonstream",
    "A02_en_ryan_english_stream",
    "A03_zh_vivian_chinese_nonstream",
    "A04_zh_eric_auto_stream_dialect",
    "A05_en_serena_english_instruct_nonstream",
    "A06_zh_dylan_chinese_instruct_stream_dialect",
    "A07_en_aiden_auto_stream_maxtokens",
    "A08_regex_sohee_english_nonstream",
    "A09_short_ono_anna_japanese_stream",
    "A10_en_uncle_fu_auto_stream",
]


@pytest.fixture(scope="module")
def model(tiny_checkpoint: Path):
    return load_model(tiny_checkpoint)


@pytest.fixture(scope="module")
def cases(tiny_checkpoint: Path) -> dict[str, dict]:
    data = json.loads((tiny_checkpoint / "golden" / "cases.json").read_text())
    return {case["id"]: case for case in data["cases"]}


def golden(tiny_checkpoint: Path, case: dict):
    return np.load(tiny_checkpoint / "golden" / case["npz"])


def test_fixture_lists_the_expected_cases(cases):
    assert sorted(cases) == CASE_IDS


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_golden_case_reproduces(model, cases, tiny_checkpoint, case_id):
    case = cases[case_id]
    args, g = case["args"], golden(tiny_checkpoint, case)

    assert model.tokenizer.assistant_ids(args["text"]) == g["input_ids"].tolist()
    if "instruct_ids" in g:
        assert model.tokenizer.instruct_ids(args["instruct"]) == g["instruct_ids"].tolist()

    result, wav = synthesize(
        model,
        args["text"],
        speaker=args["speaker"],
        language=args["language"],
        instruct=args.get("instruct"),
        non_streaming_mode=args["non_streaming_mode"],
        max_new_tokens=args["max_new_tokens"],
        sampling=SamplingParams.greedy(),
    )
    assert result.codec_prefix_ids == case["codec_prefix_ids"]
    assert result.prefill_len == case["prefill_len"]
    assert result.stop_reason == case["stop_reason"]
    assert result.codes.shape == g["codes"].shape
    np.testing.assert_array_equal(result.codes.numpy(), g["codes"])
    assert wav.shape == g["wav"].shape
    assert np.abs(wav.numpy() - g["wav"]).max() <= 1e-4
    assert np.abs(result.talker_hidden.numpy() - g["talker_hidden"]).max() <= 1e-4
    np.testing.assert_allclose(result.talker_margins, g["talker_greedy_margin"], atol=1e-4)


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_plain_qwen2_split_matches_its_golden_ids(tiny_checkpoint, cases, case_id):
    from engine.model.config import read_config
    from engine.model.text import TextTokenizer

    tokenizer = TextTokenizer(tiny_checkpoint, read_config(tiny_checkpoint), split="qwen2")
    case = cases[case_id]
    assert tokenizer.assistant_ids(case["args"]["text"]) == case["token_ids_plain_qwen2_regex"]["input_ids"]


def test_a08_depends_on_the_split_regex(cases):
    case = cases["A08_regex_sohee_english_nonstream"]
    assert case["regex_sensitive"]
    assert case["token_ids"]["input_ids"] != case["token_ids_plain_qwen2_regex"]["input_ids"]


def test_teacher_forced_logits_match_the_first_five_frames(model, tiny_checkpoint, cases):
    """Raw talker and predictor logits (what sampled decoding draws from) match the official ones."""
    case = cases["A02_en_ryan_english_stream"]
    g = golden(tiny_checkpoint, case)
    with torch.inference_mode():
        stream = StreamingGenerator(
            model, speaker="Ryan", language="English", sampling=SamplingParams.greedy(),
            max_new_tokens=100, forced_codes=torch.from_numpy(g["codes"][:5]), record_logits=True,
        )
        stream.push_text(g["input_ids"][3:-5].tolist())
        stream.end_text()
        stream.run()
    talker = torch.stack(stream.talker_logits[:5]).numpy()
    predictor = torch.stack(stream.predictor_logits[:5]).numpy()
    assert np.abs(talker - g["talker_logits_first5"]).max() <= 1e-4
    assert np.abs(predictor - g["cp_logits_first5"]).max() <= 1e-4
