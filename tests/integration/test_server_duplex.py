"""Duplex pause/resume and reconnect-resume on `/v1/ws`, on a real server with the embedded
voice: the audio of a paused or reconnected turn is byte-identical to an unpaused one."""

from __future__ import annotations

import asyncio
import json

import pytest
from server_harness import TurnResult, next_json, receive_until_done, start_server, ws_connect

LONG = (
    "This reply keeps going for a while, so that the listener can interrupt it somewhere. "
    "It goes on in the middle, long before the speaker reaches the end of what it wanted to say."
)


@pytest.fixture(scope="module")
def server():
    server = start_server(pause_timeout_s=1.0, resume_timeout_s=1.5)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def reference(server) -> TurnResult:
    async def unpaused() -> TurnResult:
        async with ws_connect(server.ws_url) as ws:
            return await whole_turn(ws)

    return asyncio.run(unpaused())


async def whole_turn(ws, **start) -> TurnResult:
    await ws.send(json.dumps({"type": "start", **start}))
    await ws.send(json.dumps({"type": "text", "text": LONG}))
    await ws.send(json.dumps({"type": "stop"}))
    return await receive_until_done(ws)


async def until_audio(ws, result: TurnResult, samples: int = 1) -> None:
    """Reads until at least `samples` samples of audio have arrived."""
    async with asyncio.timeout(60):
        while len(result.audio) < samples * 2:
            frame = await ws.recv()
            if isinstance(frame, bytes):
                result.audio.extend(frame)
            else:
                result.messages.append(json.loads(frame))


async def frames_within(ws, seconds: float) -> list:
    frames = []
    try:
        async with asyncio.timeout(seconds):
            while True:
                frames.append(await ws.recv())
    except TimeoutError:
        return frames


async def test_pause_then_resume_is_byte_identical(server, reference):
    async with ws_connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start"}))
        await ws.send(json.dumps({"type": "text", "text": LONG}))
        await ws.send(json.dumps({"type": "stop"}))
        result = TurnResult()
        result.messages.append(await next_json(ws))
        await until_audio(ws, result)
        await ws.send(json.dumps({"type": "pause"}))
        result_frames = await frames_within(ws, 0.3)  # what was in flight at the pause
        for frame in result_frames:
            if isinstance(frame, bytes):
                result.audio.extend(frame)
            else:
                result.messages.append(json.loads(frame))
        assert await frames_within(ws, 0.5) == []  # paused: nothing more arrives
        await ws.send(json.dumps({"type": "resume"}))
        result = await receive_until_done(ws, result)
    assert bytes(result.audio) == bytes(reference.audio)
    assert result.done["heard_text"] == reference.done["heard_text"] == LONG
    assert result.words == reference.words


async def test_cancel_after_pause_says_what_was_heard(server):
    async with ws_connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start"}))
        await ws.send(json.dumps({"type": "text", "text": LONG}))
        result = TurnResult()
        result.messages.append(await next_json(ws))
        await until_audio(ws, result, samples=24000)
        await ws.send(json.dumps({"type": "pause"}))
        await ws.send(json.dumps({"type": "cancel", "played_ms": 900}))
        result = await receive_until_done(ws, result)
    done = result.done
    assert done["cancelled"] and done["reason"] is None
    heard = [w for w in result.words if w["start_ms"] <= 900]
    assert done["heard_text"] == LONG[: heard[-1]["raw_end"]]


async def test_a_paused_turn_past_its_timeout_ends_itself(server):
    async with ws_connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start"}))
        await ws.send(json.dumps({"type": "text", "text": LONG}))
        result = TurnResult()
        result.messages.append(await next_json(ws))
        await until_audio(ws, result)
        await ws.send(json.dumps({"type": "pause"}))
        result = await receive_until_done(ws, result)  # the server's pause_timeout_s is 1 s
    assert result.done["cancelled"] and result.done["reason"] == "pause_timeout"


async def kill(ws) -> None:
    """Drops the socket without a close handshake, as a lost network does."""
    ws.transport.abort()
    await asyncio.sleep(0.05)


async def test_a_killed_socket_resumes_byte_identical(server, reference):
    cut = LONG.index(". ") + 2  # a whole sentence first: the voice speaks it without the rest
    first, rest = LONG[:cut], LONG[cut:]
    result = TurnResult()
    async with ws_connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start", "resumable": True}))
        await ws.send(json.dumps({"type": "text", "text": first, "seq": 1}))
        started = await next_json(ws)
        token = started["resume_token"]
        assert token
        await until_audio(ws, result, samples=4800)
        await ws.send(json.dumps({"type": "ack", "samples": len(result.audio) // 2}))
        await kill(ws)
    async with ws_connect(server.ws_url) as ws:
        received = len(result.audio) // 2
        await ws.send(
            json.dumps({"type": "reconnect", "resume_token": token, "received_samples": received})
        )
        reconnected = await next_json(ws)
        assert reconnected["type"] == "reconnected"
        assert reconnected["stream_id"] == started["stream_id"]
        assert reconnected["text_seq"] == 1 and reconnected["from_sample"] == received
        # Resent text the server has is ignored; the rest follows.
        await ws.send(json.dumps({"type": "text", "text": first, "seq": 1}))
        await ws.send(json.dumps({"type": "text", "text": rest, "seq": 2}))
        await ws.send(json.dumps({"type": "stop"}))
        result = await receive_until_done(ws, result)
    assert bytes(result.audio) == bytes(reference.audio)
    assert result.done["heard_text"] == LONG and not result.done["cancelled"]


async def test_resume_after_expiry_fails_clearly(server):
    async with ws_connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start", "resumable": True}))
        await ws.send(json.dumps({"type": "text", "text": LONG}))
        token = (await next_json(ws))["resume_token"]
        await kill(ws)
    await asyncio.sleep(3.0)  # the server keeps it 1.5 s
    async with ws_connect(server.ws_url) as ws:
        await ws.send(
            json.dumps({"type": "reconnect", "resume_token": token, "received_samples": 0})
        )
        error = await next_json(ws)
    assert error["type"] == "error" and error["code"] == "resume_expired"
    assert "1.5 s" in error["message"]


async def test_resume_after_a_server_restart_fails_clearly():
    server = start_server()
    try:
        async with ws_connect(server.ws_url) as ws:
            await ws.send(json.dumps({"type": "start", "resumable": True}))
            await ws.send(json.dumps({"type": "text", "text": LONG}))
            token = (await next_json(ws))["resume_token"]
            await kill(ws)
        await asyncio.to_thread(server.stop)
        await asyncio.to_thread(server.start)
        async with ws_connect(server.ws_url) as ws:
            await ws.send(
                json.dumps({"type": "reconnect", "resume_token": token, "received_samples": 0})
            )
            error = await next_json(ws)
        assert error["code"] == "resume_lost" and "shut down" in error["message"]
    finally:
        server.stop()
    fresh = start_server()  # another process's server: the token names a different instance
    try:
        async with ws_connect(fresh.ws_url) as ws:
            await ws.send(
                json.dumps({"type": "reconnect", "resume_token": token, "received_samples": 0})
            )
            error = await next_json(ws)
        assert error["code"] == "resume_lost" and "restarted" in error["message"]
    finally:
        fresh.stop()


async def test_unknown_tokens_and_gaps_are_refused(server):
    async with ws_connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start", "resumable": True}))
        await ws.send(json.dumps({"type": "text", "text": LONG}))
        started = await next_json(ws)
        instance = started["resume_token"].partition(".")[0]
        await kill(ws)
    async with ws_connect(server.ws_url) as ws:
        await ws.send(
            json.dumps(
                {"type": "reconnect", "resume_token": instance + ".nope", "received_samples": 0}
            )
        )
        assert (await next_json(ws))["code"] == "resume_unknown"
        await ws.send(
            json.dumps(
                {
                    "type": "reconnect",
                    "resume_token": started["resume_token"],
                    "received_samples": 10**9,
                }
            )
        )
        assert (await next_json(ws))["code"] == "resume_gap"


async def test_a_reconnect_takes_the_turn_over_before_the_old_socket_is_noticed(
    server, reference
):
    """The new socket may arrive before the server has seen the old one die."""
    result = TurnResult()
    async with ws_connect(server.ws_url) as old:
        await old.send(json.dumps({"type": "start", "resumable": True}))
        await old.send(json.dumps({"type": "text", "text": LONG, "seq": 1}))
        await old.send(json.dumps({"type": "stop"}))
        token = (await next_json(old))["resume_token"]
        await until_audio(old, result, samples=4800)
        received = len(result.audio) // 2
        async with ws_connect(server.ws_url) as new:
            await new.send(
                json.dumps(
                    {"type": "reconnect", "resume_token": token, "received_samples": received}
                )
            )
            assert (await next_json(new))["type"] == "reconnected"
            # A client unsure what arrived resends it: after the stop too, the text is known.
            await new.send(json.dumps({"type": "text", "text": LONG, "seq": 1}))
            await new.send(json.dumps({"type": "stop"}))
            # The old socket ends after the takeover and the turn goes on. Its close handshake may
            # wait on a send the server started before the takeover (this client stopped reading
            # it), so the new socket is read meanwhile, as a real client would.
            closing = asyncio.create_task(old.close())
            result = await receive_until_done(new, result)
            await closing
    assert [m for m in result.messages if m["type"] == "error"] == []
    assert bytes(result.audio) == bytes(reference.audio)
    assert not result.done["cancelled"] and result.done["heard_text"] == LONG
