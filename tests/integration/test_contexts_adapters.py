"""Our own side of `/v1/ws` contexts, with a real server on 127.0.0.1 and the embedded voice:
a `RemoteEngine`'s concurrent turns share one socket, and the Pipecat and LiveKit adapters open
the next turn while the current one plays and cancel one turn's context at a barge-in, the
socket and the other turns going on untouched."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from pipecat.frames.frames import InterruptionFrame
from pipecat_harness import BargeInPipeline, RecordingEngine
from scripted_llm import tokenize
from server_harness import start_server
from test_livekit_plugin import collect, speak

from voice_tts.client import RemoteEngine
from voice_tts.livekit import Qwen3StreamingTTS as LiveKitTTS
from voice_tts.pipecat import Qwen3StreamingTTS as PipecatTTS
from voice_tts.protocol import AudioChunk, Done

FIRST = (
    "This first answer goes on for a while, so that it is still playing when the next one "
    "is already being written, and there is plenty left to say after that."
)
SECOND = "Here is the next answer, ready before the first one ends."
THIRD = "And a last one after the interruption."


@pytest.fixture(scope="module")
def server():
    server = start_server(capacity=64)
    yield server
    server.stop()


def connections_accepted(server) -> float:
    for line in httpx.get(server.http_url + "/metrics").text.splitlines():
        if line.startswith("voice_tts_ws_connections_total "):
            return float(line.split()[1])
    raise AssertionError("no connection counter")


async def turn(engine: RemoteEngine, text: str) -> tuple[bytes, Done]:
    stream = engine.open_stream(normalize=True)
    stream.push_text(text)
    stream.end_input()
    audio = bytearray()
    async with asyncio.timeout(60):
        async for event in stream.events():
            if isinstance(event, AudioChunk):
                audio.extend(event.pcm)
            elif isinstance(event, Done):
                return bytes(audio), event
    raise AssertionError("no Done")


async def test_n_concurrent_turns_of_a_remote_engine_use_one_socket(server):
    texts = [f"Caller {n} hears their own answer, number {n}." for n in range(24)]
    engine = RemoteEngine(server.ws_url)
    try:
        alone = [await turn(engine, text) for text in texts]
        before = connections_accepted(server)
        together = await asyncio.gather(*(turn(engine, text) for text in texts))
        assert connections_accepted(server) == before  # the socket of the turns alone
        assert engine.open_sockets == 1
    finally:
        await engine.aclose()
    for (audio_alone, _), (audio, done) in zip(alone, together, strict=True):
        assert audio and audio == audio_alone and not done.cancelled


async def test_a_cancelled_turn_leaves_the_others_on_its_socket_unchanged(server):
    engine = RemoteEngine(server.ws_url)
    try:
        second_alone, _ = await turn(engine, SECOND)
        long_turn = engine.open_stream(normalize=True)
        long_turn.push_text(FIRST)
        events = aiter(long_turn.events())
        while not isinstance(await anext(events), AudioChunk):
            pass
        other = asyncio.create_task(turn(engine, SECOND))
        long_turn.cancel()
        rest = [event async for event in events]
        second, done = await other
        assert engine.open_sockets == 1
    finally:
        await engine.aclose()
    assert isinstance(rest[-1], Done) and rest[-1].cancelled
    assert not [event for event in rest if isinstance(event, AudioChunk)]
    assert second == second_alone and not done.cancelled


async def test_pipecat_opens_the_next_turn_while_one_plays_and_a_barge_in_cancels_its_context(server):
    remote = RemoteEngine(server.ws_url)
    engine = RecordingEngine(remote)
    call = BargeInPipeline(PipecatTTS(engine=engine))
    before = connections_accepted(server)

    async def converse() -> float:
        await asyncio.sleep(0.2)
        await call.stream_reply(tokenize(FIRST), seconds_between=0.01)
        async with asyncio.timeout(60):
            while not call.output.played:
                await asyncio.sleep(0.01)
        # The next reply is written while the first still plays; its engine turn runs at once.
        writing = asyncio.create_task(call.stream_reply(tokenize(SECOND), seconds_between=0.15))
        async with asyncio.timeout(60):
            while len(engine.streams) < 2 or not any(isinstance(e, AudioChunk) for e in engine.streams[1].events_seen):
                await asyncio.sleep(0.01)
        played_when_second_spoke = call.played_now()
        # The listener cuts in while the second reply is still being written.
        writing.cancel()
        await call.worker.queue_frame(InterruptionFrame())
        await asyncio.sleep(0.5)
        await call.stream_reply(tokenize(THIRD), seconds_between=0.01)
        async with asyncio.timeout(60):
            while len(engine.streams) < 3 or engine.streams[2].done is None:
                await asyncio.sleep(0.01)
        await call.worker.cancel()
        return played_when_second_spoke

    try:
        played_when_second_spoke = await call.run(converse)
        sockets = remote.open_sockets
    finally:
        await engine.aclose()
    first, second, third = engine.streams
    first_audio = sum(e.num_samples for e in first.events_seen if isinstance(e, AudioChunk)) / 24000
    assert played_when_second_spoke < first_audio  # the second turn ran while the first played
    assert first.done is not None and not first.done.cancelled
    # The barge-in cancelled the second turn's context, not the socket: the third speaks on it.
    assert not second.input_ended and second.cancel_calls == 1 and second.done.cancelled
    assert not third.done.cancelled and third.cancel_calls == 0
    assert connections_accepted(server) - before == 1 and sockets == 1


async def test_livekit_opens_the_next_stream_while_one_plays_and_closing_one_leaves_the_other(server):
    remote = RemoteEngine(server.ws_url)
    plugin = LiveKitTTS(engine=remote)
    words = [" " + word for word in SECOND.split()]
    try:
        async with plugin.stream() as alone_stream:
            alone = await speak(alone_stream, words)
        before = connections_accepted(server)
        async with plugin.stream() as playing:
            playing.push_text(FIRST)
            first_frames = aiter(playing)
            await anext(first_frames)  # the first reply plays
            async with plugin.stream() as next_stream:
                following = await speak(next_stream, words)
            # A barge-in: the playing reply is closed mid-audio.
        assert connections_accepted(server) == before and remote.open_sockets == 1
        async with plugin.stream() as after:
            last = await collect_spoken(after, [" " + word for word in THIRD.split()])
    finally:
        await plugin.aclose()
        await remote.aclose()
    assert b"".join(bytes(f.data) for f in following.frames) == b"".join(bytes(f.data) for f in alone.frames)
    assert last.duration > 0


async def collect_spoken(stream, words):
    for word in words:
        stream.push_text(word)
    stream.end_input()
    return await collect(stream)
