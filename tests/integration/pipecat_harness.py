"""What the Pipecat adapter tests share: the engines they run on (the real ones, a recording
wrapper around them, and a deterministic fake for failures a real engine cannot be made to
show), a virtual sound card, a call's pipeline around it for barge-in tests, and small frame
helpers."""

from __future__ import annotations

import asyncio
import math
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import AsyncIterator

import numpy as np
import pytest
from pipecat.frames.frames import (
    Frame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    OutputAudioRawFrame,
    StartFrame,
    TTSAudioRawFrame,
    TTSTextFrame,
)
from pipecat.observers.base_observer import BaseObserver, FramePushed
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair
from pipecat.transports.base_output import BaseOutputTransport
from pipecat.transports.base_transport import TransportParams
from pipecat.utils.time import nanoseconds_to_seconds
from pipecat.workers.runner import WorkerRunner

from voice_tts.protocol import AudioChunk, Done, Error, Event, Progress, StreamingEngine, Usage
from tests.engine_requests import recorded_options

# The agents are scripts, importable once their folder is on the path.
AGENTS_DIR = Path(__file__).resolve().parents[2] / "agents"
if str(AGENTS_DIR) not in sys.path:
    sys.path.append(str(AGENTS_DIR))

ENGINE_KINDS = ["embedded", "qwen3-tiny"]


def open_real_engine(kind: str, tiny_checkpoint: Path) -> StreamingEngine:
    """The embedded voice, or the Qwen3 engine on the tiny checkpoint (skipped until the
    checkpoint engine can be loaded)."""
    from engine import Engine

    if kind == "embedded":
        return Engine.embedded()
    try:
        return Engine.from_pretrained(tiny_checkpoint, device="cpu")
    except (ImportError, NotImplementedError) as e:
        pytest.skip(f"the Qwen3 engine cannot load the tiny checkpoint yet: {e!r}")


# ---------------------------------------------------------------------------------------------
# A recording wrapper: the real engine does the work, the test sees what was asked of it.
# ---------------------------------------------------------------------------------------------


class RecordedStream:
    """An engine stream that records the text pushed, the calls made and the events seen."""

    def __init__(self, inner, options: dict):
        self._inner = inner
        self.options = options
        self.remote = False  # a remote engine: its server normalizes the text it is given
        self.text = ""
        self.input_ended = False
        self.cancel_calls = 0
        self.events_seen: list[Event] = []

    def push_text(self, text: str) -> None:
        self.text += text
        self._inner.push_text(text)

    def end_input(self) -> None:
        self.input_ended = True
        self._inner.end_input()

    def cancel(self) -> None:
        self.cancel_calls += 1
        self._inner.cancel()

    async def events(self) -> AsyncIterator[Event]:
        async for event in self._inner.events():
            self.events_seen.append(event)
            yield event

    @property
    def done(self) -> Done | None:
        last = self.events_seen[-1] if self.events_seen else None
        return last if isinstance(last, Done) else None

    def __getattr__(self, name: str):
        # Anything else the stream offers (a remote stream's `set_speed`, its socket facts).
        return getattr(self._inner, name)


class RecordingEngine:
    """Passes every call through to `engine` and keeps the streams it opened."""

    def __init__(self, engine: StreamingEngine):
        self.inner = engine
        self.streams: list[RecordedStream] = []

    def open_stream(self, *args, **options) -> RecordedStream:
        stream = RecordedStream(
            self.inner.open_stream(*args, **options), recorded_options(args[0] if args else None, options)
        )
        stream.remote = getattr(self.inner, "reports_words", False)
        self.streams.append(stream)
        return stream

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __getattr__(self, name: str):
        # The engine's other facts (its model, whether it reports words, its connection).
        return getattr(self.inner, name)


# ---------------------------------------------------------------------------------------------
# A deterministic fake engine, for failures and timings a real engine cannot be made to show.
# ---------------------------------------------------------------------------------------------

_READY_WORD = re.compile(r"\s*(\S+)(?=\s)")
_LAST_WORD = re.compile(r"\s*(\S+)")


def tone(seconds: float, sample_rate: int, hz: float = 220.0) -> bytes:
    n = int(round(seconds * sample_rate))
    t = np.arange(n) / sample_rate
    return (0.3 * 32767 * np.sin(2 * math.pi * hz * t)).astype("<i2").tobytes()


class FakeStream:
    """Speaks each word once whitespace follows it (or input has ended): `Progress` for the
    word, then a tone as long as the word."""

    def __init__(self, engine: "FakeEngine", options: dict):
        self._engine = engine
        self.options = options
        # An engine with a native rate ignores the rate asked for.
        self.sample_rate: int = engine.native_rate or options.get("sample_rate", 24000)
        self.text = ""
        self.input_ended = False
        self.cancelled = False
        # Audio chunks yielded after cancel(): what the adapter must drop.
        self.chunks_after_cancel = 0
        self._cancelled_at: float | None = None
        self._changed = asyncio.Event()
        self.wedged_at: float | None = None
        self.input_ended_at: float | None = None

    def push_text(self, text: str) -> None:
        self.text += text
        self._changed.set()

    def end_input(self) -> None:
        self.input_ended = True
        self.input_ended_at = time.monotonic()
        self._changed.set()

    def cancel(self) -> None:
        if not self.cancelled:
            self.cancelled = True
            self._cancelled_at = time.monotonic()
            self._changed.set()

    def _cancel_due(self) -> bool:
        return (
            self._cancelled_at is not None
            and time.monotonic() - self._cancelled_at >= self._engine.cancel_delay
        )

    async def events(self) -> AsyncIterator[Event]:
        engine = self._engine
        cursor = 0
        samples = 0
        while True:
            if self._cancel_due():
                yield Done(cancelled=True, usage=self._usage(cursor, samples))
                return
            pattern = _LAST_WORD if self.input_ended else _READY_WORD
            match = pattern.match(self.text, cursor)
            if match is None:
                if self.input_ended:
                    yield Done(usage=self._usage(cursor, samples))
                    return
                self._changed.clear()
                timeout = engine.cancel_delay if self.cancelled else None
                try:
                    await asyncio.wait_for(self._changed.wait(), timeout)
                except TimeoutError:
                    pass
                continue
            if engine.fail_after_chars is not None and match.end() > engine.fail_after_chars:
                if engine.failure == "exception":
                    raise RuntimeError("the fake engine crashed")
                if engine.failure == "wedge":
                    self.wedged_at = time.monotonic()
                    await asyncio.Event().wait()  # never answers again, not even a cancel
                yield Error(code=engine.failure, message="the fake engine failed", retryable=False)
                yield Done(usage=self._usage(cursor, samples))
                return
            cursor = match.end()
            if engine.silent:
                continue
            word = match.group(1)
            yield Progress(spoken_end=cursor, audio_time=samples / self.sample_rate)
            pcm = tone(engine.seconds_per_char * len(word), self.sample_rate)
            yield AudioChunk(pcm=pcm, sample_rate=self.sample_rate, start_sample=samples)
            samples += len(pcm) // 2
            self.chunks_after_cancel += self.cancelled
            # Real time when asked (barge-in tests), else just let other tasks run.
            await asyncio.sleep(len(pcm) / 2 / self.sample_rate if engine.realtime else 0)

    def _usage(self, cursor: int, samples: int) -> Usage:
        return Usage(
            characters_received=len(self.text),
            characters_spoken=cursor,
            audio_seconds=samples / self.sample_rate,
        )


@dataclass
class FakeEngine:
    seconds_per_char: float = 0.02
    realtime: bool = False
    fail_after_chars: int | None = None
    # How it fails: an error code ("engine_error", "invalid_voice"), "exception" or "wedge".
    failure: str = "engine_error"
    # Accepts text and says nothing (a provider silent for, say, an unknown voice).
    silent: bool = False
    # How long the streams keep talking after cancel().
    cancel_delay: float = 0.0
    native_rate: int | None = None
    streams: list[FakeStream] = field(default_factory=list)

    def open_stream(self, *args, **options) -> FakeStream:
        stream = FakeStream(self, recorded_options(args[0] if args else None, options))
        self.streams.append(stream)
        return stream

    async def aclose(self) -> None:
        pass


# ---------------------------------------------------------------------------------------------
# A virtual sound card and frame helpers.
# ---------------------------------------------------------------------------------------------


class RealtimeAudioOutput(BaseOutputTransport):
    """Output transport that plays like a sound card: each chunk takes its duration to write.
    `played` holds (clock time the chunk started playing, pcm) for every chunk written."""

    def __init__(self, params):
        super().__init__(params)
        self.played: list[tuple[int, bytes]] = []

    async def start(self, frame: StartFrame):
        await super().start(frame)
        await self.set_transport_ready(frame)

    async def write_audio_frame(self, frame: OutputAudioRawFrame) -> bool:
        self.played.append((self.get_clock().get_time(), frame.audio))
        await asyncio.sleep(len(frame.audio) / 2 / frame.sample_rate)
        return True


class WordTimes(BaseObserver):
    """Every word frame the TTS emits and when its context's first audio left the TTS."""

    def __init__(self, tts):
        super().__init__()
        self._tts = tts
        self.words: list[TTSTextFrame] = []
        self.first_audio_ns: int | None = None

    async def on_push_frame(self, data: FramePushed):
        if data.source is not self._tts:
            return
        if isinstance(data.frame, TTSTextFrame):
            self.words.append(data.frame)
        elif isinstance(data.frame, TTSAudioRawFrame) and self.first_audio_ns is None:
            self.first_audio_ns = data.timestamp

    def start_of(self, text: str) -> float | None:
        """Seconds into the audio where the first word `text` starts (None: not yet)."""
        for word in self.words:
            if word.text == text and self.first_audio_ns is not None:
                return nanoseconds_to_seconds(word.pts - self.first_audio_ns)
        return None


def played_seconds(played: list[tuple[int, bytes]], until_ns: int, rate: int) -> float:
    """Seconds of audio the sound card played before `until_ns` (a chunk plays from the clock
    time its write starts; audio that came late leaves gaps, which are not counted)."""
    seconds = 0.0
    for started_ns, pcm in played:
        if started_ns >= until_ns:
            break
        elapsed = nanoseconds_to_seconds(until_ns - started_ns)
        seconds += min(len(pcm) / 2 / rate, elapsed)
    return seconds


# The output plays 40 ms chunks, and audio reaches it a moment after it leaves the TTS: a word
# starting this close to the barge-in may fall either way.
TIMING_SLACK_S = 0.1


class BargeInPipeline:
    """`tts` playing into the virtual sound card with an LLM context behind it, as in a call:
    a test streams a reply in, barges in, and reads what the context kept against what played."""

    def __init__(self, tts, sample_rate: int = 24000):
        self.tts = tts
        self.sample_rate = sample_rate
        self.output = RealtimeAudioOutput(TransportParams(audio_out_enabled=True))
        self.context = LLMContext()
        self.assistant = LLMContextAggregatorPair(self.context).assistant()
        self.words = WordTimes(tts)
        self.worker = PipelineWorker(
            Pipeline([tts, self.output, self.assistant]),
            params=PipelineParams(audio_out_sample_rate=sample_rate),
            observers=[self.words],
            cancel_on_idle_timeout=False,
        )

    async def run(self, converse):
        """Runs the pipeline alongside `converse()` (which ends with `barge_in`); what it returns."""
        runner = WorkerRunner(handle_sigint=False)
        await runner.add_workers(self.worker)
        _, result = await asyncio.gather(runner.run(), converse())
        return result

    async def stream_reply(self, tokens: list[str], seconds_between: float) -> None:
        """One LLM reply, token by token at an LLM's pace."""
        await self.worker.queue_frame(LLMFullResponseStartFrame())
        for token in tokens:
            await self.worker.queue_frame(LLMTextFrame(token))
            await asyncio.sleep(seconds_between)
        await self.worker.queue_frame(LLMFullResponseEndFrame())

    def played_now(self) -> float:
        return played_seconds(self.output.played, self.output.get_clock().get_time(), self.sample_rate)

    async def play_into(self, word: str, seconds: float) -> float:
        """Waits until the sound card has played `seconds` of the first word `word`; its start."""
        async with asyncio.timeout(60):
            while (start := self.words.start_of(word)) is None or self.played_now() < start + seconds:
                await asyncio.sleep(0.01)
        return start

    async def barge_in(self) -> int:
        """Interrupts, gives the interruption time to reach the context, then stops the
        pipeline; the clock time of the interruption."""
        interrupted_at = self.output.get_clock().get_time()
        await self.worker.queue_frame(InterruptionFrame())
        await asyncio.sleep(0.5)
        await self.worker.cancel()
        return interrupted_at

    def heard(self) -> str:
        """The one assistant message the context kept."""
        [heard] = [m["content"] for m in self.context.messages if m["role"] == "assistant"]
        return heard

    def assert_heard_the_played_words(self, reply: str, interrupted_at: int) -> list[float]:
        """The context holds the first words of `reply`, exactly those whose audio had started
        playing at the barge-in (within TIMING_SLACK_S); each of those words' start in the audio."""
        reply_words, heard_words = reply.split(), self.heard().split()
        assert 0 < len(heard_words) < len(reply_words)
        assert heard_words == reply_words[: len(heard_words)]
        played_s = played_seconds(self.output.played, interrupted_at, self.sample_rate)
        starts = [nanoseconds_to_seconds(w.pts - self.words.first_audio_ns) for w in self.words.words]
        surely_heard = sum(start < played_s - TIMING_SLACK_S for start in starts)
        maybe_heard = sum(start < played_s + TIMING_SLACK_S for start in starts)
        assert surely_heard <= len(heard_words) <= maybe_heard
        return starts[: len(heard_words)]


def of_type(frames: list[Frame], *types: type) -> list:
    return [frame for frame in frames if isinstance(frame, types)]


def index_of(frames: list[Frame], frame: Frame) -> int:
    return next(i for i, f in enumerate(frames) if f is frame)


def rms(pcm: bytes) -> float:
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    return float(np.sqrt(np.mean(samples**2))) if samples.size else 0.0
