"""Cloned voices on CUDA (tiny Base checkpoint): the CUDA-graph runtime reproduces the official
clone goldens in float32, and a cloned voice batched with other voices (x-vector and ICL,
arriving at random) gives the codes it gives alone, in float32 and in bfloat16."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch
from text_pieces import speak_in_pieces


from engine.model.loader import load_model
from engine.model.sampling import SamplingParams
from engine.runtime.loop import LoopSettings
from engine.runtime.qwen3_engine import EngineSettings, Qwen3Engine

pytestmark = pytest.mark.gpu
GREEDY = SamplingParams.greedy()
VOICES = {  # name -> (reference, transcript or None for x-vector only)
    "calm-icl": ("ref_c.wav", "A calm voice reads a short line."),
    "calm-xvec": ("ref_c.wav", None),
    "second-icl": ("ref_d_16k.wav", "Please listen carefully to the sound of this second reference recording."),
    "second-xvec": ("ref_d_16k.wav", None),
}
VOICE_OF = {
    "D01_xvec_en_english_stream": "calm-xvec",
    "D03_xvec_mix_auto_stream_reftext_ignored": "second-xvec",
    "D04_icl_en_english_stream_long": "calm-icl",
    "D05_icl_de_german_stream_textshorter_16k": "second-icl",
    "D07_icl_en_auto_stream_maxtokens_16k": "second-icl",
    "D08_prompt_icl_ko_korean_stream": "second-icl",
    "D10_icl_es_spanish_stream_rowsequal": "calm-icl",
}


@pytest.fixture(scope="module", autouse=True)
def exact_float32():
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    matmul, cudnn = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = matmul, cudnn


@pytest.fixture(scope="module")
def cases(base_golden_cases) -> dict[str, dict]:
    return base_golden_cases


def engine_on(base_checkpoint: Path, dtype: torch.dtype, voices_dir: Path) -> Qwen3Engine:
    model = load_model(base_checkpoint, "cuda", dtype)
    settings = EngineSettings(max_streams=8, voices_dir=voices_dir, loop=LoopSettings(keep_codes=True))
    engine = Qwen3Engine(model, settings)
    for name, (ref, transcript) in VOICES.items():
        if name not in engine.voice_store:
            audio, rate = sf.read(base_checkpoint / "golden" / ref, dtype="float32")
            engine.create_voice(name, audio, rate, transcript)
    return engine


async def run(engine: Qwen3Engine, case: dict, rng: random.Random | None = None):
    a = case["args"]
    stream = engine.open_stream(voice=VOICE_OF[case["id"]], language=a["language"], sampling=GREEDY,
                                max_new_tokens=a["max_new_tokens"])

    return await speak_in_pieces(stream, a["text"], rng)


async def test_clone_goldens_in_float32_on_the_graph_path(base_checkpoint, cases, tmp_path):
    engine = engine_on(base_checkpoint, torch.float32, tmp_path)
    try:
        for cid in VOICE_OF:
            codes, wav = await run(engine, cases[cid])
            assert codes == cases[cid]["codes"], cid
            assert wav.shape == cases[cid]["wav"].shape and np.abs(wav - cases[cid]["wav"]).max() <= 1e-3, cid
    finally:
        engine.close()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
async def test_a_cloned_voice_batched_with_others_gives_its_solo_codes(base_checkpoint, cases, tmp_path, dtype):
    engine = engine_on(base_checkpoint, dtype, tmp_path)
    try:
        solo = {cid: (await run(engine, cases[cid]))[0] for cid in VOICE_OF}
        for round_seed in (1, 2):
            results = await asyncio.gather(
                *(run(engine, cases[cid], random.Random(round_seed * 100 + i)) for i, cid in enumerate(VOICE_OF))
            )
            for cid, (codes, _) in zip(VOICE_OF, results):
                assert codes == solo[cid], (dtype, round_seed, cid)
    finally:
        engine.close()
