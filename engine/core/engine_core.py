"""The engine core process: the step loop, scheduler, runner, vocoder and KV, and nothing else
but its channels to the API workers (after vLLM v1's `EngineCoreProc`).

Per worker, one thread reads command frames and applies them (admission through the engine's
own `admit`, under the server's `--capacity` for every worker at once; text and cancels straight
into the loop's inbox, so a cancel takes effect at the next iteration, right after the step that
is running) and one thread writes frames. The loop fills each worker's `Outbox` as it posts
events and flushes every outbox at the end of each iteration: one message per iteration per
worker. The main thread reports status (active streams, headroom, failure, workers still warming
up) a few times a second and ends the process when every worker has gone (0) or the loop has
died (`EXIT_ENGINE_FAILED`): a worker sees its pipe close at once either way.
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import queue
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from engine.core.channel import (
    CoreCall,
    CoreStatus,
    CoreStreamChannel,
    OpenStream,
    Outbox,
    ReaderBehind,
    WorkerWarm,
    decode_commands,
)
from engine.runtime.stream import CancelCommand, ReaderCommand, StreamEnd, TextCommand

log = logging.getLogger(__name__)

STATUS_INTERVAL_S = 0.25
# The exit status after the step loop died (EX_SOFTWARE), as the one-process server's.
EXIT_ENGINE_FAILED = 70
# What a worker may ask of the core outside the stream commands.
CALLS = ("create_voice", "delete_voice")


@dataclass(frozen=True)
class CoreOptions:
    """What the core loads: `Engine.from_pretrained` arguments."""

    model: str
    device: str | None = None
    voices_dir: str | None = None
    max_streams: int | None = None
    max_context: int | None = None
    # The server's `--capacity`: streams admitted at once over every API worker (None: the
    # engine's own capacity, which also bounds it).
    capacity: int | None = None
    log_level: str = "info"
    # Any other `Engine.from_pretrained` options (`EngineSettings` / `LoopSettings` fields).
    extra: dict[str, Any] = field(default_factory=dict)

    def engine_options(self) -> dict[str, Any]:
        given = {"voices_dir": self.voices_dir, "max_streams": self.max_streams, "max_context": self.max_context}
        return {name: value for name, value in given.items() if value is not None} | self.extra


def describe(engine, model_dir: str, capacity: int) -> dict[str, Any]:
    """What a worker needs to serve the engine as if it were in its process: the description the
    server reads (with the core's `capacity`), and how to tokenize text the way the core's model
    does."""
    from engine.model.text import OFFICIAL_SPLIT

    tokenizer = engine.model.tokenizer
    return {
        "backend": engine.backend,
        "model_name": engine.model_name,
        "voices": engine.voices,
        "languages": engine.languages,
        "capacity": capacity,
        "features": engine.features,
        "voice_cloning": engine.voice_cloning,
        "unavailable_voices": engine.unavailable_voices,
        "tokenizer_folder": str(Path(model_dir).resolve()),
        "tokenizer_split": "official" if tokenizer.split_pattern == OFFICIAL_SPLIT else "qwen2",
        "max_unread_samples": engine.settings.loop.max_unread_samples,
    }


class WorkerLink:
    """One API worker as the core sees it: its pipe, its outbox, and its open streams."""

    def __init__(self, core: EngineCore, connection: Connection, index: int) -> None:
        self.core = core
        self.index = index
        self._connection = connection
        self._frames: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.outbox = Outbox(self._frames.put)
        self._streams: dict[int, tuple[int, CoreStreamChannel]] = {}  # the worker's id -> (core id, channel)
        self.open = True
        self.warm = False
        self._threads = [
            threading.Thread(target=self._read, name=f"core-read-{index}", daemon=True),
            threading.Thread(target=self._write, name=f"core-write-{index}", daemon=True),
        ]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def _read(self) -> None:
        try:
            while True:
                for command in decode_commands(self._connection.recv_bytes()):
                    self._apply(command)
                self.outbox.flush()  # refused opens go out now, not with the next iteration
        except (EOFError, OSError):
            pass
        finally:
            self.open = False
            inbox = self.core.engine.loop.inbox
            for core_id, _ in list(self._streams.values()):  # nobody reads them any more
                inbox.put(CancelCommand(core_id))
            self._frames.put(None)
            log.info("API worker %d disconnected", self.index)

    def _write(self) -> None:
        while (frame := self._frames.get()) is not None:
            try:
                self._connection.send_bytes(frame)
            except OSError:
                break
        self._connection.close()

    def _apply(self, command: Any) -> None:
        engine = self.core.engine
        if isinstance(command, TextCommand | CancelCommand | ReaderBehind):
            known = self._streams.get(command.stream_id)
            if known is None:
                return  # it ended already
            core_id, _ = known
            if isinstance(command, TextCommand):
                engine.loop.inbox.put(TextCommand(core_id, command.tokens, command.characters_received, command.ended))
            elif isinstance(command, CancelCommand):
                engine.loop.inbox.put(CancelCommand(core_id))
            else:
                engine.loop.inbox.put(ReaderCommand(core_id, command.behind))
        elif isinstance(command, OpenStream):
            channel = CoreStreamChannel(self.outbox, command.stream_id, self._ended)
            admitted = engine.admit(channel, command.request, stream_limit=self.core.capacity)
            if isinstance(admitted, int):
                self._streams[command.stream_id] = (admitted, channel)
            else:
                self.outbox.add(command.stream_id, [StreamEnd(cancelled=False, reason=admitted.code, error=admitted)])
        elif isinstance(command, CoreCall):
            self.core.calls.submit(self.core.answer, self, command)
        elif isinstance(command, WorkerWarm):
            self.warm = True

    def _ended(self, stream: int) -> None:
        self._streams.pop(stream, None)


class EngineCore:
    def __init__(self, engine, model_dir: str, connections: list[Connection], capacity: int | None = None) -> None:
        self.engine = engine
        self.model_dir = model_dir
        # Streams admitted at once, whichever worker asks: the server's one limit.
        self.capacity = engine.capacity if capacity is None else min(capacity, engine.capacity)
        self.calls = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="core-call")
        self.links = [WorkerLink(self, connection, index) for index, connection in enumerate(connections)]

    def run(self) -> int:
        """Serve the workers until all have gone (0) or the loop died (`EXIT_ENGINE_FAILED`)."""
        description = describe(self.engine, self.model_dir, self.capacity)
        for link in self.links:
            link.outbox.describe(description)
            link.outbox.report(self._status())
            link.outbox.flush()
        self.engine.loop.on_iteration_end = self._flush
        for link in self.links:
            link.start()
        parent = os.getppid()
        while any(link.open for link in self.links):
            status = self._status()
            for link in self.links:
                link.outbox.report(status)
            self._flush()
            if status.failure is not None:
                log.error("the step loop failed: %s", status.failure)
                time.sleep(STATUS_INTERVAL_S)  # the frames saying so leave before the pipes close
                return EXIT_ENGINE_FAILED
            if os.getppid() != parent:
                log.error("the server process is gone: stopping")
                return EXIT_ENGINE_FAILED
            time.sleep(STATUS_INTERVAL_S)
        return 0

    def _flush(self) -> None:
        for link in self.links:
            link.outbox.flush()

    def _status(self) -> CoreStatus:
        engine = self.engine
        return CoreStatus(
            active_streams=engine.active_streams, headroom=engine.headroom(), failure=engine.failure,
            cold_workers=sum(not link.warm for link in self.links),
        )

    def answer(self, link: WorkerLink, call: CoreCall) -> None:
        """Run a worker's call; a change of the voices reaches every worker before the answer."""
        try:
            if call.method not in CALLS:
                raise ValueError(f"unknown call {call.method!r}")
            result = getattr(self.engine, call.method)(*call.args)
        except Exception as e:  # the caller's error, said on its side
            link.outbox.reply(call.call, False, e)
        else:
            description = describe(self.engine, self.model_dir, self.capacity)
            for other in self.links:
                other.outbox.describe(description)
            link.outbox.reply(call.call, True, result)
        self._flush()


def run_core(options: CoreOptions, connections: list[Connection], started: Connection) -> None:
    """The core process's main: load and warm up the engine once, say so on `started`
    (("ready", seconds) or ("failed", why)), then serve the workers."""
    os.setpgrp()  # a terminal's Ctrl-C goes to the server process, which stops the workers first
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=options.log_level.upper(), format="%(levelname)s:     [core] %(message)s")
    from engine import Engine

    began = time.perf_counter()
    try:
        engine = Engine.from_pretrained(options.model, device=options.device, **options.engine_options())
    except Exception as exc:
        started.send(("failed", f"cannot load the model from {options.model}: {exc}"))
        sys.exit(1)
    started.send(("ready", time.perf_counter() - began))
    started.close()
    core = EngineCore(engine, options.model, connections, options.capacity)
    status = core.run()
    engine.close()
    sys.exit(status)
