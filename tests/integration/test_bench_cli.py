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


def run_bench(server, tmp_path, *options: str, texts: str = TEXTS, api_key: str | None = "bench-key"):
    """`voice-tts bench` on `texts` against `server`, its plot in tmp_path/bench.png; its exit
    status and the results it wrote."""
    text_file, out = tmp_path / "texts.txt", tmp_path / "bench.json"
    text_file.write_text(texts)
    key = ["--api-key", api_key] if api_key else []
    status = main(
        ["bench", "--url", server.ws_url, *key, *options]
        + ["--text-file", str(text_file), "--out", str(out), "--plot", str(tmp_path / "bench.png")]
    )
    return status, json.loads(out.read_text())


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_bench_sweep_writes_table_json_and_plot(server, tmp_path, capsys):
    status, results = run_bench(
        server, tmp_path, "--concurrency", "1", "3", "--turns", "2", "--tokens-per-second", "30", "--spread", "0"
    )
    assert status == 0
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
    assert rows[1][-2] == str(three["capacity_refusals"])

    image = Image.open(tmp_path / "bench.png")
    assert image.format == "PNG" and image.size == (1000, 420)
    labels = [label for _, label in TTFA_SERIES + COUNT_SERIES]
    assert image.info["Description"] == "; ".join(labels)
    # The series drawn are the levels' figures.
    figure = plot_sweep(results["levels"], "again", tmp_path / "again.png")
    drawn = {line.get_label(): list(line.get_ydata()) for ax in figure.axes for line in ax.lines}
    levels = results["levels"]
    assert drawn == {label: [lv[key] for lv in levels] for key, label in TTFA_SERIES + COUNT_SERIES}


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_bench_compares_contexts_per_socket_in_one_run(tmp_path, capsys):
    import os

    # The server runs in this process: its CPU is this process's (clients included).
    server = start_server(capacity=8)
    try:
        status, results = run_bench(
            server, tmp_path, "--concurrency", "4", "--turns", "1", "--spread", "0",
            "--contexts-per-socket", "1", "4", "--server-pid", str(os.getpid()), api_key=None,
        )
    finally:
        server.stop()
    assert status == 0
    one, four = results["runs"]
    assert (one["contexts_per_socket"], four["contexts_per_socket"]) == (1, 4)
    assert results["levels"] == one["levels"]
    assert results["conditions"]["contexts_per_socket"] == [1, 4]
    [level_one], [level_four] = one["levels"], four["levels"]
    assert (level_one["completed"], level_four["completed"]) == (4, 4)
    # Four clients: a socket each, or one socket carrying the four turns as contexts.
    assert (level_one["sockets"], level_four["sockets"]) == (4, 1)
    assert level_one["server_cpu_seconds"] > 0 and level_four["server_cpu_percent_of_wall"] > 0
    # The server here is this process: its CPU is the one 'server' entry of the per-process list.
    roles = {p["pid"]: p["role"] for p in level_one["server_processes"]}
    assert roles[os.getpid()] == "server"
    out = capsys.readouterr().out
    assert "4 vs 1 contexts per socket, 4 clients: sockets 0.25x, server CPU" in out and "TTFA p99" in out


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_bench_takes_the_audio_in_a_g711_format(server, tmp_path):
    """The same turns in 24 kHz PCM and in 8 kHz A-law or µ-law: as much audio, timed at its rate."""
    options = ("--concurrency", "1", "--turns", "2", "--spread", "0", "--tokens-per-second", "200")
    status, pcm = run_bench(server, tmp_path, *options)
    assert status == 0 and pcm["conditions"]["format"] == "pcm16"
    for audio_format in ("alaw", "mulaw"):
        status, g711 = run_bench(server, tmp_path, *options, "--format", audio_format)
        assert status == 0
        assert (g711["conditions"]["format"], g711["conditions"]["sample_rate"]) == (audio_format, 8000)
        [level], [pcm_level] = g711["levels"], pcm["levels"]
        assert level["completed"] == 2 and level["errors"] == 0
        assert level["audio_seconds_total"] == pytest.approx(pcm_level["audio_seconds_total"], abs=0.01)


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_bench_spreads_clients_over_processes_and_merges_them(server, tmp_path, capsys):
    status, results = run_bench(
        server, tmp_path, "--concurrency", "1", "2", "--turns", "2", "--spread", "0", "--processes", "2"
    )
    assert status == 0
    one, two = results["levels"]
    # One level of both processes' turns, the keys of a one-process sweep.
    assert (one["concurrency"], one["turns"], one["completed"]) == (1, 2, 2)
    assert (two["concurrency"], two["turns"], two["completed"]) == (2, 4, 4)
    assert two["errors"] == two["capacity_refusals"] == 0
    assert 0 < two["ttfa_ms_p50"] <= two["ttfa_ms_p99"]
    # Client 0 to the first process, client 1 to the second; each reports its CPU.
    assert [p["clients"] for p in one["client_processes"]] == [1, 0]
    assert [p["clients"] for p in two["client_processes"]] == [1, 1]
    # A client process's CPU comes in the kernel's accounting ticks: a light share may read 0.
    for process in two["client_processes"]:
        assert process["cpu_user_seconds"] >= 0 and process["cpu_system_seconds"] >= 0
        assert process["cpu_percent_of_wall"] is not None and process["cpu_percent_of_wall"] >= 0
    assert "busiest" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_bench_turn_past_its_timeout_is_an_error_not_a_hang(server, tmp_path):
    status, results = run_bench(
        server, tmp_path, "--concurrency", "1", "--turns", "2", "--turn-timeout", "0.3", "--tokens-per-second", "5"
    )
    assert status == 1  # no level completed a turn: each one's text alone takes over 0.3 s at 5 deltas a second
    (level,) = results["levels"]
    assert level["errors_by_code"] == {"turn_timeout": 2} and level["completed"] == 0
    # The bench cancelled the turns it gave up on: their slots are free again.
    assert_slots_free(server)


def assert_slots_free(server, timeout: float = 10.0) -> None:
    import time

    import httpx

    headers = {"Authorization": "Bearer bench-key"}
    deadline = time.monotonic() + timeout
    while True:
        capabilities = httpx.get(server.http_url + "/v1/capabilities", headers=headers).json()
        if capabilities["active_streams"] == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert capabilities["active_streams"] == 0


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_bench_ends_a_turn_whose_error_left_its_input_open(tmp_path):
    # The server refuses text past the turn's limit with an error and keeps the turn open for
    # more: a bench that only stopped sending text there left the turn waiting for text (and
    # answering pings) for ever.
    server = start_server(max_turn_text_chars=12)
    try:
        too_long = "This reply is longer than the server takes in one turn."
        _, results = run_bench(
            server, tmp_path, "--concurrency", "1", "--turns", "1", "--turn-timeout", "600",
            texts=too_long, api_key=None,
        )
        (level,) = results["levels"]
        assert level["errors_by_code"] == {"text_too_long": 1}
        assert_slots_free(server)
    finally:
        server.stop()
