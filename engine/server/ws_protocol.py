"""uvicorn's WebSocket protocol, with invalid UTF-8 in text frames answered instead of fatal.

RFC 6455 has the receiver fail the connection (close 1007) on a text frame that is not UTF-8.
For a speech stream that would throw away a running turn over one bad delta, so this protocol
hands such a frame to the app with surrogate escapes; the app answers `error invalid_utf8` and
drops the message. (Valid UTF-8 can never decode to surrogates, so the app can tell.)
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


class LenientUTF8WebSocketProtocol(WebSocketsSansIOProtocol):
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
