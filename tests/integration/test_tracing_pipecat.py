"""With `PipelineTask(enable_tracing=True)`, `Qwen3StreamingTTS` produces the TTS spans Pipecat's
own services produce (through Pipecat's public `traced_tts` decorator): one `tts` span per
audio context with the text, the voice, the model, the character count and the TTFB, under the
conversation's turn span; checked with OpenTelemetry's in-memory exporter."""

from __future__ import annotations

import asyncio

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pipecat.frames.frames import EndFrame, TTSUpdateSettingsFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.runner import PipelineRunner
from pipecat.pipeline.task import PipelineTask
from pipecat.services.settings import TTSSettings
from pipecat.tests.utils import SleepFrame
from test_pipecat_tts import llm_turn, params, tokenize

from voice_tts.pipecat import Qwen3StreamingTTS


@pytest.fixture(scope="module")
def spans() -> InMemorySpanExporter:
    """The process's tracer provider (OpenTelemetry allows one), exporting to memory."""
    exporter = InMemorySpanExporter()
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return exporter


async def run_traced(tts, frames) -> None:
    task = PipelineTask(Pipeline([tts]), params=params(), enable_tracing=True, enable_turn_tracking=True)
    runner = asyncio.create_task(PipelineRunner(handle_sigint=False).run(task))
    for frame in frames:
        if isinstance(frame, SleepFrame):
            await asyncio.sleep(frame.sleep)
        else:
            await task.queue_frame(frame)
    await task.queue_frame(EndFrame())
    await runner


async def test_each_turn_is_a_tts_span_with_text_voice_model_characters_and_ttfb(spans):
    from engine import Engine

    spans.clear()
    engine = Engine.embedded()
    replies = ["Hello there.", "Good bye now."]
    try:
        tts = Qwen3StreamingTTS(engine=engine, settings=TTSSettings(voice="female"))
        voice = TTSUpdateSettingsFrame(delta=TTSSettings(voice="male"))
        # A turn starts once the one before has been spoken, as in a conversation.
        await run_traced(
            tts, [*llm_turn(replies[0]), SleepFrame(0.5), voice, *llm_turn(replies[1])]
        )
    finally:
        await engine.aclose()
    finished = spans.get_finished_spans()
    tts_spans = [s for s in finished if s.name == "tts"]
    assert len(tts_spans) == 2
    for span, reply, voice_id in zip(tts_spans, replies, ["female", "male"]):
        attributes = span.attributes
        # Pipecat joins a context's run_tts texts with spaces: one per LLM token here.
        assert attributes["text"].split() == [t.strip() for t in tokenize(reply) if t.strip()]
        assert attributes["metrics.character_count"] == len(reply)
        assert attributes["voice_id"] == voice_id and attributes["settings.voice"] == voice_id
        assert attributes["gen_ai.request.model"] == "eSpeak NG"
        assert attributes["gen_ai.output.type"] == "speech"
        assert 0 < attributes["metrics.ttfb"] < 5
    # Each under its turn's span, in the conversation's trace.
    turns = {s.context.span_id: s for s in finished if s.name == "turn"}
    assert all(span.parent.span_id in turns for span in tts_spans)
    assert len({span.context.trace_id for span in tts_spans}) == 1


async def test_the_servers_span_of_a_turn_joins_the_pipelines_trace(spans):
    """A remote engine's server exports its span of the turn into the trace of the pipeline's
    turn, so one trace shows the agent and the server."""
    from server_harness import start_server
    from test_server_tracing import OtlpReceiver

    from voice_tts.client import RemoteEngine

    spans.clear()
    receiver = OtlpReceiver()
    server = start_server(otlp_traces_endpoint=receiver.url)
    engine = RemoteEngine(server.ws_url)
    try:
        await run_traced(Qwen3StreamingTTS(engine=engine), llm_turn("Hello there."))
    finally:
        await engine.aclose()
        server.stop()  # sends what it holds
        receiver.close()
    [turn] = [s for s in spans.get_finished_spans() if s.name == "turn"]
    [server_span] = receiver.named("tts.stream")
    assert server_span.trace_id == turn.context.trace_id.to_bytes(16, "big")
    assert server_span.parent_span_id == turn.context.span_id.to_bytes(8, "big")
