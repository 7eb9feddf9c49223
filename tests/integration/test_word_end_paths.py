"""On every path that normalizes, a word's tokens become final with the delta that ends the word,
not with the next word's text (issue 28), and the stream still gives one-shot's tokens and words.

Each test sends an LLM's deltas up to the one that ends the first word ("Sure" ends with
" thing"), waits for the engine's first final tokens before sending anything more, and checks
they are exactly "Sure" and came while the engine had no text of the next word. Before the
handoff they came only with " thing", which is sent after the wait: the wait would fail.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from pipecat.frames.frames import EndFrame, LLMFullResponseEndFrame, LLMFullResponseStartFrame, LLMTextFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.workers.runner import WorkerRunner
from server_harness import receive_until_done, start_server
from token_arrival import TokenRecordingEngine, TokenRecordingStream, first_tokens
from websockets.asyncio.client import connect

from voice_tts.bench.deltas import llm_deltas
from voice_tts.client import RemoteEngine
from voice_tts.session import SessionDone, TTSSession, WordsEvent
from voice_tts.tn import normalize

TEXT = "Sure thing, see you at 7 pm on March 3rd."
DELTAS = llm_deltas(TEXT)
ENDS_FIRST_WORD = DELTAS.index(" thing") + 1  # the deltas up to the one that shows "Sure" ended


@pytest.fixture
def server(recording):
    server = start_server(recording)
    recording.forget_streams()  # the server's warm-up turn
    yield server
    server.stop()


def check_first_word(stream: TokenRecordingStream, tokenizer, spoken_then: str = "Sure") -> None:
    """The first final tokens are "Sure"'s, and came when the engine had `spoken_then`: normalized
    text has nothing of the next word yet (its separator comes with it)."""
    first = stream.first_arrival
    assert first.ids == tuple(tokenizer.encode("Sure"))
    assert first.spoken == spoken_then


def check_whole_turn(stream: TokenRecordingStream, tokenizer, normalized: bool = True) -> None:
    spoken = normalize(TEXT) if normalized else TEXT
    assert stream.spoken == spoken
    assert stream.ids == tokenizer.encode(spoken)


async def session_turn(session: TTSSession) -> tuple[list[str], SessionDone]:
    words: list[str] = []
    async for event in session.events():
        if isinstance(event, WordsEvent):
            words += [w.text for w in event.words]
        elif isinstance(event, SessionDone):
            return words, event
    raise AssertionError("no SessionDone")


@pytest.mark.parametrize("where", ["in-process", "server"])
async def test_tts_session(recording, where, request):
    engine = recording
    if where == "server":
        engine = RemoteEngine(request.getfixturevalue("server").ws_url)
    session = TTSSession(engine)
    events = asyncio.ensure_future(session_turn(session))
    for delta in DELTAS[:ENDS_FIRST_WORD]:
        session.push_text(delta)
    stream = await first_tokens(recording)
    check_first_word(stream, recording.tokenizer)
    for delta in DELTAS[ENDS_FIRST_WORD:]:
        session.push_text(delta)
    session.end_input()
    words, done = await events
    check_whole_turn(stream, recording.tokenizer)
    assert words == TEXT.split() and done.heard_text == TEXT
    if where == "server":
        await engine.aclose()


@pytest.mark.parametrize("normalized", [True, False])
async def test_server_ws(server, recording, normalized):
    async with connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start", "normalize": normalized}))
        for delta in DELTAS[:ENDS_FIRST_WORD]:
            await ws.send(json.dumps({"type": "text", "text": delta}))
        stream = await first_tokens(recording)
        # Raw text carries its own space: " thing" itself closes "Sure".
        check_first_word(stream, recording.tokenizer, "Sure" if normalized else "Sure thing")
        for delta in DELTAS[ENDS_FIRST_WORD:]:
            await ws.send(json.dumps({"type": "text", "text": delta}))
        await ws.send(json.dumps({"type": "stop"}))
        result = await receive_until_done(ws)
    check_whole_turn(stream, recording.tokenizer, normalized)
    assert [w["text"] for w in result.words] == TEXT.split()


async def test_realtime_token_input(server, recording):
    url = server.ws_url.replace("/v1/ws", "/v1/realtime")
    async with connect(url) as ws:
        for delta in DELTAS[:ENDS_FIRST_WORD]:
            await ws.send(json.dumps({"type": "voice_tts.input_text_buffer.append", "delta": delta}))
        stream = await first_tokens(recording)
        check_first_word(stream, recording.tokenizer)
        for delta in DELTAS[ENDS_FIRST_WORD:]:
            await ws.send(json.dumps({"type": "voice_tts.input_text_buffer.append", "delta": delta}))
        await ws.send(json.dumps({"type": "voice_tts.input_text_buffer.commit"}))
        transcript = ""
        async with asyncio.timeout(60):
            while (event := json.loads(await ws.recv()))["type"] != "response.done":
                if event["type"] == "response.output_audio_transcript.delta":
                    transcript += event["delta"]
    check_whole_turn(stream, recording.tokenizer)
    assert transcript.split() == TEXT.split()


async def test_pipecat_service_in_a_pipeline(recording):
    from voice_tts.pipecat import Qwen3StreamingTTS

    tts = Qwen3StreamingTTS(engine=recording)
    worker = PipelineWorker(
        Pipeline([tts]), params=PipelineParams(audio_out_sample_rate=24000), cancel_on_idle_timeout=False
    )

    async def converse() -> TokenRecordingStream:
        await worker.queue_frames([LLMFullResponseStartFrame(), *map(LLMTextFrame, DELTAS[:ENDS_FIRST_WORD])])
        stream = await first_tokens(recording)
        check_first_word(stream, recording.tokenizer)
        await worker.queue_frames([*map(LLMTextFrame, DELTAS[ENDS_FIRST_WORD:]), LLMFullResponseEndFrame()])
        await asyncio.to_thread(stream.done.wait, 60)
        await worker.queue_frame(EndFrame())
        return stream

    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    _, stream = await asyncio.gather(runner.run(), converse())
    check_whole_turn(stream, recording.tokenizer)


async def test_livekit_plugin_stream(recording):
    from voice_tts.livekit import Qwen3StreamingTTS

    tts = Qwen3StreamingTTS(engine=recording)
    async with tts.stream() as synthesis:
        for delta in DELTAS[:ENDS_FIRST_WORD]:
            synthesis.push_text(delta)
        stream = await first_tokens(recording)
        check_first_word(stream, recording.tokenizer)
        for delta in DELTAS[ENDS_FIRST_WORD:]:
            synthesis.push_text(delta)
        synthesis.end_input()
        audio = [event.frame async for event in synthesis]
    assert audio
    check_whole_turn(stream, recording.tokenizer)
    await tts.aclose()
