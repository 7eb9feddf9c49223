"""The LiveKit TTS plugin on its own: audio, timed transcripts, errors, retries, cancellation.

The behaviour tests speak with the real embedded engine; a scripted engine stands in only
where a failure must be produced on purpose.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from livekit.agents import APIConnectionError, APIError, APITimeoutError, tts
from livekit.agents.metrics import TTSMetrics
from livekit.agents.types import USERDATA_TIMED_TRANSCRIPT, APIConnectOptions, TimedString
from livekit_harness import (  # noqa: F401  (fixtures)
    ObservedEngine,
    engine_server,
    speech_engine,
)

import voice_tts
from voice_tts.client import RemoteEngine
from voice_tts.livekit import Qwen3StreamingTTS
from voice_tts.protocol import AudioChunk, Done, Error, ErrorCode, Event, Progress, Usage
from voice_tts.request import StreamRequest

TOKENS = [
    "Once",
    " up",
    "on a",
    " time",
    ",",
    " a small",
    " rob",
    "ot",
    " painted",
    " the",
    " sky",
    ".",
]


@dataclass
class Spoken:
    frames: list = field(default_factory=list)
    pieces: list[TimedString] = field(default_factory=list)

    @property
    def duration(self) -> float:
        return sum(f.duration for f in self.frames)


async def speak(stream: tts.SynthesizeStream, tokens: list[str]) -> Spoken:
    for token in tokens:
        stream.push_text(token)
    stream.end_input()
    return await collect(stream)


async def collect(stream: AsyncIterator[tts.SynthesizedAudio]) -> Spoken:
    spoken = Spoken()
    async for ev in stream:
        spoken.frames.append(ev.frame)
        spoken.pieces.extend(ev.frame.userdata.get(USERDATA_TIMED_TRANSCRIPT, []))
    return spoken


@pytest.fixture
def engine(embedded_engine) -> ObservedEngine:
    return ObservedEngine(embedded_engine)


async def test_tokens_in_audio_and_aligned_words_out(speech_engine) -> None:
    engine, _ = speech_engine
    plugin = Qwen3StreamingTTS(engine=engine)
    metrics: list[TTSMetrics] = []
    errors: list[tts.TTSError] = []
    plugin.on("metrics_collected", metrics.append)
    plugin.on("error", errors.append)

    events: list[tts.SynthesizedAudio] = []
    async with plugin.stream() as stream:
        for token in TOKENS:
            stream.push_text(token)
            await asyncio.sleep(0.01)
        stream.end_input()
        async for ev in stream:
            events.append(ev)

    frames = [ev.frame for ev in events]
    pieces = [p for f in frames for p in f.userdata.get(USERDATA_TIMED_TRANSCRIPT, [])]
    audio_seconds = sum(f.duration for f in frames)
    assert all(f.sample_rate == 24000 and f.num_channels == 1 for f in frames)
    assert events[-1].is_final and not any(ev.is_final for ev in events[:-1])
    assert audio_seconds > 1.0
    # the pieces are the text as sent, cut at words, each starting within the audio
    assert "".join(pieces) == "".join(TOKENS)
    words = "".join(TOKENS).split()
    assert [p.strip() for p in pieces if p.strip()] == words
    starts = [p.start_time for p in pieces]
    assert starts == sorted(starts) and 0.0 <= starts[0] and starts[-1] <= audio_seconds
    assert len({p.start_time for p in pieces if p.strip()}) == len(words)  # one time per word
    assert len(engine.streams) == 1 and not engine.streams[0].cancelled
    assert engine.streams[0].done == Done(cancelled=False, usage=engine.streams[0].done.usage)
    assert (
        [m.streamed for m in metrics] == [True] and not metrics[0].cancelled and metrics[0].ttfb > 0
    )
    assert errors == []
    await plugin.aclose()


async def test_pieces_keep_the_raw_text_through_normalization(engine: ObservedEngine) -> None:
    tokens = ["It", " costs", " $1", "2.50", " on", " 3/", "4", " at", " 10:", "30", " am", "."]
    plugin = Qwen3StreamingTTS(engine=engine)
    async with plugin.stream() as stream:
        spoken = await speak(stream, tokens)
    assert "".join(spoken.pieces) == "".join(tokens)
    assert [p.strip() for p in spoken.pieces if p.strip()] == "".join(tokens).split()
    # the engine was given spoken words, not digits
    assert "twelve" in engine.streams[0].text.lower()
    await plugin.aclose()


async def test_synthesize_returns_audio_and_transcript(engine: ObservedEngine) -> None:
    plugin = Qwen3StreamingTTS(engine=engine)
    text = "Good morning. The weather is fine today."
    spoken = await collect(plugin.synthesize(text))
    assert spoken.duration > 1.0
    assert "".join(spoken.pieces) == text
    await plugin.aclose()


async def test_aclose_mid_speech_cancels_the_engine_stream(speech_engine) -> None:
    engine, backing = speech_engine
    plugin = Qwen3StreamingTTS(engine=engine)
    errors: list[tts.TTSError] = []
    plugin.on("error", errors.append)
    stream = plugin.stream()
    stream.push_text("This is a long answer that keeps going for many words, " * 6)
    received = 0
    async for _ in stream:
        received += 1
        if received == 2:
            break
    await stream.aclose()
    assert len(engine.streams) == 1 and engine.streams[0].cancelled
    for _ in range(100):  # the engine frees the slot within a step or two
        if backing.active_streams == 0:
            break
        await asyncio.sleep(0.02)
    assert backing.active_streams == 0
    assert errors == []
    await plugin.aclose()


async def test_tts_aclose_closes_live_streams(engine: ObservedEngine) -> None:
    plugin = Qwen3StreamingTTS(engine=engine)
    stream = plugin.stream()
    stream.push_text("The first sentence is spoken at once. The second one waits for more")
    async for _ in stream:
        break
    await plugin.aclose()
    assert engine.streams[0].cancelled


@pytest.mark.parametrize("text", ["", "   \n "])
async def test_nothing_to_say_ends_cleanly(engine: ObservedEngine, text: str) -> None:
    plugin = Qwen3StreamingTTS(engine=engine)
    errors: list[tts.TTSError] = []
    plugin.on("error", errors.append)
    async with plugin.stream() as stream:
        spoken = await speak(stream, [text] if text else [])
    assert spoken.frames == [] and errors == []
    await plugin.aclose()


async def test_text_with_nothing_to_say_keeps_its_transcript(engine: ObservedEngine) -> None:
    plugin = Qwen3StreamingTTS(engine=engine)
    errors: list[tts.TTSError] = []
    plugin.on("error", errors.append)
    async with plugin.stream() as stream:
        spoken = await speak(stream, ["\N{SLIGHTLY SMILING FACE}"])
    assert errors == [] and len(engine.streams) == 1
    assert "".join(spoken.pieces) == "\N{SLIGHTLY SMILING FACE}"
    assert 0 < spoken.duration <= 0.05
    await plugin.aclose()


async def test_other_sample_rates(engine: ObservedEngine) -> None:
    with pytest.raises(ValueError, match="sample_rate"):
        Qwen3StreamingTTS(engine=engine, sample_rate=11025)
    plugin = Qwen3StreamingTTS(engine=engine, sample_rate=16000)
    async with plugin.stream() as stream:
        spoken = await speak(stream, ["Hello", " there", "."])
    assert spoken.duration > 0.3 and {f.sample_rate for f in spoken.frames} == {16000}
    assert "".join(spoken.pieces) == "Hello there."
    await plugin.aclose()


async def test_flush_ends_the_segment(engine: ObservedEngine) -> None:
    plugin = Qwen3StreamingTTS(engine=engine)
    async with plugin.stream() as stream:
        stream.push_text("Hello there.")
        stream.flush()
        stream.push_text(" Dropped by LiveKit: one segment per stream.")
        spoken = await speak(stream, [])
    assert "".join(spoken.pieces) == "Hello there."
    assert spoken.duration > 0
    await plugin.aclose()


async def test_update_options_applies_to_the_next_stream(engine: ObservedEngine) -> None:
    plugin = Qwen3StreamingTTS(engine=engine)
    async with plugin.stream() as first:
        plugin.update_options(language="english")
        await speak(first, ["One."])
    async with plugin.stream() as second:
        await speak(second, ["Two."])
    assert engine.streams[0].options.get("language") != "english"
    assert engine.streams[1].options.get("language") == "english"
    await plugin.aclose()


def test_plugin_namespace_registers_with_livekit() -> None:
    from livekit.agents import Plugin

    from livekit.plugins import qwen3_tts

    assert qwen3_tts.TTS is qwen3_tts.Qwen3StreamingTTS is Qwen3StreamingTTS
    [plugin] = [p for p in Plugin.registered_plugins if p.package == "livekit.plugins.qwen3_tts"]
    assert plugin.version == voice_tts.__version__


async def test_default_engine_is_the_embedded_voice_owned_by_the_plugin(monkeypatch) -> None:
    monkeypatch.delenv("VOICE_TTS_URL", raising=False)
    plugin = Qwen3StreamingTTS()
    plugin.prewarm()
    engine = plugin.engine
    assert plugin.model == engine.model_name
    async with plugin.stream() as stream:
        spoken = await speak(stream, ["Hello", " there."])
    assert "".join(spoken.pieces) == "Hello there."
    await plugin.aclose()
    # the plugin created it, so the plugin closed it
    events = [ev async for ev in engine.open_stream().events()]
    assert isinstance(events[0], Error) and events[0].code == ErrorCode.ENGINE_CLOSED


async def test_default_engine_is_the_server_at_voice_tts_url(monkeypatch, engine_server) -> None:
    monkeypatch.setenv("VOICE_TTS_URL", engine_server.ws_url)
    plugin = Qwen3StreamingTTS()
    assert isinstance(plugin.engine, RemoteEngine)
    async with plugin.stream() as stream:
        spoken = await speak(stream, ["Hello", " from", " the", " server."])
    assert "".join(spoken.pieces) == "Hello from the server."
    await plugin.aclose()


# --- failures, with a scripted engine ---------------------------------------------------------


@dataclass
class Failure:
    code: str = ErrorCode.ENGINE_ERROR
    retryable: bool = True
    after_audio: bool = False


class ScriptedEngine:
    """Speaks each word as 0.2 s of tone after a `Progress`, or fails as scripted: one entry of
    `failures` per stream opened (None: speak normally; "silent": never answer)."""

    def __init__(self, failures: list[Failure | str | None]) -> None:
        self.failures = list(failures)
        self.streams: list[ScriptedStream] = []

    def open_stream(self, request=None, /, **settings):
        sample_rate = StreamRequest.of(request, **settings).sample_rate
        failure = self.failures.pop(0) if self.failures else None
        stream = ScriptedStream(failure, sample_rate)
        self.streams.append(stream)
        return stream

    async def aclose(self) -> None:
        pass


class ScriptedStream:
    def __init__(self, failure: Failure | str | None, sample_rate: int) -> None:
        self.failure, self.sample_rate = failure, sample_rate
        self.text = ""
        self.cancelled = False
        self._queue: asyncio.Queue[Event] = asyncio.Queue()
        self._spoken_to = 0
        self._samples = 0
        self._failed = False

    def push_text(self, text: str) -> None:
        self.text += text
        self._speak(final=False)

    def end_input(self) -> None:
        self._speak(final=True)
        if not self._failed and self.failure != "silent":
            self._queue.put_nowait(
                Done(usage=Usage(len(self.text), len(self.text), self._samples / self.sample_rate))
            )

    def cancel(self) -> None:
        self.cancelled = True
        self._queue.put_nowait(Done(cancelled=True))

    async def events(self) -> AsyncIterator[Event]:
        while True:
            ev = await self._queue.get()
            yield ev
            if isinstance(ev, Done):
                return

    def _speak(self, *, final: bool) -> None:
        if self._failed or self.failure == "silent":
            return
        if isinstance(self.failure, Failure) and not self.failure.after_audio:
            self._fail()
            return
        while True:
            rest = self.text[self._spoken_to :]
            stripped = rest.lstrip()
            start = self._spoken_to + len(rest) - len(stripped)
            end = next((i for i, c in enumerate(stripped) if c.isspace()), None)
            if end is None and not (final and stripped):
                return
            word_end = start + (end if end is not None else len(stripped))
            self._queue.put_nowait(
                Progress(spoken_end=word_end, audio_time=self._samples / self.sample_rate)
            )
            pcm = b"\x10\x00\xf0\xff" * int(0.1 * self.sample_rate)
            self._queue.put_nowait(AudioChunk(pcm, self.sample_rate, self._samples))
            self._samples += len(pcm) // 2
            self._spoken_to = word_end
            if isinstance(self.failure, Failure):
                self._fail()
                return

    def _fail(self) -> None:
        assert isinstance(self.failure, Failure)
        self._failed = True
        self._queue.put_nowait(Error(self.failure.code, "scripted failure", self.failure.retryable))
        self._queue.put_nowait(Done())


FAST_RETRY = APIConnectOptions(max_retry=2, retry_interval=0.0, timeout=2.0)


async def run_with_errors(engine: ScriptedEngine, conn_options=FAST_RETRY):
    plugin = Qwen3StreamingTTS(engine=engine, normalize=False)
    errors: list[tts.TTSError] = []
    plugin.on("error", errors.append)
    raised: BaseException | None = None
    spoken = Spoken()
    async with plugin.stream(conn_options=conn_options) as stream:
        try:
            spoken = await speak(stream, ["Hello", " brave", " new", " world."])
        except APIError as e:
            raised = e
    await plugin.aclose()
    return spoken, errors, raised


async def test_retryable_error_before_audio_is_retried_on_a_new_stream() -> None:
    engine = ScriptedEngine([Failure(retryable=True), None])
    spoken, errors, raised = await run_with_errors(engine)
    assert raised is None
    assert len(engine.streams) == 2 and engine.streams[1].text == "Hello brave new world."
    assert "".join(spoken.pieces) == "Hello brave new world."
    assert [e.recoverable for e in errors] == [True]


async def test_error_after_audio_is_not_retried() -> None:
    engine = ScriptedEngine([Failure(retryable=True, after_audio=True), None])
    _, errors, raised = await run_with_errors(engine)
    assert isinstance(raised, APIError) and "scripted failure" in str(raised)
    assert len(engine.streams) == 1
    assert [e.recoverable for e in errors] == [False]


async def test_non_retryable_error_is_not_retried() -> None:
    engine = ScriptedEngine([Failure(code=ErrorCode.INVALID_VOICE, retryable=False), None])
    _, errors, raised = await run_with_errors(engine)
    assert isinstance(raised, APIError) and not raised.retryable
    assert len(engine.streams) == 1 and [e.recoverable for e in errors] == [False]


async def test_lost_connection_is_a_connection_error() -> None:
    engine = ScriptedEngine([Failure(code=ErrorCode.DISCONNECTED)] * 3)
    _, errors, raised = await run_with_errors(engine)
    assert isinstance(raised, APIConnectionError)
    assert len(engine.streams) == 3  # max_retry=2
    assert all(isinstance(e.error, APIConnectionError) for e in errors)


async def test_silent_engine_times_out_and_its_streams_are_cancelled() -> None:
    engine = ScriptedEngine(["silent", "silent"])
    options = APIConnectOptions(max_retry=1, retry_interval=0.0, timeout=0.3)
    _, errors, raised = await run_with_errors(engine, options)
    assert isinstance(raised, APITimeoutError)
    assert len(engine.streams) == 2 and all(s.cancelled for s in engine.streams)
    assert [e.recoverable for e in errors] == [True, False]
