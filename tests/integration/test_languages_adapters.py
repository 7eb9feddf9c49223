"""A German and a Japanese reply through a real Pipecat pipeline (`Settings(language=Language.DE_DE)`,
`Language.JA`) and a real LiveKit AgentSession (`TTS(language="de-DE")`, in-process and through
the server): the engine is given the language's reading, and after a barge-in the LLM context
keeps the raw reply cut at a word ("25,50 €", never "fünfundzwanzig Euro")."""

from __future__ import annotations

import asyncio

import pytest
from livekit_harness import (  # noqa: F401  (fixtures)
    ObservedEngine,
    converse,
    said,
    speech_engine,
)
from pipecat.frames.frames import LLMFullResponseEndFrame, LLMFullResponseStartFrame, LLMTextFrame
from pipecat.transcriptions.language import Language
from pipecat_harness import BargeInPipeline, RecordingEngine
from scripted_llm import tokenize

from voice_tts.livekit import Qwen3StreamingTTS as LiveKitTTS
from voice_tts.pipecat import Qwen3StreamingTTS as PipecatTTS

pytestmark = pytest.mark.slow

FIRST = "Ihre Bestellung kostet 25,50 € und kommt am 3. Mai."
# A second sentence of several seconds: the barge-in lands in it with time to spare either way.
REPLY = FIRST + " Danach schicken wir Ihnen eine Nachricht mit der Sendungsnummer und allen Einzelheiten zur Lieferung."
FIRST_SPOKEN = "Ihre Bestellung kostet fünfundzwanzig Euro fünfzig und kommt am dritten Mai."
JAPANESE = "合計は2,500円です。"
JAPANESE_SPOKEN = "合計は二千五百円です。"


def assert_heard_raw_after_the_money(heard: str) -> None:
    assert REPLY.startswith(heard) and REPLY[len(heard) :][:1] in (" ", ""), heard
    assert heard.startswith(FIRST) and heard != REPLY, heard
    assert not any(word in heard for word in ("fünf", "Euro", "Cent", "dritten")), heard


@pytest.fixture(scope="module")
def engine_server(embedded_engine):
    """The server of `speech_engine`'s remote case, observed: what the server's normalizer gave
    the engine."""
    from server_harness import start_server

    observed = ObservedEngine(embedded_engine)
    server = start_server(observed)
    server.observed = observed
    yield server
    server.stop()


async def test_pipecat_german_barge_in_keeps_the_raw_money():
    from engine import Engine

    engine = RecordingEngine(Engine.embedded())
    call = BargeInPipeline(PipecatTTS(engine=engine, settings=PipecatTTS.Settings(language=Language.DE_DE)))

    async def converse_with_pipecat() -> None:
        await asyncio.sleep(0.2)
        await call.stream_reply(tokenize(REPLY), seconds_between=0.01)
        await call.play_into("Danach", 1.0)  # cut inside the second sentence
        await call.barge_in()

    try:
        await call.run(converse_with_pipecat)
    finally:
        await engine.aclose()

    [stream] = [s for s in engine.streams if s.text.strip()]
    assert stream.text.startswith(FIRST_SPOKEN)
    assert_heard_raw_after_the_money(call.heard())


async def test_pipecat_japanese_turn_is_read_in_japanese(embedded_engine):
    from pipecat.tests.utils import run_test

    engine = RecordingEngine(embedded_engine)
    tts = PipecatTTS(engine=engine, settings=PipecatTTS.Settings(language=Language.JA))
    frames = [LLMFullResponseStartFrame(), *map(LLMTextFrame, tokenize(JAPANESE)), LLMFullResponseEndFrame()]
    await run_test(tts, frames_to_send=frames)
    assert engine.streams[0].text == JAPANESE_SPOKEN


async def test_livekit_german_barge_in_keeps_the_raw_money(speech_engine, request):
    observed, _ = speech_engine
    conversation = await converse(
        LiveKitTTS(engine=observed, language="de-DE"),
        [said(0.5, 1.5, "Was kostet das?"), said(8.0, 9.0, "Stopp!")],
        {"Was kostet das?": REPLY},
        llm_chars_per_second=60,
    )
    [reply] = [s for s in observed.streams if s.text.strip()]
    if reply.remote:  # remote: the server normalizes the raw text
        assert reply.text == REPLY and reply.options["language"] == "de-DE"
        spoken = request.getfixturevalue("engine_server").observed.streams[-1].text  # after the warm-up
    else:
        spoken = reply.text
    assert spoken.startswith(FIRST_SPOKEN)
    [message] = conversation.assistant_messages()
    assert message.interrupted
    assert_heard_raw_after_the_money(message.text_content)


async def test_livekit_japanese_reply_is_read_in_japanese(embedded_engine):
    observed = ObservedEngine(embedded_engine)
    conversation = await converse(
        LiveKitTTS(engine=observed, language="japanese"),
        [said(0.5, 1.5, "いくらですか？")],
        {"いくらですか？": JAPANESE},
    )
    [reply] = [s for s in observed.streams if s.text.strip()]
    assert reply.text == JAPANESE_SPOKEN
    [message] = conversation.assistant_messages()
    assert message.text_content == JAPANESE and not message.interrupted
