"""A turn's language picks its normalization rules on every server path: `start.language` on
/v1/ws, `language` on /v1/audio/speech (through the official SDK) and the Realtime session's
`audio.output.language`, as an ISO code, a BCP 47 tag or a Qwen3 name; without one, kana pick
the Japanese rules. The engine is given the language's reading; words and heard text stay raw,
and a pronunciation dictionary applies in German and Japanese turns too. A real server on
127.0.0.1 serving the embedded voice, which speaks German and Japanese."""

from __future__ import annotations

import asyncio

import pytest
from livekit_harness import ObservedEngine
from openai import AsyncOpenAI, OpenAI
from server_harness import speak, start_server, ws_connect

from engine import Engine

GERMAN = "Ihre Bestellung kostet 25,50 € und kommt am 3. Mai."
GERMAN_SPOKEN = "Ihre Bestellung kostet fünfundzwanzig Euro fünfzig und kommt am dritten Mai."
JAPANESE = "合計は2,500円で、5月3日に届きます。"
JAPANESE_SPOKEN = "合計は二千五百円で、五月三日に届きます。"


@pytest.fixture(scope="module")
def engine():
    return ObservedEngine(Engine.embedded())


@pytest.fixture(scope="module")
def server(engine):
    server = start_server(engine)
    yield server
    server.stop()


def deltas(text: str, size: int = 3) -> list[str]:
    """Cut where a number or a date may be split: the server must wait for the rest."""
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize(
    "language, text, spoken",
    [
        ("de", GERMAN, GERMAN_SPOKEN),
        ("de-DE", GERMAN, GERMAN_SPOKEN),
        ("german", GERMAN, GERMAN_SPOKEN),
        ("ja", JAPANESE, JAPANESE_SPOKEN),
        ("ja-JP", JAPANESE, JAPANESE_SPOKEN),
        (None, JAPANESE, JAPANESE_SPOKEN),  # kana: the Japanese rules without a language
    ],
)
async def test_ws_turn_is_read_in_its_language_and_reports_raw_words(server, engine, language, text, spoken):
    async with ws_connect(server.ws_url) as ws:
        result = await speak(ws, deltas(text), language=language)
    assert result.of_type("started")[0]["language"] == language
    assert engine.streams[-1].text == spoken
    assert result.done["heard_text"] == text
    raw_words = "".join(word["text"] for word in result.words)
    assert raw_words == text.replace(" ", "")
    for word in result.words:
        assert text[word["raw_start"] : word["raw_end"]] == word["text"]


async def test_latin_text_without_a_language_keeps_the_english_rules(server, engine):
    async with ws_connect(server.ws_url) as ws:
        await speak(ws, ["It costs $25.50."])
    assert engine.streams[-1].text == "It costs twenty five dollars and fifty cents."


async def test_dictionary_applies_in_german_and_japanese_turns(server, engine):
    lexicon = [{"match": "Bestellung", "say": "Lieferung"}, {"match": "合計", "say": "ごうけい"}]
    async with ws_connect(server.ws_url) as ws:
        german = await speak(ws, deltas(GERMAN), language="de", lexicon=lexicon)
        german_spoken = engine.streams[-1].text
        japanese = await speak(ws, deltas(JAPANESE), language="ja", lexicon=lexicon)
    assert german_spoken == GERMAN_SPOKEN.replace("Bestellung", "Lieferung")
    assert engine.streams[-1].text == JAPANESE_SPOKEN.replace("合計", "ごうけい")
    assert german.done["heard_text"] == GERMAN and japanese.done["heard_text"] == JAPANESE
    assert "Bestellung" in [word["text"] for word in german.words]


@pytest.mark.parametrize("language, text, spoken", [("de", GERMAN, GERMAN_SPOKEN), ("ja-JP", JAPANESE, JAPANESE_SPOKEN)])
def test_speech_endpoint_reads_its_language(server, engine, language, text, spoken):
    client = OpenAI(base_url=server.http_url + "/v1", api_key="none", max_retries=0)
    audio = client.audio.speech.create(
        model="tts-1", voice="alloy", input=text, response_format="pcm", extra_body={"language": language}
    )
    assert len(audio.content) > 24000  # more than half a second of 16-bit audio
    assert engine.streams[-1].text == spoken


async def test_realtime_session_language_reaches_the_normalizer(server, engine):
    client = AsyncOpenAI(base_url=server.http_url + "/v1", api_key="none", max_retries=0)
    async with client.realtime.connect(model="voice-tts") as connection:
        await connection.recv()  # session.created
        await connection.send(
            {"type": "session.update", "session": {"type": "realtime", "audio": {"output": {"language": "klingon"}}}}
        )
        error = await connection.recv()
        assert error.type == "error" and error.error.param == "session.audio.output.language"
        await connection.send(
            {"type": "session.update", "session": {"type": "realtime", "audio": {"output": {"language": "de-DE"}}}}
        )
        updated = await connection.recv()
        assert updated.type == "session.updated"
        await connection.send(
            {
                "type": "conversation.item.create",
                "item": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": GERMAN}]},
            }
        )
        await connection.send({"type": "response.create"})
        async with asyncio.timeout(60):
            async for event in connection:
                if event.type == "response.done":
                    break
    assert event.response.status == "completed"
    assert event.response.output[0].content[0].transcript == GERMAN
    assert engine.streams[-1].text == GERMAN_SPOKEN
