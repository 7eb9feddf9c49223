"""Which replica takes a new connection: the one with the fewest busy engine streams.

Serve's default router compares ongoing requests, and for this server an ongoing request is an
open WebSocket, busy or idle between turns. What fills an engine is its busy streams, which each
replica reports through `record_routing_stats` (`active_streams`, `capacity`, `reported_at`: the
replica's wall-clock time when it counted). Reports reach the router through Serve's controller,
which can fall seconds behind on a loaded host, so the router adds what it knows itself and no
report can yet show: every connection it has sent a replica that is still open and was sent too
short a time before the replica's last report for its turn to be counted in it. A burst of new
calls thus spreads over the replicas at once, and a turn refused by a full replica and tried again
on a fresh socket (`RemoteEngine`) reaches another one, however late the reports are.

What no router sees is a turn that starts on a socket already open and idle (a client's pool):
it is known from the replica's next report, 0.5 s plus the controller's delay later.
"""

from __future__ import annotations

import random
import time
from typing import List, Optional

from ray.serve.request_router import (
    FIFOMixin,
    PendingRequest,
    ReplicaID,
    RequestRouter,
    RunningReplica,
)

# A connection sent this long before a report was taken may not have started its turn by then
# (its handshake and `start` cross the proxy, slowly on a loaded host); until a later report, it
# counts as a busy stream on top of the report. Counting a turn twice for that long only holds
# new connections off a replica a little longer; missing one could send a turn to a full replica.
UNREPORTED_FOR_S = 2.0
# Replicas whose busy share is within this of the least busy one's count as least busy.
NEAR_SHARE = 0.1


class LeastBusyStreamsRouter(FIFOMixin, RequestRouter):
    def initialize_state(self, **kwargs) -> None:
        # replica → {open connection (internal request id) → time.time() when it was routed}
        self._routed: dict[ReplicaID, dict[str, float]] = {}

    def busy_streams(self, replica: RunningReplica) -> int:
        """The replica's reported busy streams plus this router's connections the report may
        not count. Connections too old to matter to it or to any later report are forgotten."""
        stats = replica.routing_stats
        since = stats.get("reported_at", 0.0) - UNREPORTED_FOR_S
        routed = self._routed.get(replica.replica_id, {})
        for request_id in [r for r, at in routed.items() if at < since]:
            del routed[request_id]
        return stats.get("active_streams", 0) + len(routed)

    async def choose_replicas(
        self,
        candidate_replicas: List[RunningReplica],
        pending_request: Optional[PendingRequest] = None,
    ) -> List[List[RunningReplica]]:
        # Ranks from least to most busy, tried in turn (a replica at `max_ongoing_requests`
        # refuses). Replicas within NEAR_SHARE of the least busy come first in random order:
        # routing decisions made at once see the same counts, and would otherwise all pick the
        # same replica. A full replica is offered only when all are: then the turn reaches one
        # and is refused with `capacity` at once, rather than waiting in the router.
        for gone in self._routed.keys() - {replica.replica_id for replica in candidate_replicas}:
            del self._routed[gone]
        # A replica that has not reported yet (just started) is taken to be as large as the
        # largest that has.
        largest = max((r.routing_stats.get("capacity", 1) for r in candidate_replicas), default=1)
        share = {
            replica.replica_id: self.busy_streams(replica)
            / max(1, replica.routing_stats.get("capacity", largest))
            for replica in candidate_replicas
        }
        ranked = sorted(candidate_replicas, key=lambda replica: share[replica.replica_id])
        with_room = [replica for replica in ranked if share[replica.replica_id] < 1]
        if with_room:
            ranked = with_room
        if not ranked:
            return []
        least = share[ranked[0].replica_id]
        near = [r for r in ranked if share[r.replica_id] <= least + NEAR_SHARE]
        random.shuffle(near)
        return [[replica] for replica in near + ranked[len(near) :]]

    def on_request_routed(
        self, pending_request: PendingRequest, replica_id: ReplicaID, result: object
    ) -> None:
        routed = self._routed.setdefault(replica_id, {})
        routed[pending_request.metadata.internal_request_id] = time.time()

    def on_request_completed(self, replica_id: ReplicaID, internal_request_id: str) -> None:
        self._routed.get(replica_id, {}).pop(internal_request_id, None)
