"""A barge-in on a remote engine ends the turn as cancelled, also when the client reads its
socket late (a loaded machine): the server may have finished the turn and sent its `done`
before the cancel reached it, and the turn the listener cut short must still read as cancelled
with no audio after the cut, in the client and through a real Pipecat pipeline."""

from __future__ import annotations

import asyncio

import pytest
from pipecat_harness import BargeInPipeline, RecordingEngine
from scripted_llm import tokenize
from server_harness import start_server

from voice_tts.client import RemoteEngine
from voice_tts.pipecat import Qwen3StreamingTTS
from voice_tts.protocol import AudioChunk, Done

REPLY = (
    "This answer goes on for a while, so that the listener is still hearing it when they cut "
    "in, and there is plenty left to say after that."
)


@pytest.fixture(scope="module")
def server():
    server = start_server()
    yield server
    server.stop()


async def test_a_cancel_read_after_the_servers_done_still_ends_the_turn_cancelled(server):
    engine = RemoteEngine(server.ws_url)
    try:
        stream = engine.open_stream(voice=None, language=None, sample_rate=24000)
        stream.push_text(REPLY)
        stream.end_input()
        events = aiter(stream.events())
        while not isinstance(await anext(events), AudioChunk):
            pass
        # The consumer falls behind (a loaded machine): the server finishes the turn meanwhile.
        await asyncio.sleep(1.5)
        stream.cancel()
        rest = [event async for event in events]
    finally:
        await engine.aclose()
    assert not [e for e in rest if isinstance(e, AudioChunk)]  # nothing after the cut
    assert isinstance(rest[-1], Done) and rest[-1].cancelled  # was False: done before cancel


SENTENCES = (
    "This answer goes on for a while. The listener is still hearing it. They cut in here. "
    "There is plenty left to say after that. And a little more, to be sure."
)


async def test_a_barge_in_on_a_remote_engine_cancels_the_turn_in_a_pipeline(server):
    engine = RecordingEngine(RemoteEngine(server.ws_url))
    call = BargeInPipeline(Qwen3StreamingTTS(engine=engine))

    async def converse():
        await asyncio.sleep(0.2)
        # The reply is still being written when the listener cuts in.
        reply = asyncio.create_task(call.stream_reply(tokenize(SENTENCES), seconds_between=0.2))
        while not call.output.played:
            await asyncio.sleep(0.01)
        await asyncio.sleep(1.5)
        reply.cancel()  # the interruption stops the LLM too
        return await call.barge_in()

    try:
        interrupted_at = await call.run(converse)
    finally:
        await engine.aclose()
    [turn] = engine.streams
    assert not turn.input_ended and turn.cancel_calls == 1 and turn.done.cancelled
    call.assert_heard_the_played_words(SENTENCES, interrupted_at)
