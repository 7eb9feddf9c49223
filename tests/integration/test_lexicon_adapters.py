"""A pronunciation dictionary set in Pipecat (`Settings(lexicon=...)`) and LiveKit
(`TTS(lexicon=...)`): the engine says the reading, the LLM context keeps the raw words, and a
barge-in in the middle of the reading cuts the context at a raw word, never inside the reading.
Real pipelines and sessions, the embedded voice; LiveKit also through a server (`start.lexicon`)."""

from __future__ import annotations

import asyncio

import pytest
from livekit_harness import (  # noqa: F401  (fixtures)
    converse,
    engine_server,
    said,
    speech_engine,
)
from pipecat.frames.frames import LLMFullResponseEndFrame, LLMFullResponseStartFrame, LLMTextFrame
from pipecat_harness import BargeInPipeline, RecordingEngine
from scripted_llm import tokenize

from voice_tts.livekit import Qwen3StreamingTTS as LiveKitTTS
from voice_tts.pipecat import Qwen3StreamingTTS as PipecatTTS
from voice_tts.tn import Lexicon, LexiconError

pytestmark = pytest.mark.slow

# A reading of about six seconds: a barge-in lands inside it with seconds to spare either way.
READING = "structured query language, the language of relational databases that everyone calls sequel"
LEXICON = [{"match": "SQL", "say": READING}]
REPLY = "Here it is. SQL runs the shop, and then we can talk about something else entirely."
BEFORE, AFTER = "Here it is.", "Here it is. SQL"  # the context after a cut before/after "SQL" starts


async def test_pipecat_barge_in_mid_reading_keeps_the_raw_word():
    from engine import Engine

    engine = RecordingEngine(Engine.embedded())
    call = BargeInPipeline(PipecatTTS(engine=engine, settings=PipecatTTS.Settings(lexicon=LEXICON)))
    cut: dict[str, float] = {}

    async def converse_with_pipecat() -> None:
        await asyncio.sleep(0.2)
        await call.stream_reply(tokenize(REPLY), seconds_between=0.03)
        start = await call.play_into("SQL", 2.0)
        cut.update(start=start, played=call.played_now())
        await call.barge_in()

    try:
        await call.run(converse_with_pipecat)
    finally:
        await engine.aclose()

    [stream] = [s for s in engine.streams if s.text.strip()]
    assert READING in stream.text and "SQL" not in stream.text
    # the cut fell inside the reading: its raw word had started, the next word had not
    next_start = call.words.start_of("runs")
    assert next_start is None or cut["played"] < next_start, cut
    assert call.heard() == AFTER, (call.heard(), cut)


def assert_dictionary_applied(stream, rules, reading: str) -> None:
    """In-process the engine is given the reading; a remote engine is given the raw text and
    the dictionary (`start.lexicon`), which the server applies (tests/integration/test_server_lexicon.py)."""
    if stream.remote:
        assert stream.options["lexicon"] == Lexicon(rules) and "SQL" in stream.text
    else:
        assert reading in stream.text and "SQL" not in stream.text


def played_into_the_reading(conversation) -> bool:
    """Half a second of the reading has played: the user barges in then, whatever the load,
    and the barge-in has the rest of the reading (seconds) to take effect."""
    pieces = conversation.agent.speeches[0].pieces if conversation.agent.speeches else []
    reading = next((p.start_time for p in pieces if p.strip() == "SQL"), None)
    return reading is not None and conversation.speaker.position() >= reading + 0.5


async def test_livekit_barge_in_mid_reading_cuts_at_a_raw_word(speech_engine):
    observed, _ = speech_engine
    conversation = await converse(
        LiveKitTTS(engine=observed, lexicon=LEXICON),
        [said(0.5, 1.5, "What runs the shop?"), said(0.0, 1.0, "Stop!", cue=played_into_the_reading)],
        {"What runs the shop?": REPLY},
        llm_chars_per_second=40,
    )
    [reply] = [s for s in observed.streams if s.text.strip()]
    assert_dictionary_applied(reply, LEXICON, READING)
    [message] = conversation.assistant_messages()
    heard = message.text_content
    assert message.interrupted
    # the cut fell inside the reading
    pieces = {p.strip(): p.start_time for p in conversation.agent.speeches[0].pieces}
    position = conversation.speaker.segments[0].position
    assert pieces["SQL"] < position < pieces["runs"], (position, pieces)
    # LiveKit's synchronizer paces words out at an estimated rate between their start times, so
    # the context may end a word or two either side of "SQL"; it is always the raw reply cut at
    # a word, and never holds a word of the reading.
    assert REPLY.startswith(heard) and REPLY[len(heard):][:1] in (" ", ""), heard
    assert heard.startswith(BEFORE) and not any(w in heard for w in ("structured", "relational", "sequel"))


async def test_livekit_reading_heard_to_the_end_keeps_the_raw_reply(speech_engine):
    observed, _ = speech_engine
    short = "Ask SQL."
    conversation = await converse(
        LiveKitTTS(engine=observed, lexicon=[{"match": "SQL", "say": "sequel"}]),
        [said(0.5, 1.5, "Who?")],
        {"Who?": short},
    )
    [reply] = [s for s in observed.streams if s.text.strip()]
    assert_dictionary_applied(reply, [{"match": "SQL", "say": "sequel"}], "sequel")
    [message] = conversation.assistant_messages()
    assert message.text_content == short and not message.interrupted


def test_a_bad_dictionary_fails_when_the_service_is_made():
    bad = [{"match": "(", "say": "x", "regex": True}]
    with pytest.raises(LexiconError, match="rule 0: invalid regex"):
        PipecatTTS(settings=PipecatTTS.Settings(lexicon=bad))
    with pytest.raises(LexiconError, match="rule 0: invalid regex"):
        LiveKitTTS(lexicon=bad)
    with pytest.raises(LexiconError, match="'match' is empty"):
        LiveKitTTS().update_options(lexicon=[{"match": "", "say": "x"}])


async def test_the_acronym_switch_and_the_dictionary_reach_the_engine(embedded_engine):
    from livekit_harness import ObservedEngine
    from pipecat.tests.utils import run_test

    pipecat_engine = RecordingEngine(embedded_engine)
    tts = PipecatTTS(
        engine=pipecat_engine, spell_acronyms=False, settings=PipecatTTS.Settings(lexicon=[{"match": "GPU", "say": "graphics card"}])
    )
    frames = [LLMFullResponseStartFrame(), LLMTextFrame("The FBI has a GPU."), LLMFullResponseEndFrame()]
    await run_test(tts, frames_to_send=frames)
    assert pipecat_engine.streams[0].text == "The FBI has a graphics card."

    livekit_engine = ObservedEngine(embedded_engine)
    plugin = LiveKitTTS(engine=livekit_engine, spell_acronyms=False, lexicon=[{"match": "GPU", "say": "graphics card"}])
    async with plugin.stream() as stream:
        stream.push_text("The FBI has a GPU.")
        stream.end_input()
        async for _ in stream:
            pass
    await plugin.aclose()
    assert livekit_engine.streams[0].text == "The FBI has a graphics card."
