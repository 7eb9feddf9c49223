"""The engine server as a Ray Serve application: one engine per replica behind Serve's proxy.

One replica per GPU (`num_gpus=1`) or N CPU replicas of the embedded voice, all behind one port:
`/v1/ws`, `/v1/audio/speech` and every other route of `engine.server.app` go through Serve's
proxy unchanged. A WebSocket is routed once, when it connects, and stays on its replica for its
life; `LeastBusyStreamsRouter` sends it to the replica with the fewest busy streams.

A replica joins the routing only once its engine is warm (Serve runs the app's startup inside the
replica's initialization, and this startup ends when `/ready` would answer 200). Every replica
reports its load to `FleetLoad`, so that `/v1/capabilities` through the proxy describes the fleet
(capacity and busy streams summed over live replicas) and `/v1/fleet` lists the replicas.

    serve run engine.deploy.ray_serve:build_app              # one CPU replica, this machine
    serve deploy deploy/serve_config.yaml                     # an existing Ray cluster
    voice-tts serve --replicas auto                           # Ray started locally, one per GPU
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from dataclasses import asdict, dataclass
from typing import Any, Awaitable, Callable

from prometheus_client import start_http_server
from pydantic import BaseModel, ConfigDict, Field, model_validator
from ray import serve
from ray.serve.config import RequestRouterConfig
from ray.serve.handle import DeploymentHandle
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from engine.server.app import create_app
from engine.server.engine_loader import load_engine
from engine.server.settings import ServerSettings
from engine.server.state import ServerState
from voice_tts.protocol import ErrorCode, ErrorMessage
from voice_tts.tn import Lexicon

log = logging.getLogger(__name__)

APP_NAME = "voice-tts"
# How often a replica reports its load, and when a replica that stopped reporting leaves the fleet.
REPORT_PERIOD_S = 0.5
REPORT_STALE_S = 3.0
# How long a request for the fleet's load waits for the fleet view.
FLEET_TIMEOUT_S = 2.0
# Serve asks each replica for its busy streams this often, for routing.
ROUTING_STATS_PERIOD_S = 0.5
# A replica whose engine is not warm after this long is started again.
WARM_UP_TIMEOUT_S = 600.0
# Serve asks only replicas it routes to for routing stats: a replica not asked for this long has
# been taken out of the routing (it is being stopped: rolling update, scale-down).
# A busy controller can also be late by seconds; then idle sockets are closed needlessly, which
# costs their clients a reconnect and nothing else.
UNROUTED_AFTER_S = 20 * ROUTING_STATS_PERIOD_S
# Close code for a socket closed between turns by a stopping replica: reconnect and go on.
WS_CLOSE_SERVICE_RESTART = 1012


class EngineAppArgs(BaseModel):
    """The application's arguments (`args:` of a Serve config, or `voice-tts serve` options)."""

    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    # Qwen3-TTS checkpoint folder, present on every node, or a Hugging Face Hub id (each node
    # resolves it in its own Hub cache); None: the embedded voice.
    model: str | None = None
    # With a Hub id: a branch, tag or commit (None: main).
    revision: str | None = None
    # torch device inside a replica: a GPU replica sees its one GPU as cuda:0.
    device: str | None = None
    # Where a model's cloned voices are kept; replicas see the same voices only if they share it.
    voices_dir: str | None = None
    # The server-wide pronunciation dictionary (JSON or CSV), present on every node.
    lexicon: str | None = None
    api_key: str | None = None
    # Streams one replica's engine serves at once: its KV slots, and on a GPU the CUDA graphs it
    # captures before serving (None: the engine's default, 64). Admission by measured headroom
    # may refuse streams below it.
    max_streams: int | None = Field(default=None, ge=1)
    # A Qwen3 stream's talker rows, prompt and frames (None: the engine's default, 2048).
    max_context: int | None = Field(default=None, ge=1)
    # Concurrent streams per replica before new turns are refused (default: the engine's own).
    capacity: int | None = Field(default=None, ge=1)
    warmup_text: str = ServerSettings().warmup_text
    # Every other ServerSettings field a replica's server takes (timeouts, limits); host and
    # port belong to Serve's proxy.
    server: dict[str, Any] = Field(default_factory=dict)
    replicas: int = Field(default=1, ge=1)
    num_gpus: float = Field(default=0, ge=0)
    num_cpus: float = Field(default=1, ge=0)
    # Open connections (WebSockets, HTTP requests) per replica; idle sockets of a client's pool
    # count, so this is above the streams a replica serves. None: twice those streams, at least 256.
    max_ongoing_requests: int | None = Field(default=None, ge=1)
    # How long a stopping replica (rolling update, scale-down) waits for its open sockets.
    graceful_shutdown_timeout_s: float = Field(default=30.0, gt=0)
    # Each replica's Prometheus metrics on its node at this port plus its rank on the node
    # (through the proxy, /metrics reaches one replica, whichever the router picks); None: off.
    metrics_port: int | None = Field(default=None, ge=1, le=65535)

    @property
    def streams_per_replica(self) -> int | None:
        """The streams a replica admits, where the arguments say (the server's cap, else the engine's)."""
        return self.capacity or self.max_streams

    @model_validator(mode="after")
    def _server_settings_are_valid(self) -> "EngineAppArgs":
        self.server_settings()
        return self

    @model_validator(mode="after")
    def _connections_above_streams(self) -> "EngineAppArgs":
        streams = self.streams_per_replica
        if self.max_ongoing_requests is not None and streams is not None and self.max_ongoing_requests <= streams:
            raise ValueError(
                f"max_ongoing_requests ({self.max_ongoing_requests}) must be above the streams a replica "
                f"serves ({streams}): every stream holds a connection, and a client's idle pooled sockets count too"
            )
        return self

    @property
    def connections_per_replica(self) -> int:
        if self.max_ongoing_requests is not None:
            return self.max_ongoing_requests
        return max(256, 2 * (self.streams_per_replica or 0))

    def server_settings(self) -> ServerSettings:
        return ServerSettings(
            **{**self.server, "api_key": self.api_key, "capacity": self.capacity, "warmup_text": self.warmup_text}
        )


@dataclass(frozen=True)
class ReplicaLoad:
    replica: str
    node: str
    pid: int
    active_streams: int
    capacity: int
    turns: int  # streams finished since the replica started


@serve.deployment(ray_actor_options={"num_cpus": 0}, max_ongoing_requests=10_000)
class FleetLoad:
    """The last load report of every live replica."""

    def __init__(self) -> None:
        self._reports: dict[str, tuple[ReplicaLoad, float]] = {}

    def report(self, load: ReplicaLoad) -> None:
        self._reports[load.replica] = (load, time.monotonic())

    def members(self) -> list[ReplicaLoad]:
        now = time.monotonic()
        self._reports = {
            replica: (load, at)
            for replica, (load, at) in self._reports.items()
            if now - at <= REPORT_STALE_S
        }
        return sorted((load for load, _ in self._reports.values()), key=lambda m: m.replica)


def finished_turns(state: ServerState) -> int:
    return int(
        sum(
            sample.value
            for metric in state.metrics.turns.collect()
            for sample in metric.samples
            if sample.name.endswith("_total")
        )
    )


def startup_after_warm_up(
    app: Starlette, state: ServerState
) -> Callable[[dict, Callable, Callable], Awaitable[None]]:
    """`app` whose lifespan startup completes only once the engine is warm (or fails)."""

    async def asgi(scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "lifespan":
            await app(scope, receive, send)
            return

        async def send_when_warm(message: dict) -> None:
            if message["type"] == "lifespan.startup.complete":
                deadline = time.monotonic() + WARM_UP_TIMEOUT_S
                while not state.readiness.ready and time.monotonic() < deadline:
                    await asyncio.sleep(0.02)
                if not state.readiness.ready:
                    message = {"type": "lifespan.startup.failed", "message": state.readiness.detail}
            await send(message)

        await app(scope, receive, send_when_warm)

    return asgi


class DrainingSockets:
    """Closes WebSockets between turns while the replica is out of the routing.

    Serve stops a replica only once its open requests have ended, and a WebSocket is one request
    for its whole life, however idle. A client's sockets would hold a stopping replica until
    `graceful_shutdown_timeout_s` and have any turn running then cut off. Instead, once Serve no
    longer routes to this replica, a socket takes no new turn (a `start` gets `shutting_down`,
    retryable: the client starts it on a fresh socket, which lands on a routed replica) and is
    closed (1012, service restart) as soon as none of its turns (its plain turn and every
    context) runs; running turns finish. If routing resumes (a restarted controller), sockets
    stay open and take turns again.
    """

    def __init__(self, app: Callable) -> None:
        self.app = app
        self.draining = asyncio.Event()

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        # The turns running on this socket, by context id (None: the plain turn).
        running: set[str | None] = set()
        between_turns = asyncio.Event()
        between_turns.set()
        # A socket that connects while the replica drains came from a router that had not yet
        # heard: it keeps its first turn (refusing or closing it would only send it back).
        served = asyncio.Event()
        if not self.draining.is_set():
            served.set()
        closed = False
        pending: asyncio.Future | None = None

        async def tracked_send(message: dict) -> None:
            if closed:
                return
            if message["type"] == "websocket.send" and message.get("text"):
                sent = json.loads(message["text"])
                kind = sent.get("type")
                if kind in ("started", "reconnected"):  # a turn begins, or a resumed one goes on
                    running.add(sent.get("context_id"))
                    between_turns.clear()
                elif kind == "done":
                    running.discard(sent.get("context_id"))
                    served.set()
                    if not running:
                        between_turns.set()
            await send(message)

        async def may_close() -> None:
            await self.draining.wait()
            await served.wait()
            await between_turns.wait()

        def refused_start(message: dict) -> str | None:
            """A refusal of `message` if it starts a turn while the replica drains."""
            if not (self.draining.is_set() and served.is_set() and message.get("text")):
                return None
            try:
                received = json.loads(message["text"])
            except ValueError:
                return None  # the app answers what it cannot read
            if not isinstance(received, dict) or received.get("type") != "start":
                return None
            code, detail = ErrorCode.SHUTTING_DOWN, "replica stopping: start the turn on a fresh socket"
            return ErrorMessage(
                code=code, message=detail, retryable=True, context_id=received.get("context_id")
            ).model_dump_json()

        async def receive_or_close() -> dict:
            nonlocal pending, closed
            while True:
                if pending is None:
                    pending = asyncio.ensure_future(receive())
                closing = asyncio.ensure_future(may_close())
                try:
                    await asyncio.wait({pending, closing}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    closing.cancel()
                if not pending.done():
                    break
                message, pending = pending.result(), None
                refusal = refused_start(message)
                if refusal is None:
                    return message
                await send({"type": "websocket.send", "text": refusal})
            pending.cancel()
            closed = True
            await send(
                {
                    "type": "websocket.close",
                    "code": WS_CLOSE_SERVICE_RESTART,
                    "reason": "replica stopping: reconnect",
                }
            )
            return {"type": "websocket.disconnect", "code": WS_CLOSE_SERVICE_RESTART}

        await self.app(scope, receive_or_close, tracked_send)


@serve.ingress()
class EngineReplica:
    """One engine and its server app, reporting its load to the fleet and to Serve's router."""

    async def __init__(self, fleet: DeploymentHandle, args: EngineAppArgs) -> None:
        settings = args.server_settings()
        self._engine = load_engine(
            args.model, args.device, args.voices_dir, args.max_streams, args.max_context, args.revision,
            **settings.engine_options(),
        )
        lexicon = Lexicon.load(args.lexicon) if args.lexicon else None
        self._app = create_app(self._engine, settings=settings, lexicon=lexicon)
        self._state: ServerState = self._app.state.server
        self._fleet = fleet
        context = serve.get_replica_context()
        self._replica = context.replica_id.unique_id
        self._last_routed = time.monotonic()
        self._sockets = DrainingSockets(startup_after_warm_up(self._app, self._state))
        self._app.router.routes[:0] = [
            Route("/v1/capabilities", self._fleet_capabilities),
            Route("/v1/fleet", self._fleet_members),
        ]
        self._reporter = asyncio.create_task(self._report_forever())
        self._metrics_server = None
        if args.metrics_port is not None:
            port = args.metrics_port + context.rank.local_rank
            self._metrics_server, _ = start_http_server(
                port, addr="0.0.0.0", registry=self._state.metrics.registry
            )

    def __serve_build_asgi_app__(self):
        return self._sockets

    def record_routing_stats(self) -> dict[str, Any]:
        self._last_routed = time.monotonic()
        self._sockets.draining.clear()
        return {
            "active_streams": self._state.slots.active,
            "capacity": self._state.slots.capacity,
            "reported_at": time.time(),
        }

    def check_health(self) -> None:
        if not self._state.readiness.ready:
            raise RuntimeError(f"engine not ready: {self._state.readiness.detail}")

    async def __del__(self) -> None:
        self._reporter.cancel()
        if self._metrics_server is not None:
            self._metrics_server.shutdown()
        await self._engine.aclose()

    def _load(self) -> ReplicaLoad:
        import ray

        return ReplicaLoad(
            replica=self._replica,
            node=ray.get_runtime_context().get_node_id(),
            pid=os.getpid(),
            active_streams=self._state.slots.active,
            capacity=self._state.slots.capacity,
            turns=finished_turns(self._state),
        )

    async def _report_forever(self) -> None:
        while True:
            if time.monotonic() - self._last_routed > UNROUTED_AFTER_S:
                self._sockets.draining.set()
            try:
                await self._fleet.report.remote(self._load())
            except Exception as exc:  # the fleet view restarts: keep serving, report again
                log.warning("load report failed: %s", exc)
            await asyncio.sleep(REPORT_PERIOD_S)

    async def _members(self) -> list[ReplicaLoad]:
        """The live replicas' loads; this replica's alone while the fleet view is unavailable
        (starting, restarting) rather than no answer."""
        try:
            members = await asyncio.wait_for(self._fleet.members.remote(), FLEET_TIMEOUT_S)
        except Exception as exc:
            log.warning("fleet view unavailable: %s", exc)
            members = []
        return members or [self._load()]

    async def _fleet_capabilities(self, request: Request) -> Response:
        members = await self._members()
        capabilities = self._state.capabilities().model_copy(
            update={
                "capacity": sum(m.capacity for m in members),
                "active_streams": sum(m.active_streams for m in members),
            }
        )
        return Response(capabilities.model_dump_json(), media_type="application/json")

    async def _fleet_members(self, request: Request) -> Response:
        members = await self._members()
        return JSONResponse(
            {
                "replicas": [asdict(m) for m in members],
                "capacity": sum(m.capacity for m in members),
                "active_streams": sum(m.active_streams for m in members),
            }
        )


def build_app(args: EngineAppArgs) -> serve.Application:
    """The application: `replicas` engine replicas and the fleet view (`serve run`'s builder)."""
    replica = serve.deployment(EngineReplica).options(
        num_replicas=args.replicas,
        ray_actor_options={"num_gpus": args.num_gpus, "num_cpus": args.num_cpus},
        max_ongoing_requests=args.connections_per_replica,
        graceful_shutdown_timeout_s=args.graceful_shutdown_timeout_s,
        graceful_shutdown_wait_loop_s=0.5,
        health_check_period_s=2.0,
        health_check_timeout_s=10.0,
        request_router_config=RequestRouterConfig(
            request_router_class="engine.deploy.router:LeastBusyStreamsRouter",
            request_routing_stats_period_s=ROUTING_STATS_PERIOD_S,
        ),
    )
    return replica.bind(FleetLoad.bind(), args)


def placed(args: EngineAppArgs, replicas: int | None, cluster: dict[str, float]) -> EngineAppArgs:
    """`args` with a replica count and per-replica resources for a cluster's resources:
    `replicas=None` (auto) means one replica per GPU, or one CPU replica without GPUs. Only a
    model runs on GPUs; the embedded voice always runs on CPUs."""
    gpus = int(cluster.get("GPU", 0)) if args.model is not None else 0
    count = replicas or max(1, gpus)
    if gpus:
        return args.model_copy(
            update={"replicas": count, "num_gpus": 1, "device": args.device or "cuda"}
        )
    cpus = cluster.get("CPU", 1)
    return args.model_copy(
        update={"replicas": count, "num_gpus": 0, "num_cpus": min(1.0, cpus / count)}
    )


def serve_locally(args: EngineAppArgs, replicas: int | None, host: str, port: int) -> None:
    """`voice-tts serve --replicas`: start Ray on this machine (or join the cluster at
    $RAY_ADDRESS), run the application behind Serve's proxy on host:port until SIGINT/SIGTERM."""
    import signal

    import ray

    signal.signal(signal.SIGTERM, signal.default_int_handler)
    ray.init(include_dashboard=False)
    try:
        args = placed(args, replicas, ray.cluster_resources())
        serve.start(http_options={"host": host, "port": port})
        serve.run(build_app(args), name=APP_NAME, route_prefix="/")
        print(
            f"voice-tts: {args.replicas} engine replicas at http://{host}:{port} "
            f"(Ray cluster {ray.get_runtime_context().gcs_address})",
            flush=True,
        )
        signal.pause()
    finally:
        serve.shutdown()
        ray.shutdown()
