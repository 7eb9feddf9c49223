"""Prometheus metrics of one server, on its own registry (several servers can share a process)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

TTFA_BUCKETS = (0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0, 5.0)


class ServerMetrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.active_streams = Gauge(
            "voice_tts_active_streams",
            "Streams (WebSocket turns and HTTP speech requests) being synthesized now.",
            registry=self.registry,
        )
        self.ttfa = Histogram(
            "voice_tts_ttfa_seconds",
            "Time from a turn's first text to its first audio byte sent.",
            buckets=TTFA_BUCKETS,
            registry=self.registry,
        )
        self.audio_seconds = Counter(
            "voice_tts_audio_seconds",
            "Seconds of audio sent to clients.",
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

        def field(name: str):
            def read() -> float:
                value = getattr(measure(), name)
                return float("nan") if value is None else float(value)

            return read

        for name, help_text in (
            ("realtime_headroom", "1 - loop iteration time / audio time it makes (engine-measured)."),
            ("max_streams_estimate", "Most concurrent streams the engine's measured costs keep real-time."),
            ("iteration_ms", "Mean recent engine loop iteration, ms."),
        ):
            Gauge(f"voice_tts_engine_{name}", help_text, registry=self.registry).set_function(field(name))

    def render(self) -> bytes:
        return generate_latest(self.registry)
