"""How `LeastBusyStreamsRouter` ranks replicas from their (late) reports and the connections it
has routed itself. The replicas here are the two things the router reads of Serve's
`RunningReplica` (its id and its last report); tests/integration/test_ray_serve.py runs the
router in Serve's proxy."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import pytest
from ray.serve._private.common import DeploymentHandleSource, DeploymentID, RequestMetadata
from ray.serve.request_router import PendingRequest, ReplicaID

from engine.deploy.router import UNREPORTED_FOR_S, LeastBusyStreamsRouter

DEPLOYMENT = DeploymentID(name="EngineReplica", app_name="voice-tts")


@dataclass
class Replica:
    name: str
    routing_stats: dict = field(default_factory=dict)

    @property
    def replica_id(self) -> ReplicaID:
        return ReplicaID(self.name, DEPLOYMENT)

    def reports(self, active_streams: int, capacity: int = 2, at: float | None = None) -> None:
        self.routing_stats = {
            "active_streams": active_streams,
            "capacity": capacity,
            "reported_at": time.time() if at is None else at,
        }


@pytest.fixture
def router() -> LeastBusyStreamsRouter:
    router = LeastBusyStreamsRouter(
        deployment_id=DEPLOYMENT, handle_source=DeploymentHandleSource.PROXY
    )
    router.initialize_state()
    return router


def route(router: LeastBusyStreamsRouter, replica: Replica, connection: str) -> None:
    metadata = RequestMetadata(request_id=connection, internal_request_id=connection)
    request = PendingRequest(args=[], kwargs={}, metadata=metadata)
    router.on_request_routed(request, replica.replica_id, None)


async def ranks(router: LeastBusyStreamsRouter, *replicas: Replica) -> list[list[str]]:
    chosen = await router.choose_replicas(list(replicas))
    return [[replica.name for replica in rank] for rank in chosen]


async def test_connections_routed_after_a_report_count_until_a_later_report(router) -> None:
    a, b = Replica("a"), Replica("b")
    a.reports(0), b.reports(0)
    route(router, a, "1")
    assert await ranks(router, a, b) == [["b"], ["a"]]
    route(router, b, "2")
    route(router, a, "3")
    # `a` is full by the router's own count, though its report says idle: only `b` is offered.
    assert await ranks(router, a, b) == [["b"]]
    # A report taken long enough after the connections were routed counts them itself.
    a.reports(1, at=time.time() + UNREPORTED_FOR_S + 0.1)
    assert router.busy_streams(a) == 1


async def test_a_report_taken_just_after_routing_still_adds_the_connection(router) -> None:
    # Its turn may not have started when the replica counted: counting it twice is the safe side.
    a = Replica("a")
    a.reports(0)
    route(router, a, "1")
    a.reports(0, at=time.time() + 0.1)
    assert router.busy_streams(a) == 1


async def test_a_closed_connection_stops_counting(router) -> None:
    a, b = Replica("a"), Replica("b")
    a.reports(1), b.reports(1)
    route(router, a, "1")
    assert await ranks(router, a, b) == [["b"]]
    router.on_request_completed(a.replica_id, "1")
    assert sorted(await ranks(router, a, b)) == [["a"], ["b"]]


async def test_a_full_replica_is_offered_only_when_all_are(router) -> None:
    a, b = Replica("a"), Replica("b")
    a.reports(2), b.reports(1)
    assert await ranks(router, a, b) == [["b"]]
    b.reports(2)
    route(router, b, "1")
    # Every replica full: the least busy first, so that the turn is refused at once.
    assert await ranks(router, a, b) == [["a"], ["b"]]


async def test_a_replica_not_yet_reported_is_sized_like_the_largest(router) -> None:
    a, new = Replica("a"), Replica("new")
    a.reports(30, capacity=64)
    route(router, new, "1")
    assert await ranks(router, a, new) == [["new"], ["a"]]

