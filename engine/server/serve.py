"""`voice-tts serve`: load the engine named on the command line and serve it until stopped.

A `--model` is served by the engine core in its own process and `--workers` API worker processes
(engine/server/workers.py); `--workers 0` serves it from this one process, as the embedded voice
always is."""

from __future__ import annotations

import argparse
import asyncio
import logging

from engine.server.app import create_app
from engine.server.runner import serve
from engine.server.settings import ServerSettings
from voice_tts.tn import Lexicon, LexiconError


log = logging.getLogger(__name__)


class ServeError(Exception):
    """A failure the operator can act on (an unloadable model, an unreadable key file),
    said in one line."""


def load_engine(
    model: str | None,
    device: str | None,
    voices_dir: str | None = None,
    max_streams: int | None = None,
    max_context: int | None = None,
):
    """The engine a server runs: the Qwen3-TTS checkpoint in `model`, else the embedded voice.
    `max_streams`: streams served at once (None: the engine's default); `max_context`: a Qwen3
    stream's talker rows (None: the engine's default)."""
    from engine import Engine

    check_context_option(model, max_context)
    if model is None:
        return Engine.embedded() if max_streams is None else Engine.embedded(capacity=max_streams)
    given = {"voices_dir": voices_dir, "max_streams": max_streams, "max_context": max_context}
    options = {name: value for name, value in given.items() if value is not None}
    try:
        return Engine.from_pretrained(model, device=device, **options)
    except Exception as exc:
        raise ServeError(f"cannot load the model from {model}: {exc}") from exc


def check_context_option(model: str | None, max_context: int | None) -> None:
    if model is None and max_context is not None:
        raise ServeError("--max-context sets a Qwen3-TTS model's rows per stream: it needs --model")


def server_api_key(args: argparse.Namespace) -> str | None:
    """`--api-key-file` (the first line), else `--api-key` / $VOICE_TTS_API_KEY."""
    if args.api_key_file is None:
        return args.api_key
    try:
        with open(args.api_key_file, encoding="utf-8") as file:
            key = file.readline().strip()
    except OSError as exc:
        raise ServeError(f"cannot read the API key file: {exc}") from exc
    if not key:
        raise ServeError(f"the API key file {args.api_key_file} is empty")
    return key


def server_lexicon(args: argparse.Namespace) -> Lexicon | None:
    """`--lexicon FILE`: the server-wide pronunciation dictionary (JSON or CSV)."""
    if args.lexicon is None:
        return None
    try:
        return Lexicon.load(args.lexicon)
    except LexiconError as exc:
        raise ServeError(f"bad --lexicon: {exc}") from exc


def run_serve(args: argparse.Namespace) -> int:
    if args.replicas is not None:
        # Ray only for `--replicas`: one engine per replica, behind Ray Serve.
        from engine.deploy.ray_serve import EngineAppArgs, serve_locally

        server_lexicon(args)  # a bad file is refused here, before Ray starts
        check_context_option(args.model, args.max_context)
        app_args = EngineAppArgs(
            model=args.model,
            device=args.device,
            voices_dir=args.voices_dir,
            lexicon=args.lexicon,
            api_key=server_api_key(args),
            max_streams=args.max_streams,
            max_context=args.max_context,
        )
        serve_locally(app_args, args.replicas or None, args.host, args.port)
        return 0
    # The server's own messages (drain, dropped clients, engine faults) beside uvicorn's.
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s:     %(message)s")
    settings = ServerSettings(
        host=args.host,
        port=args.port,
        api_key=server_api_key(args),
        log_level=args.log_level,
        usage_log=args.usage_log,
        drain_timeout_s=args.drain_timeout,
    )
    lexicon = server_lexicon(args)  # a bad file is refused here, before the model loads
    workers = args.workers
    if args.model is not None and workers != 0:
        # The engine core in its own process, API workers beside it (engine/server/workers.py).
        from engine.server.workers import ServerStartError, default_workers, serve_with_workers

        check_context_option(args.model, args.max_context)
        try:
            return serve_with_workers(args, settings, default_workers() if workers is None else workers)
        except ServerStartError as exc:
            raise ServeError(str(exc)) from exc
    if args.model is None and workers:
        log.info("the embedded voice runs in this one process (--workers applies to --model)")
    engine = load_engine(args.model, args.device, args.voices_dir, args.max_streams, args.max_context)
    try:
        return serve(create_app(engine, settings=settings, lexicon=lexicon), settings)
    finally:
        asyncio.run(engine.aclose())
        log.info("engine closed")
