"""Cloned voices in the Qwen3 runtime (tiny Base checkpoint, CPU float32): made once through the
engine, stored, reloaded by a new engine, and batched with each other giving the official codes."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch
from text_pieces import random_pieces

from voice_tts.protocol import AudioChunk, Done, Error

from engine.model.sampling import SamplingParams
from engine.runtime.qwen3_engine import Qwen3Engine

GREEDY = SamplingParams.greedy()
TRANSCRIPT_C = "A calm voice reads a short line."
TRANSCRIPT_D = "Please listen carefully to the sound of this second reference recording."


@pytest.fixture(scope="module")
def voices_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("voices")


@pytest.fixture(scope="module")
def engine(base_checkpoint: Path, voices_dir: Path):
    eng = Qwen3Engine.from_pretrained(base_checkpoint, device="cpu", max_streams=4, keep_codes=True, voices_dir=voices_dir)
    golden = base_checkpoint / "golden"
    for name, ref, transcript in (("calm-icl", "ref_c.wav", TRANSCRIPT_C), ("calm-xvec", "ref_c.wav", None),
                                  ("second-icl", "ref_d_16k.wav", TRANSCRIPT_D)):
        audio, rate = sf.read(golden / ref, dtype="float32")
        eng.create_voice(name, audio, rate, transcript)
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def cases(base_golden_cases) -> dict[str, dict]:
    return base_golden_cases


# case id -> the stored voice that matches its reference (streaming-layout cases only)
VOICE_OF = {
    "D01_xvec_en_english_stream": "calm-xvec",
    "D04_icl_en_english_stream_long": "calm-icl",
    "D05_icl_de_german_stream_textshorter_16k": "second-icl",
    "D07_icl_en_auto_stream_maxtokens_16k": "second-icl",
    "D10_icl_es_spanish_stream_rowsequal": "calm-icl",
}


async def run(engine, case: dict, voice: str, rng: random.Random | None = None):
    a = case["args"]
    stream = engine.open_stream(voice=voice, language=a["language"], sampling=GREEDY, max_new_tokens=a["max_new_tokens"])

    async def feed():
        pieces = random_pieces(a["text"], rng, 1, 6) if rng else [a["text"]]
        for piece in pieces:
            stream.push_text(piece)
            if rng:
                await asyncio.sleep(rng.uniform(0, 0.02))
        stream.end_input()

    events, _ = await asyncio.gather(_collect(stream), feed())
    return events, stream


async def _collect(stream) -> list:
    return [event async for event in stream.events()]


def pcm(events) -> np.ndarray:
    return np.frombuffer(b"".join(e.pcm for e in events if isinstance(e, AudioChunk)), dtype=np.int16) / 32767.0


def test_voices_are_listed_and_capabilities_say_cloning(engine):
    names = [v.name for v in engine.voices]
    assert names == ["calm-icl", "calm-xvec", "second-icl"]
    caps = engine.capabilities()
    assert "voice_cloning" in caps["features"] and "instruct" not in caps["features"]


@pytest.mark.slow
async def test_cloned_voices_reproduce_the_official_codes_and_audio(engine, cases):
    for case_id, voice in VOICE_OF.items():
        case = cases[case_id]
        events, stream = await run(engine, case, voice)
        assert stream.codes == case["codes"], case_id
        wav = pcm(events)
        # ICL audio is decoded with the reference frames as left context, then cut.
        assert wav.shape == case["wav"].shape, case_id
        assert np.abs(wav - case["wav"]).max() <= 1e-4, case_id
        assert isinstance(events[-1], Done) and not events[-1].cancelled


@pytest.mark.slow
async def test_cloned_voices_batched_with_random_arrival_keep_their_codes(engine, cases):
    chosen = ["D01_xvec_en_english_stream", "D04_icl_en_english_stream_long", "D05_icl_de_german_stream_textshorter_16k",
              "D10_icl_es_spanish_stream_rowsequal"]

    async def one(case_id: str, seed: int):
        rng = random.Random(seed)
        await asyncio.sleep(rng.uniform(0, 0.2))
        return await run(engine, cases[case_id], VOICE_OF[case_id], rng)

    results = await asyncio.gather(*(one(cid, 10 + i) for i, cid in enumerate(chosen)))
    for case_id, (events, stream) in zip(chosen, results):
        assert stream.codes == cases[case_id]["codes"], case_id


async def test_a_new_engine_on_the_same_directory_speaks_the_stored_voice(engine, base_checkpoint, voices_dir, cases):
    case = cases["D10_icl_es_spanish_stream_rowsequal"]
    _, before = await run(engine, case, "calm-icl")
    again = Qwen3Engine.from_pretrained(base_checkpoint, device="cpu", max_streams=1, keep_codes=True, voices_dir=voices_dir)
    try:
        assert [v.name for v in again.voices] == [v.name for v in engine.voices]
        _, after = await run(again, case, "CALM-ICL")  # ids are case-insensitive
        assert after.codes == before.codes == case["codes"]
    finally:
        again.close()


async def test_unknown_and_preset_voices_are_refused_on_a_base_checkpoint(engine):
    for voice, message in (("nobody", "unknown voice 'nobody'; cloned voices: calm-icl"), ("ryan", "unknown voice 'ryan'")):
        events = await _collect(engine.open_stream(voice=voice, language="english"))
        assert isinstance(events[0], Error) and events[0].code == "invalid_voice" and message in events[0].message


def test_bad_references_are_refused_and_nothing_is_saved(engine, voices_dir):
    before = sorted(p.name for p in voices_dir.iterdir())
    rate = 24000
    tone = (0.3 * np.sin(np.arange(2 * rate) * 2 * np.pi * 220 / rate)).astype(np.float32)
    bad = [
        (tone[:1279], rate, "reference is 0.053 s long; the speaker encoder needs at least 0.053 s"),
        (tone[:0], rate, "the speaker encoder needs at least"),
        (np.tile(tone, 16), rate, "at most 30 s"),
        (np.zeros(2 * rate, np.float32), rate, "silent"),
        (np.full(2 * rate, np.nan, np.float32), rate, "NaN"),
        (tone, 1_000_000, "outside 8000..192000 Hz"),
        (tone, 0, "outside"),
    ]
    for audio, sample_rate, message in bad:
        with pytest.raises(ValueError, match=message):
            engine.create_voice("bad-one", audio, sample_rate)
    with pytest.raises(ValueError, match="already exists"):
        engine.create_voice("Calm-ICL", tone, rate)
    with pytest.raises(ValueError, match="must be 1-64 characters"):
        engine.create_voice("../escape", tone, rate)
    with pytest.raises(ValueError, match="transcript is empty"):
        engine.create_voice("blank-text", tone, rate, "  ")
    assert sorted(p.name for p in voices_dir.iterdir()) == before


# 0.72 s of ref_c.wav (24 kHz): whole codec frames, so the codec encoder, which is causal, gives
# the official reference codes' first frames exactly; the STFT frames that end inside it are the
# official speaker-encoder input's first frames.
SHORT = 9 * 1920


async def test_a_short_reference_clones_like_the_official(engine, base_checkpoint, cases):
    """The official `generate_voice_clone` clones from 0.72 s (x-vector and ICL); so does the engine."""
    audio, rate = sf.read(base_checkpoint / "golden" / "ref_c.wav", dtype="float32")
    golden = np.load(base_checkpoint / "golden" / "D04_icl_en_english_stream_long.npz")
    assert engine.capabilities()["voice_cloning"]["min_reference_seconds"] == 1280 / 24000
    for name, transcript in (("short-icl", TRANSCRIPT_C), ("short-xvec", None)):
        made = engine.create_voice(name, audio[:SHORT], rate, transcript)
        assert made["mode"] == ("icl" if transcript else "x_vector")
        prompt = engine.voice_store.get(name).prompt
        assert (prompt.ref_codes.numpy() == golden["ref_code"][:9]).all()
        assert torch.isfinite(prompt.x_vector).all()
        events = await _collect_turn(engine, name, cases["D04_icl_en_english_stream_long"]["args"]["text"])
        assert not [e for e in events if isinstance(e, Error)] and len(pcm(events)) > 0
        assert engine.delete_voice(name)
    mel = engine.model.speaker_encoder.mel(torch.from_numpy(audio[:SHORT]))
    whole_frames = (SHORT - 640) // 256 + 1
    assert np.abs(mel[:whole_frames].numpy() - golden["ref_spk_mel"][:whole_frames]).max() <= 1e-4


async def _collect_turn(engine, voice: str, text: str) -> list:
    stream = engine.open_stream(voice=voice, language="english", sampling=GREEDY, max_new_tokens=40)
    stream.push_text(text)
    stream.end_input()
    return await _collect(stream)


def test_stereo_is_mixed_down(engine):
    rate = 16000
    left = (0.3 * np.sin(np.arange(int(1.5 * rate)) * 2 * np.pi * 180 / rate)).astype(np.float32)
    made = engine.create_voice("stereo", np.stack([left, 0.5 * left], axis=1), rate)
    assert made["mode"] == "x_vector"
    assert engine.voice_store.get("stereo").prompt.ref_codes.shape == (int(np.ceil(1.5 * 24000 / 1920)), 16)
    assert engine.delete_voice("stereo") and not engine.delete_voice("stereo")
