"""Check the engine against golden outputs of the official implementation.

    python -m engine.parity CHECKPOINT_DIR [--device cpu] [--dtype float32] [--wav-tol 1e-4]

Runs every case of `CHECKPOINT_DIR/golden/cases.json` (format: shared/fixtures/README.md) through
the engine's own loader, tokenizer and reference generator, and compares text token ids (exact),
codes (exact) and the decoded waveform (max abs difference <= --wav-tol). Voice-cloning cases
(Base checkpoints) build their voice from the case's reference recording - once per prompt id when
cases reuse one - and also compare the transcript ids and reference codes (exact) and the x-vector
(<= 1e-4). Prints one line per case and, last, `parity: K/N cases identical`; exits 0 only when
every case is identical.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf
import torch

from engine.model import load_model
from engine.model.generate import synthesize
from engine.model.sampling import SamplingParams
from engine.model.tts_model import Qwen3TTS
from engine.model.voice_clone import ClonePrompt, make_clone_prompt

X_VECTOR_TOL = 1e-4

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


@dataclass
class CaseResult:
    case_id: str
    identical: bool
    detail: str


def _sampling(case: dict, model: Qwen3TTS) -> SamplingParams:
    kwargs = {**model.generation_config, **case["args"], **case.get("effective_core_generate_kwargs", {})}
    return SamplingParams.from_generation_config(kwargs, seed=0)


def _first_difference(codes: np.ndarray, golden: np.ndarray, g: np.lib.npyio.NpzFile) -> str:
    if codes.shape[1:] != golden.shape[1:]:
        return f"codes shape {codes.shape} vs golden {golden.shape}"
    n = min(len(codes), len(golden))
    diff = np.argwhere(codes[:n] != golden[:n])
    if not len(diff):
        return f"{len(codes)} frames vs golden {len(golden)} (stop differs after frame {n - 1})"
    frame, book = (int(v) for v in diff[0])
    if book == 0 and "talker_greedy_margin" in g:
        margin = f", golden talker margin there {float(g['talker_greedy_margin'][frame]):.2e}"
    elif book > 0 and "cp_greedy_margin" in g:
        margin = f", golden predictor margin there {float(g['cp_greedy_margin'][frame, book - 1]):.2e}"
    else:
        margin = ""
    return f"codes differ first at frame {frame} codebook {book} ({codes[frame, book]} vs {golden[frame, book]}{margin})"


def _clone(model: Qwen3TTS, golden_dir: Path, case: dict, prompts: dict[str, ClonePrompt]) -> ClonePrompt | None:
    """The case's cloned voice (None for a preset-speaker case); reused prompts are built once."""
    reused = case.get("voice_clone_prompt")
    args = reused["create_voice_clone_prompt_args"] if reused else case["args"]
    if "ref_audio" not in args:
        return None
    if reused and reused["prompt_id"] in prompts:
        return prompts[reused["prompt_id"]]
    audio, sample_rate = sf.read(golden_dir / args["ref_audio"], dtype="float32")
    ref_text = None if args.get("x_vector_only_mode") else args.get("ref_text")
    clone = make_clone_prompt(model, audio, sample_rate, ref_text)
    if reused:
        prompts[reused["prompt_id"]] = clone
    return clone


def _clone_problems(model: Qwen3TTS, clone: ClonePrompt, g: np.lib.npyio.NpzFile) -> list[str]:
    problems = []
    if clone.icl and "ref_ids" in g and list(clone.ref_ids) != g["ref_ids"].tolist()[3:-2]:
        problems.append("ref_ids differ")
    if clone.icl and "ref_code" in g and (clone.ref_codes.shape != g["ref_code"].shape or (clone.ref_codes.numpy() != g["ref_code"]).any()):
        problems.append("ref_code differs")
    error = float(np.abs(clone.x_vector.float().numpy() - g["ref_spk_embedding"]).max())
    if not error <= X_VECTOR_TOL:
        problems.append(f"x-vector max|d| {error:.2e} > {X_VECTOR_TOL:.0e}")
    return problems


def run_case(
    model: Qwen3TTS, golden_dir: Path, case: dict, wav_tol: float, prompts: dict[str, ClonePrompt] | None = None
) -> CaseResult:
    args = case["args"]
    g = np.load(golden_dir / case["npz"])
    problems = []
    clone = _clone(model, golden_dir, case, {} if prompts is None else prompts)
    if clone is not None:
        problems += _clone_problems(model, clone, g)
    input_ids = model.tokenizer.assistant_ids(args["text"])
    if input_ids != g["input_ids"].tolist():
        problems.append(f"input_ids differ ({len(input_ids)} vs golden {len(g['input_ids'])})")
    instruct = args.get("instruct") or None
    if "instruct_ids" in g and (not instruct or model.tokenizer.instruct_ids(instruct) != g["instruct_ids"].tolist()):
        problems.append("instruct_ids differ")
    result, wav = synthesize(
        model,
        args["text"],
        speaker=args.get("speaker"),
        language=args.get("language") or "auto",
        instruct=instruct,
        non_streaming_mode=bool(args.get("non_streaming_mode", clone is None)),
        max_new_tokens=args.get("max_new_tokens"),
        sampling=_sampling(case, model),
        clone=clone,
    )
    codes, golden = result.codes.numpy(), g["codes"]
    detail = f"codes {codes.shape[0]}x{codes.shape[1]}, ids {len(input_ids)}"
    if codes.shape != golden.shape or not (codes == golden).all():
        problems.append(_first_difference(codes, golden, g))
    elif wav.shape[0] != g["wav"].shape[0]:
        problems.append(f"waveform length {wav.shape[0]} vs golden {g['wav'].shape[0]}")
    else:
        error = float(np.abs(wav.numpy() - g["wav"]).max()) if wav.shape[0] else 0.0
        detail += f", wav max|d| {error:.1e}"
        if not error <= wav_tol:
            problems.append(f"waveform max|d| {error:.2e} > {wav_tol:.0e}")
    if problems:
        return CaseResult(case["id"], False, "; ".join(problems))
    return CaseResult(case["id"], True, detail)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.parity", description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path, help="checkpoint folder with a golden/ subfolder")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", choices=sorted(DTYPES), default="float32")
    parser.add_argument("--wav-tol", type=float, default=1e-4)
    args = parser.parse_args(argv)

    golden_dir = args.checkpoint / "golden"
    cases_file = golden_dir / "cases.json"
    if not cases_file.is_file():
        print(f"error: {cases_file} not found", file=sys.stderr)
        return 2
    cases = json.loads(cases_file.read_text(encoding="utf-8"))["cases"]
    if not cases:
        print(f"error: {cases_file} lists no cases", file=sys.stderr)
        return 2
    # Parity is a float32 statement: TF32 matmuls on GPU are reduced precision.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    model = load_model(args.checkpoint, device=args.device, dtype=DTYPES[args.dtype])
    identical = 0
    prompts: dict[str, ClonePrompt] = {}
    for case in cases:
        start = time.perf_counter()
        try:
            result = run_case(model, golden_dir, case, args.wav_tol, prompts)
        except Exception as e:  # one broken case must not hide the others
            result = CaseResult(case.get("id", "?"), False, f"error: {type(e).__name__}: {e}")
        identical += result.identical
        status = "identical" if result.identical else "DIFFERENT"
        print(f"{result.case_id}: {status}: {result.detail} ({time.perf_counter() - start:.1f} s)", flush=True)
    print(f"parity: {identical}/{len(cases)} cases identical")
    return 0 if identical == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
