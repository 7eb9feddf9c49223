"""The engine core as an API worker sees it: `CoreClient`, an engine with the in-process stream
contract (`voice_tts.protocol.StreamingEngine`) whose streams run in the engine core process
(after vLLM v1's `core_client.py`).

A stream here is the same `Qwen3Stream` handle the in-process engine gives out: text is
tokenized in this process (the checkpoint's tokenizer, the same `TextFeed`), its commands go to
the core through one sender thread that batches whatever was posted since its last frame, and
its events come from the core's per-iteration messages, which one receiver thread splits by
stream. Resampling, usage and the `Error` + `Done` ending happen in the handle, as in-process,
so the bytes a client gets are the in-process engine's.

If the core goes away (its pipe closes) or reports that its loop died, `failure` says why at
once and every open stream ends with `engine_error` then `Done`; later streams are refused.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import logging
import os
import socket
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Callable

from voice_tts.protocol import Error, ErrorCode, VoiceCloning, VoiceInfo
from voice_tts.request import StreamRequest

from engine.core.channel import (
    CoreCall,
    CoreMessage,
    CoreStatus,
    OpenStream,
    WorkerStreamChannel,
    WorkerWarm,
    decode_message,
    encode_commands,
    engine_failed,
    events_of,
)
from engine.runtime.stream import Qwen3Stream, StreamChannel, StreamEnd, sample_rate_error
from engine.runtime.text_feed import TextFeed

log = logging.getLogger(__name__)

CORE_EXIT_TIMEOUT_S = 10.0


class CoreClient:
    @classmethod
    def spawn(cls, model: str, device: str | None = None, **options: Any) -> CoreClient:
        """The engine core in a process of its own, with this process as its one API worker:
        `Engine.from_pretrained`'s engine, whose step loop no longer shares this process's GIL.
        `options` are `CoreOptions` fields (`max_streams`, `voices_dir`, `max_context`, ...);
        `close()` ends the core. Raises RuntimeError when the model cannot be loaded."""
        import multiprocessing

        from engine.core.engine_core import CoreOptions, run_core

        context = multiprocessing.get_context("spawn")  # the core initializes CUDA: never forked
        ours, core_end = context.Pipe()
        started, started_by_core = context.Pipe(duplex=False)
        process = context.Process(
            target=run_core, args=(CoreOptions(model=str(model), device=device, **options), [core_end], started_by_core),
            name="voice-tts-core", daemon=True,
        )
        process.start()
        core_end.close()
        started_by_core.close()
        try:
            kind, detail = started.recv()
        except EOFError:
            kind, detail = "failed", f"the engine core process exited while loading the model (status {process.exitcode})"
        if kind == "failed":
            process.join()
            raise RuntimeError(detail)
        client = cls(ours)
        client.process = process
        return client

    def __init__(self, connection: Connection) -> None:
        from engine.model.config import read_config
        from engine.model.text import TextTokenizer

        self._connection = connection
        hello, _ = decode_message(connection.recv_bytes())
        self._description: dict[str, Any] = hello.description
        self._status: CoreStatus = hello.status
        folder = Path(self._description["tokenizer_folder"])
        tokenizer = TextTokenizer(folder, read_config(folder), self._description["tokenizer_split"])
        self._encode, self._split_pattern = tokenizer.encode, tokenizer.split_pattern
        self._max_unread = self._description["max_unread_samples"]
        self._lock = threading.Lock()
        self._streams: dict[int, WorkerStreamChannel] = {}
        self._ids = itertools.count(1)
        self._calls: dict[int, concurrent.futures.Future] = {}
        self._call_ids = itertools.count(1)
        self._listeners: list[Callable[[], None]] = []
        self.failure: str | None = None
        self._commands: list = []
        self._commands_lock = threading.Lock()
        self._commands_waiting = threading.Event()
        self._closed = False
        self.process = None  # the core's process, when this client started it (`spawn`)
        threading.Thread(target=self._receive, name="core-client-read", daemon=True).start()
        threading.Thread(target=self._send, name="core-client-write", daemon=True).start()

    # ---- description ------------------------------------------------------------------------

    @property
    def backend(self) -> str:
        return self._description["backend"]

    @property
    def model_name(self) -> str:
        return self._description["model_name"]

    @property
    def voices(self) -> tuple[VoiceInfo, ...]:
        return self._description["voices"]

    @property
    def languages(self) -> tuple[str, ...]:
        return self._description["languages"]

    @property
    def capacity(self) -> int:
        """Streams the core admits at once over every worker (the server's `--capacity`)."""
        return self._description["capacity"]

    @property
    def features(self) -> tuple[str, ...]:
        return self._description["features"]

    @property
    def voice_cloning(self) -> VoiceCloning | None:
        return self._description["voice_cloning"]

    @property
    def unavailable_voices(self) -> tuple[str, ...]:
        return self._description["unavailable_voices"]

    @property
    def active_streams(self) -> int:
        """Streams open in the core, from every worker (as of the core's last status)."""
        return self._status.active_streams

    def headroom(self) -> dict[str, Any]:
        return self._status.headroom

    @property
    def cold_workers(self) -> int:
        """API workers of this core still warming up, this one included until `warmed_up`
        (as of the core's last status)."""
        return self._status.cold_workers

    def warmed_up(self) -> None:
        """This worker has spoken its warm-up text: the core stops counting it as cold."""
        self._post(WorkerWarm())

    def watch_description(self, changed: Callable[[], None]) -> None:
        """Call `changed()` (on the receiver thread) whenever the voices change, from any worker."""
        self._listeners.append(changed)

    # ---- streams ----------------------------------------------------------------------------

    def open_stream(self, request: StreamRequest | None = None, /, **settings: Any) -> Qwen3Stream:
        """As `Qwen3Engine.open_stream`; admission is the core's."""
        request = StreamRequest.of(request, **settings)
        sample_rate = request.sample_rate
        error = sample_rate_error(sample_rate)
        if error is not None:
            return _failed(StreamEnd(cancelled=False, reason=error.code, error=error), 24000)
        with self._lock:
            if self.failure is not None or self._closed:
                closed = Error(ErrorCode.ENGINE_CLOSED, f"the engine is closed: {self.failure or 'closed'}")
                return _failed(StreamEnd(cancelled=False, reason=closed.code, error=closed), sample_rate)
            stream_id = next(self._ids)
            channel = WorkerStreamChannel(stream_id, self._max_unread, self._post)
            self._streams[stream_id] = channel
            self._post(OpenStream(stream_id, request))
        return Qwen3Stream(stream_id, TextFeed(self._encode, self._split_pattern), self._post, sample_rate, channel)

    # ---- cloned voices ----------------------------------------------------------------------

    def create_voice(
        self, name: str, audio: Any, sample_rate: int, text: str | None = None, consent: str | None = None
    ) -> dict[str, Any]:
        return self._call("create_voice", name, audio, sample_rate, text, consent)

    def delete_voice(self, voice: str) -> bool:
        return self._call("delete_voice", voice)

    def _call(self, method: str, *args: Any) -> Any:
        """Blocking: for a worker thread (the server calls these through `asyncio.to_thread`)."""
        done: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            if self.failure is not None or self._closed:
                raise RuntimeError("the engine is closed")
            call = next(self._call_ids)
            self._calls[call] = done
            self._post(CoreCall(call, method, args))
        return done.result()

    # ---- the channel ------------------------------------------------------------------------

    def _post(self, command: Any) -> None:
        with self._commands_lock:
            self._commands.append(command)
        # Setting a set Event still takes its condition's lock and notifies: a stream posts a
        # command for every delta, so only the first one since the sender last looked sets it
        # (the sender clears it before it takes the commands, so none is left behind).
        if not self._commands_waiting.is_set():
            self._commands_waiting.set()

    def _send(self) -> None:
        while True:
            self._commands_waiting.wait()
            self._commands_waiting.clear()
            with self._commands_lock:
                commands, self._commands = self._commands, []
            if self._closed:
                return
            if commands:
                try:
                    self._connection.send_bytes(encode_commands(commands))
                except OSError:
                    return  # the receiver sees the pipe close and ends the streams

    def _receive(self) -> None:
        reason = "the engine core process exited"
        try:
            while True:
                message, pcm = decode_message(self._connection.recv_bytes())
                self._apply(message, pcm)
                if message.status is not None and message.status.failure is not None:
                    reason = message.status.failure
                    break
        except (EOFError, OSError):
            if self._closed:
                reason = "closed"
        self._fail(reason)

    def _apply(self, message: CoreMessage, pcm: memoryview) -> None:
        if message.description is not None:
            self._description = message.description
            for changed in self._listeners:
                changed()
        if message.status is not None:
            self._status = message.status
        for call, ok, result in message.replies:
            done = self._calls.pop(call, None)
            if done is not None:
                done.set_result(result) if ok else done.set_exception(result)
        for stream_id, items in events_of(message, pcm).items():
            if isinstance(items[-1], StreamEnd):
                channel = self._streams.pop(stream_id, None)
            else:
                channel = self._streams.get(stream_id)
            if channel is not None:
                channel.put_many(items)

    def _fail(self, reason: str) -> None:
        with self._lock:
            if self.failure is None and not self._closed:
                self.failure = reason
                log.error("the engine core is gone: %s", reason)
            streams, self._streams = self._streams, {}
            calls, self._calls = self._calls, {}
        end = engine_failed(reason)
        for channel in streams.values():
            channel.put(end)
        for done in calls.values():
            done.set_exception(RuntimeError(f"the engine core failed: {reason}"))

    async def aclose(self) -> None:
        self.close()

    def close(self) -> None:
        """Leave the core: its streams from this worker end there; later opens are refused."""
        with self._lock:
            self._closed = True
        self._commands_waiting.set()
        # Shut the socket down rather than only closing this descriptor: the receiver thread
        # blocked on it wakes (EOF), and the core sees this worker leave at once.
        try:
            with socket.socket(fileno=os.dup(self._connection.fileno())) as pipe:
                pipe.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # closed already
        self._connection.close()
        if self.process is not None:
            self.process.join(CORE_EXIT_TIMEOUT_S)  # it leaves once its last worker has


def _failed(end: StreamEnd, sample_rate: int) -> Qwen3Stream:
    channel = StreamChannel()
    channel.put(end)
    return Qwen3Stream(0, None, lambda command: None, sample_rate, channel)
