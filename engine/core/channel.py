"""The channel between the engine core process and one API worker: commands in, one batched
message per loop iteration out.

The transport is a `multiprocessing` Pipe (a Unix socket pair with length-prefixed frames), one
per worker, standard library only. Both directions batch:

- Worker -> core: a frame is a pickled list of commands, everything the worker's threads posted
  since the last frame (`OpenStream`, the stream handle's own `TextCommand` / `CancelCommand`
  with text already tokenized, `ReaderBehind`, `CoreCall`, `WorkerWarm`). Stream ids in
  commands are the worker's; the core maps them to its own.
- Core -> worker: one frame per loop iteration (and one per batch of commands that answered at
  once, such as a refused open): `[u32 header length][pickled CoreMessage][PCM]`, where the PCM
  of every audio chunk of the iteration is concatenated in one buffer and the header says, in
  order, which stream each piece belongs to, its progress, and which streams ended and why. Never
  one message per stream: at 512 streams one frame costs one pickle of small tuples and one copy
  of the PCM, where per-stream messages would cost a few ms per step (issue #27).

Pause is the worker's side of the contract: it counts the audio its reader has not taken and
tells the core when that backlog reaches the bound (`ReaderBehind(True)`) and when half of it is
read (`ReaderBehind(False)`), so a paused turn holds no batch row, as in-process.
"""

from __future__ import annotations

import pickle
import struct
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from voice_tts.protocol import AudioChunk, Error, ErrorCode, Progress
from voice_tts.request import StreamRequest

from engine.runtime.stream import CODEC_SAMPLE_RATE, StreamChannel, StreamEnd

_HEADER = struct.Struct("<I")

# Event kinds in a `CoreMessage`.
AUDIO, PROGRESS, END = 0, 1, 2


# ---- commands (worker -> core) ---------------------------------------------------------------


@dataclass(frozen=True)
class OpenStream:
    stream_id: int
    request: StreamRequest


@dataclass(frozen=True)
class ReaderBehind:
    """The stream's reader is a whole bound behind (True) or has caught up to half (False)."""

    stream_id: int
    behind: bool


@dataclass(frozen=True)
class WorkerWarm:
    """The worker has spoken its warm-up text: the server is ready once every worker has."""


@dataclass(frozen=True)
class CoreCall:
    """A request answered once, outside the step loop (cloning or deleting a voice)."""

    call: int
    method: str
    args: tuple


def encode_commands(commands: list) -> bytes:
    return pickle.dumps(commands, protocol=pickle.HIGHEST_PROTOCOL)


def decode_commands(frame: bytes) -> list:
    return pickle.loads(frame)


# ---- messages (core -> worker) ---------------------------------------------------------------


@dataclass(frozen=True)
class CoreStatus:
    """The core's state, sent a few times a second: what `/metrics` and `/health` read."""

    active_streams: int
    headroom: dict[str, Any]
    failure: str | None = None
    cold_workers: int = 0  # API workers that have not said `WorkerWarm` yet


@dataclass
class CoreMessage:
    # (AUDIO, stream, start_sample, byte count) | (PROGRESS, stream, spoken_end, audio_time)
    # | (END, stream, cancelled, reason, error or None); audio bytes follow the header in order.
    events: list[tuple] = field(default_factory=list)
    replies: list[tuple[int, bool, Any]] = field(default_factory=list)  # (call, ok, result or exception)
    description: dict[str, Any] | None = None  # what the engine serves, when it changed
    status: CoreStatus | None = None


def decode_message(frame: bytes) -> tuple[CoreMessage, memoryview]:
    """The header and the PCM buffer its audio events index, in order."""
    (length,) = _HEADER.unpack_from(frame)
    view = memoryview(frame)
    message = pickle.loads(view[_HEADER.size : _HEADER.size + length])
    return message, view[_HEADER.size + length :]


class Outbox:
    """Everything the core has for one worker since the last frame; `flush` sends it as one.

    Filled by the step loop (events) and by the core's command threads (refused opens, call
    replies, status); `send` must not block (it hands the frame to a sender thread), so a worker
    that reads slowly never stalls the loop."""

    def __init__(self, send: Callable[[bytes], None]) -> None:
        self._send = send
        self._lock = threading.Lock()
        self._message = CoreMessage()
        self._pcm: list = []  # bytes-like: the chunks' PCM, in the order of their audio events

    def add(self, stream: int, items: Sequence[Any]) -> None:
        with self._lock:
            events = self._message.events
            for item in items:
                if isinstance(item, AudioChunk):
                    events.append((AUDIO, stream, item.start_sample, len(item.pcm)))
                    self._pcm.append(item.pcm)
                elif isinstance(item, Progress):
                    events.append((PROGRESS, stream, item.spoken_end, item.audio_time))
                else:
                    events.append((END, stream, item.cancelled, item.reason, item.error))

    def post(self, channels: Sequence[CoreStreamChannel], items: Sequence[Any]) -> None:
        """Chunks as the loop posts them, all of an iteration's for this worker in one call (the
        outbox is their `sink`): a decoded chunk (`DecodedChunk`) as its progress event
        (spoken_end >= 0) and its audio event, the samples copied once, into the frame; a
        chunk of no frames as its `Progress`."""
        with self._lock:
            events, pcm = self._message.events, self._pcm
            for channel, item in zip(channels, items):
                stream = channel.stream
                if type(item) is tuple:
                    samples, start_sample, spoken_end, audio_time = item
                    if spoken_end >= 0:
                        events.append((PROGRESS, stream, spoken_end, audio_time))
                    events.append((AUDIO, stream, start_sample, samples.nbytes))
                    pcm.append(samples)
                else:
                    events.append((PROGRESS, stream, item.spoken_end, item.audio_time))

    def reply(self, call: int, ok: bool, result: Any) -> None:
        with self._lock:
            self._message.replies.append((call, ok, result))

    def describe(self, description: dict[str, Any]) -> None:
        with self._lock:
            self._message.description = description

    def report(self, status: CoreStatus) -> None:
        with self._lock:
            self._message.status = status

    def flush(self) -> None:
        with self._lock:
            message = self._message
            if not message.events and not message.replies and message.description is None and message.status is None:
                return
            header = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
            frame = b"".join([_HEADER.pack(len(header)), header, *self._pcm])
            self._message, self._pcm = CoreMessage(), []
            self._send(frame)  # under the lock: frames leave in the order they were made


class CoreStreamChannel:
    """A stream's events in the core: into its worker's outbox. The loop treats it as a
    `StreamChannel`; whether its reader is behind is what the worker last said (the loop
    hears it as a `ReaderCommand`)."""

    def __init__(self, outbox: Outbox, stream: int, on_end: Callable[[int], None]) -> None:
        self._outbox = outbox
        self.stream = stream  # the worker's id
        self.sink = outbox  # where the loop posts its chunks
        self._on_end = on_end

    def bound(self, samples: int, wake: Callable[[], None]) -> bool:
        """The worker holds the bound: its reader is where unread audio piles up, and it says
        when it is behind (`ReaderBehind`, a `ReaderCommand` to the loop)."""
        return False

    def put(self, item: Any) -> None:
        self.put_many((item,))

    def put_many(self, items: Sequence[Any]) -> None:
        self._outbox.add(self.stream, items)
        if isinstance(items[-1], StreamEnd):
            self._on_end(self.stream)


class WorkerStreamChannel(StreamChannel):
    """A stream's events in the API worker, filled from the core's messages. Unread audio parks
    the stream in the core as it parks it in-process: past `behind_at` samples the core hears
    `ReaderBehind(True)`, once half is read `ReaderBehind(False)`."""

    def __init__(self, stream: int, behind_at: int, post: Callable[[Any], None]) -> None:
        super().__init__()
        self._stream = stream
        self._post = post
        self.bound(behind_at, lambda: post(ReaderBehind(stream, False)))

    def _added(self, items: Sequence[Any]) -> None:
        super()._added(items)
        if not self._parked and self.unread_samples >= self._behind_at:
            self._parked = True
            self._post(ReaderBehind(self._stream, True))


def events_of(message: CoreMessage, pcm: memoryview) -> dict[int, list]:
    """The message's events per stream, in order, as the stream handle takes them."""
    out: dict[int, list] = {}
    offset = 0
    for event in message.events:
        kind, stream = event[0], event[1]
        if kind == AUDIO:
            end = offset + event[3]
            item: Any = AudioChunk(bytes(pcm[offset:end]), CODEC_SAMPLE_RATE, event[2])
            offset = end
        elif kind == PROGRESS:
            item = Progress(event[2], event[3])
        else:
            item = StreamEnd(cancelled=event[2], reason=event[3], error=event[4])
        out.setdefault(stream, []).append(item)
    return out


def engine_failed(reason: str) -> StreamEnd:
    """How a stream ends when the core is gone."""
    return StreamEnd(
        cancelled=False, reason="engine_error", error=Error(ErrorCode.ENGINE_ERROR, f"the engine core failed: {reason}", True)
    )
