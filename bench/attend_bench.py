"""The frame step's attention kernel (`engine.runtime.kernels.attend`) alone, on the 1.7B model's
shapes, for each number of warps a program (`ATTEND_WARPS`): microseconds per call and the
bandwidth it reaches, each choice checked against the kernel's reference first (CUDA).

- talker: 16 query and 8 KV heads of 128, a paged cache of 32-row blocks, one new token per row
  at a position drawn from 90-260 (an agent reply's voice prefix and text);
- code predictor: the same heads, its contiguous 16-row cache, one token per row at 1-15.

    PYTHONPATH=. python bench/attend_bench.py OUT.json [--rows 768 1024] [--warps 1 2 4 8]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch

from engine.runtime import kernels

HEADS, KV_HEADS, HEAD_DIM, PAGE = 16, 8, 128, 32
PREDICTOR_ROWS = 16


def talker_case(n: int, g: torch.Generator) -> dict:
    positions = torch.randint(90, 261, (n,), generator=g)
    pages_per_row = (int(positions.max()) + 1 + PAGE - 1) // PAGE
    table = (1 + torch.randperm(n * pages_per_row, generator=g)).view(n, pages_per_row)
    pool = (1 + n * pages_per_row, KV_HEADS, PAGE, HEAD_DIM)
    return {
        "positions": positions, "table": table, "k": torch.randn(pool, generator=g), "v": torch.randn(pool, generator=g),
        "bytes": int(2 * (positions + 1).sum()) * KV_HEADS * HEAD_DIM * 2,
    }


def predictor_case(n: int, g: torch.Generator) -> dict:
    positions = torch.randint(1, PREDICTOR_ROWS, (n,), generator=g)
    shape = (n, KV_HEADS, PREDICTOR_ROWS, HEAD_DIM)
    return {
        "positions": positions, "table": None, "k": torch.randn(shape, generator=g), "v": torch.randn(shape, generator=g),
        "bytes": int(2 * (positions + 1).sum()) * KV_HEADS * HEAD_DIM * 2,
    }


def time_us(case: dict, n: int, device: torch.device, g: torch.Generator, repeats: int = 50) -> float:
    dtype = torch.bfloat16
    qkv = torch.randn(n, (HEADS + 2 * KV_HEADS) * HEAD_DIM, generator=g).to(device, dtype)
    norm = (torch.rand(HEADS + KV_HEADS, HEAD_DIM, generator=g) + 0.5).to(device, dtype)
    angle = torch.rand(n, 1, HEAD_DIM // 2, generator=g) * 6
    cos = torch.cat((angle.cos(), angle.cos()), -1).to(device, dtype)
    sin = torch.cat((angle.sin(), angle.sin()), -1).to(device, dtype)
    k, v = case["k"].to(device, dtype), case["v"].to(device, dtype)
    positions = case["positions"].to(device)
    table = None if case["table"] is None else case["table"].to(device)

    def call() -> None:
        kernels.attend(qkv, norm, cos, sin, k, v, positions, HEADS, KV_HEADS, 1, 1e-6, table)

    for _ in range(3):
        call()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeats):
        call()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3 / repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--rows", type=int, nargs="+", default=[256, 768, 1024])
    parser.add_argument("--warps", type=int, nargs="+", default=[1, 2, 4, 8])
    args = parser.parse_args()
    device = torch.device("cuda:0")
    chosen = kernels.ATTEND_WARPS
    results = []
    for warps in args.warps:
        kernels.ATTEND_WARPS = warps
        kernels._check(device, torch.bfloat16)  # the same answers as PyTorch's, or this raises
        for n in args.rows:
            for name, build in (("talker", talker_case), ("code_predictor", predictor_case)):
                g = torch.Generator().manual_seed(n)
                case = build(n, g)
                us = time_us(case, n, device, g)
                row = {"warps": warps, "rows": n, "cache": name,
                       "us_per_call": round(us, 2), "gb_per_s": round(case["bytes"] / us / 1e3, 1)}
                print(json.dumps(row), flush=True)
                results.append(row)
    kernels.ATTEND_WARPS = chosen
    out = {"device": torch.cuda.get_device_name(device), "torch": torch.__version__, "chosen_warps": chosen, "results": results}
    args.out.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
