"""Plot what the engine's gauges did through a burst of 1,024 agents opening within a second
(bench/results/h100-server-1024-burst-admission.json): streams active and the headroom's
estimate of the most streams it admits, per admission rule, over the level's seconds.

Run: PYTHONPATH=$PWD .venv/bin/python bench/plot_burst_admission.py [RESULTS] [PNG]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "h100-server-1024-burst-admission.json"


def main() -> None:
    results = Path(sys.argv[1]) if len(sys.argv) > 1 else RESULTS
    png = Path(sys.argv[2]) if len(sys.argv) > 2 else results.with_suffix(".png")
    runs = [r for r in json.loads(results.read_text())["runs"] if r["start_spread_s"] == 1 and r["level"]["concurrency"] == 1024]
    fig, axes = plt.subplots(len(runs), 1, figsize=(9, 2.4 * len(runs)), sharex=True)
    for ax, run in zip(axes, runs):
        gauges = [g for g in run["engine_gauges"] if "active_streams" in g]
        t = [g["t"] for g in gauges]
        ax.plot(t, [g["active_streams"] for g in gauges], label="streams active")
        ax.plot(t, [g["max_streams_estimate"] for g in gauges], label="headroom's estimate")
        level = run["level"]
        ax.set_title(
            f"{run['commit']}: {run['admission']}\n{level['capacity_refusals']} refused, "
            f"{level['streams_with_underruns']} streams with an underrun, TTFA p99 {level['ttfa_ms_p99']:.0f} ms",
            fontsize=8,
        )
        ax.set_ylim(0, 1400)
        ax.set_xlim(0, 25)  # a sweep of two levels keeps one list of gauges: the first level's seconds
        ax.set_ylabel("streams")
    axes[0].legend(fontsize=8, loc="lower right")
    axes[-1].set_xlabel("seconds since the sweep began (clients open within 1 s of the level's start)")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


if __name__ == "__main__":
    main()
