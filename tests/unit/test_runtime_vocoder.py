"""The vocoder (engine.runtime.vocoder) on the CPU: chunks named by (slot, first frame, frames),
read from the device-side code history, split into runs and batched across streams at different
positions, give each stream its whole-sequence decode; a reset slot starts over."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import torch
from codec_chunks import decode_in_random_chunks

from engine.model.loader import load_model
import engine.runtime.vocoder as vocoder_module
from engine.runtime.vocoder import CodecChunks, Vocoder


@pytest.fixture(scope="module")
def model(tiny_checkpoint: Path):
    return load_model(tiny_checkpoint)


@torch.inference_mode()
def test_batched_chunks_equal_each_streams_whole_decode(model):
    vocoder = Vocoder(model, slots=8, use_graphs=False, bucket=lambda n: n)
    g = torch.Generator().manual_seed(0)
    frames = 10
    codes = torch.randint(0, model.config.codec.codebook_size, (8, frames, 16), generator=g)
    vocoder.history[:8, :frames] = codes
    streams = [1, 4, 6]  # not the first rows
    pcm = decode_in_random_chunks(vocoder, streams, frames, random.Random(1))
    for s in streams:
        wav = np.frombuffer(pcm[s], dtype=np.int16) / 32767.0
        expected = model.codec.decode(codes[s]).numpy()
        assert wav.shape == expected.shape
        assert np.abs(wav - expected).max() <= 1e-4, s
    # A slot reset for a new stream decodes from a fresh state, whatever it held before.
    vocoder.reset(4)
    again = decode_in_random_chunks(vocoder, [4], frames, random.Random(2))
    difference = np.frombuffer(again[4], dtype=np.int16).astype(int) - np.frombuffer(pcm[4], dtype=np.int16)
    assert np.abs(difference).max() <= 1  # one LSB: another batch composition may round differently


@torch.inference_mode()
def test_more_chunks_than_one_decode_pass_takes_are_decoded_in_passes(model, monkeypatch):
    # Five streams' chunks of one run, decoded two rows a pass: three passes whose rows go back
    # to their own chunks, each equal to the stream's whole-sequence decode.
    monkeypatch.setattr(vocoder_module, "MAX_DECODE_ROWS", 2)
    vocoder = Vocoder(model, slots=5, use_graphs=False, bucket=lambda n: n)
    g = torch.Generator().manual_seed(3)
    frames = 4
    codes = torch.randint(0, model.config.codec.codebook_size, (5, frames, 16), generator=g)
    vocoder.history[:5, :frames] = codes
    pending, _ = vocoder.decode_async(CodecChunks(np.arange(5), np.zeros(5, dtype=np.int64), np.full(5, frames)))
    assert len(pending.parts) == 3
    for slot, samples in enumerate(pending.samples()):
        expected = model.codec.decode(codes[slot]).numpy()
        assert np.abs(samples / 32767.0 - expected).max() <= 1e-4, slot
