"""OpenTelemetry traces of the server's streams, exported over OTLP/HTTP (the `tracing` extra).

Tracing is on when `--otlp-traces-endpoint URL` is set, or one of the standard variables
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT` (the other `OTEL_*`
variables apply as the SDK reads them: `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_*`; `OTEL_SDK_DISABLED=true` turns it off). Without the
extra installed the server runs untraced, and says so once if tracing was asked for.

Each stream (a `/v1/ws` turn, an HTTP speech request, a Realtime response) is one `tts.stream`
span, a child of the client's trace when it sent a W3C `traceparent` (the HTTP header, or the
`start` message's field on `/v1/ws`), so an agent's trace and the server's join. The span holds
what `StreamUsage` counts, from the same numbers (the usage log's fields, as `voice_tts.*`):
route, voice, outcome, characters received and spoken, audio seconds, first-audio time
(`voice_tts.ttfa_seconds`, and a `first_audio` event), `voice_tts.cancelled`, and an error
(`voice_tts.error_code`, the span's status and an `error` event). The part of the stream spent in
the engine, as this API worker sees it, is a child `tts.engine` span from the first text to the
end, with the wait for the engine's first output (`voice_tts.queue_wait_s`: its scheduling
wait and prefill) and the first output as an event.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping

log = logging.getLogger(__name__)

try:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from opentelemetry.trace import Span, SpanKind, Status, StatusCode, set_span_in_context
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
except ImportError:  # the `tracing` extra is not installed
    OTLPSpanExporter = None

# The standard variables that name where OTLP traces go.
ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
SERVICE_NAME = "voice-tts"
# Path of the traces on an OTLP/HTTP collector, added to an endpoint given without one.
TRACES_PATH = "/v1/traces"


class StreamTracer:
    """Starts a span per stream; one per server process. `StreamTracer.of(None)` traces nothing."""

    def __init__(self, provider) -> None:
        self._provider = provider
        self._tracer = None if provider is None else provider.get_tracer("voice_tts.server")

    @classmethod
    def of(cls, endpoint: str | None, environ: Mapping[str, str] = os.environ) -> "StreamTracer":
        """The tracer the settings and the environment ask for."""
        wanted = endpoint is not None or any(environ.get(name) for name in ENDPOINT_VARIABLES)
        if not wanted or environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
            return cls(None)
        if OTLPSpanExporter is None:
            log.warning(
                "OTLP tracing was asked for but is off: install the tracing extra "
                '(pip install "voice-tts[tracing]")'
            )
            return cls(None)
        if endpoint is not None and not endpoint.rstrip("/").endswith(TRACES_PATH):
            endpoint = endpoint.rstrip("/") + TRACES_PATH
        resource = Resource.create()  # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
        if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
            resource = resource.merge(Resource({"service.name": SERVICE_NAME}))
        provider = TracerProvider(resource=resource)
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
        return cls(provider)

    def start(self, route: str, stream_id: str, traceparent: str | None) -> "StreamSpan | None":
        """The span of a new stream, under the client's trace when `traceparent` names one."""
        if self._tracer is None:
            return None
        parent = None
        if traceparent:
            parent = TraceContextTextMapPropagator().extract({"traceparent": traceparent})
        span = self._tracer.start_span(
            "tts.stream",
            context=parent,
            kind=SpanKind.SERVER,
            attributes={"voice_tts.route": route, "voice_tts.stream_id": stream_id},
        )
        return StreamSpan(self._tracer, span)

    def shutdown(self) -> None:
        """Send what is left; the server is stopping."""
        if self._provider is not None:
            self._provider.shutdown()


class StreamSpan:
    """One stream's span and its engine child span; every method is called from the stream's
    event loop, `finish` once."""

    def __init__(self, tracer, span: "Span") -> None:
        self._tracer = tracer
        self._span = span
        self._engine_span: "Span | None" = None
        self._first_text_at: float | None = None
        self._first_output = False
        self._error: tuple[str, str] | None = None

    def text_arrived(self) -> None:
        if self._engine_span is None:
            self._first_text_at = time.monotonic()
            self._engine_span = self._tracer.start_span(
                "tts.engine", context=set_span_in_context(self._span), kind=SpanKind.INTERNAL
            )

    def engine_output(self) -> None:
        """The engine's first event for this stream (later ones are not counted)."""
        if self._first_output or self._engine_span is None:
            return
        self._first_output = True
        wait = time.monotonic() - self._first_text_at
        self._engine_span.add_event("first_output")
        self._engine_span.set_attribute("voice_tts.queue_wait_s", wait)
        self._span.set_attribute("voice_tts.queue_wait_s", wait)

    def first_audio(self) -> None:
        """The stream's first audio went to its client (`voice_tts.ttfa_seconds` after it)."""
        self._span.add_event("first_audio")

    def error(self, code: str, message: str) -> None:
        """An error the stream reported to its client (the first one is the span's)."""
        self._span.add_event("error", {"voice_tts.error_code": code, "message": message})
        if self._error is None:
            self._error = (code, message)

    def finish(self, attributes: dict) -> None:
        """End the spans with the stream's usage (`None` values left out)."""
        self._span.set_attributes({k: v for k, v in attributes.items() if v is not None})
        outcome = attributes.get("voice_tts.outcome")
        self._span.set_attribute("voice_tts.cancelled", outcome == "cancelled")
        if self._error is not None or outcome == "error":
            code, message = self._error or ("error", "the stream failed")
            self._span.set_attribute("voice_tts.error_code", code)
            self._span.set_status(Status(StatusCode.ERROR, message))
        if self._engine_span is not None:
            self._engine_span.end()
        self._span.end()

