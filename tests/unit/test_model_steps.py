"""The per-step API batches streams of different lengths, layouts and voices in one call.

A small lock-step driver (the shape of what the runtime does) runs four golden cases together
through `prefill`, `frame_step` and batched sampling; every stream must reproduce its golden codes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from engine.model import load_model, prompt
from engine.model.prompt import Voice
from engine.model.sampling import SamplerRows, SamplingParams, apply_talker_processors, choose, suppressed_ids
from engine.model.steps import decode_audio, frame_step, prefill, talker_logits
from engine.model.talker import KVCache

CASES = [
    # id, speaker, language, instruct, streaming layout, max_new_tokens
    ("A01_en_ryan_english_nonstream", "Ryan", "English", None, False, 100),
    ("A02_en_ryan_english_stream", "Ryan", "English", None, True, 100),
    ("A06_zh_dylan_chinese_instruct_stream_dialect", "Dylan", "Chinese", "用开心的语气说这句话。", True, 100),
    ("A07_en_aiden_auto_stream_maxtokens", "Aiden", "Auto", None, True, 8),
]


@pytest.fixture(scope="module")
def model(tiny_checkpoint: Path):
    return load_model(tiny_checkpoint)


@torch.inference_mode()
def run_batched(model, goldens):
    cfg = model.config.talker
    groups, device = model.num_code_groups, model.device
    cache = KVCache.allocate(cfg.layers, num_slots=len(CASES) + 2, max_len=256, device=device, dtype=model.dtype)
    # Streams take slots 2.. so slot numbers differ from batch rows.
    slots = torch.arange(2, len(CASES) + 2)
    lengths, hidden, trailing = [], [], []
    for (case_id, speaker, language, instruct, streaming, _), slot in zip(CASES, slots.tolist()):
        voice = Voice.resolve(model.config, speaker, language, instruct)
        ids = goldens[case_id]["input_ids"][3:-5].tolist()
        instruct_ids = model.tokenizer.instruct_ids(instruct) if instruct else None
        rows = prompt.prefix_rows(model, voice.codec_prefix_ids(model.config), instruct_ids)
        hidden_prefix = prefill(model, rows, cache, slot)  # voice part first, as a prefix cache would
        assert hidden_prefix.shape == (cfg.layers.hidden_size,)
        codec = prompt.codec_rows(model, voice)
        tail = prompt.streaming_head(model, ids, codec, True) if streaming else prompt.non_streaming_rows(model, ids, codec)
        hidden.append(prefill(model, tail, cache, slot, start=rows.shape[0]))
        lengths.append(rows.shape[0] + tail.shape[0])
        if streaming:
            trailing.append(torch.cat((prompt.text_rows(model, ids[1:]), model.tts_eos_embed[None])))
        else:
            trailing.append(torch.zeros(0, cfg.layers.hidden_size))

    n = len(CASES)
    hidden = torch.stack(hidden)
    seen = torch.zeros(n, cfg.vocab_size, dtype=torch.bool)
    count = torch.zeros(n, dtype=torch.int64)
    penalty = torch.full((n,), 1.05)
    suppress = suppressed_ids(cfg.vocab_size, cfg.codec_eos_id, device)
    sampler = SamplerRows.build([SamplingParams.greedy()] * n, device, predictor=False)
    predictor = SamplerRows.build([SamplingParams.greedy()] * n, device, predictor=True)
    frames: list[list[torch.Tensor]] = [[] for _ in range(n)]
    active = list(range(n))
    logits = talker_logits(model, hidden)
    codec_state = model.codec.new_state(n)
    audio: list[list[torch.Tensor]] = [[] for _ in range(n)]
    while active:
        idx = torch.tensor(active)
        processed = apply_talker_processors(
            logits, seen[idx], count[idx], penalty[idx], eos_id=cfg.codec_eos_id, suppress=suppress
        )
        c0 = choose(processed, sampler, count[idx] * groups)
        keep = []
        for row, stream in enumerate(active):
            if int(c0[row]) == cfg.codec_eos_id:
                continue
            count[stream] += 1
            seen[stream, c0[row]] = True
            if count[stream] >= CASES[stream][5]:
                continue
            keep.append(row)
        if not keep:
            break
        rows = torch.tensor(keep)
        active = [active[r] for r in keep]
        idx = torch.tensor(active)
        t = [len(frames[s]) for s in active]
        text = torch.stack([
            trailing[s][t_s] if t_s < len(trailing[s]) else model.tts_pad_embed for s, t_s in zip(active, t)
        ])
        positions = torch.tensor([lengths[s] for s in active])
        step = frame_step(
            model, hidden[rows], c0[rows], text, cache, slots[idx], positions, predictor,
            (count[idx] - 1) * groups, kv_len=int(positions.max()) + 1,
        )
        # every stream's codec state steps along only when it produced a frame
        states = codec_state.split()
        joined = type(codec_state).cat([states[s] for s in active])
        wav = decode_audio(model, step.codes[:, None], joined)
        for row, (s, piece) in enumerate(zip(active, joined.split())):
            states[s] = piece
            frames[s].append(step.codes[row])
            audio[s].append(wav[row])
        codec_state = type(codec_state).cat(states)
        for s in active:
            lengths[s] += 1
        hidden, logits = step.hidden, step.logits
    return [torch.stack(f).numpy() for f in frames], [torch.cat(a).numpy() for a in audio]


def test_batched_steps_reproduce_every_stream(model, tiny_checkpoint):
    goldens = {case[0]: np.load(tiny_checkpoint / "golden" / f"{case[0]}.npz") for case in CASES}
    codes, audio = run_batched(model, goldens)
    for (case_id, *_), got, wav in zip(CASES, codes, audio):
        np.testing.assert_array_equal(got, goldens[case_id]["codes"], err_msg=case_id)
        assert np.abs(wav - goldens[case_id]["wav"]).max() <= 1e-4, case_id


def test_kv_cache_overflow_is_reported(model):
    cache = KVCache.allocate(model.config.talker.layers, num_slots=1, max_len=4, device="cpu", dtype=model.dtype)
    rows = torch.zeros(5, model.config.talker.layers.hidden_size)
    with pytest.raises(ValueError, match="beyond the KV cache length 4"):
        prefill(model, rows, cache, 0)
