"""Token-level text input: any arrival schedule reproduces the official streaming layout.

The stream pauses whenever the next text row is unknown (it never feeds <tts_pad> while the text
is still open) and resumes with its KV cache intact; audio is decoded frame by frame as it comes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch

from engine.model import load_model
from engine.model.generate import StreamingGenerator
from engine.model.sampling import SamplingParams
from engine.model.voice_clone import codec_context, make_clone_prompt

STREAMING_CASES = {
    "A02_en_ryan_english_stream": ("Ryan", "English", None, 100),
    "A04_zh_eric_auto_stream_dialect": ("Eric", "Auto", None, 100),
    "A06_zh_dylan_chinese_instruct_stream_dialect": ("Dylan", "Chinese", "用开心的语气说这句话。", 100),
    "A07_en_aiden_auto_stream_maxtokens": ("Aiden", "Auto", None, 8),
    "A10_en_uncle_fu_auto_stream": ("Uncle_Fu", "Auto", None, 100),
}

# schedule(tick, tokens still pending, rng) -> how many tokens arrive at this tick; the stream is
# asked for one frame per tick, so a tick stands for one frame's worth of wall-clock time.
Schedule = Callable[[int, int, random.Random], int]
SCHEDULES: dict[str, Schedule] = {
    "all_at_once": lambda tick, pending, rng: pending,
    "one_per_frame": lambda tick, pending, rng: 1,
    "one_every_3_frames": lambda tick, pending, rng: 1 if tick % 3 == 0 else 0,
    "random_bursts": lambda tick, pending, rng: rng.choice([0, 0, 0, 1, 2, 4]),
    "late_start": lambda tick, pending, rng: 0 if tick < 20 else rng.choice([0, 0, 0, 3]),
}


@pytest.fixture(scope="module")
def model(tiny_checkpoint: Path):
    return load_model(tiny_checkpoint)


@pytest.fixture(scope="module")
def base_model(base_checkpoint: Path):
    return load_model(base_checkpoint)


def run_schedule(model, case: tuple, text_ids: list[int], schedule: Schedule, seed: int, clone=None):
    """Drive one stream; returns its frames, streamed audio, and how often it waited for text.
    A cloned voice's audio starts from its codec context (ICL: the reference frames)."""
    speaker, language, instruct, max_new_tokens = case
    rng = random.Random(seed)
    stream = StreamingGenerator(
        model, speaker=speaker, language=language, instruct=instruct,
        sampling=SamplingParams.greedy(), max_new_tokens=max_new_tokens, clone=clone,
    )
    codec_state = codec_context(model, clone)
    pending, frames, audio, waits = list(text_ids), [], [], 0
    for tick in range(10_000):
        if stream.finished:
            break
        arriving = min(schedule(tick, len(pending), rng), len(pending))
        if arriving:
            stream.push_text(pending[:arriving])
            pending = pending[arriving:]
        frame = stream.next_frame()
        if frame is not None:
            frames.append(frame)
            audio.append(model.codec.decode_chunk(frame[None, None], codec_state)[0])
            continue
        if stream.finished:
            break
        waits += 1
        # Waiting with open text must never have fed the end-of-text or pad rows.
        assert "eos" not in stream.text_track and "pad" not in stream.text_track
        if not pending:
            stream.end_text()
    assert stream.finished, "stream made no progress"
    codes = torch.stack(frames).numpy() if frames else np.zeros((0, 16), dtype=np.int64)
    return codes, (torch.cat(audio).numpy() if audio else np.zeros(0, np.float32)), waits, stream


@pytest.mark.parametrize("schedule", sorted(SCHEDULES))
def test_a02_any_arrival_schedule_reproduces_the_golden(model, tiny_checkpoint, schedule):
    g = np.load(tiny_checkpoint / "golden" / "A02_en_ryan_english_stream.npz")
    text_ids = g["input_ids"][3:-5].tolist()
    with torch.inference_mode():
        codes, audio, waits, stream = run_schedule(
            model, STREAMING_CASES["A02_en_ryan_english_stream"], text_ids, SCHEDULES[schedule], seed=7
        )
    np.testing.assert_array_equal(codes, g["codes"])
    assert audio.shape == g["wav"].shape
    assert np.abs(audio - g["wav"]).max() <= 1e-4
    # 14 text tokens, 54 frames: the text, its end and the trailing pads were all exercised.
    assert stream.text_track.count("text") == len(text_ids) - 1
    assert stream.text_track.count("eos") == 1
    assert stream.text_track.index("eos") == len(text_ids) - 1
    if schedule != "all_at_once":
        assert waits > 0


@pytest.mark.parametrize("case_id", sorted(STREAMING_CASES))
@pytest.mark.parametrize("seed", [1, 2])
def test_streaming_cases_with_random_pauses(model, tiny_checkpoint, case_id, seed):
    g = np.load(tiny_checkpoint / "golden" / f"{case_id}.npz")
    with torch.inference_mode():
        codes, _, _, _ = run_schedule(
            model, STREAMING_CASES[case_id], g["input_ids"][3:-5].tolist(), SCHEDULES["random_bursts"], seed
        )
    np.testing.assert_array_equal(codes, g["codes"])


@pytest.mark.slow
@pytest.mark.parametrize("schedule", ["all_at_once", "one_per_frame", "one_every_3_frames", "random_bursts"])
def test_icl_clone_any_arrival_schedule_reproduces_the_golden(base_model, base_checkpoint, schedule):
    """D04 (ICL, text longer than the reference codes): the prefill needs the transcript plus
    the first F + 1 - R = 8 target tokens, then one text row per frame."""
    golden = base_checkpoint / "golden"
    g = np.load(golden / "D04_icl_en_english_stream_long.npz")
    audio, sample_rate = sf.read(golden / "ref_c.wav", dtype="float32")
    clone = make_clone_prompt(base_model, audio, sample_rate, "A calm voice reads a short line.")
    text_ids = g["input_ids"][3:-5].tolist()
    with torch.inference_mode():
        codes, streamed, waits, stream = run_schedule(
            base_model, (None, "English", None, 100), text_ids, SCHEDULES[schedule], seed=3, clone=clone
        )
    np.testing.assert_array_equal(codes, g["codes"])
    assert streamed.shape == g["wav"].shape
    assert np.abs(streamed - g["wav"]).max() <= 1e-4
    # 24 frames: the 17 trailing rows (16 text tokens + tts_eos) all consumed, then tts_pad.
    assert stream.text_track[:17] == ["text"] * 16 + ["eos"]
    assert set(stream.text_track[17:]) == {"pad"}
    if schedule != "all_at_once":
        assert waits > 0


@pytest.mark.parametrize("case_id, ref, transcript", [
    ("D05_icl_de_german_stream_textshorter_16k", "ref_d_16k.wav",
     "Please listen carefully to the sound of this second reference recording."),
    ("D10_icl_es_spanish_stream_rowsequal", "ref_c.wav", "A calm voice reads a short line."),
])
def test_icl_text_no_longer_than_the_reference_waits_for_its_end(base_model, base_checkpoint, case_id, ref, transcript):
    """The prefill holds tts_eos: no frame can come before the end of the text."""
    golden = base_checkpoint / "golden"
    g = np.load(golden / f"{case_id}.npz")
    audio, sample_rate = sf.read(golden / ref, dtype="float32")
    clone = make_clone_prompt(base_model, audio, sample_rate, transcript)
    info = next(c for c in json.loads((golden / "cases.json").read_text())["cases"] if c["id"] == case_id)
    stream = StreamingGenerator(base_model, language=info["args"]["language"], sampling=SamplingParams.greedy(), clone=clone)
    with torch.inference_mode():
        stream.push_text(g["input_ids"][3:-5].tolist())
        assert stream.next_frame() is None and not stream.finished
        stream.end_text()
        frames = []
        while (frame := stream.next_frame()) is not None:
            frames.append(frame)
    np.testing.assert_array_equal(torch.stack(frames).numpy(), g["codes"])


def test_text_ending_before_any_token_produces_no_audio(model):
    stream = StreamingGenerator(model, speaker="ryan", language="english", sampling=SamplingParams.greedy())
    assert stream.next_frame() is None and not stream.finished
    stream.end_text()
    assert stream.next_frame() is None and stream.finished
    assert stream.stop_reason == "empty_text"


def test_push_after_end_is_rejected(model):
    stream = StreamingGenerator(model, speaker="ryan", sampling=SamplingParams.greedy())
    stream.end_text()
    with pytest.raises(RuntimeError, match="already ended"):
        stream.push_text([292])
