"""A real LiveKit `AgentSession` speaking through the plugin, in real time, with the engine
in-process and through `RemoteEngine` against a server on 127.0.0.1.

The user's voice, the STT and the LLM are scripted; the speaker plays audio at wall-clock
speed, so barge-in, pauses and the transcript synchronizer behave as in a room.
"""

from __future__ import annotations

import pytest
from livekit_harness import (  # noqa: F401  (fixtures)
    ObservedEngine,
    UserSpeech,
    converse,
    engine_server,
    noise,
    said,
    speech_engine,
)

from voice_tts.livekit import Qwen3StreamingTTS

pytestmark = pytest.mark.slow

STORY = (
    "Once upon a time there was a small robot who loved to paint the sky. "
    "Every evening it climbed the hill behind the old town, "
    "opened its box of colours and waited for the sun to go down. "
    "Then it painted the clouds orange, the hills purple and the river gold, "
    "until the first stars came out and it was time to go home."
)


# two sentences, about 7 s of speech: long enough to be cut into, short enough to hear out
SHORT_STORY = STORY[: STORY.index("go down.") + len("go down.")]


def spoken_streams(engine: ObservedEngine):
    return [s for s in engine.streams if s.text.strip()]


async def test_barge_in_keeps_exactly_the_words_played(speech_engine) -> None:
    observed, backing = speech_engine
    conversation = await converse(
        Qwen3StreamingTTS(engine=observed),
        [said(0.5, 1.5, "Tell me a story."), said(6.5, 7.5, "Stop!")],
        {"Tell me a story.": STORY},
        # an LLM still writing when the user cuts in: the engine stream is open and must stop
        llm_chars_per_second=40,
    )

    [message] = conversation.assistant_messages()
    heard = message.text_content
    assert message.interrupted
    assert STORY.startswith(heard) and len(heard) < len(STORY)
    story = conversation.agent.speeches[0]
    assert STORY.startswith(story.text) and story.text.startswith(heard)
    playback = conversation.playback[0]
    assert playback.interrupted and playback.synchronized_transcript == heard

    # The message is a whole number of the plugin's word pieces, and those are the words whose
    # audio had finished when the user cut in. The pieces carry exact start times; LiveKit's
    # TranscriptSynchronizer paces words out between them at an estimated syllable rate, so
    # the word it holds at the cut may be one early or one late.
    pieces = story.pieces
    assert STORY.startswith("".join(pieces))
    prefixes = ["".join(pieces[:i]).strip() for i in range(len(pieces) + 1)]
    assert heard.strip() in prefixes, f"{heard!r} does not end at a word piece"
    kept = prefixes.index(heard.strip())
    position = conversation.speaker.segments[0].position
    ends = [p.start_time for p in pieces[1:]] + [story.audio_seconds]
    finished = sum(1 for end in ends if end <= position)
    assert abs(kept - finished) <= 1, (heard, position, [(p, p.start_time) for p in pieces])
    assert position > 2.0  # a real cut: seconds of speech were heard

    [reply] = spoken_streams(observed)
    assert reply.cancelled
    assert backing.active_streams == 0


async def test_false_interruption_resumes_the_same_speech(speech_engine) -> None:
    observed, backing = speech_engine
    conversation = await converse(
        Qwen3StreamingTTS(engine=observed),
        [said(0.5, 1.5, "Tell me a story."), noise(4.0, 4.7)],
        {"Tell me a story.": SHORT_STORY},
        can_pause=True,
        interruption={"resume_false_interruption": True, "false_interruption_timeout": 1.0},
    )

    assert [ev.resumed for ev in conversation.false_interruptions] == [True]
    assert conversation.speaker.pauses >= 1
    [reply] = spoken_streams(observed)
    assert not reply.cancelled and reply.done is not None and not reply.done.cancelled
    [message] = conversation.assistant_messages()
    assert not message.interrupted and message.text_content == SHORT_STORY
    [segment] = conversation.speaker.segments
    assert not segment.interrupted
    assert segment.position == pytest.approx(conversation.agent.speeches[0].audio_seconds)
    assert backing.active_streams == 0


async def test_discarded_preemptive_speech_leaks_no_engine_stream(speech_engine) -> None:
    observed, backing = speech_engine
    guess = "It is sunny and warm all day long, with a light breeze from the sea in the evening."
    answer = "Paris is grey and rainy today."
    conversation = await converse(
        Qwen3StreamingTTS(engine=observed),
        [UserSpeech(0.5, 2.0, ((1.2, "What is the weather"), (2.2, "in Paris")))],
        {"What is the weather": guess, "What is the weather in Paris": answer},
        preemptive_generation={"enabled": True, "preemptive_tts": True},
        llm_chars_per_second=30,
    )

    discarded, adopted = spoken_streams(observed)
    assert discarded.cancelled and not adopted.cancelled
    assert adopted.done is not None and not adopted.done.cancelled
    [message] = conversation.assistant_messages()
    assert message.text_content == answer and not message.interrupted
    # only the adopted speech reached the speaker
    [segment] = conversation.speaker.segments
    assert segment.received == pytest.approx(conversation.agent.speeches[-1].audio_seconds)
    first, last = conversation.agent.speeches
    assert guess.startswith(first.text) and last.text == answer
    assert backing.active_streams == 0


async def test_an_engine_failure_keeps_only_the_words_spoken_in_the_chat() -> None:
    from pipecat_harness import FakeEngine

    engine = FakeEngine(fail_after_chars=60)  # speaks the words that end by character 60
    conversation = await converse(
        Qwen3StreamingTTS(engine=engine, normalize=False),
        [said(0.5, 1.5, "Tell me a story.")],
        {"Tell me a story.": SHORT_STORY},
    )
    spoken = " ".join(SHORT_STORY[:60].split()[:-1]) if not SHORT_STORY[60].isspace() else None
    spoken = spoken or SHORT_STORY[:60].strip()
    messages = conversation.assistant_messages()
    heard = " ".join(m.text_content for m in messages).strip()
    # Never a word after the failure: LiveKit keeps the words played when the speech failed
    # (audio it had not played yet is dropped), so a prefix of the words the engine spoke.
    assert heard and spoken.startswith(heard)
    assert heard.split() == spoken.split()[: len(heard.split())]
