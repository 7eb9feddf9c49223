"""Prometheus metrics of one server, on its own registry (several servers can share a process).

A server of several API worker processes (`voice-tts serve --workers N`, engine/server/workers.py)
runs prometheus-client's multiprocess mode: each worker's values live in files of the directory
`PROMETHEUS_MULTIPROC_DIR` names, and every worker's `/metrics` sums all of them, so a scrape
that lands on any worker sees the whole server. The engine's own gauges (headroom) come from the
engine, the same on every worker, and are read at the scrape.
"""

from __future__ import annotations

import math
import os

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.multiprocess import MultiProcessCollector

MULTIPROCESS_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"
HEADROOM_GAUGES = (
    ("realtime_headroom", "1 - loop iteration time / audio time it makes (engine-measured)."),
    ("max_streams_estimate", "Most concurrent streams the engine's measured costs keep real-time."),
    ("iteration_ms", "Mean recent engine loop iteration, ms."),
)

TTFA_BUCKETS = (0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0, 5.0)


class ServerMetrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self._shared_dir = os.environ.get(MULTIPROCESS_DIR_ENV)  # None: this process is the server
        self._engine = CollectorRegistry()  # read from the engine at each scrape
        self.active_streams = Gauge(
            "voice_tts_active_streams",
            "Streams (WebSocket turns and HTTP speech requests) being synthesized now.",
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        self.ttfa = Histogram(
            "voice_tts_ttfa_seconds",
            "Time from a turn's first text to its first audio out of its output pipeline.",
            buckets=TTFA_BUCKETS,
            registry=self.registry,
        )
        self.audio_seconds = Counter(
            "voice_tts_audio_seconds",
            "Seconds of audio streams gave their clients (played time; the usage log's audio_seconds).",
            registry=self.registry,
        )
        self.turns = Counter(
            "voice_tts_turns",
            "Finished streams, by route and how they ended.",
            ["route", "outcome"],
            registry=self.registry,
        )
        self.connections = Counter(
            "voice_tts_ws_connections",
            "WebSocket connections accepted on /v1/ws.",
            registry=self.registry,
        )
        self.open_connections = Gauge(
            "voice_tts_ws_open_connections",
            "WebSocket connections open on /v1/ws now.",
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        self.errors = Counter(
            "voice_tts_errors",
            "Errors reported to clients, by error code.",
            ["code"],
            registry=self.registry,
        )

    def report_headroom(self, measure) -> None:
        """Export an engine's measured real-time headroom, read at each scrape (`measure()` gives
        a `voice_tts.protocol.Headroom`)."""
        self._engine.register(_HeadroomCollector(measure))

    def render(self) -> bytes:
        if self._shared_dir is None:
            return generate_latest(self.registry) + generate_latest(self._engine)
        workers = CollectorRegistry()
        MultiProcessCollector(workers, self._shared_dir)
        return generate_latest(workers) + generate_latest(self._engine)


class _HeadroomCollector:
    """The engine's headroom gauges (a collector, not `Gauge`s: in multiprocess mode a `Gauge`
    would also leave a per-worker value in the shared files)."""

    def __init__(self, measure) -> None:
        self._measure = measure

    def collect(self):
        headroom = self._measure()
        for name, help_text in HEADROOM_GAUGES:
            value = getattr(headroom, name)
            yield GaugeMetricFamily(f"voice_tts_engine_{name}", help_text, value=math.nan if value is None else float(value))
