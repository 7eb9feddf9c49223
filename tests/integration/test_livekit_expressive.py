"""A real LiveKit `AgentSession` in expressive mode whose LLM writes LiveKit's `expr` markers
one character at a time, speaking through the plugin (in-process and through the server): the
markers act (a break is silence, spelled text is read out), and the aligned transcript, the
played transcript and the chat message after a barge-in never contain them."""

from __future__ import annotations

import pytest
from livekit_harness import (  # noqa: F401  (fixtures)
    converse,
    engine_server,
    said,
    speech_engine,
)

from voice_tts.livekit import Qwen3StreamingTTS
from voice_tts.markup import strip_markup

pytestmark = pytest.mark.slow

REPLY = (
    '<expr type="expression" label="bright and friendly"/>You are all set! '
    'Your code is <expr type="spell">B4J</expr>. <expr type="break" label="1s"/>'
    '<expr type="prosody" label="slow">Write it down somewhere safe.</expr> '
    '<expr type="sound" label="laugh"/>Anything else?'
)
CLEAN = strip_markup(REPLY, "expr")

LONG = " ".join(
    f'<expr type="expression" label="calm, sentence {i}"/>This is sentence number {i}, '
    f'<expr type="prosody" label="fast"/>told slowly so it can be cut.'
    for i in range(8)
)
LONG_CLEAN = strip_markup(LONG, "expr")


def test_the_markup_teaches_what_the_engine_does():
    markup = Qwen3StreamingTTS(markup="expr").markup
    taught = markup.llm_instructions()
    for marker in ('type="expression"', 'type="break"', 'type="prosody"', 'type="spell"'):
        assert marker in taught
    assert 'type="sound"' not in taught.replace("never write a sound", "")
    assert markup.info.nonverbals == {}
    assert markup.normalize('a <expr type="break" label="1s"> b') == 'a <expr type="break" label="1s"/> b'
    assert markup.convert(REPLY) == REPLY
    assert strip_markup(taught.split("Example:")[1], "expr").count("<") == 0


async def test_expressive_speech_has_tag_free_aligned_transcripts(speech_engine) -> None:
    observed, _ = speech_engine
    plain = await converse(
        Qwen3StreamingTTS(engine=observed), [said(0.5, 1.5, "Hi.")], {"Hi.": CLEAN}, llm_chunk_chars=1
    )
    conversation = await converse(
        Qwen3StreamingTTS(engine=observed, markup="expr"),
        [said(0.5, 1.5, "Hi.")],
        {"Hi.": REPLY},
        expressive=True,
        llm_chunk_chars=1,
    )
    [speech] = conversation.agent.speeches
    assert speech.text == REPLY  # the TTS node got the markers
    assert "".join(speech.pieces) == CLEAN  # its aligned transcript has none
    [playback] = conversation.playback
    assert playback.synchronized_transcript == CLEAN
    assert "<" not in "".join(conversation.transcript.segments)
    # The break is a second of silence the plain reply does not have.
    assert speech.audio_seconds - plain.agent.speeches[0].audio_seconds >= 1.0
    starts = {p.strip(): p.start_time for p in speech.pieces}
    plain_starts = {p.strip(): p.start_time for p in plain.agent.speeches[0].pieces}
    assert starts["Write"] - plain_starts["Write"] >= 1.0


async def test_barge_in_inside_a_tagged_sentence_keeps_the_words_heard(speech_engine) -> None:
    observed, backing = speech_engine
    conversation = await converse(
        Qwen3StreamingTTS(engine=observed, markup="expr"),
        [said(0.5, 1.5, "Go on."), said(5.5, 6.5, "Stop!")],
        {"Go on.": LONG},
        expressive=True,
        llm_chunk_chars=1,
        llm_chars_per_second=200,
    )
    [message] = conversation.assistant_messages()
    heard = message.text_content
    assert message.interrupted
    assert "<" not in heard
    assert LONG_CLEAN.startswith(heard.strip()) and 0 < len(heard.strip()) < len(LONG_CLEAN)
    [playback] = conversation.playback[:1]
    assert playback.interrupted and playback.synchronized_transcript == heard
    pieces = conversation.agent.speeches[0].pieces
    prefixes = ["".join(pieces[:i]).strip() for i in range(len(pieces) + 1)]
    assert heard.strip() in prefixes
    assert backing.active_streams == 0
