"""`Qwen3StreamingTTS` when a turn fails: whatever ends it (engine error or exception, a wedged
engine, a frozen or killed server, a refused voice, `EndFrame` mid-reply), the assistant
message in the `LLMContext` holds exactly the words whose audio was produced, an `ErrorFrame`
comes within the silence timeout, and nothing waits on a timeout. Also: huge tokens do not
stall the event loop, metrics name the model, connection events fire, languages map.

The fake engine stands in only for faults a real engine cannot be made to show; frozen and
killed servers are real `voice-tts serve` processes stopped with SIGSTOP and SIGKILL.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import time

import pytest
from pipecat.frames.frames import (
    ErrorFrame,
    Frame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    MetricsFrame,
    TTSAudioRawFrame,
    TTSTextFrame,
)
from pipecat.metrics.metrics import ProcessingMetricsData, TTFBMetricsData
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.runner import PipelineRunner
from pipecat.pipeline.task import PipelineTask
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.tests.utils import SleepFrame, run_test
from pipecat.transcriptions.language import Language
from pipecat.utils.errors import ErrorCategory
from pipecat.workers.runner import WorkerRunner
from loop_watch import watch_loop
from pipecat_harness import FakeEngine, RecordingEngine, of_type, tone
from test_pipecat_tts import REPLY, llm_turn, params

from voice_tts.client import RemoteEngine
from voice_tts.pipecat import Qwen3StreamingTTS
from voice_tts.protocol import AudioChunk, Done, Progress, Usage

# FakeEngine(fail_after_chars=20) speaks the words of REPLY that end by character 20.
HEARD_BEFORE_FAILURE = "Hello there, my"


class ErrorClock(FrameProcessor):
    """Notes when each ErrorFrame coming upstream passes."""

    def __init__(self):
        super().__init__()
        self.errors: list[tuple[float, ErrorFrame]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, ErrorFrame):
            self.errors.append((time.monotonic(), frame))
        await self.push_frame(frame, direction)


class Tap(FrameProcessor):
    """Keeps every frame going downstream past it."""

    def __init__(self):
        super().__init__()
        self.frames: list[Frame] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if direction == FrameDirection.DOWNSTREAM:
            self.frames.append(frame)
        await self.push_frame(frame, direction)


async def speak(tts: Qwen3StreamingTTS, frames: list, **run_options):
    """Run frames through tts and an assistant aggregator; (frames tts pushed, up, assistant
    messages, the ErrorClock)."""
    context = LLMContext()
    pair = LLMContextAggregatorPair(context)
    clock, tap = ErrorClock(), Tap()
    _, up = await run_test(
        Pipeline([clock, tts, tap, pair.assistant()]),
        frames_to_send=frames,
        pipeline_params=params(),
        **run_options,
    )
    said = [m["content"] for m in context.messages if m["role"] == "assistant"]
    return tap.frames, up, said, clock


@pytest.mark.parametrize("failure", ["engine_error", "exception"])
async def test_a_failing_engine_leaves_only_the_spoken_words_in_the_context(failure):
    tts = Qwen3StreamingTTS(engine=FakeEngine(fail_after_chars=20, failure=failure))
    _, up, said, _ = await speak(tts, llm_turn(REPLY))
    assert said == [HEARD_BEFORE_FAILURE]  # was all 12 words of the reply
    assert len(of_type(up, ErrorFrame)) == 1 and tts.is_usable


async def test_a_wedged_engine_is_an_error_within_the_silence_timeout():
    engine = FakeEngine(fail_after_chars=20, failure="wedge")
    tts = Qwen3StreamingTTS(engine=engine)  # default silence_timeout: 2 s
    _, up, said, clock = await speak(tts, llm_turn(REPLY))
    assert said == [HEARD_BEFORE_FAILURE]
    [(errored_at, error)] = clock.errors  # was none: the turn ended silently
    assert "timeout" in error.error
    wedged_at = engine.streams[0].wedged_at
    assert errored_at - max(wedged_at, engine.streams[0].input_ended_at) < 3.5


async def test_an_unknown_voice_puts_nothing_in_the_context():
    from engine import Engine

    engine = Engine.embedded()
    try:
        tts = Qwen3StreamingTTS(engine=engine, settings=Qwen3StreamingTTS.Settings(voice="nobody"))
        _, up, said, _ = await speak(tts, llm_turn("Your table is booked."))
    finally:
        await engine.aclose()
    assert said in ([], [""])  # was the whole reply, with no audio
    errors = of_type(up, ErrorFrame)
    assert errors[0].category is ErrorCategory.INVALID_REQUEST and len(errors) == 1


async def test_fixing_an_unknown_voice_brings_the_service_back():
    from pipecat.frames.frames import TTSUpdateSettingsFrame
    from server_harness import start_server

    server = start_server()
    engine = RemoteEngine(server.ws_url)
    try:
        tts = Qwen3StreamingTTS(engine=engine, settings=Qwen3StreamingTTS.Settings(voice="nobody"))
        fix = TTSUpdateSettingsFrame(delta=Qwen3StreamingTTS.Settings(voice="female"))
        frames = [*llm_turn("Your table is booked."), SleepFrame(0.2), fix, *llm_turn("All good now.")]
        down, up, said, _ = await speak(tts, frames)
    finally:
        await engine.aclose()
        server.stop()
    assert [e.category for e in of_type(up, ErrorFrame)] == [ErrorCategory.INVALID_REQUEST]
    assert said == ["All good now."] and tts.is_usable
    assert [w.text for w in of_type(down, TTSTextFrame)] == ["All", "good", "now."]


@pytest.fixture(params=["in-process", "remote"])
async def voice_engine(request):
    """The embedded voice in-process, or behind a real server through `RemoteEngine`."""
    from engine import Engine
    from server_harness import start_server

    if request.param == "in-process":
        engine = Engine.embedded()
        yield engine
        await engine.aclose()
        return
    server = start_server()
    engine = RemoteEngine(server.ws_url)
    yield engine
    await engine.aclose()
    server.stop()


@pytest.mark.parametrize("setting, bad, good", [("voice", "nobody", "female"), ("language", "tlh", "en")])
async def test_a_setting_fixed_before_the_bad_turns_error_comes_back_speaks_from_the_next_turn(
    voice_engine, setting, bad, good
):
    """As an app does it: a bad voice (or language), a turn, the fix right behind it (before
    that turn's error has come back), more turns: every later turn speaks, and the stale
    error does not write the service off."""
    from pipecat.frames.frames import TTSUpdateSettingsFrame

    tts = Qwen3StreamingTTS(engine=voice_engine, settings=Qwen3StreamingTTS.Settings(**{setting: bad}))
    fix = TTSUpdateSettingsFrame(delta=Qwen3StreamingTTS.Settings(**{setting: good}))
    later = ["All good now.", "And this one too.", "Still speaking."]
    frames = [*llm_turn("Your table is booked.", gap=0), fix]
    for text in later:
        frames += llm_turn(text, gap=0)
    down, up, said, _ = await speak(tts, frames)
    assert said == later and tts.is_usable
    assert [e.category for e in of_type(up, ErrorFrame)] in ([ErrorCategory.APPLICATION], [ErrorCategory.INVALID_REQUEST])


async def test_a_refused_voice_after_audio_does_not_write_the_service_off():
    engine = FakeEngine(fail_after_chars=20, failure="invalid_voice")
    tts = Qwen3StreamingTTS(engine=engine)
    engine_after = llm_turn("All good now.")
    _, up, said, _ = await speak(tts, llm_turn(REPLY) + [SleepFrame(0.2)] + engine_after)
    assert tts.is_usable  # was written off: every later turn silent
    assert said == [HEARD_BEFORE_FAILURE, "All good now."]
    assert of_type(up, ErrorFrame)[0].category is not ErrorCategory.INVALID_REQUEST


async def test_end_frame_mid_reply_speaks_the_reply_to_its_end():
    from engine import Engine

    backing = Engine.embedded()
    engine = RecordingEngine(backing)
    try:
        tts = Qwen3StreamingTTS(engine=engine)
        reply = "Your table is booked. Enjoy your dinner!"
        down, _, said, _ = await speak(tts, llm_turn(reply)[:-1])  # EndFrame, no response end
    finally:
        await backing.aclose()
    assert said == [reply]  # "Enjoy your dinner!" was lost
    assert not engine.streams[0].done.cancelled
    assert [w.text for w in of_type(down, TTSTextFrame)] == reply.split()


# -- real servers, frozen and killed --------------------------------------------------------


class FaultOnFirstAudio:
    """A RemoteEngine whose first stream runs `fault` at its first audio chunk."""

    def __init__(self, remote: RemoteEngine, fault):
        self.remote, self.fault = remote, fault
        self.fault_at: float | None = None

    def open_stream(self, *args, **options):
        return _FaultStream(self, self.remote.open_stream(*args, **options))

    async def aclose(self):
        await self.remote.aclose()


class _FaultStream:
    def __init__(self, engine: FaultOnFirstAudio, inner):
        self._engine, self._inner = engine, inner

    def push_text(self, text):
        self._inner.push_text(text)

    def end_input(self):
        self._inner.end_input()

    def cancel(self):
        self._inner.cancel()

    async def events(self):
        async for event in self._inner.events():
            yield event
            if isinstance(event, AudioChunk) and self._engine.fault_at is None:
                self._engine.fault_at = time.monotonic()
                self._engine.fault()


@pytest.fixture
def server_process():
    from server_harness import ServerProcess

    process = ServerProcess()
    yield process
    process.stop()


LONG_REPLY = (
    "This answer goes on for a while, so that the server is still speaking when it stops, "
    "and there is plenty left to say."
)


@pytest.mark.parametrize("fault", ["SIGSTOP", "SIGKILL"])
async def test_a_frozen_or_killed_server_keeps_only_the_spoken_words(server_process, fault):
    engine = FaultOnFirstAudio(
        RemoteEngine(server_process.ws_url),
        lambda: server_process.signal(getattr(signal, fault)),
    )
    try:
        tts = Qwen3StreamingTTS(engine=engine)
        down, _, said, clock = await speak(tts, llm_turn(LONG_REPLY, gap=0.01))
    finally:
        server_process.signal(signal.SIGCONT)
        await engine.aclose()
    timed = " ".join(w.text for w in of_type(down, TTSTextFrame))
    assert said == [timed] and LONG_REPLY.startswith(timed) and timed != LONG_REPLY
    # was 48.9 s and every word of the reply (frozen)
    assert clock.errors and clock.errors[0][0] - engine.fault_at < 4.0


class LivePipeline:
    """A pipeline that runs until the test leaves it, so that a server can die, come back or
    refuse between turns; `say` runs one LLM turn and returns the frames it sent downstream."""

    def __init__(self, tts: Qwen3StreamingTTS):
        self.clock, self.tap = ErrorClock(), Tap()
        self.worker = PipelineWorker(
            Pipeline([self.clock, tts, self.tap]), params=params(), cancel_on_idle_timeout=False
        )

    async def __aenter__(self) -> "LivePipeline":
        runner = WorkerRunner(handle_sigint=False)
        await runner.add_workers(self.worker)
        self._run = asyncio.create_task(runner.run())
        return self

    async def __aexit__(self, *exc_info):
        await self.worker.cancel()
        await self._run

    async def say(self, text: str, on_first_audio=None) -> list[Frame]:
        start = len(self.tap.frames)
        for frame in llm_turn(text, gap=0.01):
            if isinstance(frame, SleepFrame):
                await asyncio.sleep(frame.sleep)
                if on_first_audio and of_type(self.tap.frames[start:], TTSAudioRawFrame):
                    on_first_audio()
                    on_first_audio = None
            else:
                await self.worker.queue_frame(frame)
        # The end of the reply comes downstream once the turn's audio context has ended.
        async with asyncio.timeout(30):
            while not of_type(self.tap.frames[start:], LLMFullResponseEndFrame):
                await asyncio.sleep(0.01)
        return self.tap.frames[start:]


def connection_events(tts: Qwen3StreamingTTS) -> dict[str, asyncio.Event]:
    """An event per connection handler of the service, set each time the handler runs."""
    events = {name: asyncio.Event() for name in ("on_connected", "on_disconnected")}
    for name, event in events.items():

        async def handler(service, *args, event=event):
            event.set()

        tts.add_event_handler(name, handler)
    return events


async def test_a_killed_server_is_reported_disconnected_at_once(server_process):
    engine = RemoteEngine(server_process.ws_url)
    tts = Qwen3StreamingTTS(engine=engine)
    events = connection_events(tts)
    try:
        async with LivePipeline(tts):
            await asyncio.wait_for(events["on_connected"].wait(), 10)
            server_process.kill()
            # The warm connection closes with the process; was reported only when the
            # pipeline ended.
            await asyncio.wait_for(events["on_disconnected"].wait(), 2.0)
            assert not tts.is_usable  # a ServiceSwitcher fails over now
    finally:
        await engine.aclose()


async def test_later_turns_speak_once_a_killed_server_is_back(server_process):
    engine = RemoteEngine(server_process.ws_url)
    tts = Qwen3StreamingTTS(engine=engine)
    events = connection_events(tts)
    try:
        async with LivePipeline(tts) as pipeline:
            await asyncio.wait_for(events["on_connected"].wait(), 10)
            events["on_connected"].clear()
            await pipeline.say(LONG_REPLY, on_first_audio=server_process.kill)
            await asyncio.wait_for(events["on_disconnected"].wait(), 10)
            await asyncio.to_thread(server_process.start)  # the same port
            await asyncio.wait_for(events["on_connected"].wait(), 10)  # was never
            errors_before = len(pipeline.clock.errors)
            down = await pipeline.say("All good now.")
    finally:
        await engine.aclose()
    assert [w.text for w in of_type(down, TTSTextFrame)] == ["All", "good", "now."]
    assert of_type(down, TTSAudioRawFrame) and len(pipeline.clock.errors) == errors_before


async def test_a_wrong_api_key_is_reported_as_such_first():
    from server_harness import start_server

    server = start_server(api_key="the-right-key")
    engine = RemoteEngine(server.ws_url, api_key="a-wrong-key")
    try:
        tts = Qwen3StreamingTTS(engine=engine)
        _, up, said, _ = await speak(tts, [SleepFrame(0.5), *llm_turn("Hello there.")])
    finally:
        await engine.aclose()
        server.stop()
    errors = of_type(up, ErrorFrame)
    # Was CONNECTIVITY: the warm connection's failed handshake, as if nothing listened.
    assert errors and errors[0].category is ErrorCategory.AUTHORIZATION, errors
    assert said in ([], [""]) and not tts.is_usable


# -- the event loop, metrics, connection events, languages ----------------------------------


@pytest.mark.parametrize("token", ["word " * 4000, "x" * 20000], ids=["words", "no_spaces"])
async def test_a_huge_token_does_not_hold_the_event_loop(token):
    from engine import Engine

    backing = Engine.embedded()
    try:
        tts = Qwen3StreamingTTS(engine=backing)
        task = PipelineTask(Pipeline([tts]), params=params(), cancel_on_idle_timeout=False)
        run = asyncio.create_task(PipelineRunner(handle_sigint=False).run(task))
        turn = [LLMFullResponseStartFrame(), LLMTextFrame("Hello there."), LLMFullResponseEndFrame()]
        await task.queue_frames(turn)  # everything loaded before the watch
        await asyncio.sleep(0.5)
        async with watch_loop() as loop:
            # One 20,000-character token, its turn spoken for a second, then cancelled.
            await task.queue_frames(
                [LLMFullResponseStartFrame(), LLMTextFrame(token), LLMFullResponseEndFrame()]
            )
            await asyncio.sleep(1.0)
            await task.cancel()
            await run
    finally:
        await backing.aclose()
    # Was 11.6 s in one piece ("word " * 4000), 0.1 s without spaces; a few ms on a quiet
    # machine now (docs/benchmarks.md).
    assert loop.longest_cpu < 0.03, loop.longest_cpu


@pytest.mark.parametrize("token_chars", [None, 7, 3], ids=["one_token", "tokens", "short_tokens"])
@pytest.mark.parametrize(
    "reply",
    [
        "Start " + "ab" * 350 + " middle " + "中文" * 150 + " end.",
        "我说：hello world 你好 again, 好的。 Fine.",
    ],
    ids=["a_700_character_word", "chinese_between_words"],
)
async def test_the_context_gets_the_reply_with_its_spaces(reply, token_chars):
    from engine import Engine

    size = token_chars or len(reply)
    tokens = [reply[i : i + size] for i in range(0, len(reply), size)]
    backing = Engine.embedded()
    try:
        tts = Qwen3StreamingTTS(engine=backing)
        frames = [LLMFullResponseStartFrame(), *map(LLMTextFrame, tokens), LLMFullResponseEndFrame()]
        _, _, said, _ = await speak(tts, frames)
    finally:
        await backing.aclose()
    # A word longer than a slot is cut into slots and joined back without spaces; the words
    # after Chinese keep their spaces (were joined to it: "你好againm" for "你好 again").
    assert said == [reply]


async def test_metrics_name_the_model_and_connection_events_fire():
    from engine import Engine

    backing = Engine.embedded()
    events: list[str] = []
    try:
        tts = Qwen3StreamingTTS(engine=backing)

        @tts.event_handler("on_connected")
        async def on_connected(service):
            events.append("on_connected")

        @tts.event_handler("on_disconnected")
        async def on_disconnected(service):
            events.append("on_disconnected")

        down, _, _, _ = await speak(tts, [SleepFrame(0.2), *llm_turn("Hello there.")])
    finally:
        await backing.aclose()
    models = {
        data.model
        for frame in of_type(down, MetricsFrame)
        for data in frame.data
        # The worker's initial zero metrics (model None) are not the service's.
        if isinstance(data, TTFBMetricsData) and data.processor == tts.name and data.value
    }
    assert models == {"eSpeak NG"}  # was ''
    assert events == ["on_connected", "on_disconnected"]


class SlowCapabilities:
    """A TCP relay in front of a real server that holds each `/v1/capabilities` request for
    `delay` seconds, as a loaded machine answers the first one: the service learns its model
    only then."""

    def __init__(self, server, delay: float) -> None:
        self._upstream = int(server.http_url.rsplit(":", 1)[1])
        self._delay = delay

    async def __aenter__(self) -> "SlowCapabilities":
        self._writers: list[asyncio.StreamWriter] = []
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.ws_url = f"ws://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/v1/ws"
        return self

    async def __aexit__(self, *exc_info) -> None:
        self._server.close()
        for writer in self._writers:
            writer.transport.abort()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.append(writer)
        first = await reader.read(65536)
        if first.startswith(b"GET /v1/capabilities"):
            await asyncio.sleep(self._delay)
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self._upstream)
        self._writers.append(up_writer)
        up_writer.write(first)

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
            sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer), return_exceptions=True)


async def test_a_greeting_at_pipeline_start_names_the_model_over_a_slow_server():
    """The model is known to a remote engine only once the server has answered; the greeting
    sent as the pipeline starts must already carry it (was '' until the answer came)."""
    from server_harness import start_server

    server = start_server()
    try:
        async with SlowCapabilities(server, delay=1.5) as relay:
            engine = RemoteEngine(relay.ws_url)
            tts = Qwen3StreamingTTS(engine=engine)
            try:
                async with LivePipeline(tts) as pipeline:
                    down = await pipeline.say("Hello there.")
            finally:
                await engine.aclose()
    finally:
        server.stop()
    assert of_type(down, TTSAudioRawFrame)
    models = [
        data.model
        for frame in of_type(down, MetricsFrame)
        for data in frame.data
        # The worker's initial zero metrics (model None) are not the service's.
        if isinstance(data, (TTFBMetricsData, ProcessingMetricsData))
        and data.processor == tts.name
        and data.value
    ]
    assert models and set(models) == {"eSpeak NG"}, models


async def test_pipecat_languages_reach_the_engine_as_tags():
    from engine import Engine

    backing = Engine.embedded()
    engine = RecordingEngine(backing)
    try:
        tts = Qwen3StreamingTTS(
            engine=engine, settings=Qwen3StreamingTTS.Settings(language=Language.EN_GB)
        )
        down, up, said, _ = await speak(tts, llm_turn("Hello there."))
    finally:
        await backing.aclose()
    assert engine.streams[0].options["language"] == "en-gb"  # the embedded British voice
    assert said == ["Hello there."] and not of_type(up, ErrorFrame)
    assert of_type(down, TTSAudioRawFrame)


async def test_service_switcher_fails_over_from_a_refused_server_at_once():
    from engine import Engine
    from pipecat.pipeline.service_switcher import ServiceSwitcher, ServiceSwitcherStrategyFailover

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens once the probe is closed
    down_engine = RemoteEngine(f"ws://127.0.0.1:{port}/v1/ws")
    backing = Engine.embedded()
    primary = Qwen3StreamingTTS(engine=down_engine)
    backup = Qwen3StreamingTTS(engine=backing)
    switcher = ServiceSwitcher([primary, backup], strategy_type=ServiceSwitcherStrategyFailover)
    switched: list[float] = []

    @switcher.strategy.event_handler("on_service_switched")
    async def on_switched(strategy, service):
        switched.append(time.monotonic())

    began = time.monotonic()
    try:
        _, _, said, _ = await speak(switcher, [SleepFrame(1.0), *llm_turn("Hello there.")])
    finally:
        await backing.aclose()
        await down_engine.aclose()
    assert switched and switched[0] - began < 1.0  # the fallback serves the first turn
    assert said == ["Hello there."] and not primary.is_usable


async def test_cancel_frame_mid_reply_keeps_only_the_spoken_words():
    from engine import Engine
    from pipecat.frames.frames import CancelFrame

    backing = Engine.embedded()
    engine = RecordingEngine(backing)
    try:
        tts = Qwen3StreamingTTS(engine=engine)
        frames = llm_turn(LONG_REPLY, gap=0.05)[:20] + [SleepFrame(0.3), CancelFrame()]
        down, _, said, _ = await speak(tts, frames, send_end_frame=False)
    finally:
        await backing.aclose()
    timed = " ".join(w.text for w in of_type(down, TTSTextFrame))
    assert said in ([], [""], [timed]) and LONG_REPLY.startswith(timed)
    assert engine.streams[0].cancel_calls >= 1


# -- word frames in the order spoken, whatever the order Pipecat's tasks run in -------------------


class SentenceThenTwoWords:
    """An engine stream that speaks the reply's first sentence, then the next two words in one
    step (one progress report for both, as a Qwen3 chunk covering two words gives), then the
    rest once the input ends."""

    def __init__(self, reply: str) -> None:
        self.text, self.input_ended = "", False
        self._first_end = reply.index(" The")
        self._second_end = reply.index(" today")
        self._changed = asyncio.Event()

    def push_text(self, text: str) -> None:
        self.text += text
        self._changed.set()

    def end_input(self) -> None:
        self.input_ended = True
        self._changed.set()

    cancel = end_input

    async def _until(self, condition) -> None:
        while not condition():
            self._changed.clear()
            await self._changed.wait()

    async def events(self):
        samples = 0

        def audio(seconds: float) -> AudioChunk:
            nonlocal samples
            chunk = AudioChunk(pcm=tone(seconds, 24000), sample_rate=24000, start_sample=samples)
            samples += chunk.num_samples
            return chunk

        await self._until(lambda: len(self.text) > self._second_end + 1)
        yield Progress(spoken_end=self._first_end, audio_time=0.0)
        yield audio(0.5)
        yield Progress(spoken_end=self._second_end, audio_time=samples / 24000)
        yield audio(0.3)
        await self._until(lambda: self.input_ended)
        yield Progress(spoken_end=len(self.text), audio_time=samples / 24000)
        yield audio(0.5)
        yield Done(usage=Usage(len(self.text), len(self.text), samples / 24000))


class SentenceThenTwoWordsEngine:
    def __init__(self, reply: str) -> None:
        self.reply = reply

    def open_stream(self, *args, **options) -> SentenceThenTwoWords:
        return SentenceThenTwoWords(self.reply)

    async def aclose(self) -> None:
        pass


async def test_word_frames_keep_their_order_when_the_reply_ends_between_two_words():
    """Two words of a sentence still pending in TOKEN mode (no slot yet) reach Pipecat's audio
    context together; its task matches the first, then, before the second, the reply's end
    gives the sentence its slot. Pipecat replayed the first word behind the second: the
    context read "... friend. weather The today ...". The forced pause below is one the task
    can take by itself (it awaits between queued items)."""
    reply = "Hello there, my friend. The weather today is lovely, isn't it?"
    tts = Qwen3StreamingTTS(engine=SentenceThenTwoWordsEngine(reply), normalize=False)
    sequencer, slotted = tts._aggregated_frame_sequencer, asyncio.Event()
    finalize, add_word_timestamps = sequencer.finalize, tts._add_word_timestamps

    async def finalize_then_note(context_id):
        frames = await finalize(context_id)
        slotted.set()
        return frames

    async def pause_after_the(word_times, context_id=None, includes_inter_frame_spaces=False):
        await add_word_timestamps(word_times, context_id, includes_inter_frame_spaces)
        if any(word == "The" for word, _ in word_times):
            await asyncio.wait_for(slotted.wait(), 5)

    sequencer.finalize, tts._add_word_timestamps = finalize_then_note, pause_after_the
    turn = llm_turn(reply, gap=0.03)
    down, _ = await run_test(tts, frames_to_send=[*turn[:-1], SleepFrame(0.3), turn[-1]], pipeline_params=params())
    words = of_type(down, TTSTextFrame)
    assert [w.text for w in words] == reply.split()  # was "... 'friend.', 'weather', 'The', ..."
    assert all(a.pts <= b.pts for a, b in zip(words, words[1:]))


async def test_a_server_killed_mid_turn_is_an_error_within_the_connect_timeout(server_process):
    """Killed mid-turn: the app hears of it (CONNECTIVITY) within the engine's connect timeout;
    a turn while it is down is not handed to the written-off service (Pipecat's way: a
    ServiceSwitcher fails over) and opens nothing; once it is back the next turn speaks in the
    same pipeline."""
    engine = RemoteEngine(server_process.ws_url, open_timeout=2.0)
    tts = Qwen3StreamingTTS(engine=engine)
    events = connection_events(tts)
    killed_at: list[float] = []

    def kill():
        killed_at.append(time.monotonic())
        server_process.kill()

    try:
        async with LivePipeline(tts) as pipeline:
            await asyncio.wait_for(events["on_connected"].wait(), 10)
            events["on_connected"].clear()
            await pipeline.say(LONG_REPLY, on_first_audio=kill)
            first_error_at, first_error = pipeline.clock.errors[0]
            errors_while_up = len(pipeline.clock.errors)
            down = await pipeline.say("Are you there?")
            await asyncio.to_thread(server_process.start)
            await asyncio.wait_for(events["on_connected"].wait(), 10)
            back = await pipeline.say("All good now.")
    finally:
        await engine.aclose()
    assert first_error.category is ErrorCategory.CONNECTIVITY
    assert first_error_at - killed_at[0] < 2.0  # the connect timeout
    assert not of_type(down, TTSAudioRawFrame)
    # The turn sent while it was down is told of too, as CONNECTIVITY (it opened nothing).
    [(_, while_down)] = pipeline.clock.errors[errors_while_up:]
    assert while_down.category is ErrorCategory.CONNECTIVITY and "did not speak a turn" in while_down.error
    assert [w.text for w in of_type(back, TTSTextFrame)] == ["All", "good", "now."]


@pytest.mark.parametrize("when", ["before the pipeline", "between turns"])
async def test_a_turn_sent_while_the_server_is_down_is_a_connectivity_error_within_the_open_timeout(
    server_process, when
):
    """As an app meets it: the server is down (never up yet, or gone between turns), the app
    set an open timeout, a turn is sent: that turn gets a CONNECTIVITY error within the open
    timeout, and the same pipeline speaks once the server is back."""
    open_timeout = 2.0
    engine = RemoteEngine(server_process.ws_url, open_timeout=open_timeout)
    tts = Qwen3StreamingTTS(engine=engine)
    events = connection_events(tts)
    if when == "before the pipeline":
        server_process.kill()
    try:
        async with LivePipeline(tts) as pipeline:
            if when == "between turns":
                await asyncio.wait_for(events["on_connected"].wait(), 10)
                assert [w.text for w in of_type(await pipeline.say("Hello."), TTSTextFrame)] == ["Hello."]
                events["on_connected"].clear()
                server_process.kill()
                await asyncio.wait_for(events["on_disconnected"].wait(), 10)
            sent_at, errors_before = time.monotonic(), len(pipeline.clock.errors)
            down = await pipeline.say("Are you there?")
            await asyncio.to_thread(server_process.start)  # the same port
            await asyncio.wait_for(events["on_connected"].wait(), 10)
            back = await pipeline.say("All good now.")
    finally:
        await engine.aclose()
    assert not of_type(down, TTSAudioRawFrame)
    turn_errors = [(at, e) for at, e in pipeline.clock.errors[errors_before:] if at >= sent_at]
    assert turn_errors and turn_errors[0][1].category is ErrorCategory.CONNECTIVITY
    assert turn_errors[0][0] - sent_at < open_timeout
    assert [w.text for w in of_type(back, TTSTextFrame)] == ["All", "good", "now."] and tts.is_usable
