"""Expressive markup through a real server on 127.0.0.1 (embedded voice): `/v1/ws` turns with
`markup`, the speech endpoint through the official `openai` SDK, and a `TTSSession` over a
`RemoteEngine`. Tags act (pauses lengthen the audio, words after a pause start later) and never
reach words, heard text or usage; a flood of tags and malformed tags lose no words."""

from __future__ import annotations

import asyncio
import json

import pytest
from openai import OpenAI
from server_harness import next_json, receive_until_done, receive_until_words, speak, start_server, ws_connect

from voice_tts.client import RemoteEngine
from voice_tts.markup import strip_markup
from voice_tts.session import SessionDone, TTSSession, WordsEvent

TAGGED = (
    '<expr type="expression" label="warm, a little amused"/>Hello there, I have 3 cats. '
    '<expr type="break" label="800ms"/>Your code is <expr type="spell">A7X</expr>. '
    '<expr type="prosody" label="slow">Take your time.</expr> <expr type="sound" label="laugh"/>Bye!'
)
CLEAN = strip_markup(TAGGED, "expr")
CARTESIA = '<emotion value="calm"/>Hello there. <break time="1s"/>Your code is <spell>B4</spell>. <speed ratio="1.2"/><volume ratio="0.8"/>Bye!'


@pytest.fixture(scope="module")
def server():
    server = start_server(api_key="k")
    yield server
    server.stop()


def characters(text: str) -> list[str]:
    return list(text)


async def test_tags_split_at_every_character_act_and_never_reach_words(server):
    assert CLEAN == "Hello there, I have 3 cats. Your code is A7X. Take your time. Bye!"
    async with ws_connect(server.ws_url, additional_headers={"Authorization": "Bearer k"}) as ws:
        tagged = await speak(ws, characters(TAGGED), markup="expr")
        plain = await speak(ws, characters(CLEAN))
    started = tagged.messages[0]
    assert started["markup"] == "expr"
    assert started["markup_ignored"] == ["expression"]  # the embedded voice takes no instruction
    done = tagged.done
    assert done["heard_text"] == CLEAN
    assert [w["text"] for w in tagged.words] == CLEAN.split()
    assert done["usage"]["characters_received"] == done["usage"]["characters_spoken"] == len(CLEAN)
    assert "<" not in json.dumps(tagged.messages)
    # The break is in the audio and the timeline: "Your" starts at least 0.8 s later than
    # without it, and the turn is that much longer (the spelled code and slow span add more).
    tagged_at, plain_at = ({w["text"]: w["start_ms"] for w in r.words} for r in (tagged, plain))
    assert tagged_at["Your"] - plain_at["Your"] >= 780
    assert done["usage"]["audio_seconds"] - plain.done["usage"]["audio_seconds"] >= 0.8
    assert len(tagged.audio) == pytest.approx(done["usage"]["audio_seconds"] * 24000 * 2, abs=2)


async def test_without_markup_a_less_than_sign_is_text(server):
    text = "If 3 <5 and <b>bold</b> then"
    async with ws_connect(server.ws_url, additional_headers={"Authorization": "Bearer k"}) as ws:
        result = await speak(ws, characters(text))
    assert result.done["heard_text"] == text
    assert result.done["usage"]["characters_received"] == len(text)


@pytest.mark.parametrize(
    "tagged, clean",
    [
        ('Hi <expr type="break" label="forever"/>there <unknown a="1"/>you.', "Hi there you."),
        ('Hi <expr type="spell">AB and more', "Hi AB and more"),  # never closed: words kept
        ("Hi </expr>there <expr type=broken/>now.", "Hi there now."),
        ('Hi 3 < 5 <expr type="break" label="1s"', "Hi 3 < 5 "),  # cut off at the end: dropped
    ],
)
async def test_malformed_tags_are_dropped_and_their_words_kept(server, tagged, clean):
    async with ws_connect(server.ws_url, additional_headers={"Authorization": "Bearer k"}) as ws:
        result = await speak(ws, characters(tagged), markup="expr")
    assert result.done["heard_text"] == clean.strip()
    assert result.done["usage"]["characters_received"] == len(clean)


async def test_a_flood_of_ten_thousand_tags_loses_no_words(server):
    words = [f"w{i}" for i in range(200)]
    flood = "".join(
        f'{w} <expr type="prosody" label="{"fast" if i % 2 else "slow"}"/>' + '<expr type="break" label="10ms"/>' * 49
        for i, w in enumerate(words)
    )
    assert flood.count("<expr") == 10_000
    async with ws_connect(server.ws_url, additional_headers={"Authorization": "Bearer k"}) as ws:
        chunked = [flood[i : i + 1000] for i in range(0, len(flood), 1000)]
        result = await speak(ws, chunked, markup="expr")
    assert result.done["cancelled"] is False
    assert result.done["heard_text"].split() == words
    assert [w["text"] for w in result.words] == words


async def test_barge_in_inside_a_tagged_sentence_gives_the_heard_words(server):
    long = " ".join(f'<expr type="prosody" label="fast"/>sentence number {i} goes on for a while.' for i in range(12))
    clean = strip_markup(long, "expr")
    async with ws_connect(server.ws_url, additional_headers={"Authorization": "Bearer k"}) as ws:
        await ws.send(json.dumps({"type": "start", "markup": "expr"}))
        assert (await next_json(ws))["type"] == "started"
        await ws.send(json.dumps({"type": "text", "text": long}))
        result = await receive_until_words(ws, 9)
        starts = [w["start_ms"] for w in result.words]
        k = next(i for i in range(5, len(starts) - 1) if starts[i] < starts[i + 1])
        played_ms = (starts[k] + starts[k + 1]) / 2
        await ws.send(json.dumps({"type": "cancel", "played_ms": played_ms}))
        await receive_until_done(ws, result)
    heard = result.done["heard_text"]
    assert result.done["cancelled"] is True
    assert heard == " ".join(clean.split()[: k + 1])  # whole words, up to the one playing
    assert result.done["usage"]["characters_spoken"] == len(heard)


def test_speech_endpoint_takes_cartesia_tags_through_the_sdk(server):
    client = OpenAI(base_url=server.http_url + "/v1", api_key="k", max_retries=0)
    clean = strip_markup(CARTESIA, "cartesia")
    tagged = client.audio.speech.create(model="tts-1", voice="alloy", input=CARTESIA, response_format="pcm", extra_body={"markup": "cartesia"})
    plain = client.audio.speech.create(model="tts-1", voice="alloy", input=clean, response_format="pcm")
    # One second of break, and no tag read aloud (a read tag would add far more than this).
    extra = (len(tagged.content) - len(plain.content)) / 2 / 24000
    assert 0.9 <= extra <= 3.0


async def test_a_session_over_a_remote_engine_sends_markup_and_keeps_tags_out(server):
    engine = RemoteEngine(server.ws_url, api_key="k")
    try:
        session = TTSSession(engine, markup="expr")
        for char in TAGGED:
            session.push_text(char)
        session.end_input()
        words, done = [], None
        async for event in session.events():
            if isinstance(event, WordsEvent):
                words += [w.text for w in event.words]
            elif isinstance(event, SessionDone):
                done = event
    finally:
        await engine.aclose()
    assert words == CLEAN.split()
    assert done.heard_text == CLEAN
    assert done.usage.characters_received == len(CLEAN)
    assert session.raw_text == CLEAN


async def test_the_omni_socket_takes_markup_in_its_config(server):
    url = server.ws_url.replace("/v1/ws", "/v1/audio/speech/stream")
    async with ws_connect(url, additional_headers={"Authorization": "Bearer k"}) as ws:
        await ws.send(json.dumps({
            "type": "session.config", "voice": "female", "response_format": "pcm", "stream_audio": True,
            "word_progress": True, "markup": "cartesia",
        }))
        for char in CARTESIA:
            await ws.send(json.dumps({"type": "input.text", "text": char}))
        await ws.send(json.dumps({"type": "input.done"}))
        events = []
        async with asyncio.timeout(60):
            while not events or events[-1]["type"] != "session.done":
                frame = await ws.recv()
                if isinstance(frame, str):
                    events.append(json.loads(frame))
    words = [w["text"] for e in events if e["type"] == "voice_tts.word_progress" for w in e["words"]]
    assert words == strip_markup(CARTESIA, "cartesia").split()


async def test_realtime_takes_markup_as_an_output_extension(server):
    import base64

    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=server.http_url + "/v1", api_key="k", max_retries=0)
    async with client.realtime.connect(model="voice-tts") as connection:
        assert (await connection.recv()).type == "session.created"
        await connection.session.update(
            session={"type": "realtime", "audio": {"output": {"voice": "alloy", "markup": "expr"}}}
        )
        events = []
        async with asyncio.timeout(60):
            async for event in connection:
                if event.type == "session.updated":
                    break
            await connection.conversation.item.create(
                item={"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": TAGGED}]}
            )
            await connection.response.create()
            async for event in connection:
                events.append(event)
                if event.type == "response.done":
                    break
    transcript = "".join(e.delta for e in events if e.type == "response.output_audio_transcript.delta")
    assert transcript == CLEAN
    done = events[-1]
    assert done.response.usage.input_tokens == len(CLEAN)
    audio = b"".join(base64.b64decode(e.delta) for e in events if e.type == "response.output_audio.delta")
    assert len(audio) / 2 / 24000 >= 0.8  # the break is in it


async def test_a_turn_of_many_segments_holds_two_engine_streams_at_most():
    from engine import Engine
    from voice_tts.protocol import AudioChunk

    engine = Engine.embedded()
    try:
        text = " ".join(f'Sentence {i}. <expr type="break" label="50ms"/>' for i in range(20))
        session = TTSSession(engine, markup="expr")
        session.push_text(text)  # all segments known at once
        session.end_input()
        most, words = 0, []
        async for event in session.events():
            most = max(most, engine.active_streams)
            if isinstance(event, WordsEvent):
                words += [w.text for w in event.words]
            assert not isinstance(event, AudioChunk) or event.pcm
        assert 1 <= most <= 2
        assert words == strip_markup(text, "expr").split()
    finally:
        await engine.aclose()
