"""`RemoteEngine` and `TTSSession` against a real server: duplex pause/resume, and a turn that
survives its socket being cut mid-turn (reconnect-resume), byte-identical to an unbroken one."""

from __future__ import annotations

import asyncio

import pytest
from server_harness import TcpProxy, start_server

from voice_tts.client import RemoteEngine
from voice_tts.protocol import AudioChunk, Error
from voice_tts.session import SessionDone, TTSSession, WordsEvent

LONG = (
    "This reply keeps going for a while, so that the listener can interrupt it somewhere. "
    "It goes on in the middle, long before the speaker reaches the end of what it wanted to say."
)


@pytest.fixture(scope="module")
def server():
    server = start_server()
    yield server
    server.stop()


async def speak(engine, during=None) -> tuple[bytes, list, SessionDone, list]:
    """One session turn; `during(session, audio_bytes)` runs after each audio chunk."""
    session = TTSSession(engine)
    for i in range(0, len(LONG), 5):
        session.push_text(LONG[i : i + 5])
    session.end_input()
    audio, words, errors, done = bytearray(), [], [], None
    async with asyncio.timeout(60):
        async for event in session.events():
            if isinstance(event, AudioChunk):
                audio.extend(event.pcm)
                if during is not None:
                    await during(session, len(audio))
            elif isinstance(event, WordsEvent):
                words.extend(event.words)
            elif isinstance(event, Error):
                errors.append(event)
            elif isinstance(event, SessionDone):
                done = event
    return bytes(audio), words, done, errors


@pytest.fixture(scope="module")
def reference(server):
    async def unbroken():
        engine = RemoteEngine(server.ws_url, resume_budget=0)
        try:
            return await speak(engine)
        finally:
            await engine.aclose()

    return asyncio.run(unbroken())


async def test_session_pause_resume_is_byte_identical(server, reference):
    engine = RemoteEngine(server.ws_url)
    paused_gap = []

    async def pause_once(session, received):
        if not paused_gap:
            session.pause()
            began = asyncio.get_running_loop().time()
            await asyncio.sleep(2.5)  # longer than the client's silence timeout (2 s)
            paused_gap.append(asyncio.get_running_loop().time() - began)
            session.resume()

    try:
        audio, words, done, errors = await speak(engine, pause_once)
    finally:
        await engine.aclose()
    assert not errors and paused_gap
    assert audio == reference[0]
    assert [(w.text, w.start_time) for w in words] == [(w.text, w.start_time) for w in reference[1]]
    assert done.heard_text == reference[2].heard_text == LONG


async def test_remote_engine_resumes_a_cut_socket_by_itself(server, reference):
    async with TcpProxy(server.port) as proxy:
        engine = RemoteEngine(proxy.ws_url, resume_budget=10)
        cuts = []

        async def cut_once(session, received):
            if not cuts and received >= 24000:  # half a second of audio in
                cuts.append(received)
                proxy.cut()

        try:
            audio, words, done, errors = await speak(engine, cut_once)
        finally:
            await engine.aclose()
    assert cuts and not errors
    assert audio == reference[0]
    assert [(w.text, w.start_time) for w in words] == [(w.text, w.start_time) for w in reference[1]]
    assert done.heard_text == LONG and not done.cancelled


async def test_without_a_budget_a_cut_socket_ends_the_turn(server):
    async with TcpProxy(server.port) as proxy:
        engine = RemoteEngine(proxy.ws_url, resume_budget=0)
        cuts = []

        async def cut_once(session, received):
            if not cuts:
                cuts.append(received)
                proxy.cut()

        try:
            _, _, done, errors = await speak(engine, cut_once)
        finally:
            await engine.aclose()
    assert [e.code for e in errors] == ["disconnected"] and done is not None


async def test_a_resumable_turn_left_by_its_consumer_ends_on_the_server(server):
    """Leaving a turn is not a network drop: the server cancels it at once instead of keeping
    it for a reconnect."""
    import httpx

    engine = RemoteEngine(server.ws_url)
    stream = engine.open_stream(normalize=True)
    stream.push_text(LONG)
    async with asyncio.timeout(60):
        async for event in stream.events():
            if isinstance(event, AudioChunk):
                break  # the consumer walks away mid-turn
    try:
        async with asyncio.timeout(5):
            while True:
                metrics = httpx.get(server.http_url + "/metrics").text
                if "voice_tts_active_streams 0.0" in metrics:
                    break
                await asyncio.sleep(0.05)
    finally:
        await engine.aclose()


async def test_session_pause_over_the_in_process_engine():
    from engine import Engine

    engine = Engine.embedded()
    try:
        unbroken = await speak(engine)
        paused = []

        async def pause_once(session, received):
            if not paused:
                paused.append(received)
                session.pause()
                await asyncio.sleep(0.5)
                session.resume()

        audio, words, done, errors = await speak(engine, pause_once)
    finally:
        await engine.aclose()
    assert paused and not errors
    assert audio == unbroken[0] and done.heard_text == unbroken[2].heard_text == LONG
    assert [w.start_time for w in words] == [w.start_time for w in unbroken[1]]


async def test_turns_sharing_a_cut_socket_each_resume_on_one_new_socket(server):
    texts = [f"Turn {n} of four keeps talking so that the cut comes in its middle, and then it ends." for n in range(4)]

    async def turn(engine, text, cut=None):
        stream = engine.open_stream(normalize=True)
        stream.push_text(text)
        stream.end_input()
        audio, errors = bytearray(), []
        async with asyncio.timeout(60):
            async for event in stream.events():
                if isinstance(event, AudioChunk):
                    audio.extend(event.pcm)
                    if cut is not None:
                        await cut(len(audio))
                elif isinstance(event, Error):
                    errors.append(event)
        return bytes(audio), errors

    unbroken = RemoteEngine(server.ws_url)
    try:
        alone = [await turn(unbroken, text) for text in texts]
    finally:
        await unbroken.aclose()
    async with TcpProxy(server.port) as proxy:
        engine = RemoteEngine(proxy.ws_url, resume_budget=10)
        cuts = []

        async def cut_once(received):
            if not cuts and received >= 24000:
                cuts.append(received)
                proxy.cut()

        try:
            results = await asyncio.gather(
                turn(engine, texts[0], cut_once), *(turn(engine, text) for text in texts[1:])
            )
            sockets = engine.open_sockets
        finally:
            await engine.aclose()
    assert cuts and sockets == 1
    for (audio_alone, _), (audio, errors) in zip(alone, results, strict=True):
        assert not errors and audio == audio_alone
