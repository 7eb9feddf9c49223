"""The Ray Serve application's arguments: a replica's connections stay above the streams it serves,
and `serve --replicas` hands each replica every engine option of its command line."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.deploy.ray_serve import EngineAppArgs
from engine.server.serve import replica_args, server_settings
from voice_tts.cli import build_parser


@pytest.mark.parametrize(
    ("options", "connections"),
    [({}, 256), ({"max_streams": 64}, 256), ({"max_streams": 512}, 1024), ({"max_streams": 512, "capacity": 300}, 600),
     ({"max_streams": 512, "max_ongoing_requests": 700}, 700)],
)
def test_connections_per_replica_default_to_twice_the_streams(options, connections):
    assert EngineAppArgs(**options).connections_per_replica == connections


@pytest.mark.parametrize("options", [{"max_streams": 512, "max_ongoing_requests": 512}, {"capacity": 100, "max_ongoing_requests": 64}])
def test_fewer_connections_than_streams_is_a_clear_error(options):
    with pytest.raises(ValidationError, match=r"max_ongoing_requests \(\d+\) must be above the streams a replica serves"):
        EngineAppArgs(**options)


def test_server_settings_reach_each_replica_and_a_bad_one_is_refused_up_front():
    args = EngineAppArgs(capacity=8, server={"ws_idle_timeout_s": 300, "min_voice_reference_s": 0.5})
    settings = args.server_settings()
    assert (settings.ws_idle_timeout_s, settings.min_voice_reference_s, settings.capacity) == (300, 0.5, 8)
    with pytest.raises(ValidationError, match="ws_idle_timeout_s"):
        EngineAppArgs(server={"ws_idle_timeout_s": -1})
    with pytest.raises(ValidationError, match="no_such_setting"):
        EngineAppArgs(server={"no_such_setting": 1})


def test_serve_replicas_passes_every_engine_option_to_each_replica(tmp_path):
    args = build_parser().parse_args([
        "serve", "--model", str(tmp_path), "--replicas", "2", "--max-streams", "512", "--max-context", "640",
        "--cache-dir", str(tmp_path / "cache"), "--max-frames-per-text-token", "4", "--kv-cache-memory", "24GiB",
    ])
    replica = replica_args(args, server_settings(args))
    assert (replica.max_streams, replica.max_context) == (512, 640)
    assert replica.server_settings().engine_options() == {
        "cache_dir": str(tmp_path / "cache"), "max_frames_per_text_token": 4.0, "memory_budget": 24 * 2**30,
    }
    shared = build_parser().parse_args(["serve", "--model", str(tmp_path), "--replicas", "2", "--kv-cache-memory", "45%"])
    assert replica_args(shared, server_settings(shared)).server_settings().engine_options() == {"memory_fraction": 0.45}


@pytest.mark.parametrize("text", ["lots", "0", "150%", "12 parsecs", "100"])
def test_a_kv_cache_memory_that_is_neither_a_size_nor_a_share_is_refused(text):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--model", "m", "--kv-cache-memory", text])
