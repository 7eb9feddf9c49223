"""uvicorn's WebSocket protocol, with three changes for a server whose clients may misbehave.

- Invalid UTF-8 in a text frame is answered instead of fatal. RFC 6455 has the receiver fail the
  connection (close 1007); for a speech stream that would throw away a running turn over one
  bad delta, so such a frame reaches the app with surrogate escapes, and the app answers
  `error invalid_utf8` and drops the message. (Valid UTF-8 never decodes to surrogates.)
- The socket's send buffers are small (`ws_send_buffer_bytes` in the kernel and as many again
  in the transport), so audio a client has not read piles up in neither, and a client that falls
  behind shows as a send that waits.
- Closing never waits for the client to make room: the close frame goes behind what is queued,
  and a client that does not read it within `close_timeout` is cut off (`abort`, not `close`,
  which would wait for the unread bytes to drain forever).
"""

from __future__ import annotations

import socket

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState

from engine.server.settings import ServerSettings


class ServerWebSocketProtocol(WebSocketsSansIOProtocol):
    settings: ServerSettings  # set on the subclass that `server_websocket` makes

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        size = self.settings.ws_send_buffer_bytes
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)
        transport.set_write_buffer_limits(high=size)

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type == "text" and not self.close_sent:
            data = b"".join(self.frames)
            try:
                data.decode()
            except UnicodeDecodeError:
                self.frames = []
                text = data.decode("utf-8", "surrogateescape")
                self.queue.put_nowait({"type": "websocket.receive", "text": text})
                # The same flow control as the base class: one message in the app's queue.
                if not self.read_paused:
                    self.read_paused = True
                    self.transport.pause_reading()
                return
        super().send_receive_event_to_app()

    async def send(self, message) -> None:  # type: ignore[override]
        if (
            message["type"] == "websocket.close"
            and self.handshake_complete
            and not self.close_sent
            and not self.disconnected
            and not self.writable.is_set()
        ):
            # The base class would first wait for room the client never makes.
            code = message.get("code", 1000)
            reason = message.get("reason", "") or ""
            try:
                self.conn.send_close(code, reason)
            except InvalidState:  # the client is closing already
                raise ClientDisconnected() from None
            self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
            self.close_timer = self.loop.call_later(self.close_timeout, self.transport.abort)
            return
        await super().send(message)


def server_websocket(settings: ServerSettings) -> type[ServerWebSocketProtocol]:
    """uvicorn makes its protocol objects itself, so the settings travel on a class."""
    return type("ServerWebSocketProtocol", (ServerWebSocketProtocol,), {"settings": settings})
