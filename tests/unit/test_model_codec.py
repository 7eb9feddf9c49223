"""The codec decoder: whole decode vs golden, streamed decode vs whole decode, batched states."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import torch

from engine.model import load_model
from engine.model.codec import FRAMES_PER_PASS, CodecState

# float32 chunked-vs-whole differences measured on the fixture are ~1e-5; the bound leaves room
# for other CPUs' kernel choices while staying far below audible (waveform RMS 0.1-0.35).
STREAM_TOL = 5e-5


@pytest.fixture(scope="module")
def model(tiny_checkpoint: Path):
    return load_model(tiny_checkpoint)


@pytest.fixture(scope="module")
def a02(tiny_checkpoint: Path):
    return np.load(tiny_checkpoint / "golden" / "A02_en_ryan_english_stream.npz")


def stream_decode(model, codes: torch.Tensor, chunk_sizes: list[int]) -> torch.Tensor:
    state, out, start = model.codec.new_state(), [], 0
    for size in chunk_sizes:
        out.append(model.codec.decode_chunk(codes[None, start : start + size], state)[0])
        start += size
    assert start == len(codes)
    return torch.cat(out)


def test_whole_decode_matches_the_official_waveform(model, a02):
    wav = model.codec.decode(torch.from_numpy(a02["codes"]))
    assert wav.shape == a02["wav_codes_only_full"].shape == (54 * 1920,)
    assert np.abs(wav.numpy() - a02["wav_codes_only_full"]).max() <= 1e-4


def test_three_frame_prefix_matches_the_official_prefix_decode(model, a02):
    wav = model.codec.decode(torch.from_numpy(a02["codes"][:3]))
    assert np.abs(wav.numpy() - a02["wav_prefix3"]).max() <= 1e-4
    # causal: the prefix decode is the start of the whole decode
    assert np.abs(wav.numpy() - a02["wav"][: 3 * 1920]).max() <= 1e-4


@pytest.mark.parametrize("pattern", ["single_frames", "threes", "random"])
def test_streamed_decode_equals_whole_decode(model, a02, pattern):
    codes = torch.from_numpy(a02["codes"])
    n = len(codes)
    if pattern == "single_frames":
        sizes = [1] * n
    elif pattern == "threes":
        sizes = [3] * (n // 3) + ([n % 3] if n % 3 else [])
    else:
        rng, sizes, left = random.Random(3), [], n
        while left:
            sizes.append(min(left, rng.randint(1, 20)))
            left -= sizes[-1]
    whole = model.codec.decode(codes)
    streamed = stream_decode(model, codes, sizes)
    assert streamed.shape == whole.shape
    assert (streamed - whole).abs().max() <= STREAM_TOL
    assert np.abs(streamed.numpy() - a02["wav"]).max() <= 1e-4


def test_first_chunk_can_be_one_frame(model, a02):
    codes = torch.from_numpy(a02["codes"])
    first = model.codec.decode_chunk(codes[None, :1], model.codec.new_state())[0]
    assert first.shape == (1920,)
    assert np.abs(first.numpy() - a02["wav"][:1920]).max() <= STREAM_TOL


def test_sliding_window_is_exercised_past_the_window(model, a02):
    """Frames beyond the 16-frame window still match: the key ring keeps window-1 frames and room
    for one pass's new ones."""
    codes = torch.from_numpy(a02["codes"])
    assert len(codes) > 2 * model.config.codec.sliding_window
    state = model.codec.new_state()
    for start in range(len(codes)):
        model.codec.decode_chunk(codes[None, start : start + 1], state)
        assert state.keys[0].shape[2] == model.config.codec.sliding_window - 1 + FRAMES_PER_PASS
        assert int((state.key_pos >= 0).sum()) == min(start + 1, state.keys[0].shape[2])


def test_batched_streams_at_different_positions(model, tiny_checkpoint):
    """Two streams share decode calls from different positions and match their solo decodes."""
    a = torch.from_numpy(np.load(tiny_checkpoint / "golden" / "A01_en_ryan_english_nonstream.npz")["codes"])
    b = torch.from_numpy(np.load(tiny_checkpoint / "golden" / "A10_en_uncle_fu_auto_stream.npz")["codes"])
    state_a = model.codec.new_state()
    head_a = model.codec.decode_chunk(a[None, :10], state_a)[0]  # stream A is 10 frames ahead
    state = CodecState.cat([state_a, model.codec.new_state()])
    chunks = []
    for i in range(0, 30, 2):
        pair = torch.stack((a[10 + i : 12 + i], b[i : i + 2]))
        chunks.append(model.codec.decode_chunk(pair, state))
    joined = torch.cat(chunks, dim=1)
    solo_a, solo_b = model.codec.decode(a[:40]), model.codec.decode(b[:30])
    assert (torch.cat((head_a, joined[0])) - solo_a).abs().max() <= STREAM_TOL
    assert (joined[1] - solo_b).abs().max() <= STREAM_TOL
    left, right = state.split()
    assert int(left.next_pos) == 40 and int(right.next_pos) == 30
    tail_b = model.codec.decode_chunk(b[None, 30:32], right)[0]
    assert (tail_b - model.codec.decode(b[:32])[30 * 1920 :]).abs().max() <= STREAM_TOL


def test_codes_for_the_wrong_number_of_streams_are_rejected(model, a02):
    with pytest.raises(ValueError, match="2 streams but state for 1"):
        model.codec.decode_chunk(torch.zeros(2, 1, 16, dtype=torch.int64), model.codec.new_state())


@pytest.mark.parametrize("method", ["im2col", "taps"])
def test_convolutions_as_gemms_give_the_official_waveform(tiny_checkpoint, a02, method):
    """Each GEMM way of running a convolution (chosen per convolution on CUDA where it beats
    cuDNN), forced for every convolution that has it, transposed ones included: the whole and the
    streamed decode still match the official waveform."""
    model = load_model(tiny_checkpoint)  # its own: the module's model keeps the library's convolutions
    convs = [c for c in model.codec._convs if method in c.methods]
    assert any(c.dilation > 1 for c in convs) and any(c.upsample > 1 for c in convs)
    for conv in convs:
        conv.method = method
    codes = torch.from_numpy(a02["codes"])
    assert np.abs(model.codec.decode(codes).numpy() - a02["wav_codes_only_full"]).max() <= 1e-4
    streamed = stream_decode(model, codes, [1, 3, 2] * (len(codes) // 6) + [1] * (len(codes) % 6))
    assert np.abs(streamed.numpy() - a02["wav"][: len(streamed)]).max() <= 1e-4
