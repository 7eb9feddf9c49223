"""The Ray Serve application's arguments: a replica's connections stay above the streams it serves."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.deploy.ray_serve import EngineAppArgs


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
