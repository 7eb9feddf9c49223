"""`Qwen3StreamingTTS(markup=...)` in real Pipecat pipelines on the embedded voice: an LLM reply
with Cartesia Sonic-3's tags (as written for Pipecat's Cartesia service), one character per
`LLMTextFrame`, is spoken as the tags direct, and neither the word frames nor the LLM context
ever hold a tag, after a whole reply or a barge-in inside a tagged sentence."""

from __future__ import annotations

import asyncio

import pytest
from pipecat_harness import BargeInPipeline

from engine import Engine
from voice_tts.markup import strip_markup
from voice_tts.pipecat import Qwen3StreamingTTS

CARTESIA_REPLY = (
    '<emotion value="excited"/>Great news, your order shipped! '
    '<break time="1s"/>The tracking code is <spell>X7Q</spell>. '
    '<speed ratio="0.8"/><volume ratio="1.5"/>It should arrive on Friday.'
)
EXPR_REPLY = (
    '<expr type="expression" label="excited"/>Great news, your order shipped! '
    '<expr type="break" label="1s"/>The tracking code is <expr type="spell">X7Q</expr>. '
    '<expr type="prosody" label="slow">It should arrive on Friday.</expr>'
)
LONG = " ".join(
    f'<emotion value="calm"/>This is sentence number {i}, <speed ratio="1.2"/>told so that it can be cut.'
    for i in range(8)
)


@pytest.fixture(scope="module")
def engine():
    engine = Engine.embedded()
    yield engine
    asyncio.run(engine.aclose())


async def speak_whole_reply(tts, reply: str) -> BargeInPipeline:
    call = BargeInPipeline(tts)

    async def converse():
        await asyncio.sleep(0.2)
        await call.stream_reply(list(reply), seconds_between=0.001)
        async with asyncio.timeout(60):
            while not call.context.messages:
                await asyncio.sleep(0.05)
        await call.worker.cancel()

    await call.run(converse)
    return call


@pytest.mark.parametrize("markup, reply", [("cartesia", CARTESIA_REPLY), ("expr", EXPR_REPLY)])
async def test_tagged_reply_keeps_tags_out_of_words_and_context(engine, markup, reply):
    clean = strip_markup(reply, markup)
    assert clean == "Great news, your order shipped! The tracking code is X7Q. It should arrive on Friday."
    tagged = await speak_whole_reply(Qwen3StreamingTTS(engine=engine, markup=markup), reply)
    plain = await speak_whole_reply(Qwen3StreamingTTS(engine=engine), clean)
    assert tagged.heard() == clean
    words = [w.text for w in tagged.words.words]
    assert " ".join(words) == clean and not any("<" in w for w in words)
    # The break is a second of silence in the audio and in the word times.
    extra = tagged.words.start_of("The") - plain.words.start_of("The")
    assert extra >= 0.95
    played = sum(len(pcm) for _, pcm in tagged.output.played) - sum(len(pcm) for _, pcm in plain.output.played)
    assert played / 2 / 24000 >= 0.95


async def test_without_markup_tags_are_text(engine):
    # An app that did not ask for markup: "<" is text, as before.
    call = await speak_whole_reply(Qwen3StreamingTTS(engine=engine), "Is 3 <5? Yes.")
    assert call.heard() == "Is 3 <5? Yes."


async def test_barge_in_inside_a_tagged_sentence(engine):
    call = BargeInPipeline(Qwen3StreamingTTS(engine=engine, markup="cartesia"))

    async def converse():
        await asyncio.sleep(0.2)
        await call.stream_reply(list(LONG), seconds_between=0.001)
        await call.play_into("number", 2.0)
        return await call.barge_in()

    interrupted_at = await call.run(converse)
    assert "<" not in call.heard()
    call.assert_heard_the_played_words(strip_markup(LONG, "cartesia"), interrupted_at)
