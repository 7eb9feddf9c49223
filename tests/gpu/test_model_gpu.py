"""Qwen3-TTS model on CUDA: goldens in float32 and bfloat16, and a full-size random 1.7B model.

Run on the GPU machine: `python -m pytest tests/gpu/test_model_gpu.py -m gpu`. Measured numbers
(load time, eager per-frame time at batch 1, bfloat16 logit errors) are printed for the docs;
nothing here asserts a timing.
"""

from __future__ import annotations

import importlib.util
import json
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from engine.model import load_model
from engine.model.generate import StreamingGenerator, synthesize
from engine.model.sampling import SamplingParams

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

REPO_ROOT = Path(__file__).resolve().parents[2]
DEVICE = "cuda"
FULL_SIZE = "1.7b"
FRAMES = 60


def sync() -> None:
    if torch.device(DEVICE).type == "cuda":
        torch.cuda.synchronize()


def device_name() -> str:
    return torch.cuda.get_device_name() if torch.device(DEVICE).type == "cuda" else DEVICE


def report(capsys, text: str) -> None:
    with capsys.disabled():
        print(f"\n{text}", flush=True)


@pytest.fixture(scope="module")
def cases(tiny_checkpoint: Path) -> list[dict]:
    return json.loads((tiny_checkpoint / "golden" / "cases.json").read_text())["cases"]


@pytest.fixture
def no_tf32():
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def run_case(model, case: dict):
    a = case["args"]
    return synthesize(
        model, a["text"], speaker=a["speaker"], language=a["language"], instruct=a.get("instruct"),
        non_streaming_mode=a["non_streaming_mode"], max_new_tokens=a["max_new_tokens"], sampling=SamplingParams.greedy(),
    )


def teacher_forced(model, case: dict, codes: np.ndarray):
    """Raw talker logits [T+1, vocab] and predictor logits [T, G-1, vocab] along the golden codes."""
    a = case["args"]
    with torch.inference_mode():
        stream = StreamingGenerator(
            model, speaker=a["speaker"], language=a["language"], instruct=a.get("instruct"),
            layout="non_streaming" if a["non_streaming_mode"] else "streaming",
            sampling=SamplingParams.greedy(), max_new_tokens=a["max_new_tokens"] + 1,
            forced_codes=torch.from_numpy(codes), record_logits=True,
        )
        stream.push_text(model.tokenizer.text_ids(a["text"]))
        stream.end_text()
        stream.run()
    return torch.stack(stream.talker_logits).numpy(), torch.stack(stream.predictor_logits).numpy()


def test_goldens_in_float32_on_cuda(tiny_checkpoint, cases, no_tf32, capsys):
    model = load_model(tiny_checkpoint, device=DEVICE, dtype=torch.float32)
    lines = []
    for case in cases:
        g = np.load(tiny_checkpoint / "golden" / case["npz"])
        result, wav = run_case(model, case)
        np.testing.assert_array_equal(result.codes.numpy(), g["codes"], err_msg=case["id"])
        error = float(np.abs(wav.numpy() - g["wav"]).max())
        assert error <= 1e-4, case["id"]
        lines.append(f"  {case['id']}: codes identical, wav max|d| {error:.1e}")
    report(capsys, "float32 CUDA goldens:\n" + "\n".join(lines))


def test_goldens_in_bfloat16_on_cuda(tiny_checkpoint, cases, no_tf32, capsys):
    """bfloat16 is not expected to keep every greedy near-tie: where codes diverge, the first
    divergence must sit where the golden margin is within the measured bfloat16 logit error."""
    fp32 = load_model(tiny_checkpoint, device=DEVICE, dtype=torch.float32)
    bf16 = load_model(tiny_checkpoint, device=DEVICE, dtype=torch.bfloat16)
    lines = []
    for case in cases:
        g = np.load(tiny_checkpoint / "golden" / case["npz"])
        golden = g["codes"]
        result, _ = run_case(bf16, case)
        codes = result.codes.numpy()
        ref_talker, ref_cp = teacher_forced(fp32, case, golden)
        low_talker, low_cp = teacher_forced(bf16, case, golden)
        talker_err = np.abs(low_talker - ref_talker).max(axis=-1)  # per step
        cp_err = np.abs(low_cp - ref_cp).max(axis=-1)  # per frame, per codebook
        summary = f"talker logit err max {talker_err.max():.3g} mean {talker_err.mean():.3g}, " \
                  f"predictor logit err max {cp_err.max():.3g} mean {cp_err.mean():.3g}"
        n = min(len(codes), len(golden))
        diff = np.argwhere(codes[:n] != golden[:n])
        if codes.shape == golden.shape and not len(diff):
            lines.append(f"  {case['id']}: codes identical; {summary}")
            continue
        if len(diff):
            frame, book = (int(v) for v in diff[0])
            if book == 0:
                margin, err = float(g["talker_greedy_margin"][frame]), float(talker_err[frame])
            else:
                margin, err = float(g["cp_greedy_margin"][frame, book - 1]), float(cp_err[frame, book - 1])
        else:  # same codes, different stop: the EOS decision flipped
            frame, book = n, 0
            margin, err = float(g["talker_greedy_margin"][n]), float(talker_err[min(n, len(talker_err) - 1)])
        lines.append(
            f"  {case['id']}: first divergence frame {frame} codebook {book}: golden margin {margin:.3g}, "
            f"bf16 logit err there {err:.3g}; {summary}"
        )
        assert margin <= 2 * err, f"{case['id']}: divergence at a margin ({margin:.3g}) bf16 error ({err:.3g}) cannot explain"
    report(capsys, "bfloat16 CUDA goldens (teacher-forced logit errors vs float32):\n" + "\n".join(lines))


def _load_bench_script():
    spec = importlib.util.spec_from_file_location("make_random_checkpoint", REPO_ROOT / "bench" / "make_random_checkpoint.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_full_size_random_1_7b_speaks_one_utterance(tmp_path_factory, capsys):
    bench = _load_bench_script()
    folder = tmp_path_factory.mktemp(f"random-{FULL_SIZE}")
    start = time.perf_counter()
    bench.write_random_checkpoint(folder, size=FULL_SIZE, device=DEVICE)
    write_s = time.perf_counter() - start

    sync()
    start = time.perf_counter()
    model = load_model(folder, device=DEVICE, dtype=torch.bfloat16)
    sync()
    load_s = time.perf_counter() - start
    assert model.config.talker.layers.num_layers == 28
    weights_gb = torch.cuda.memory_allocated() / 1e9 if torch.device(DEVICE).type == "cuda" else float("nan")

    def utterance(frames: int) -> tuple[list[float], float, torch.Tensor]:
        with torch.inference_mode():
            sync()
            t0 = time.perf_counter()
            stream = StreamingGenerator(
                model, speaker="ryan", language="english", sampling=SamplingParams(seed=3), max_new_tokens=frames + 1
            )
            stream.push_text(model.tokenizer.text_ids("Hello world. This is a tiny test of the streaming speech engine."))
            stream.end_text()
            codec_state = model.codec.new_state()
            times, first_audio, frames_out = [], None, []
            while True:
                t = time.perf_counter()
                frame = stream.next_frame()
                if frame is None:
                    break
                model.codec.decode_chunk(frame[None, None], codec_state)
                sync()
                times.append(time.perf_counter() - t)
                first_audio = first_audio or time.perf_counter() - t0
                frames_out.append(frame)
            return times, first_audio, torch.stack(frames_out)

    utterance(4)  # warm-up: kernels, allocator
    times, first_audio, codes = utterance(FRAMES)
    assert codes.shape[1] == 16 and len(codes) >= 1
    assert ((codes >= 0) & (codes < 2048)).all()
    steady = times[1:] or times
    report(
        capsys,
        f"random {FULL_SIZE} CustomVoice on {device_name()} (bf16, eager, batch 1): "
        f"write {write_s:.1f} s, load {load_s:.1f} s, weights {weights_gb:.2f} GB on GPU; "
        f"{len(codes)} frames, first audio {first_audio * 1e3:.0f} ms, per frame incl. 1-frame codec decode "
        f"median {np.median(steady) * 1e3:.1f} ms, p90 {np.percentile(steady, 90) * 1e3:.1f} ms",
    )


@pytest.mark.parametrize("method", ["convolution", "im2col", "taps"])
def test_the_codec_convolutions_every_way_give_the_reference_decode(tiny_checkpoint, method, no_tf32, capsys):
    """Every convolution that has the way through cuDNN, or as an im2col GEMM, or as one GEMM per
    tap, in float32 on CUDA: three streams decoded whole and in 1-8-frame chunks batched together
    equal the CPU decode."""
    reference = load_model(tiny_checkpoint)
    model = load_model(tiny_checkpoint, device=DEVICE, dtype=torch.float32)
    for conv in model.codec._convs:
        if method in conv.methods:
            conv.method = method
    g = torch.Generator().manual_seed(3)
    codes = torch.randint(0, model.config.codec.codebook_size, (3, 24, 16), generator=g)
    expected = torch.stack([reference.codec.decode(c) for c in codes])
    with torch.inference_mode():
        worst = float((model.codec.decode(codes[0]).cpu() - expected[0]).abs().max())
        state, start, pieces = model.codec.new_state(3), 0, []
        for size in (1, 2, 4, 8, 1, 3, 5):
            pieces.append(model.codec.decode_chunk(codes[:, start : start + size].to(DEVICE), state).cpu())
            start += size
        worst = max(worst, float((torch.cat(pieces, dim=1) - expected[:, : start * model.samples_per_frame]).abs().max()))
    report(capsys, f"codec convolutions by {method}: max |difference| {worst:.1e}")
    assert worst <= 1e-4
