"""The picture of a sweep: TTFA percentiles and underruns against concurrency (matplotlib)."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

TTFA_SERIES = (("ttfa_ms_p50", "TTFA p50"), ("ttfa_ms_p99", "TTFA p99"))
COUNT_SERIES = (
    ("streams_with_underruns", "turns with underruns"),
    ("capacity_refusals", "capacity refusals"),
    ("errors", "errors"),
)


def plot_sweep(levels: list[dict], title: str, path: Path) -> Figure:
    """Two panels over concurrency: TTFA p50/p99 (ms), and turns with underruns, capacity
    refusals and errors. Written to `path` as PNG; the series' labels go into its metadata."""
    figure = Figure(figsize=(10, 4.2), layout="constrained")
    ttfa_axes, count_axes = figure.subplots(1, 2)
    concurrency = [level["concurrency"] for level in levels]
    for key, label in TTFA_SERIES:
        ttfa_axes.plot(concurrency, [level[key] for level in levels], marker="o", label=label)
    ttfa_axes.set(xlabel="concurrent streams", ylabel="ms", title="time to first audio")
    ttfa_axes.set_ylim(bottom=0)
    for key, label in COUNT_SERIES:
        count_axes.plot(concurrency, [level[key] for level in levels], marker="o", label=label)
    count_axes.set(
        xlabel="concurrent streams", ylabel="turns", title="underruns (real-time playout), refusals"
    )
    count_axes.set_ylim(bottom=0)
    count_axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    for axes in (ttfa_axes, count_axes):
        if len(set(concurrency)) > 1 and min(concurrency) > 0:
            axes.set_xscale("log", base=2)
        axes.set_xticks(concurrency, [str(c) for c in concurrency])
        axes.grid(alpha=0.3)
        axes.legend()
    figure.suptitle(title)
    labels = [label for _, label in TTFA_SERIES + COUNT_SERIES]
    metadata = {"Title": title, "Description": "; ".join(labels)}
    figure.savefig(path, format="png", dpi=100, metadata=metadata)
    return figure
