"""How long the codec's first decode of a new shape takes (CUDA): the vocoder captures that shape's
graph on first use, after choosing how its convolutions run, and the engine loop waits for it, so
every stream on the GPU stalls that long the first time a load level reaches the shape, unless the
engine captured it at start (`warm_up_rows`, timed here as part of the load). The next decode of the
same shape is timed for comparison.

    PYTHONPATH=. python bench/new_shape_stall.py CHECKPOINT_DIR OUT.json [--warm-up-rows 0] [--convolution-cache-dir DIR]

Run twice with one --convolution-cache-dir, the second start takes the convolution ways the first
chose (`engine.runtime.convolution_cache`): its load time is a restart's.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from engine import Engine
from engine.runtime.vocoder import Chunk

SHAPES = ((64, 1), (64, 4), (256, 4), (512, 4))  # (streams, frames), in the order a load grows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--max-streams", type=int, default=512)
    parser.add_argument("--warm-up-rows", type=int, default=None,
                        help="graphs captured at start, up to this many streams (default: the capacity; 0: none)")
    parser.add_argument("--convolution-cache-dir", type=Path, default=None,
                        help="where the codec's convolution ways are remembered (default: the user's cache folder)")
    args = parser.parse_args()
    began = time.perf_counter()
    engine = Engine.from_pretrained(
        args.checkpoint, device="cuda:0", max_streams=args.max_streams, max_context=512, admit_by_headroom=False,
        warm_up_rows=args.warm_up_rows, convolution_cache_dir=args.convolution_cache_dir,
    )
    vocoder = engine.runner.vocoder
    results = {
        "device": torch.cuda.get_device_name(), "torch": torch.__version__,
        "load_seconds": round(time.perf_counter() - began, 1),  # with whatever the engine captures at start
        "max_streams": args.max_streams, "warm_up_rows": args.warm_up_rows,
        "warm_up_seconds": round(engine.warm_up_seconds, 1), "graphs_at_start": engine.runner.graphs_captured,
        "shapes": {},
    }
    with torch.inference_mode():
        for streams, frames in SHAPES:
            chunks = [Chunk(slot, 0, frames) for slot in range(streams)]
            timings = []
            for _ in range(2):
                began = time.perf_counter()
                vocoder.decode(chunks)
                torch.cuda.synchronize()
                timings.append(time.perf_counter() - began)
            shape = {"first_s": round(timings[0], 3), "next_ms": round(timings[1] * 1e3, 2)}
            results["shapes"][f"{streams}x{frames}"] = shape
            print(f"{streams}x{frames}", shape, flush=True)
    args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
