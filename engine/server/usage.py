"""What each stream used: one place counts it for `/metrics` and for the usage log.

Every stream the server runs (a `/v1/ws` turn, an HTTP speech request, a Realtime response)
has a `StreamUsage`. Its stream's output pipeline (`voice_tts.stream_output`) tells it each
piece of audio as it goes out (`audio_sent`: `/metrics`, time to first audio), and `finish()`,
called exactly once whatever the outcome, logs the pipeline's `Usage` (the one the turn's
`done` carries): it bumps `voice_tts_turns_total{route,outcome}` and appends one JSON line to
the usage log (`--usage-log FILE`), flushed at once so that a crash loses no finished record.
The log's lines, the metrics, the turns' `done` and the stream's trace span
(engine/server/tracing.py) agree by construction.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from engine.server.metrics import ServerMetrics
from engine.server.tracing import StreamSpan
from voice_tts.protocol import Usage


def api_key_label(api_key: str | None) -> str | None:
    """Which key a request used, without the key: a short hash (None on an open server)."""
    if api_key is None:
        return None
    return "sha256:" + hashlib.sha256(api_key.encode()).hexdigest()[:12]


class UsageLog:
    """Appends one JSON object per line, each with one `write` to a file opened for appending:
    the API workers of one server (and threads of one) share the file, and no line ever
    interleaves with another."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = None if path is None else Path(path)
        self._fd = None if self.path is None else os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def write(self, record: dict) -> None:
        if self._fd is None:
            return
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        os.write(self._fd, line.encode("utf-8"))


@dataclass(eq=False)
class StreamUsage:
    """One stream's usage, from its opening to `finish()`."""

    metrics: ServerMetrics = field(repr=False)
    log: UsageLog = field(repr=False)
    route: str
    stream_id: str
    voice: str | None
    api_key_label: str | None
    span: StreamSpan | None = field(default=None, repr=False)
    started_at: float = field(default_factory=time.time, init=False)
    _started: float = field(default_factory=time.monotonic, init=False, repr=False)
    _first_text_at: float | None = field(default=None, init=False, repr=False)
    ttfa: float | None = field(default=None, init=False)
    outcome: str | None = field(default=None, init=False)  # set once, by `finish()`
    cached: bool = field(default=False, init=False)  # served from the phrase cache

    def text_arrived(self) -> None:
        if self._first_text_at is None:
            self._first_text_at = time.monotonic()
            if self.span is not None:
                self.span.text_arrived()

    def engine_output(self) -> None:
        """An event of the stream's engine stream came (only the first is timed)."""
        if self.span is not None:
            self.span.engine_output()

    def audio_sent(self, seconds: float) -> None:
        self.metrics.audio_seconds.inc(seconds)
        if self.ttfa is None and self._first_text_at is not None:
            self.ttfa = time.monotonic() - self._first_text_at
            self.metrics.ttfa.observe(self.ttfa)
            if self.span is not None:
                self.span.first_audio()

    def error(self, code: str, message: str) -> None:
        """An error the stream reported to its client."""
        if self.span is not None:
            self.span.error(code, message)

    def finish(self, outcome: str, usage: Usage) -> None:
        """`outcome`: done, cancelled, abandoned, error, pause_timeout or resume_timeout;
        `usage`: the stream's output pipeline's (a stream that could not open has none: what
        it received, nothing heard, no audio). Only the first call counts."""
        if self.outcome is not None:
            return
        self.outcome = outcome
        self.metrics.turns.labels(route=self.route, outcome=outcome).inc()
        record = {
            "stream_id": self.stream_id,
            "route": self.route,
            "voice": self.voice,
            "api_key": self.api_key_label,
            "outcome": outcome,
            "characters_received": usage.characters_received,
            "characters_spoken": usage.characters_spoken,
            "audio_seconds": round(usage.audio_seconds, 6),
            "started_at": round(self.started_at, 3),
            "duration_seconds": round(time.monotonic() - self._started, 3),
            "ttfa_seconds": None if self.ttfa is None else round(self.ttfa, 4),
            "cached": self.cached,
        }
        self.log.write(record)
        if self.span is not None:
            self.span.finish({f"voice_tts.{name}": value for name, value in record.items()})
