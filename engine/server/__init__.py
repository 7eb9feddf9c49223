"""The co-located engine server: native WebSocket protocol, OpenAI-compatible speech endpoint,
capabilities, health/readiness and Prometheus metrics (see docs/protocol.md)."""
