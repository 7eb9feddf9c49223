"""How many connections the server holds, and how long one may take to say what it wants.

uvicorn bounds neither: a client that opens a socket and sends half a request line keeps the
socket (and its descriptor) forever, and enough of them exhaust the process's descriptors, after
which `/health` and `/v1/ws` fail for everyone. This HTTP protocol refuses connections past
`max_connections` (HTTP and WebSocket together) at once, and closes one whose request headers
have not all arrived within `header_timeout_s` of its connecting or of its previous response.
"""

from __future__ import annotations

import asyncio
import logging
import resource

from uvicorn.protocols.http.h11_impl import H11Protocol

from engine.server.settings import ServerSettings

log = logging.getLogger(__name__)

REFUSED_BODY = (
    b'{"error":{"message":"the server has too many open connections","type":"server_error",'
    b'"param":null,"code":"capacity"}}'
)
REFUSED = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(REFUSED_BODY), REFUSED_BODY)
)
TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"


class BoundedH11Protocol(H11Protocol):
    settings: ServerSettings  # set on the subclass that `bounded_h11` makes

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        if len(self.connections) > self.settings.max_connections:
            log.warning("refused a connection: %d are open", len(self.connections) - 1)
            transport.write(REFUSED)
            transport.close()
            return
        self._arm_header_timer()

    def handle_events(self) -> None:
        scope = self.scope
        super().handle_events()
        if self.scope is not scope:  # a request's headers (or a WebSocket upgrade) arrived
            self._disarm_header_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    def _arm_header_timer(self) -> None:
        self._disarm_header_timer()
        self._header_timer = self.loop.call_later(
            self.settings.header_timeout_s, self._headers_timed_out
        )

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_timed_out(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.write(TIMED_OUT)
            self.transport.close()


def bounded_h11(settings: ServerSettings) -> type[BoundedH11Protocol]:
    """uvicorn makes its protocol objects itself, so the settings travel on a class."""
    return type("BoundedH11Protocol", (BoundedH11Protocol,), {"settings": settings})


def raise_open_file_limit(settings: ServerSettings) -> None:
    """Raise the descriptor soft limit to the hard one: the default soft limit (often 1,024)
    is below what `max_connections` needs."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError) as exc:  # an unlimited hard limit the kernel caps lower
            log.warning("could not raise the descriptor limit from %d: %s", soft, exc)
    # Engine files, logs and the listening socket need descriptors too.
    needed = settings.max_connections + 64
    if soft != resource.RLIM_INFINITY and soft < needed:
        log.warning(
            "the descriptor limit (%d) is below max_connections + 64 (%d): raise `ulimit -n`",
            soft,
            needed,
        )
