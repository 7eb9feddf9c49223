"""`voice-tts serve`: load the engine named on the command line and serve it until stopped.

A `--model` is served by the engine core in its own process and `--workers` API worker processes
(engine/server/workers.py); `--workers 0` serves it from this one process, as the embedded voice
always is."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os

from engine.server.app import create_app
from engine.server.engine_loader import ServeError, check_context_option, load_engine
from engine.server.http_server import serve
from engine.server.settings import ServerSettings, SettingError, settings_from
from voice_tts.tn import Lexicon, LexiconError


log = logging.getLogger(__name__)


def server_settings(args: argparse.Namespace) -> ServerSettings:
    """The flags, else the environment variables, else the defaults (`settings.settings_from`);
    the API key from `--api-key-file` when one is given."""
    try:
        settings = settings_from(args, os.environ)
    except SettingError as exc:
        raise ServeError(str(exc)) from exc
    if args.api_key_file is None:
        return settings
    if args.api_key is not None:
        raise ServeError("give the API key with --api-key or --api-key-file, not both")
    return settings.model_copy(update={"api_key": file_api_key(args.api_key_file)})


def file_api_key(path: str) -> str:
    """The first line of the API key file."""
    try:
        with open(path, encoding="utf-8") as file:
            key = file.readline().strip()
    except OSError as exc:
        raise ServeError(f"cannot read the API key file: {exc}") from exc
    if not key:
        raise ServeError(f"the API key file {path} is empty")
    return key


def server_lexicon(args: argparse.Namespace) -> Lexicon | None:
    """`--lexicon FILE`: the server-wide pronunciation dictionary (JSON or CSV)."""
    if args.lexicon is None:
        return None
    try:
        return Lexicon.load(args.lexicon)
    except LexiconError as exc:
        raise ServeError(f"bad --lexicon: {exc}") from exc


def replica_args(args: argparse.Namespace, settings: ServerSettings):
    """The Ray Serve application's arguments of `serve --replicas`: every replica gets the engine
    options (those of `ServerSettings.engine_options` too: the cache folder, the runaway guard,
    the KV memory) and the server settings of this command line."""
    from engine.deploy.ray_serve import EngineAppArgs

    check_context_option(args.model, args.max_context)
    if args.model is None and settings.engine_options():
        raise ServeError(f"{', '.join(settings.engine_options())} set a Qwen3-TTS model's engine: it needs --model")
    return EngineAppArgs(
        model=args.model,
        revision=args.revision,
        device=args.device,
        voices_dir=args.voices_dir,
        lexicon=args.lexicon,
        api_key=settings.api_key,
        max_streams=args.max_streams,
        max_context=args.max_context,
        capacity=settings.capacity,
        warmup_text=settings.warmup_text,
        server=settings.model_dump(exclude={"host", "port", "api_key", "capacity", "warmup_text"}, exclude_defaults=True),
    )


def run_serve(args: argparse.Namespace) -> int:
    settings = server_settings(args)
    if args.replicas is not None:
        # Ray only for `--replicas`: one engine per replica, behind Ray Serve.
        from engine.deploy.ray_serve import serve_locally

        server_lexicon(args)  # a bad file is refused here, before Ray starts
        serve_locally(replica_args(args, settings), args.replicas or None, settings.host, settings.port)
        return 0
    # The server's own messages (drain, dropped clients, engine faults) beside uvicorn's.
    logging.basicConfig(level=settings.log_level.upper(), format="%(levelname)s:     %(message)s")
    lexicon = server_lexicon(args)  # a bad file is refused here, before the model loads
    workers = args.workers
    if args.model is not None and workers != 0:
        # The engine core in its own process, API workers beside it (engine/server/workers.py).
        from engine.model.errors import CheckpointError
        from engine.model.hub import checkpoint_folder
        from engine.server.workers import ServerStartError, default_workers, serve_with_workers

        check_context_option(args.model, args.max_context)
        try:
            model_dir = checkpoint_folder(args.model, args.revision)  # a Hub id resolved once, for the core and workers
        except CheckpointError as exc:
            raise ServeError(f"cannot load the model from {args.model}: {exc}") from exc
        try:
            return serve_with_workers(args, settings, default_workers() if workers is None else workers, model_dir)
        except ServerStartError as exc:
            raise ServeError(str(exc)) from exc
    if args.model is None and workers:
        log.info("the embedded voice runs in this one process (--workers applies to --model)")
    engine = load_engine(
        args.model, args.device, args.voices_dir, args.max_streams, args.max_context, args.revision,
        **settings.engine_options(),
    )
    try:
        return serve(create_app(engine, settings=settings, lexicon=lexicon), settings)
    finally:
        asyncio.run(engine.aclose())
        log.info("engine closed")
