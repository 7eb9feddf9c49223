"""Running the app on uvicorn: in the foreground (`voice-tts serve`) or on a thread (tests,
embedding in another program)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from typing import Iterator

import uvicorn
from starlette.applications import Starlette

from engine.server.auth import redact_request_logs
from engine.server.connections import bounded_h11, raise_open_file_limit
from engine.server.settings import ServerSettings
from engine.server.state import ServerState
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


log = logging.getLogger(__name__)

# How long turns ended by a drain (or an engine failure) get to send their `done`.
DONE_GRACE_S = 5.0
ENGINE_WATCH_INTERVAL_S = 0.25
# How long a failed engine is reported on /health before the server stops (a supervisor's
# probe sees why).
FAILURE_REPORT_S = 2.0
# The exit status after the engine's loop died (EX_SOFTWARE): a supervisor restarts the process.
EXIT_ENGINE_FAILED = 70


class DrainingServer(uvicorn.Server):
    """uvicorn, draining before it stops. On the first SIGTERM or SIGINT `/ready` turns 503
    and new streams are refused with a retryable `shutting_down`; running streams get up to
    `drain_timeout_s` to finish, and WebSocket turns still running then end with `done` reason
    `shutdown`. A second signal stops at once. Unlike plain uvicorn the signal is not raised
    again on the way out, so `serve` returns and the caller closes its engine and exits 0."""

    def __init__(self, config: uvicorn.Config, state: ServerState, drain_timeout_s: float):
        super().__init__(config)
        self.state = state
        self.drain_timeout_s = drain_timeout_s
        self.exit_code = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._drain_task: asyncio.Task | None = None

    async def serve(self, sockets=None) -> None:
        self._loop = asyncio.get_running_loop()
        watch = self._loop.create_task(self._watch_engine())
        try:
            await super().serve(sockets)
        finally:
            watch.cancel()

    async def _watch_engine(self) -> None:
        """An engine whose loop died does not recover: its running streams have ended with
        `engine_error` (the engine does that), `/health` says why, and the server stops with
        status 70 for its supervisor to start a fresh process."""
        state = self.state
        while (failure := getattr(state.engine, "failure", None)) is None:
            await asyncio.sleep(ENGINE_WATCH_INTERVAL_S)
        log.error("the engine failed: %s; stopping for a restart", failure)
        state.readiness.engine_failure = failure
        loop = asyncio.get_running_loop()
        reported, deadline = loop.time() + FAILURE_REPORT_S, loop.time() + DONE_GRACE_S
        while loop.time() < reported or (state.turns and loop.time() < deadline):
            await asyncio.sleep(0.05)
        self.exit_code = EXIT_ENGINE_FAILED
        self.should_exit = True

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        handled = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def handle_exit(self, sig: int, frame) -> None:
        if self._loop is None:
            self.should_exit = True
        else:
            self._loop.call_soon_threadsafe(self.drain)

    def drain(self) -> None:
        """Start draining (on the server's loop); a second call stops at once."""
        if self._drain_task is None:
            self._drain_task = asyncio.get_running_loop().create_task(self._drain())
        else:
            self.should_exit = self.force_exit = True

    async def _drain(self) -> None:
        state, loop = self.state, asyncio.get_running_loop()
        state.readiness.draining = True
        log.info("draining: %d streams running", state.slots.active)
        deadline = loop.time() + self.drain_timeout_s
        while state.slots.active and loop.time() < deadline:
            await asyncio.sleep(0.05)
        for turn in list(state.turns):
            turn.shut_down()
        deadline = loop.time() + DONE_GRACE_S
        while state.turns and loop.time() < deadline:
            await asyncio.sleep(0.05)
        log.info("drained: stopping")
        self.should_exit = True


def draining_server(app: Starlette, settings: ServerSettings) -> DrainingServer:
    return DrainingServer(uvicorn_config(app, settings), app.state.server, settings.drain_timeout_s)


def serve(app: Starlette, settings: ServerSettings) -> int:
    """Serve until SIGINT/SIGTERM, draining first (see `DrainingServer`); the exit status."""
    raise_open_file_limit(settings)
    server = draining_server(app, settings)
    server.run()
    return server.exit_code


class BackgroundServer:
    """uvicorn on its own thread and event loop; `port=0` picks a free port.

    Usable as a context manager; `stop()` then `start()` again serves on the same port.
    """

    def __init__(self, app: Starlette, settings: ServerSettings | None = None) -> None:
        self.app = app
        self.settings = settings or ServerSettings(port=0, log_level="warning")
        self.port = self.settings.port
        self._server: DrainingServer | None = None
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
        server = draining_server(self.app, settings)
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

    def wait(self, timeout: float) -> int | None:
        """Wait for the server to stop by itself; its exit status (None: still serving)."""
        self._thread.join(timeout)
        return None if self._thread.is_alive() else self._server.exit_code

    def drain(self) -> None:
        """What SIGTERM does to `voice-tts serve`: drain, then stop."""
        self._server._loop.call_soon_threadsafe(self._server.drain)

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
