"""`voice-tts serve --model DIR --workers N`: the engine core in its own process and N API
workers on one port (after vLLM v1's `--api-server-count`).

This (server) process binds the listening socket, starts the engine core
(`engine.core.engine_core.run_core`: the model is loaded, warmed up and its graphs captured
once, there) and, beside it, N workers that accept on the same socket (the kernel hands each
connection to one of them), each with its own channel to the core and a `CoreClient` as its
engine; a worker loads its imports and text normalizers while the core loads the model.
Afterwards it only supervises: SIGTERM or SIGINT drains the workers (each drains as the
one-process server does; a second signal stops them at once); a worker that fails, or the core
going away, stops the server with a non-zero status (70 after the engine failed) for its
supervisor to start a fresh one.

What a user sees stays one server: admission is the core's (`--capacity` and `--max-streams`
are limits over every worker); a worker accepts on the shared socket only once it has spoken its
warm-up text, so the kernel never hands a connection to a cold worker, and `/ready` answers 200
only once every worker has (the core counts them); cloned voices live in the core's
voice store and every worker hears of a change; `/metrics` sums every worker (prometheus-client's
multiprocess mode, in a directory this process owns); the usage log is one file that every
worker appends whole lines to; a reconnect that lands on another worker than its turn's is
relayed to that worker (each also listens on a Unix socket in a folder this process owns).
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import socket
import sys
from pathlib import Path
import tempfile
import threading
import time
from dataclasses import dataclass

from engine.core.engine_core import EXIT_ENGINE_FAILED, CoreOptions, run_core
from engine.server.settings import ServerSettings

log = logging.getLogger(__name__)

# How long the core may take to leave once its workers have (it only closes the engine).
CORE_EXIT_TIMEOUT_S = 10.0
BACKLOG = 2048  # uvicorn's own default


# More workers than this share one core process's output for little gain: a host this large
# carries several GPUs, one server (or `--replicas`) each.
MAX_DEFAULT_WORKERS = 32


def default_workers(cores: int | None = None) -> int:
    """All but four of the cores this process may run on (the core process's loop and channel
    threads, the kernel's network work), at least half of them, at least 1 and at most
    MAX_DEFAULT_WORKERS: 12 workers on a 16-core host, where 2,048 streams are 171 a worker
    (bench/worker_cpu.py, docs/benchmarks.md). API workers are what caps a server as streams
    grow (sockets, normalization, words, framing), so they follow the host, not a fixed few."""
    if cores is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 2)
    return max(1, min(MAX_DEFAULT_WORKERS, max(cores // 2, cores - 4)))


@dataclass(frozen=True)
class WorkerOptions:
    settings: ServerSettings
    lexicon: str | None  # the --lexicon file (checked by the server process before)
    index: int


class ServerStartError(Exception):
    """The core or the socket could not be set up; said in one line."""


def listening_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ServerStartError(f"cannot listen on {host}:{port}: {exc}") from exc
    sock.listen(BACKLOG)
    return sock


def serve_with_workers(args: argparse.Namespace, settings: ServerSettings, workers: int, model_dir: Path) -> int:
    """Run the core on the checkpoint folder `model_dir` and `workers` API workers until stopped;
    the exit status."""
    context = multiprocessing.get_context("spawn")  # the core initializes CUDA; nothing is forked
    listener = listening_socket(settings.host, settings.port)
    core_ends, worker_ends = zip(*(context.Pipe() for _ in range(workers)))
    started, started_by_core = context.Pipe(duplex=False)
    options = CoreOptions(
        model=str(model_dir), device=args.device, voices_dir=args.voices_dir, max_streams=args.max_streams,
        max_context=args.max_context, capacity=settings.capacity, log_level=settings.log_level,
        extra=settings.engine_options(),
    )
    core = context.Process(target=run_core, args=(options, list(core_ends), started_by_core), name="voice-tts-core")
    core.start()
    for end in (*core_ends, started_by_core):
        end.close()  # the core holds them now: its exit closes the workers' pipes
    metrics_dir = tempfile.mkdtemp(prefix="voice-tts-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir  # before the workers import prometheus_client
    relay_dir = tempfile.mkdtemp(prefix="voice-tts-relay-")
    # The core owns the capacity; each worker reads it from the core's description.
    settings = settings.model_copy(update={"resume_relay_dir": relay_dir, "capacity": None})
    # The workers start beside the core, not after it: their imports and text normalizers load
    # while the model loads and its graphs are captured, and each waits for the core's
    # description before it warms up (seconds off every start, /ready included).
    processes = []
    for index, end in enumerate(worker_ends):
        process = context.Process(
            target=run_worker, args=(WorkerOptions(settings, args.lexicon, index), end, listener),
            name=f"voice-tts-worker-{index}",
        )
        process.start()
        end.close()
        processes.append(process)
    listener.close()
    try:
        try:
            kind, detail = started.recv()
        except EOFError:
            kind, detail = "failed", f"the engine core process exited while loading the model (status {core.exitcode})"
        if kind == "failed":
            for process in processes:
                process.terminate()  # waiting for a description that never comes
            for process in (core, *processes):
                process.join(CORE_EXIT_TIMEOUT_S)
            raise ServerStartError(detail)
        log.info("engine core process %d ready in %.1f s; %d API workers warming up", core.pid, detail, workers)
        return _supervise(core, processes, metrics_dir)
    finally:
        shutil.rmtree(metrics_dir, ignore_errors=True)
        shutil.rmtree(relay_dir, ignore_errors=True)


def _supervise(core, workers: list, metrics_dir: str) -> int:
    from prometheus_client import multiprocess

    def stop_workers(*_) -> None:
        for worker in workers:
            if worker.exitcode is None:
                os.kill(worker.pid, signal.SIGTERM)

    previous = {sig: signal.signal(sig, stop_workers) for sig in (signal.SIGTERM, signal.SIGINT)}
    status = 0
    running = {worker.sentinel: worker for worker in workers}
    core_running = True
    try:
        while running:
            sentinels = [*running, core.sentinel] if core_running else list(running)
            for sentinel in multiprocessing.connection.wait(sentinels):
                if sentinel == core.sentinel:
                    core_running = False
                    core.join()
                    if core.exitcode != 0:  # 0: it left because every worker had (a drain)
                        log.error("the engine core process exited (status %s): the workers stop", core.exitcode)
                        status = status or EXIT_ENGINE_FAILED
                    continue
                worker = running.pop(sentinel)
                worker.join()
                multiprocess.mark_process_dead(worker.pid, metrics_dir)
                if worker.exitcode != 0:
                    log.error("API worker %s exited with status %s: stopping the server", worker.name, worker.exitcode)
                    status = status or (worker.exitcode if worker.exitcode > 0 else 1)
                    stop_workers()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    core.join(CORE_EXIT_TIMEOUT_S)  # it leaves once every worker's pipe has closed
    if core.exitcode is None:
        core.kill()
        core.join()
    log.info("server stopped (status %d)", status)
    return status


def _exit_with_parent(parent: int) -> None:
    """A worker whose server process died (SIGKILL) drains and stops, as on SIGTERM."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGTERM)


def run_worker(options: WorkerOptions, connection, listener: socket.socket) -> None:
    """An API worker's main: the server app over a `CoreClient`, accepting on `listener`."""
    os.setpgrp()  # signals come from the server process, which drains every worker at once
    settings = options.settings
    logging.basicConfig(
        level=settings.log_level.upper(), format=f"%(levelname)s:     [worker {options.index}] %(message)s"
    )
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()
    from engine.core.client import CoreClient
    from engine.server.app import create_app
    from engine.server.connections import raise_open_file_limit
    from engine.server.http_server import draining_server
    from voice_tts.tn import Lexicon
    from voice_tts.tn import warm_up as warm_up_normalizers

    lexicon = None if options.lexicon is None else Lexicon.load(options.lexicon)
    raise_open_file_limit(settings)
    warm_up_normalizers()  # while the core still loads the model
    try:
        engine = CoreClient(connection)  # once the core has started: its description comes first
    except EOFError:
        sys.exit(1)  # the core failed to start; the server process says why and stops
    app = create_app(engine, settings=settings, lexicon=lexicon)
    state = app.state.server
    relay_path = state.resume_relay.socket_path(state.resumes.instance)
    relay = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # reconnects relayed by the others
    relay.bind(str(relay_path))
    relay.listen(BACKLOG)
    server = draining_server(app, settings)
    try:
        server.run(sockets=[listener, relay])
    finally:
        relay_path.unlink(missing_ok=True)
        engine.close()
    sys.exit(server.exit_code)
