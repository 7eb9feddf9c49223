"""Contexts on `/v1/ws` (several turns on one socket, by `context_id`) on a real server with the
embedded voice, whose output is deterministic: each context's audio and words equal the same
turn alone, a cancel or a pause of one leaves the others' bytes as they were, reconnect-resume
works per context, and a flood of contexts or one that never ends is bounded."""

from __future__ import annotations

import asyncio
import json
import re

import httpx
import pytest
from server_harness import TURN_TIMEOUT_S, TurnResult, next_json, speak, start_server, ws_connect

from voice_tts.protocol import CONTEXT_IDLE_TIMEOUT, unframe_audio

TEXTS = [
    f"Reply number {n}: the {word} arrives at {n + 3} o'clock, and everyone waits."
    for n, word in enumerate(
        "train bus ferry plane parcel letter storm guest tide dawn".split() * 4
    )
][:32]
LONG = (
    "This reply keeps going for a while so that the listener can interrupt it somewhere "
    "in the middle, long before the speaker reaches the end of everything it wanted to say."
)


def deltas(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.fixture(scope="module")
def server():
    server = start_server(capacity=64, max_contexts_per_socket=40)
    yield server
    server.stop()


async def solo(server, text: str, **start) -> TurnResult:
    async with ws_connect(server.ws_url) as ws:
        return await speak(ws, deltas(text), **start)


class ContextSocket:
    """One socket's contexts: every frame read is filed under the context it names."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.results: dict[str | None, TurnResult] = {}
        self.rejected: list[dict] = []
        self._done: dict[str | None, asyncio.Event] = {}

    def result(self, context_id: str | None) -> TurnResult:
        self._done.setdefault(context_id, asyncio.Event())
        return self.results.setdefault(context_id, TurnResult())

    async def send(self, **message) -> None:
        await self.ws.send(json.dumps(message))

    async def read(self) -> None:
        async for frame in self.ws:
            if isinstance(frame, bytes):
                context_id, audio = unframe_audio(frame)
                self.result(context_id).audio.extend(audio)
                continue
            message = json.loads(frame)
            context_id = message.get("context_id")
            if message["type"] == "error" and message["stream_id"] is None:
                self.rejected.append(message)
                continue
            self.result(context_id).messages.append(message)
            if message["type"] == "done":
                self._done[context_id].set()

    async def done(self, context_id: str | None, timeout: float = TURN_TIMEOUT_S) -> TurnResult:
        self.result(context_id)
        await asyncio.wait_for(self._done[context_id].wait(), timeout)
        return self.results[context_id]


async def with_contexts(server, body, **connect):
    async with ws_connect(server.ws_url, **connect) as ws:
        contexts = ContextSocket(ws)
        reader = asyncio.create_task(contexts.read())
        try:
            return await body(contexts)
        finally:
            reader.cancel()


async def active_streams(server) -> int:
    async with httpx.AsyncClient() as client:
        response = await client.get(server.http_url + "/v1/capabilities")
    return response.json()["active_streams"]


async def wait_active_streams(server, count: int) -> None:
    async with asyncio.timeout(10):
        while await active_streams(server) != count:
            await asyncio.sleep(0.05)


def assert_same_turn(alone: TurnResult, context: TurnResult, text: str) -> None:
    assert len(context.audio) > 0
    assert bytes(context.audio) == bytes(alone.audio), text
    assert [w for w in context.words] == [w for w in alone.words]
    assert context.done["heard_text"] == alone.done["heard_text"] == text
    assert context.done["usage"] == alone.done["usage"]


def clauses(text: str) -> list[str]:
    """`text` in clauses, each with the space after it: the embedded voice speaks a clause once
    its end has arrived (or a bounded wait has passed: a clause still trickling in on a loaded
    machine would be phrased differently, alone or not)."""
    pieces = re.split(r"(?<=[,:.]) ", text)
    return [piece + " " for piece in pieces[:-1]] + pieces[-1:]


async def test_32_interleaved_contexts_equal_their_turns_alone(server):
    alone = []
    for text in TEXTS:
        async with ws_connect(server.ws_url) as ws:
            alone.append(await speak(ws, clauses(text)))

    async def body(contexts: ContextSocket):
        for n in range(len(TEXTS)):
            await contexts.send(type="start", context_id=f"turn-{n}")
        pieces = [clauses(text) for text in TEXTS]
        for step in range(max(map(len, pieces))):
            for n, text_deltas in enumerate(pieces):
                if step < len(text_deltas):
                    await contexts.send(type="text", text=text_deltas[step], context_id=f"turn-{n}")
        for n in range(len(TEXTS)):
            await contexts.send(type="stop", context_id=f"turn-{n}")
        return [await contexts.done(f"turn-{n}") for n in range(len(TEXTS))]

    together = await with_contexts(server, body)
    stream_ids = set()
    for text, turn_alone, context in zip(TEXTS, alone, together, strict=True):
        assert_same_turn(turn_alone, context, text)
        started = context.messages[0]
        assert started["type"] == "started" and started["context_id"] == context.done["context_id"]
        assert all(m["context_id"] == started["context_id"] for m in context.messages)
        stream_ids.add(started["stream_id"])
    assert len(stream_ids) == len(TEXTS)


async def test_a_plain_turn_is_unchanged_and_its_audio_framed_once_contexts_open(server):
    alone = await solo(server, TEXTS[0])
    assert all("context_id" not in message for message in alone.messages)

    async def body(contexts: ContextSocket):
        await contexts.send(type="start", context_id="other")
        await contexts.send(type="start")
        for delta in deltas(TEXTS[0]):
            await contexts.send(type="text", text=delta)
        await contexts.send(type="stop")
        await contexts.send(type="cancel", context_id="other")
        return await contexts.done(None), await contexts.done("other")

    plain, other = await with_contexts(server, body)
    assert_same_turn(alone, plain, TEXTS[0])
    assert all("context_id" not in message for message in plain.messages)
    assert other.done["cancelled"] is True


async def test_cancel_of_one_context_leaves_the_others_bytes_unchanged(server):
    texts = TEXTS[:3] + [LONG]
    alone = [await solo(server, text) for text in texts]

    async def body(contexts: ContextSocket):
        for n, text in enumerate(texts):
            await contexts.send(type="start", context_id=f"c{n}")
            await contexts.send(type="text", text=text, context_id=f"c{n}")
        for n in range(3):
            await contexts.send(type="stop", context_id=f"c{n}")
        async with asyncio.timeout(TURN_TIMEOUT_S):
            while not contexts.result("c3").audio:
                await asyncio.sleep(0.01)
        await contexts.send(type="cancel", context_id="c3")
        return [await contexts.done(f"c{n}") for n in range(4)]

    results = await with_contexts(server, body)
    for text, turn_alone, context in zip(texts[:3], alone, results, strict=False):
        assert_same_turn(turn_alone, context, text)
    cancelled = results[3]
    assert cancelled.done["cancelled"] is True
    assert 0 < len(cancelled.audio) < len(alone[3].audio)
    assert LONG.startswith(cancelled.done["heard_text"])


async def test_pause_of_one_context_holds_only_its_audio(server):
    alone = [await solo(server, text) for text in TEXTS[:2]]

    async def body(contexts: ContextSocket):
        await contexts.send(type="start", context_id="held")
        await contexts.send(type="pause", context_id="held")
        await contexts.send(type="start", context_id="free")
        for context_id, text in (("held", TEXTS[0]), ("free", TEXTS[1])):
            await contexts.send(type="text", text=text, context_id=context_id)
            await contexts.send(type="stop", context_id=context_id)
        free = await contexts.done("free")
        assert not contexts.result("held").audio and not contexts.result("held").of_type("done")
        await contexts.send(type="resume", context_id="held")
        return await contexts.done("held"), free

    held, free = await with_contexts(server, body)
    assert_same_turn(alone[0], held, TEXTS[0])
    assert_same_turn(alone[1], free, TEXTS[1])


async def test_a_context_resumes_on_another_socket(server):
    async with ws_connect(server.ws_url) as ws:
        alone = await speak(ws, [LONG])
    async with ws_connect(server.ws_url) as first:
        first_socket = ContextSocket(first)
        await first_socket.send(type="start", context_id="a", resumable=True)
        await first_socket.send(type="start", context_id="b")
        started = await next_json(first)
        assert started["context_id"] == "a" and started["resume_token"]
        await first_socket.send(type="text", text=LONG, seq=1, context_id="a")
        await first_socket.send(type="stop", context_id="a")
        received = bytearray()
        async with asyncio.timeout(TURN_TIMEOUT_S):
            while len(received) < 4800:
                frame = await first.recv()
                if isinstance(frame, bytes) and unframe_audio(frame)[0] == "a":
                    received.extend(unframe_audio(frame)[1])
    # The first socket is gone: "b" ended with it; "a" waits for its client.

    async def body(contexts: ContextSocket):
        await contexts.send(
            type="reconnect", resume_token=started["resume_token"], received_samples=len(received) // 2,
            context_id="again",
        )
        return await contexts.done("again")

    resumed = await with_contexts(server, body)
    assert resumed.messages[0]["type"] == "reconnected"
    assert resumed.messages[0]["from_sample"] == len(received) // 2
    assert bytes(received) + bytes(resumed.audio) == bytes(alone.audio)
    assert resumed.done["heard_text"] == LONG


async def test_bad_context_ids_and_a_running_one_are_refused_clearly(server):
    async def body(contexts: ContextSocket):
        await contexts.send(type="start", context_id="has space")
        await contexts.send(type="start", context_id="x" * 65)
        await contexts.send(type="start", context_id="")
        await contexts.send(type="start", context_id="twice")
        await contexts.send(type="start", context_id="twice")
        await contexts.send(type="text", text="hello", context_id="never-opened")
        await contexts.send(type="text", text=TEXTS[0], context_id="twice")
        await contexts.send(type="stop", context_id="twice")
        return await contexts.done("twice")

    twice = None

    async def run(contexts):
        nonlocal twice
        twice = await body(contexts)
        return contexts.rejected

    rejected = await with_contexts(server, run)
    codes = [(error["code"], error.get("context_id")) for error in rejected]
    assert codes == [
        ("invalid_message", None),
        ("invalid_message", None),
        ("invalid_message", None),
        ("context_active", "twice"),
        ("no_active_turn", "never-opened"),
    ]
    assert "context_id" in rejected[0]["message"]
    assert twice.done["heard_text"] == TEXTS[0]


async def test_a_context_flood_is_refused_past_the_bound_and_counts_as_streams():
    server = start_server(capacity=6, max_contexts_per_socket=4)
    try:

        async def body(contexts: ContextSocket):
            for n in range(12):
                await contexts.send(type="start", context_id=f"f{n}")
            async with asyncio.timeout(10):
                while len(contexts.rejected) < 8:
                    await asyncio.sleep(0.01)
            assert await active_streams(server) == 4
            # A second socket takes the last two streams of the server, then is refused.
            async with ws_connect(server.ws_url) as other:
                for n in range(3):
                    await other.send(json.dumps({"type": "start", "context_id": f"o{n}"}))
                answers = [await next_json(other) for _ in range(3)]
            assert [a["type"] for a in answers] == ["started", "started", "error"]
            assert answers[2]["code"] == "capacity" and answers[2]["context_id"] == "o2"
            # Ending one context makes room for another on this socket.
            await contexts.send(type="cancel", context_id="f0")
            await contexts.done("f0")
            await contexts.send(type="start", context_id="f12")
            async with asyncio.timeout(10):
                while not contexts.result("f12").messages:
                    await asyncio.sleep(0.01)
            for n in (1, 2, 3, 12):
                await contexts.send(type="cancel", context_id=f"f{n}")
            return contexts.rejected

        rejected = await with_contexts(server, body)
        assert [(e["code"], e["context_id"]) for e in rejected] == [
            ("too_many_contexts", f"f{n}") for n in range(4, 12)
        ]
        assert "max_contexts_per_socket" in rejected[0]["message"]
        await wait_active_streams(server, 0)
    finally:
        server.stop()


async def test_a_context_that_never_ends_is_ended_and_frees_its_stream():
    server = start_server(context_idle_timeout_s=0.5)
    try:

        async def body(contexts: ContextSocket):
            await contexts.send(type="start", context_id="quiet")
            await contexts.send(type="text", text="Hello and then nothing more", context_id="quiet")
            await contexts.send(type="start", context_id="talking")
            await contexts.send(type="text", text=LONG, context_id="talking")
            await contexts.send(type="stop", context_id="talking")
            quiet = await contexts.done("quiet", timeout=10)
            talking = await contexts.done("talking")
            return quiet, talking

        quiet, talking = await with_contexts(server, body)
        assert quiet.done["reason"] == CONTEXT_IDLE_TIMEOUT
        # A context whose input has ended is owed its audio however long it takes.
        assert talking.done["reason"] is None and talking.done["heard_text"] == LONG
        await wait_active_streams(server, 0)
    finally:
        server.stop()
