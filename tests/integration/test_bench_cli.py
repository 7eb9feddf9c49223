"""`voice-tts bench` against a real server (embedded voice, two stream slots): a short sweep,
its table, JSON and plot."""

from __future__ import annotations

import json

import pytest
from PIL import Image
from server_harness import start_server

from voice_tts.bench.plot import COUNT_SERIES, TTFA_SERIES, plot_sweep
from voice_tts.cli import main

TEXTS = "Hello there, this is the first reply.\n\nAnd a second one, with 3 apples."


@pytest.fixture(scope="module")
def server():
    server = start_server(capacity=2, api_key="bench-key")
    yield server
    server.stop()


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_bench_sweep_writes_table_json_and_plot(server, tmp_path, capsys):
    texts = tmp_path / "texts.txt"
    texts.write_text(TEXTS)
    out, plot = tmp_path / "bench.json", tmp_path / "bench.png"
    status = main(
        ["bench", "--url", server.ws_url, "--api-key", "bench-key", "--concurrency", "1", "3"]
        + ["--turns", "2", "--tokens-per-second", "30", "--spread", "0"]
        + ["--text-file", str(texts), "--out", str(out), "--plot", str(plot)]
    )
    assert status == 0
    results = json.loads(out.read_text())
    assert results["conditions"]["backend"] == "espeak-ng"
    assert results["conditions"]["texts"] == 2
    one, three = results["levels"]
    assert (one["concurrency"], one["turns"], one["completed"]) == (1, 2, 2)
    assert one["errors"] == one["capacity_refusals"] == 0
    assert 0 < one["ttfa_ms_p50"] <= one["ttfa_ms_p99"]
    assert one["audio_seconds_total"] > 2 and one["rtf_p50"] > 0
    # Three clients starting together on two slots: the third is refused (each turn outlasts
    # the client's retries of a refused start), not failed.
    assert three["turns"] == 6
    assert three["capacity_refusals"] >= 1 and three["errors"] == 0
    assert three["completed"] + three["capacity_refusals"] == 6

    table = capsys.readouterr().out
    assert "TTFA p50 ms" in table and "capacity" in table
    rows = [line.split() for line in table.splitlines()[1:3]]
    assert [row[0] for row in rows] == ["1", "3"]
    assert rows[1][-1] == str(three["capacity_refusals"])

    image = Image.open(plot)
    assert image.format == "PNG" and image.size == (1000, 420)
    labels = [label for _, label in TTFA_SERIES + COUNT_SERIES]
    assert image.info["Description"] == "; ".join(labels)
    # The series drawn are the levels' figures.
    figure = plot_sweep(results["levels"], "again", tmp_path / "again.png")
    drawn = {line.get_label(): list(line.get_ydata()) for ax in figure.axes for line in ax.lines}
    levels = results["levels"]
    assert drawn == {label: [lv[key] for lv in levels] for key, label in TTFA_SERIES + COUNT_SERIES}
