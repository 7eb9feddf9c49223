"""Our figures against faster-qwen3-tts and the official qwen-tts, measured in the same call.

    python bench/compare_peers.py engine_bench.json peers.json

Peers run one stream at a time and measure TTFA from the call (tokenization and prefill included);
ours is from the first committed text token with the voice prefix cached, and the first turn of a
voice (prefix filled on demand) is listed too.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    ours = json.load(open(sys.argv[1]))
    peers = json.load(open(sys.argv[2]))
    c1 = next(level for level in ours["concurrency"] if level["concurrency"] == 1)
    step1 = next(s for s in ours["step_times_sampled"] if s["batch"] == 1)
    fq1, fq_ns, official = peers["fq_chunk1"], peers["fq_nonstream"], peers.get("official", {})
    rows = [
        ("TTFA p50, c=1 (ms)", c1["ttfa_ms_p50"], fq1["ttfa_ms_median"], "faster-qwen3-tts streaming chunk 1"),
        ("TTFA first turn of a voice (ms)", ours["ttfa_ms_first_turn_prefix_fill"], fq1["ttfa_ms_median"], "faster-qwen3-tts streaming chunk 1"),
        ("ms per frame, one stream", ours["single_stream"]["ms_per_frame"], fq_ns["ms_per_frame"], "faster-qwen3-tts non-streaming"),
        ("frame step at batch 1 (ms)", step1["frame_step_ms"], fq_ns["ms_per_frame"], "faster-qwen3-tts non-streaming"),
        ("RTF, one stream", ours["single_stream"]["rtf"], fq_ns["rtf"], "faster-qwen3-tts non-streaming"),
        ("RTF, one stream", ours["single_stream"]["rtf"], fq1["rtf_median"], "faster-qwen3-tts streaming chunk 1"),
    ]
    if official:
        rows.append(("ms per frame, one stream", ours["single_stream"]["ms_per_frame"], official["ms_per_frame"], "official qwen-tts generate"))
    print(f"{'metric':34s} {'ours':>9s} {'peer':>9s} {'peer/ours':>9s}  peer")
    for name, mine, theirs, who in rows:
        print(f"{name:34s} {mine:9.2f} {theirs:9.2f} {theirs / mine:9.2f}  {who}")


if __name__ == "__main__":
    main()
