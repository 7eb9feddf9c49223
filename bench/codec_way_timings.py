"""Every call the engine's codec makes while choosing how each convolution runs
(`CodecDecoder.choose_convolutions`), recorded (CUDA; docs/benchmarks.md, "Choosing each shape's
convolutions"; bench/results/codec_way_timings_h200.json).

    PYTHONPATH=. python bench/codec_way_timings.py CHECKPOINT_DIR OUT.json

Two passes on one engine (codec only, nothing captured): "ascending", the shapes in the order the
vocoder's warm-up chooses them, with the engine's own give-up rules, then "fresh", a few shapes
again with nothing given up (every way's warm-up call and three timed calls). Each record: shape,
convolution, way, the warm-up call's and the timed calls' device ms, the figure the choice used
and the give-up threshold it ran under.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import torch

import engine.model.codec as codec_module
from engine import Engine

ASCENDING = [(batch, frames) for batch in (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512) for frames in (1, 2, 4)]
FRESH = ((8, 4), (32, 4), (128, 4), (256, 4), (128, 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    engine = Engine.from_pretrained(args.checkpoint, device="cuda:0", max_streams=64, max_context=512,
                                    admit_by_headroom=False, warm_up_rows=0)
    codec = engine.model.codec
    log, shape = [], {"now": ""}
    device_ms = codec_module._device_ms

    def recorded_device_ms(run, repeats, give_up_above=math.inf):
        conv = next(c.cell_contents for c in run.__closure__ if isinstance(c.cell_contents, codec_module._CausalConv))
        times: list[float] = []
        ms = device_ms(run, repeats, give_up_above, calls=times)
        log.append({"shape": shape["now"], "conv": conv.name, "method": conv.method, "warm_ms": round(times[0], 3),
                    "runs": [round(t, 3) for t in times[1:]], "ms": round(ms, 3), "give_up": round(give_up_above, 3)})
        return ms

    codec_module._device_ms = recorded_device_ms
    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "ascending": {}, "fresh": {}}
    with torch.inference_mode():
        for batch, frames in ASCENDING:
            shape["now"] = f"{batch}x{frames}"
            began = time.perf_counter()
            chosen = codec.choose_convolutions(batch, frames)
            results["ascending"][shape["now"]] = {"seconds": round(time.perf_counter() - began, 3), "chosen": chosen}
            print(shape["now"], results["ascending"][shape["now"]]["seconds"], "s", flush=True)
        codec_module.GIVE_UP = codec_module.GIVE_UP_MS = math.inf
        for batch, frames in FRESH:
            codec.convolution_methods.pop((batch, frames), None)
            shape["now"] = f"fresh {batch}x{frames}"
            began = time.perf_counter()
            chosen = codec.choose_convolutions(batch, frames)
            results["fresh"][shape["now"]] = {"chosen": chosen, "seconds": round(time.perf_counter() - began, 3)}
    results["log"] = log
    args.out.write_text(json.dumps(results))


if __name__ == "__main__":
    main()
