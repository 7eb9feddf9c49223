"""The engine server's ASGI app: routes, authentication and the warm-up behind /ready."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import AsyncIterator

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from engine.server.auth import ApiKeyMiddleware
from engine.server.omni_stream import OmniConnection
from engine.server.realtime import RealtimeConnection
from engine.server.settings import ServerSettings
from engine.server.speech import SpeechEndpoint, openai_error
from engine.server.state import EngineDescription, ServerState
from engine.server.route_stream import open_output_stream, speak_all
from engine.server.voices import VoicesEndpoint
from engine.server.websocket import Connection
from voice_tts.protocol import Done, Error, ErrorCode, StreamingEngine
from voice_tts.request import StreamRequest
from voice_tts.tn import Lexicon

log = logging.getLogger(__name__)

HTTP_ERROR_CODES = {404: "not_found", 405: "method_not_allowed"}
# The browser page at `/` (plain HTML, JS and CSS; nothing to build, nothing from a CDN).
PAGE_DIR = Path(__file__).parent / "static"
# The API workers of one server warm up at once; where `--capacity` (or `--max-streams`) is
# below their number the core refuses some of them, which try again this much later.
WARM_UP_RETRY_S = 0.05


async def warm_up(state: ServerState) -> None:
    """Speak the warm-up text once (TN, engine, resampler); /ready answers 200 only after it."""
    while True:
        stream, output = open_output_stream(state, StreamRequest(normalize=True))
        speak_all(stream, output.text, state.settings.warmup_text)
        refused = False
        async for event in stream.events():
            if isinstance(event, Error) and event.code == ErrorCode.INVALID_VOICE and not state.description.voices:
                log.info("no voice to warm up with yet (a voice-cloning checkpoint before its first upload)")
                break
            if isinstance(event, Error) and event.code == ErrorCode.CAPACITY:
                refused = True
                state.readiness.detail = f"warming up: {event.message}"
            elif isinstance(event, Error):
                state.readiness.detail = f"warm-up failed: {event.code}: {event.message}"
                log.error("%s", state.readiness.detail)
                return
            if isinstance(event, Done):
                break
        if not refused:
            break
        await asyncio.sleep(WARM_UP_RETRY_S)
    state.readiness.ready = True
    state.readiness.detail = "ready"
    warmed_up = getattr(state.engine, "warmed_up", None)
    if warmed_up is not None:  # the engine core, which counts its workers that are warm
        warmed_up()
    log.info("engine warm: ready")


def create_app(
    engine: StreamingEngine,
    api_key: str | None = None,
    settings: ServerSettings | None = None,
    lexicon: Lexicon | None = None,
) -> Starlette:
    """The server for `engine`; the caller keeps owning the engine (and closes it). `lexicon`:
    the server-wide pronunciation dictionary, applied after each turn's own rules."""
    settings = settings or ServerSettings()
    if api_key is not None:
        settings = settings.model_copy(update={"api_key": api_key})
    state = ServerState(
        engine=engine,
        settings=settings,
        description=EngineDescription.of(engine),
        lexicon=lexicon or Lexicon(),
    )
    watch_description = getattr(engine, "watch_description", None)
    if watch_description is not None:  # voices cloned or deleted through another API worker
        watch_description(state.refresh_description)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if state.one_of_several_workers:
            # Warm before uvicorn accepts on the shared socket: the kernel hands a connection
            # only to a worker that accepts, so none reaches a cold one.
            await warm_up(state)
            task = None
        else:  # one process: it answers /ready (503) while it warms up
            task = asyncio.create_task(warm_up(state))
        try:
            yield
        finally:
            if task is not None:
                task.cancel()
            state.resumes.close()
            state.tracer.shutdown()

    voices = VoicesEndpoint(state)

    async def health(request: Request) -> Response:
        failure = getattr(state.engine, "failure", None)
        if failure is not None:
            return JSONResponse({"status": "failed", "detail": failure}, status_code=503)
        return JSONResponse({"status": "ok"})

    async def ready(request: Request) -> Response:
        readiness = state.readiness
        detail = readiness.engine_failure or ("draining" if readiness.draining else readiness.detail)
        ready = readiness.serving
        cold = state.cold_workers()
        if ready and cold:  # this worker serves; the server is ready once every worker does
            ready, detail = False, f"warming up: {cold} API worker{'s' if cold > 1 else ''} of the server"
        return JSONResponse({"ready": ready, "detail": detail}, status_code=200 if ready else 503)

    async def capabilities(request: Request) -> Response:
        return Response(state.capabilities().model_dump_json(), media_type="application/json")

    async def metrics(request: Request) -> Response:
        return Response(state.metrics.render(), media_type=state.metrics.content_type)

    async def page(request: Request) -> Response:
        return FileResponse(PAGE_DIR / "index.html")

    async def realtime(websocket: WebSocket) -> None:
        await RealtimeConnection(websocket, state).serve()

    async def stream(websocket: WebSocket) -> None:
        await Connection(websocket, state).serve()

    async def omni_stream(websocket: WebSocket) -> None:
        await OmniConnection(websocket, state).serve()

    async def http_error(request: Request, exc: HTTPException) -> Response:
        code = HTTP_ERROR_CODES.get(exc.status_code, "http_error")
        return openai_error(exc.status_code, exc.detail, code, headers=exc.headers)

    app = Starlette(
        exception_handlers={HTTPException: http_error},
        routes=[
            Route("/", page),
            Mount("/ui", StaticFiles(directory=PAGE_DIR), name="ui"),
            Route("/health", health),
            Route("/ready", ready),
            Route("/v1/voices", voices.list, methods=["GET"]),
            Route("/v1/voices", voices.create, methods=["POST"]),
            Route("/v1/voices/{voice_id}", voices.delete, methods=["DELETE"]),
            Route("/v1/audio/voices", voices.omni_list, methods=["GET"]),
            Route("/v1/audio/voices", voices.omni_create, methods=["POST"]),
            Route("/v1/audio/voices/{name}", voices.omni_delete, methods=["DELETE"]),
            Route("/v1/capabilities", capabilities),
            Route("/metrics", metrics),
            Route("/v1/audio/speech", SpeechEndpoint(state).handle, methods=["POST"]),
            WebSocketRoute("/v1/ws", stream),
            WebSocketRoute("/v1/realtime", realtime),
            WebSocketRoute("/v1/audio/speech/stream", omni_stream),
        ],
        middleware=[
            Middleware(
                ApiKeyMiddleware,
                api_key=settings.api_key,
                auth_timeout_s=settings.header_timeout_s,
            )
        ],
        lifespan=lifespan,
    )
    app.state.server = state
    return app
