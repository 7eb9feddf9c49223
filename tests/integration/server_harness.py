"""A real engine server on 127.0.0.1 for the server and client tests, and a raw-socket turn."""

from __future__ import annotations

import asyncio
import json
import socket
from dataclasses import dataclass, field

from websockets.asyncio.client import ClientConnection, connect

from engine import Engine
from engine.server.app import create_app
from engine.server.http_server import BackgroundServer
from engine.server.settings import ServerSettings
from voice_tts.protocol import StreamingEngine

TURN_TIMEOUT_S = 60.0


def start_server(engine: StreamingEngine | None = None, lexicon=None, **settings) -> BackgroundServer:
    """Serve `engine` (the embedded voice by default) on a free port; waits until /ready."""
    settings = ServerSettings(**{"port": 0, "log_level": "warning", **settings})
    app = create_app(engine or Engine.embedded(), settings=settings, lexicon=lexicon)
    server = BackgroundServer(app, settings).start()
    wait_ready(server)
    return server


def wait_ready(server: BackgroundServer, timeout: float = 60.0) -> None:
    import time

    import httpx

    headers = {}
    if server.settings.api_key:
        headers["Authorization"] = f"Bearer {server.settings.api_key}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if httpx.get(server.http_url + "/ready", headers=headers).status_code == 200:
            return
        time.sleep(0.05)
    raise TimeoutError("server not ready")


@dataclass
class TurnResult:
    messages: list[dict] = field(default_factory=list)  # every JSON message, in order
    audio: bytearray = field(default_factory=bytearray)

    def of_type(self, kind: str) -> list[dict]:
        return [m for m in self.messages if m["type"] == kind]

    @property
    def done(self) -> dict:
        return self.of_type("done")[-1]

    @property
    def words(self) -> list[dict]:
        return [word for progress in self.of_type("progress") for word in progress["words"]]


async def receive_until_done(ws: ClientConnection, result: TurnResult | None = None) -> TurnResult:
    result = result or TurnResult()
    async with asyncio.timeout(TURN_TIMEOUT_S):
        while True:
            frame = await ws.recv()
            if isinstance(frame, bytes):
                result.audio.extend(frame)
                continue
            message = json.loads(frame)
            result.messages.append(message)
            if message["type"] == "done":
                return result


async def receive_until_words(ws: ClientConnection, count: int) -> TurnResult:
    """Everything the turn sends until `count` words have come (where a test barges in)."""
    result = TurnResult()
    async with asyncio.timeout(TURN_TIMEOUT_S):
        while len(result.words) < count:
            frame = await ws.recv()
            if isinstance(frame, bytes):
                result.audio.extend(frame)
            else:
                result.messages.append(json.loads(frame))
    return result


async def speak(ws: ClientConnection, deltas: list[str], **start) -> TurnResult:
    """One whole turn: start, the deltas, stop, and everything up to `done`."""
    await ws.send(json.dumps({"type": "start", **start}))
    for delta in deltas:
        await ws.send(json.dumps({"type": "text", "text": delta}))
    await ws.send(json.dumps({"type": "stop"}))
    return await receive_until_done(ws)


async def next_json(ws: ClientConnection, timeout: float = 10.0) -> dict:
    """The next JSON message, failing on an audio frame."""
    frame = await asyncio.wait_for(ws.recv(), timeout)
    assert isinstance(frame, str), f"expected a JSON message, got {len(frame)} bytes of audio"
    return json.loads(frame)


def ws_connect(url: str, **kwargs):
    return connect(url, max_size=None, compression=None, proxy=None, **kwargs)


class ServerProcess:
    """`voice-tts serve` (embedded voice) in a child process, so a test can freeze it with
    SIGSTOP or kill it with SIGKILL."""

    def __init__(
        self, extra_args: list[str] = (), python_prelude: str | None = None, log_path=None
    ) -> None:
        """`extra_args`: more `serve` flags; `python_prelude`: Python run in the process first
        (to take a package away, say); `log_path`: where its output goes (else nowhere)."""
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.http_url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/v1/ws"
        self._args = ["serve", "--port", str(self.port), *extra_args]
        self._prelude = python_prelude
        self._log_path = log_path
        self.start()

    def start(self) -> None:
        """Start the server (again, on the same port after `kill`) and wait until it is ready."""
        import subprocess
        import sys

        if self._prelude is None:
            command = [sys.executable, "-m", "voice_tts.cli", *self._args]
        else:
            command = [
                sys.executable,
                "-c",
                f"{self._prelude}\nimport sys\nfrom voice_tts.cli import main\nsys.exit(main({self._args!r}))",
            ]
        output = subprocess.DEVNULL if self._log_path is None else open(self._log_path, "ab")
        self.process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        self.wait_ready()

    def kill(self) -> None:
        """SIGKILL, as a crash or an OOM kill ends it: no close handshake, no drain."""
        self.process.kill()
        self.process.wait(10)

    def wait_ready(self, timeout: float = 60.0) -> None:
        import time

        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "server process exited"
            try:
                if httpx.get(self.http_url + "/ready").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise TimeoutError("server not ready")

    def signal(self, signum: int) -> None:
        self.process.send_signal(signum)

    def stop(self) -> None:
        import signal

        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
        self.process.wait(10)


class TcpProxy:
    """A TCP relay to a server on 127.0.0.1 whose connections a test can cut, as a lost
    network does (both sides see the connection reset, no close handshake)."""

    def __init__(self, target_port: int) -> None:
        self._target_port = target_port
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []
        self.port = 0

    async def __aenter__(self) -> "TcpProxy":
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc_info) -> None:
        self.cut()
        self._server.close()

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1/ws"

    def cut(self) -> None:
        writers, self._writers = self._writers, []
        for writer in writers:
            writer.transport.abort()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(
            "127.0.0.1", self._target_port
        )
        self._writers += [writer, upstream_writer]

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except OSError:
                pass
            finally:
                sink.transport.abort()

        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))


def free_port() -> int:
    """A port nothing listens on now, for a server process the test starts."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
