"""`Qwen3StreamingTTS` in real Pipecat pipelines: tokens in, audio, words and metrics out,
barge-in, settings and errors. Every behaviour a real engine can show is run on the real
engines (the embedded voice; the Qwen3 engine on the tiny checkpoint once it loads); the fake
engine only stands in for failures a real engine cannot be made to show."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from pipecat.frames.frames import (
    AggregatedTextFrame,
    AggregatedTextProgressFrame,
    ErrorFrame,
    InterruptionFrame,
    LLMAssistantPushAggregationFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    MetricsFrame,
    TTSAudioRawFrame,
    TTSSpeakFrame,
    TTSStartedFrame,
    TTSStoppedFrame,
    TTSTextFrame,
    TTSUpdateSettingsFrame,
)
from pipecat.metrics.metrics import (
    ProcessingMetricsData,
    TTFAMetricsData,
    TTFBMetricsData,
    TTSUsageMetricsData,
)
from pipecat.observers.base_observer import BaseObserver, FramePushed
from pipecat.pipeline.worker import PipelineParams
from pipecat.services.tts_service import TextAggregationMode
from pipecat.tests.utils import SleepFrame, run_test
from pipecat.transcriptions.language import Language
from pipecat.utils.errors import ErrorCategory
from pipecat_harness import (
    ENGINE_KINDS,
    BargeInPipeline,
    FakeEngine,
    RecordingEngine,
    index_of,
    of_type,
    open_real_engine,
    rms,
)
from scripted_llm import tokenize

from voice_tts.pipecat import Qwen3StreamingTTS

REPLY = "Hello there, my friend. The weather today is lovely, isn't it?"
SENTENCES = ["Hello there, my friend.", "The weather today is lovely, isn't it?"]
# Two voices of each engine, for the settings tests.
VOICES = {"embedded": ("female", "male"), "qwen3-tiny": ("ryan", "vivian")}
# An LLM writes ~30-100 tokens/s; tokens are sent at that pace, not all at once.
TOKEN_GAP_S = 0.03


@dataclass
class RealEngine:
    kind: str
    engine: RecordingEngine

    @property
    def streams(self):
        return self.engine.streams


@pytest.fixture(params=ENGINE_KINDS)
async def real(request, tiny_checkpoint):
    engine = open_real_engine(request.param, tiny_checkpoint)
    yield RealEngine(request.param, RecordingEngine(engine))
    await engine.aclose()


def llm_turn(text: str, gap: float = TOKEN_GAP_S) -> list:
    """An LLM reply as Pipecat sees it: start, one LLMTextFrame per token, end."""
    frames: list = [LLMFullResponseStartFrame()]
    for token in tokenize(text):
        frames += [LLMTextFrame(token), SleepFrame(gap)]
    return frames + [LLMFullResponseEndFrame()]


def params(rate: int = 24000) -> PipelineParams:
    return PipelineParams(
        audio_out_sample_rate=rate, enable_metrics=True, enable_usage_metrics=True
    )


def context_ids(frames: list, cls: type) -> list[str]:
    return [frame.context_id for frame in of_type(frames, cls)]


class PushTimes(BaseObserver):
    """When each frame left `source` (pipeline clock, ns)."""

    def __init__(self, source):
        super().__init__()
        self._source = source
        self.pushed: list[tuple[int, object]] = []

    async def on_push_frame(self, data: FramePushed):
        if data.source is self._source:
            self.pushed.append((data.timestamp, data.frame))

    def first(self, cls: type) -> int:
        return next(t for t, frame in self.pushed if isinstance(frame, cls))


# ---------------------------------------------------------------------------------------------
# 1-3. Token streaming: frame order, words and progress, metrics
# ---------------------------------------------------------------------------------------------


async def test_token_stream_frame_order(real):
    tts = Qwen3StreamingTTS(engine=real.engine)
    requests: list[tuple[str, str]] = []
    request_times: list[int] = []

    @tts.event_handler("on_tts_request")
    async def on_tts_request(service, context_id, text):
        requests.append((context_id, text))
        request_times.append(service.get_clock().get_time())

    times = PushTimes(tts)
    down, _ = await run_test(
        tts, frames_to_send=llm_turn(REPLY), pipeline_params=params(16000), observers=[times]
    )

    # Every token went to the engine as it arrived: one request each, one context, one stream,
    # and speech started while the reply was still being written.
    assert [text for _, text in requests] == tokenize(REPLY)
    assert len({context_id for context_id, _ in requests}) == 1
    assert len(real.streams) == 1
    stream = real.streams[0]
    assert stream.options["sample_rate"] == 16000
    assert stream.input_ended and not stream.done.cancelled
    assert times.first(TTSAudioRawFrame) < request_times[-1]

    audio = of_type(down, TTSAudioRawFrame)
    assert audio and all(f.sample_rate == 16000 and f.num_channels == 1 for f in audio)
    assert rms(b"".join(f.audio for f in audio)) > 100
    started, stopped = of_type(down, TTSStartedFrame), of_type(down, TTSStoppedFrame)
    assert len(started) == len(stopped) == 1
    assert index_of(down, started[0]) < index_of(down, audio[0])
    assert index_of(down, audio[-1]) < index_of(down, stopped[0])
    spoken = [f for f in down if isinstance(f, (TTSAudioRawFrame, TTSTextFrame, TTSStoppedFrame))]
    end = of_type(down, LLMFullResponseEndFrame)
    assert len(end) == 1 and index_of(down, end[0]) > index_of(down, spoken[-1])


async def test_word_frames_and_progress(real):
    tts = Qwen3StreamingTTS(engine=real.engine)
    down, _ = await run_test(tts, frames_to_send=llm_turn(REPLY), pipeline_params=params())

    words = of_type(down, TTSTextFrame)
    assert [w.text for w in words] == REPLY.split()
    assert all(w.append_to_context for w in words)
    pts = [w.pts for w in words]
    assert all(a <= b for a, b in zip(pts, pts[1:])), "word times never go back"
    if real.kind == "embedded":
        # The embedded voice times every word exactly; Qwen3 reports progress per audio chunk,
        # so words starting in one chunk share its (conservative) time.
        assert all(a < b for a, b in zip(pts, pts[1:]))

    # One sentence anchor per sentence; words and progress point at their sentence.
    anchors = [f for f in down if type(f) is AggregatedTextFrame and f.will_be_spoken]
    assert [a.text.strip() for a in anchors] == SENTENCES
    by_id = {a.id: a for a in anchors}
    assert all(w.segment_id in by_id for w in words)
    progress = of_type(down, AggregatedTextProgressFrame)
    for anchor in anchors:
        steps = [p.accumulated_text for p in progress if p.segment_id == anchor.id]
        assert steps and all(len(a) <= len(b) for a, b in zip(steps, steps[1:]))
        assert steps[-1].strip() == anchor.text.strip()


async def test_metrics(real):
    tts = Qwen3StreamingTTS(engine=real.engine)
    second = "Sure, I can help with that."
    down, _ = await run_test(
        tts, frames_to_send=llm_turn(REPLY) + llm_turn(second), pipeline_params=params()
    )

    # The worker first reports every metric at zero; these are the measured ones.
    data = [
        d
        for m in of_type(down, MetricsFrame)
        for d in m.data
        if d.processor == tts.name and getattr(d, "value", None) != 0.0
    ]
    ttfb = [d for d in data if isinstance(d, TTFBMetricsData)]
    ttfa = [d for d in data if isinstance(d, TTFAMetricsData)]
    usage = [d.value for d in data if isinstance(d, TTSUsageMetricsData)]
    assert len(ttfb) == 2 and len(ttfa) == 2
    assert usage == [len(REPLY), len(second)]
    assert not [d for d in data if isinstance(d, ProcessingMetricsData)]


# ---------------------------------------------------------------------------------------------
# 4-5. Interruptions
# ---------------------------------------------------------------------------------------------


async def test_interruption_cancels_engine(real):
    """Barge-in while the LLM is still writing: the engine stream is cancelled, nothing of that
    turn follows the interruption, and the next turn speaks."""
    tts = Qwen3StreamingTTS(engine=real.engine)
    unfinished = [f for f in llm_turn(REPLY) if not isinstance(f, LLMFullResponseEndFrame)]
    next_turn = "Okay, go ahead."
    down, _ = await run_test(
        tts,
        frames_to_send=[*unfinished, SleepFrame(0.3), InterruptionFrame(), *llm_turn(next_turn)],
        pipeline_params=params(),
    )

    first, second = real.streams
    assert first.cancel_calls == 1 and first.done is not None and first.done.cancelled
    interruption = index_of(down, of_type(down, InterruptionFrame)[0])
    first_context = of_type(down, TTSStartedFrame)[0].context_id
    after = down[interruption:]
    assert first_context not in context_ids(after, TTSAudioRawFrame)
    assert first_context not in context_ids(after, TTSTextFrame)
    assert not second.done.cancelled
    assert [w.text for w in of_type(after, TTSTextFrame)] == next_turn.split()


async def test_stale_events_dropped():
    """An engine that goes on talking for a while after cancel(): none of it comes out."""
    engine = FakeEngine(realtime=True, cancel_delay=0.3)
    tts = Qwen3StreamingTTS(engine=engine)
    unfinished = [f for f in llm_turn(REPLY) if not isinstance(f, LLMFullResponseEndFrame)]
    down, _ = await run_test(
        tts,
        frames_to_send=[
            *unfinished,
            LLMTextFrame(" And more words keep coming here."),
            SleepFrame(0.1),
            InterruptionFrame(),
            SleepFrame(0.5),
            *llm_turn("Next."),
        ],
        pipeline_params=params(),
    )

    stale = engine.streams[0]
    assert stale.cancelled and stale.chunks_after_cancel > 0, "the engine must talk after cancel"
    interruption = index_of(down, of_type(down, InterruptionFrame)[0])
    first_context = of_type(down, TTSStartedFrame)[0].context_id
    after = down[interruption:]
    assert first_context not in context_ids(after, TTSAudioRawFrame)
    assert first_context not in context_ids(after, TTSTextFrame)
    assert [w.text for w in of_type(after, TTSTextFrame)] == ["Next."]


# ---------------------------------------------------------------------------------------------
# 6. TTSSpeakFrame
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("append_to_context", [True, False])
async def test_speak_frame(real, append_to_context):
    tts = Qwen3StreamingTTS(engine=real.engine)
    text = "Welcome back. How can I help?"
    down, _ = await run_test(
        tts,
        frames_to_send=[TTSSpeakFrame(text, append_to_context=append_to_context)],
        pipeline_params=params(),
    )

    assert len(real.streams) == 1 and real.streams[0].text
    started, stopped = of_type(down, TTSStartedFrame), of_type(down, TTSStoppedFrame)
    assert len(started) == len(stopped) == 1
    assert started[0].append_to_context is append_to_context
    assert of_type(down, TTSAudioRawFrame)
    assert [w.text for w in of_type(down, TTSTextFrame)] == text.split()
    push = of_type(down, LLMAssistantPushAggregationFrame)
    if append_to_context:
        assert len(push) == 1 and index_of(down, push[0]) < index_of(down, stopped[0])
    else:
        assert not push


@pytest.mark.parametrize("interruptible", [True, False])
async def test_speak_frame_queued_at_an_interruption(real, interruptible):
    """A TTSSpeakFrame queued behind a reply still being written: an interruption drops both,
    unless the speak frame is uninterruptible, which then still plays in full."""
    tts = Qwen3StreamingTTS(engine=real.engine)
    unfinished = [f for f in llm_turn(REPLY) if not isinstance(f, LLMFullResponseEndFrame)]
    text = "Please hold while I look that up for you."
    speak = TTSSpeakFrame(text)
    speak.interruptible = interruptible
    down, _ = await run_test(
        tts,
        frames_to_send=[*unfinished, speak, SleepFrame(0.3), InterruptionFrame(), SleepFrame(0.3)],
        pipeline_params=params(),
    )

    reply, spoken = real.streams
    assert reply.cancel_calls == 1 and reply.done.cancelled
    if not interruptible:
        assert spoken.cancel_calls == 0 and not spoken.done.cancelled
    interruption = index_of(down, of_type(down, InterruptionFrame)[0])
    words_after = [w.text for w in of_type(down[interruption:], TTSTextFrame)]
    assert words_after == ([] if interruptible else text.split())


# ---------------------------------------------------------------------------------------------
# 7. Settings
# ---------------------------------------------------------------------------------------------


async def test_settings_update_between_turns(real):
    voice_a, voice_b = VOICES[real.kind]
    tts = Qwen3StreamingTTS(engine=real.engine, settings=Qwen3StreamingTTS.Settings(voice=voice_a))
    update = TTSUpdateSettingsFrame(
        delta=Qwen3StreamingTTS.Settings(voice=voice_b, instruct="Speak slowly.")
    )
    await run_test(
        tts,
        frames_to_send=[*llm_turn("First turn."), update, *llm_turn("Second turn.")],
        pipeline_params=params(),
    )

    first, second = real.streams
    assert first.options["voice"] == voice_a and first.options["instruct"] is None
    assert second.options["voice"] == voice_b and second.options["instruct"] == "Speak slowly."


async def test_settings_update_mid_turn(real):
    """The turn goes on in a new stream with the new voice; the words already spoken in the
    old one still produce word frames."""
    voice_a, voice_b = VOICES[real.kind]
    tts = Qwen3StreamingTTS(engine=real.engine, settings=Qwen3StreamingTTS.Settings(voice=voice_a))
    first_part, second_part = "Hello there, my friend.", " How are you doing today?"
    frames = llm_turn(first_part + second_part)
    split = 1 + 2 * len(tokenize(first_part))
    update = TTSUpdateSettingsFrame(delta=Qwen3StreamingTTS.Settings(voice=voice_b))
    down, _ = await run_test(
        tts,
        frames_to_send=[*frames[:split], SleepFrame(0.2), update, *frames[split:]],
        pipeline_params=params(),
    )

    first, second = real.streams
    assert first.options["voice"] == voice_a and second.options["voice"] == voice_b
    assert first.input_ended and not first.done.cancelled
    words = of_type(down, TTSTextFrame)
    assert [w.text for w in words] == (first_part + second_part).split()
    assert len({w.context_id for w in words}) == 2
    assert len(of_type(down, TTSStoppedFrame)) == 2


# ---------------------------------------------------------------------------------------------
# 8. Errors and silent turns
# ---------------------------------------------------------------------------------------------


async def test_engine_error_then_next_turn_speaks():
    engine = FakeEngine(fail_after_chars=20)
    tts = Qwen3StreamingTTS(engine=engine)
    down, up = await run_test(
        tts, frames_to_send=llm_turn(REPLY) + llm_turn("All good."), pipeline_params=params()
    )

    errors = of_type(up, ErrorFrame)
    assert len(errors) == 1 and "engine_error" in errors[0].error
    assert not errors[0].fatal and tts.is_usable
    assert len(of_type(down, TTSStoppedFrame)) == 2
    second = of_type(down, TTSStartedFrame)[1].context_id
    assert second in context_ids(down, TTSAudioRawFrame)
    assert [w.text for w in of_type(down, TTSTextFrame) if w.context_id == second] == [
        "All",
        "good.",
    ]


async def test_unknown_voice_is_an_invalid_request(real):
    """A voice the engine does not have is reported as a bad request; with a valid voice set,
    the next turn speaks."""
    tts = Qwen3StreamingTTS(
        engine=real.engine, settings=Qwen3StreamingTTS.Settings(voice="no-such-voice")
    )
    update = TTSUpdateSettingsFrame(delta=Qwen3StreamingTTS.Settings(voice=VOICES[real.kind][0]))
    down, up = await run_test(
        tts,
        frames_to_send=[*llm_turn("Hello."), SleepFrame(0.3), update, *llm_turn("Hello again.")],
        pipeline_params=params(),
    )

    errors = of_type(up, ErrorFrame)
    assert errors and errors[0].category is ErrorCategory.INVALID_REQUEST
    second = real.streams[-1]
    assert second.options["voice"] == VOICES[real.kind][0] and not second.done.cancelled
    assert [w.text for w in of_type(down, TTSTextFrame)][-2:] == ["Hello", "again."]


async def test_silent_engine_is_written_off_after_three_turns():
    tts = Qwen3StreamingTTS(engine=FakeEngine(silent=True))
    _, up = await run_test(
        tts,
        frames_to_send=llm_turn("One.") + llm_turn("Two.") + llm_turn("Three."),
        pipeline_params=params(),
    )

    errors = of_type(up, ErrorFrame)
    assert len(errors) == 3
    assert "3 consecutive TTS contexts completed with no audio" in errors[-1].error
    assert not tts.is_usable


async def test_empty_turns_do_not_count_as_silence(real):
    """Turns with nothing to say (no text, whitespace, punctuation only) never write the
    service off; the next real turn speaks."""
    tts = Qwen3StreamingTTS(engine=real.engine)
    empty_turns = [LLMFullResponseStartFrame(), LLMFullResponseEndFrame()]
    for text in ["  ", "...", " -- ", "…"]:
        empty_turns += [LLMFullResponseStartFrame(), LLMTextFrame(text), LLMFullResponseEndFrame()]
    down, up = await run_test(
        tts, frames_to_send=[*empty_turns, *llm_turn("Still here.")], pipeline_params=params()
    )

    assert not of_type(up, ErrorFrame)
    assert tts.is_usable
    assert [w.text for w in of_type(down, TTSTextFrame)][-2:] == ["Still", "here."]


@pytest.mark.parametrize(
    "pipeline_rate, asked_rate, engine_rate",
    [
        (16000, 16000, None),  # the engine makes the pipeline's rate
        (8000, 8000, 24000),  # an engine that makes only its own rate
        (32000, 24000, None),  # a rate engines do not offer
    ],
)
async def test_audio_at_the_pipeline_rate(pipeline_rate, asked_rate, engine_rate):
    engine = FakeEngine(native_rate=engine_rate, seconds_per_char=0.05)
    tts = Qwen3StreamingTTS(engine=engine)
    down, _ = await run_test(
        tts, frames_to_send=llm_turn("Hello there."), pipeline_params=params(pipeline_rate)
    )

    assert engine.streams[0].options["sample_rate"] == asked_rate
    audio = of_type(down, TTSAudioRawFrame)
    assert audio and all(f.sample_rate == pipeline_rate for f in audio)
    seconds = sum(len(f.audio) for f in audio) / 2 / pipeline_rate
    assert seconds == pytest.approx(0.05 * len("Hellothere."), abs=0.01)


# ---------------------------------------------------------------------------------------------
# 9. Barge-in: the LLM context holds exactly what was played
# ---------------------------------------------------------------------------------------------

LONG_REPLY = (
    "Thanks for calling. I can help you change your booking, check the status of a refund, "
    "or answer questions about our opening hours and locations."
)


async def test_barge_in_context_truncation(real):
    call = BargeInPipeline(Qwen3StreamingTTS(engine=real.engine))
    stopped: list = []

    @call.assistant.event_handler("on_assistant_turn_stopped")
    async def on_assistant_turn_stopped(aggregator, message):
        stopped.append(message)

    async def converse():
        await asyncio.sleep(0.2)
        await call.stream_reply(tokenize(LONG_REPLY), seconds_between=TOKEN_GAP_S)
        while not call.output.played:
            await asyncio.sleep(0.01)
        await asyncio.sleep(1.5)
        return await call.barge_in()

    interrupted_at = await call.run(converse)

    assert len(stopped) == 1 and stopped[0].interrupted
    # Played audio, measured at the sound card, against each word's start in that audio.
    call.assert_heard_the_played_words(LONG_REPLY, interrupted_at)


# ---------------------------------------------------------------------------------------------
# 10. Sentence aggregation gives the same frames
# ---------------------------------------------------------------------------------------------


async def test_sentence_mode_parity(real):
    tts = Qwen3StreamingTTS(engine=real.engine, text_aggregation_mode=TextAggregationMode.SENTENCE)
    requests: list[tuple[str, str]] = []

    @tts.event_handler("on_tts_request")
    async def on_tts_request(service, context_id, text):
        requests.append((context_id, text))

    down, _ = await run_test(tts, frames_to_send=llm_turn(REPLY), pipeline_params=params(16000))

    assert [text.strip() for _, text in requests] == SENTENCES
    assert len({context_id for context_id, _ in requests}) == 1
    assert len(real.streams) == 1
    assert [w.text for w in of_type(down, TTSTextFrame)] == REPLY.split()
    audio = of_type(down, TTSAudioRawFrame)
    assert audio and all(f.sample_rate == 16000 for f in audio)
    started, stopped = of_type(down, TTSStartedFrame), of_type(down, TTSStoppedFrame)
    assert len(started) == len(stopped) == 1
    assert index_of(down, started[0]) < index_of(down, audio[0])
    assert index_of(down, audio[-1]) < index_of(down, stopped[0])


# ---------------------------------------------------------------------------------------------
# The default engine: the server at VOICE_TTS_URL, else the embedded voice in-process
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["in-process", "VOICE_TTS_URL"])
async def test_default_engine(where, monkeypatch):
    from server_harness import start_server

    server = start_server() if where == "VOICE_TTS_URL" else None
    if server:
        monkeypatch.setenv("VOICE_TTS_URL", server.ws_url)
    else:
        monkeypatch.delenv("VOICE_TTS_URL", raising=False)
    try:
        down, up = await run_test(
            Qwen3StreamingTTS(), frames_to_send=llm_turn(REPLY), pipeline_params=params(16000)
        )
    finally:
        if server:
            server.stop()

    assert not of_type(up, ErrorFrame)
    assert [w.text for w in of_type(down, TTSTextFrame)] == REPLY.split()
    audio = of_type(down, TTSAudioRawFrame)
    assert all(f.sample_rate == 16000 for f in audio)
    assert rms(b"".join(f.audio for f in audio)) > 100


async def test_sentence_mode_joins_chinese_sentences_as_written(real):
    # Pipecat hands each sentence on its own; English ones are joined with the space Pipecat
    # took, Chinese ones (written without spaces) as they were written.
    tts = Qwen3StreamingTTS(
        engine=real.engine,
        text_aggregation_mode=TextAggregationMode.SENTENCE,
        settings=Qwen3StreamingTTS.Settings(language=Language.ZH),
    )
    sentences = ["你好，朋友。", "今天天气很好。", "我们走吧！"]
    frames = [LLMFullResponseStartFrame()]
    for sentence in sentences:
        frames += [LLMTextFrame(sentence), SleepFrame(TOKEN_GAP_S)]
    down, _ = await run_test(tts, frames_to_send=frames + [LLMFullResponseEndFrame()], pipeline_params=params(16000))

    assert len(real.streams) == 1
    assert real.streams[0].text == "".join(sentences)
    assert of_type(down, TTSAudioRawFrame)
