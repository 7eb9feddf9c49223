"""Which replica takes a new connection: the one with the fewest busy engine streams.

Serve's default router compares ongoing requests, and for this server an ongoing request is an
open WebSocket, busy or idle between turns. What fills an engine is its busy streams, which each
replica reports through `record_routing_stats` (`active_streams`, `capacity`, `report`: a count
that changes with every report, `reported_at`: its wall-clock time). Reports come every
`request_routing_stats_period_s`; between two of them the router adds the connections it has
sent a replica since its last report, so a burst of connections spreads over the replicas instead
of all following one stale zero. Reports reach the router through Serve's controller, which can
fall seconds behind on a loaded host: while any replica's last report is older than a few
seconds, the router compares open connections, as Serve's default router does (a full replica
refuses the turn with `capacity`, and the client's retry reaches another).
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

# A report older than this is not used.
STALE_REPORT_S = 3.0
# Replicas whose busy share is within this of the least busy one's count as least busy.
NEAR_SHARE = 0.1


class LeastBusyStreamsRouter(FIFOMixin, RequestRouter):
    def initialize_state(self, **kwargs) -> None:
        # replica → (the report it last sent, connections routed to it since that report)
        self._since_report: dict[ReplicaID, tuple[object, int]] = {}

    def busy_share(self, replica: RunningReplica) -> float:
        """The replica's busy streams (reported, plus connections sent since) over its capacity."""
        stats = replica.routing_stats
        capacity = max(1, stats.get("capacity", 1))
        report, routed = self._since_report.get(replica.replica_id, (None, 0))
        if report != stats.get("report"):
            routed = 0
        return (stats.get("active_streams", 0) + routed) / capacity

    @staticmethod
    def reported_lately(replica: RunningReplica) -> bool:
        return time.time() - replica.routing_stats.get("reported_at", 0.0) <= STALE_REPORT_S

    async def choose_replicas(
        self,
        candidate_replicas: List[RunningReplica],
        pending_request: Optional[PendingRequest] = None,
    ) -> List[List[RunningReplica]]:
        # Ranks from least to most busy, tried in turn (a replica at `max_ongoing_requests`
        # refuses). Replicas within NEAR_SHARE of the least busy come first in random order:
        # routing decisions made at once see the same reports, and would otherwise all pick the
        # same replica.
        if not all(self.reported_lately(replica) for replica in candidate_replicas):
            # Without every replica's busy streams: one rank, in which Serve takes the replica
            # with the fewest open connections (its default comparison).
            return [list(candidate_replicas)] if candidate_replicas else []
        share = {replica.replica_id: self.busy_share(replica) for replica in candidate_replicas}
        ranked = sorted(candidate_replicas, key=lambda replica: share[replica.replica_id])
        if not ranked:
            return []
        least = share[ranked[0].replica_id]
        near = [r for r in ranked if share[r.replica_id] <= least + NEAR_SHARE]
        random.shuffle(near)
        return [[replica] for replica in near + ranked[len(near) :]]

    def on_send_request(self, replica_id: ReplicaID) -> None:
        super().on_send_request(replica_id)
        replica = self.curr_replicas.get(replica_id)
        report = replica.routing_stats.get("report") if replica is not None else None
        seen, routed = self._since_report.get(replica_id, (None, 0))
        self._since_report[replica_id] = (report, routed + 1 if seen == report else 1)
