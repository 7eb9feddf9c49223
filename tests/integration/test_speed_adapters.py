"""A speaking-rate change mid-conversation through a real Pipecat pipeline (`TTSUpdateSettingsFrame`
with `Settings(speed=…)`) and a real LiveKit `AgentSession` (`update_options(speed=…)`, in-process
and through the server): the rest of the reply is heard faster, and after a barge-in the LLM
context holds exactly the words heard, in played time."""

from __future__ import annotations

import asyncio

import pytest
from livekit_harness import (  # noqa: F401  (fixtures)
    converse,
    engine_server,
    said,
    speech_engine,
)
from pipecat.frames.frames import (
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    TTSUpdateSettingsFrame,
)
from pipecat_harness import BargeInPipeline
from scripted_llm import tokenize
from session_turns import run_turn

from voice_tts.livekit import Qwen3StreamingTTS as LiveKitTTS
from voice_tts.pipecat import Qwen3StreamingTTS as PipecatTTS
from voice_tts.session import TTSSession

pytestmark = [pytest.mark.slow]
pytest.importorskip("pylibrb")

REPLY = (
    "Thanks for calling. I can help you change your booking, check the status of a refund, "
    "or answer questions about our opening hours and locations, and anything else you need today."
)


async def starts_at_normal_speed(engine, text: str) -> dict[int, float]:
    """Raw-text offset of each word -> its start, spoken at 1.0."""
    _, words, _ = await run_turn(TTSSession(engine), text)
    return {word.raw_start: word.start_time for word in words}


def assert_faster_after_the_change(starts: list[float], normal: list[float]) -> None:
    """The first word was made at 1.0; a word seconds later was made at 1.5, so it starts
    well before it would have."""
    assert starts[0] == pytest.approx(normal[0], abs=0.03)
    assert normal[-1] > 3.0 and starts[-1] < 0.85 * normal[-1], (starts, normal)


async def test_pipecat_speed_change_mid_turn_keeps_exactly_the_heard_words(embedded_engine):
    call = BargeInPipeline(PipecatTTS(engine=embedded_engine))
    worker, tokens = call.worker, tokenize(REPLY)

    async def converse_with_pipecat() -> int:
        await asyncio.sleep(0.2)
        await worker.queue_frame(LLMFullResponseStartFrame())
        for token in tokens[:3]:
            await worker.queue_frame(LLMTextFrame(token))
        async with asyncio.timeout(30):
            while not call.output.played:
                await asyncio.sleep(0.01)
        # In order with the text: the rest of the reply is made after the change.
        await worker.queue_frame(TTSUpdateSettingsFrame(delta=PipecatTTS.Settings(speed=1.5)))
        for token in tokens[3:]:
            await worker.queue_frame(LLMTextFrame(token))
            await asyncio.sleep(0.01)
        await worker.queue_frame(LLMFullResponseEndFrame())
        await asyncio.sleep(4.0)
        return await call.barge_in()

    interrupted_at = await call.run(converse_with_pipecat)

    starts = call.assert_heard_the_played_words(REPLY, interrupted_at)
    normal = list((await starts_at_normal_speed(embedded_engine, REPLY)).values())
    assert_faster_after_the_change(starts, normal[: len(starts)])


async def test_livekit_update_options_speed_mid_speech_keeps_exactly_the_heard_words(
    speech_engine, embedded_engine
):
    observed, backing = speech_engine
    tts = LiveKitTTS(engine=observed)

    async def speed_up_once_the_reply_starts() -> None:
        while not any(len(s.text) >= 10 for s in observed.streams):
            await asyncio.sleep(0.01)
        tts.update_options(speed=1.5)

    speeding = asyncio.create_task(speed_up_once_the_reply_starts())
    conversation = await converse(
        tts,
        [said(0.5, 1.5, "How can you help?"), said(7.5, 8.5, "Stop!")],
        {"How can you help?": REPLY},
        llm_chars_per_second=40,
    )
    assert speeding.done()

    [message] = conversation.assistant_messages()
    heard = message.text_content
    assert message.interrupted
    assert REPLY.startswith(heard) and len(heard) < len(REPLY)
    reply = conversation.agent.speeches[0]
    playback = conversation.playback[0]
    assert playback.interrupted and playback.synchronized_transcript == heard
    # As without a speed change (test_livekit_session.py): the message is a whole number of
    # the plugin's timed pieces, those whose audio had finished at the cut, give or take the
    # one word LiveKit's synchronizer may hold early or late.
    pieces = reply.pieces
    prefixes = ["".join(pieces[:i]).strip() for i in range(len(pieces) + 1)]
    assert heard.strip() in prefixes, heard
    kept = prefixes.index(heard.strip())
    position = conversation.speaker.segments[0].position
    ends = [p.start_time for p in pieces[1:]] + [reply.audio_seconds]
    assert abs(kept - sum(end <= position for end in ends)) <= 1

    normal_by_offset = await starts_at_normal_speed(embedded_engine, REPLY)
    offsets, text = [], ""
    for piece in pieces[:kept]:
        offsets.append(len(text) + len(piece) - len(piece.lstrip()))
        text += piece
    assert_faster_after_the_change(
        [p.start_time for p in pieces[:kept]], [normal_by_offset[o] for o in offsets]
    )
    assert backing.active_streams == 0
