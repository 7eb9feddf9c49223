"""The runtime on CUDA: the CUDA-graph path reproduces the goldens in float32 and equals the eager
path bit for bit in bfloat16; the Triton frame-step kernels pass their check and, run in float32,
give the unfused step's codes; batching leaves codes unchanged (float32 exactly; bfloat16 measured)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import numpy as np
import pytest
from codec_chunks import decode_in_random_chunks
from text_pieces import speak_in_pieces
import torch


from engine.model.codec import CodecDecoder
from engine.model.loader import load_model
from engine.model.prompt import Voice
from engine.model.sampling import SamplingParams
from engine.runtime import kernels
from engine.runtime.qwen3_engine import EngineSettings, Qwen3Engine
from engine.runtime.loop import LoopSettings
from engine.runtime.runner import ROW_BUCKETS, ModelRunner, StepRow, _bucket
from engine.runtime.vocoder import CODEC_FRAME_SIZES, Vocoder

pytestmark = pytest.mark.gpu
GREEDY = SamplingParams.greedy()


@pytest.fixture(scope="module", autouse=True)
def exact_float32():
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    matmul, cudnn = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = matmul, cudnn


def streaming(golden_cases: dict) -> list[str]:
    return [cid for cid, c in golden_cases.items() if not c["args"]["non_streaming_mode"]]


def engine_on(tiny_checkpoint: Path, dtype: torch.dtype, use_graphs: bool = True, cache_dir: Path | None = None) -> Qwen3Engine:
    model = load_model(tiny_checkpoint, "cuda", dtype)
    settings = EngineSettings(
        max_streams=8, use_graphs=use_graphs, admit_by_headroom=False, loop=LoopSettings(keep_codes=True),
        convolution_cache_dir=cache_dir,
    )
    return Qwen3Engine(model, settings)


async def run(engine: Qwen3Engine, case: dict, rng: random.Random | None = None):
    a = case["args"]
    stream = engine.open_stream(
        voice=a["speaker"], language=a["language"], instruct=a.get("instruct"), sampling=GREEDY,
        max_new_tokens=a["max_new_tokens"],
    )

    return await speak_in_pieces(stream, a["text"], rng)


async def test_graph_path_reproduces_the_goldens_in_float32(tiny_checkpoint, golden_cases):
    engine = engine_on(tiny_checkpoint, torch.float32)
    try:
        for cid in streaming(golden_cases):
            codes, wav = await run(engine, golden_cases[cid])
            assert codes == golden_cases[cid]["codes"], cid
            assert np.abs(wav - golden_cases[cid]["wav"]).max() <= 1e-4, cid
        assert engine.runner._step_graphs, "the frame step ran as CUDA graphs"
    finally:
        await engine.aclose()


async def test_no_stream_waits_for_a_codec_graph(tiny_checkpoint, golden_cases):
    """The engine captures its graphs up to its capacity before it starts (`warm_up_rows` left to
    the capacity): eight streams at once then decode every chunk through a graph captured before
    them, so none waits for a capture or for its convolutions to be timed."""
    engine = engine_on(tiny_checkpoint, torch.bfloat16)
    try:
        assert engine.warm_up_seconds > 0
        captured = engine.runner.vocoder.graphs_captured
        buckets = {_bucket(r, ROW_BUCKETS, engine.runner.slots) for r in ROW_BUCKETS if r <= engine.runner.slots}
        assert captured == len(buckets) * len(CODEC_FRAME_SIZES), "a decode graph of every rows bucket and run length"
        cases = streaming(golden_cases)
        await asyncio.gather(*(run(engine, golden_cases[cases[i % len(cases)]], random.Random(i)) for i in range(8)))
        assert engine.runner.vocoder.graphs_captured == captured
    finally:
        await engine.aclose()


async def test_a_second_start_takes_the_remembered_convolution_ways(tiny_checkpoint, tmp_path, monkeypatch):
    """The first engine times its convolutions at warm-up and remembers the ways; the next one on
    the same GPU and libraries takes them and times nothing."""
    first = engine_on(tiny_checkpoint, torch.bfloat16, cache_dir=tmp_path)
    chosen = dict(first.model.codec.convolution_methods)
    await first.aclose()
    assert chosen and len(list(tmp_path.glob("codec-convolutions-*.json"))) == 1
    timed = []
    time_convolutions = CodecDecoder._time_convolutions
    monkeypatch.setattr(
        CodecDecoder, "_time_convolutions", lambda codec, *shape: timed.append(shape) or time_convolutions(codec, *shape)
    )
    second = engine_on(tiny_checkpoint, torch.bfloat16, cache_dir=tmp_path)
    try:
        assert second.model.codec.convolution_methods == chosen
        assert timed == []
    finally:
        await second.aclose()


async def test_batch_invariance_in_float32_on_cuda(tiny_checkpoint, golden_cases):
    engine = engine_on(tiny_checkpoint, torch.float32)
    try:
        chosen = streaming(golden_cases) + ["A05_en_serena_english_instruct_nonstream", "A08_regex_sohee_english_nonstream"]
        alone = {cid: (await run(engine, golden_cases[cid]))[0] for cid in chosen}
        together = await asyncio.gather(*(run(engine, golden_cases[cid], random.Random(i)) for i, cid in enumerate(chosen)))
        for cid, (codes, _) in zip(chosen, together):
            assert codes == alone[cid], cid
    finally:
        await engine.aclose()


def _runner_codes(model, use_graphs: bool, steps: int, fused_kernels: bool | None = None) -> list[list[list[int]]]:
    """Drive the runner directly (no loop, so the batch composition is fixed): 4 streams of
    different voices and lengths (two sampled), one parked every third step."""
    runner = ModelRunner(model, slots=8, max_context=256, use_graphs=use_graphs, fused_kernels=fused_kernels)
    assert runner.fused == (fused_kernels if fused_kernels is not None else model.dtype == torch.bfloat16)
    voices = [Voice.resolve(model.config, s, l, i) for s, l, i in
              [("ryan", "english", None), ("vivian", "chinese", None), ("serena", "english", "Speak slowly."), ("eric", "auto", None)]]
    slots = [0, 1, 3, 5]
    for slot, voice in zip(slots, voices):
        length = runner.prefix_length(voice)
        assert runner.pool.reserve(slot, length, steps)  # the KV blocks of every row it reaches
        runner.fill_prefix([(slot, voice, 0, length)])
        runner.start_stream(slot, length, SamplingParams(seed=slot) if slot % 2 else GREEDY)
    text = model.tokenizer.encode("The quick brown fox jumps over the lazy dog, and then it rests.")
    out = []
    for t in range(steps):
        rows = [StepRow(slot, text[t % len(text)], t > 2) for slot in slots if not (slot == 3 and t % 3 == 2)]
        out.append(runner.step(rows).tolist())
    return out


def test_graph_replay_equals_the_eager_step_in_bfloat16(tiny_checkpoint):
    model = load_model(tiny_checkpoint, "cuda", torch.bfloat16)
    with torch.inference_mode():
        eager = _runner_codes(model, use_graphs=False, steps=30)
        graphs = _runner_codes(model, use_graphs=True, steps=30)
    assert graphs == eager


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_the_kernels_pass_their_check(dtype):
    assert kernels.probe(torch.device("cuda"), dtype)


def test_the_kernels_give_the_unfused_codes_in_float32(tiny_checkpoint):
    model = load_model(tiny_checkpoint, "cuda", torch.float32)
    with torch.inference_mode():
        unfused = _runner_codes(model, use_graphs=True, steps=30, fused_kernels=False)
        fused = _runner_codes(model, use_graphs=True, steps=30, fused_kernels=True)
    assert fused == unfused


async def test_batch_invariance_in_bfloat16_is_measured(tiny_checkpoint, golden_cases, capsys):
    """bfloat16 GEMMs of another batch size may round differently; on the tiny checkpoint, whose
    near-ties are as small as 1e-4, that can flip a code. Each flip is reported with where it
    happened; streams that never meet a flip must match exactly, and the first frames always do."""
    engine = engine_on(tiny_checkpoint, torch.bfloat16)
    try:
        chosen = streaming(golden_cases) + ["A05_en_serena_english_instruct_nonstream", "A08_regex_sohee_english_nonstream"]
        alone = {cid: (await run(engine, golden_cases[cid]))[0] for cid in chosen}
        together = await asyncio.gather(*(run(engine, golden_cases[cid], random.Random(i)) for i, cid in enumerate(chosen)))
        same = 0
        for cid, (codes, _) in zip(chosen, together):
            if codes == alone[cid]:
                same += 1
                continue
            first = next((t for t, (a, b) in enumerate(zip(codes, alone[cid])) if a != b), min(len(codes), len(alone[cid])))
            with capsys.disabled():
                print(f"bf16 batch flip: {cid} first differs at frame {first} of {len(alone[cid])}")
            assert first > 0
        with capsys.disabled():
            print(f"bf16 batch invariance: {same}/{len(chosen)} streams identical to their solo runs")
    finally:
        await engine.aclose()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_batched_codec_equals_the_reference_decode(tiny_checkpoint, dtype, capsys):
    """40 streams, each decoded in random chunk sizes (1-8 frames) and batched with the others
    at different positions, through the vocoder's graphs; against the float32 whole decode on the
    CPU. float32 must match within the goldens' tolerance; bfloat16 is measured and reported (on
    the tiny random checkpoint its error reaches 0.2 of full scale at single samples)."""
    reference = load_model(tiny_checkpoint)
    model = load_model(tiny_checkpoint, "cuda", dtype)
    vocoder = Vocoder(model, slots=64, use_graphs=True, bucket=lambda n: _bucket(n, ROW_BUCKETS, 64))
    g = torch.Generator().manual_seed(0)
    streams, frames = 40, 30
    codes = torch.randint(0, reference.config.codec.codebook_size, (streams, frames, 16), generator=g)
    vocoder.history[:streams, :frames] = codes.cuda()
    with torch.inference_mode():
        pcm = decode_in_random_chunks(vocoder, list(range(streams)), frames, random.Random(0), sizes=(1, 1, 2, 3, 4, 8))
        worst, relative = 0.0, 0.0
        for s in range(streams):
            wav = np.frombuffer(pcm[s], dtype=np.int16) / 32767.0
            expected = reference.codec.decode(codes[s]).numpy()
            assert wav.shape == expected.shape
            worst = max(worst, float(np.abs(wav - expected).max()))
            relative = max(relative, float(np.linalg.norm(wav - expected) / np.linalg.norm(expected)))
    with capsys.disabled():
        print(f"batched codec vs the float32 reference, {dtype}: max |difference| {worst:.2e}, relative RMS {relative:.2e}")
    if dtype == torch.float32:
        assert worst <= 2e-4
    else:
        assert relative < 0.5  # the same signal, at bf16 precision


async def test_512_streams_opened_at_random_times_give_their_solo_codes(tiny_checkpoint, golden_cases):
    model = load_model(tiny_checkpoint, "cuda", torch.float32)
    settings = EngineSettings(
        max_streams=512, use_graphs=True, admit_by_headroom=False, warm_up_rows=0, loop=LoopSettings(keep_codes=True)
    )  # graphs captured on first use, as the streams open
    engine = Qwen3Engine(model, settings)
    try:
        chosen = streaming(golden_cases) + ["A05_en_serena_english_instruct_nonstream", "A08_regex_sohee_english_nonstream"]
        alone = {cid: (await run(engine, golden_cases[cid]))[0] for cid in chosen}
        cases = [chosen[i % len(chosen)] for i in range(512)]
        together = await asyncio.gather(*(run(engine, golden_cases[cid], random.Random(i)) for i, cid in enumerate(cases)))
        mismatched = [cid for cid, (codes, _) in zip(cases, together) if codes != alone[cid]]
        assert not mismatched, f"{len(mismatched)} of 512 streams differ from their solo runs"
    finally:
        await engine.aclose()
