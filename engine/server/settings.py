"""What an operator can set on the engine server."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ServerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    # None: no authentication (the default bind address is loopback-only).
    api_key: str | None = None
    # Largest client message the server reads and answers; a larger one gets `message_too_large`.
    max_message_bytes: int = Field(default=64 * 1024, ge=1024)
    # Open connections (HTTP and WebSocket together); past it a new one gets 503 and is closed.
    max_connections: int = Field(default=2048, ge=1)
    # How long a connection may take to send a request's headers (then 408 and closed).
    header_timeout_s: float = Field(default=10.0, gt=0)
    # How long a WebSocket may stay open without a running turn (then closed with 4408).
    ws_idle_timeout_s: float = Field(default=120.0, gt=0)
    # On SIGTERM/SIGINT, how long running streams may take to finish before they are ended.
    drain_timeout_s: float = Field(default=30.0, ge=0)
    # Largest HTTP request body; a larger one gets 413 before it is read.
    max_request_bytes: int = Field(default=1024 * 1024, ge=1024)
    # Largest voice upload (POST /v1/voices: a 1-30 s reference recording and its fields).
    max_voice_upload_bytes: int = Field(default=16 * 1024 * 1024, ge=1024)
    # How long an HTTP request's body may take to arrive (408 after that).
    body_timeout_s: float = Field(default=10.0, gt=0)
    # A client more than this far behind real time in taking a turn's audio (or this long
    # without taking a message) is dropped: close 1008 `slow_consumer`, its slot freed.
    max_client_lag_s: float = Field(default=5.0, gt=0)
    # Kernel send buffer of a WebSocket, and as much again in the server; with the lag above,
    # it bounds the audio queued for a client that does not read.
    ws_send_buffer_bytes: int = Field(default=64 * 1024, ge=4096)
    # Messages one WebSocket may send a second on average, and at once; a client sending
    # faster is read more slowly (nothing is dropped).
    max_messages_per_s: float = Field(default=200.0, gt=0)
    message_burst: int = Field(default=500, ge=1)
    # Text characters one turn (or one HTTP speech request) may carry in total.
    max_turn_text_chars: int = Field(default=100_000, ge=1)
    # Concurrent streams (WebSocket turns and HTTP requests) before new ones are refused;
    # None takes the engine's own `capacity` when it has one.
    capacity: int | None = Field(default=None, ge=1)
    # Text spoken once at startup so that /ready only answers 200 on a warm engine.
    warmup_text: str = "Ready."
    # A paused turn not resumed within this ends itself (`done`, reason "pause_timeout").
    pause_timeout_s: float = Field(default=30.0, gt=0)
    # Audio a paused turn reads ahead from the engine before the engine stream waits.
    pause_lookahead_s: float = Field(default=2.0, gt=0)
    # A resumable turn whose socket dropped waits this long for `reconnect` (then it ends).
    resume_timeout_s: float = Field(default=30.0, gt=0)
    # Audio a resumable turn keeps for a reconnect: unacknowledged audio beyond it is
    # forgotten, and a turn without a socket waits once it has this much unsent.
    resume_buffer_s: float = Field(default=30.0, gt=0)
    # The folder where the API workers of one server (`--workers`) listen for one another's
    # reconnects: a reconnect that lands on a worker other than its turn's is relayed there.
    # None: one process, no relay (set by engine/server/workers.py).
    resume_relay_dir: str | None = None
    # Where one JSON line per finished stream is appended (None: no usage log).
    usage_log: str | None = None
    log_level: str = "info"

    @property
    def hard_frame_limit(self) -> int:
        """Frames above this are refused by the WebSocket layer itself (close 1009) before the
        server can read them; between `max_message_bytes` and this they get an `error` event."""
        return self.max_message_bytes * 16
