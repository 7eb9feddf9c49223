"""Running the app on uvicorn: in the foreground (`voice-tts serve`) or on a thread (tests,
embedding in another program)."""

from __future__ import annotations

import asyncio
import threading

import uvicorn
from starlette.applications import Starlette

from engine.server.auth import redact_request_logs
from engine.server.connections import bounded_h11, raise_open_file_limit
from engine.server.settings import ServerSettings
from engine.server.ws_protocol import server_websocket


def uvicorn_config(app: Starlette, settings: ServerSettings) -> uvicorn.Config:
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        http=bounded_h11(settings),
        ws=server_websocket(settings),
        ws_max_size=settings.hard_frame_limit,
        log_level=settings.log_level,
        lifespan="on",
        # Bound the wait for open streams on shutdown; the server cancels them anyway.
        timeout_graceful_shutdown=5,
    )
    # After uvicorn has set up its loggers (creating the config does).
    redact_request_logs()
    return config


def serve(app: Starlette, settings: ServerSettings) -> None:
    """Serve until SIGINT/SIGTERM."""
    raise_open_file_limit(settings)
    uvicorn.Server(uvicorn_config(app, settings)).run()


class BackgroundServer:
    """uvicorn on its own thread and event loop; `port=0` picks a free port.

    Usable as a context manager; `stop()` then `start()` again serves on the same port.
    """

    def __init__(self, app: Starlette, settings: ServerSettings | None = None) -> None:
        self.app = app
        self.settings = settings or ServerSettings(port=0, log_level="warning")
        self.port = self.settings.port
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        return self.settings.host

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}/v1/ws"

    def start(self, timeout: float = 30.0) -> "BackgroundServer":
        settings = self.settings.model_copy(update={"port": self.port})
        raise_open_file_limit(settings)
        server = uvicorn.Server(uvicorn_config(self.app, settings))
        failure: list[BaseException] = []

        def run() -> None:
            try:
                asyncio.run(server.serve())
            except BaseException as exc:
                failure.append(exc)

        thread = threading.Thread(target=run, name=f"uvicorn-{self.port}", daemon=True)
        thread.start()
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError(f"the server did not start: {failure or 'see its log'}")
            thread.join(0.01)
            timeout -= 0.01
            if timeout <= 0:
                server.should_exit = True
                raise TimeoutError("the server did not start in time")
        self.port = server.servers[0].sockets[0].getsockname()[1]
        self._server, self._thread = server, thread
        return self

    def stop(self, timeout: float = 30.0) -> None:
        if self._server is None:
            return
        self._server.should_exit = True
        self._thread.join(timeout)
        self._server = self._thread = None

    def __enter__(self) -> "BackgroundServer":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()
