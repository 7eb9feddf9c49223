"""Normalization adds no delta of delay to first audio (issue 44, item 6): for agent reply openings
sent as an LLM's deltas through `TTSSession`, the text tokens final on the engine's side after
each delta are the same with and without normalization, wherever the normalized text equals the
raw text. A word is final with the delta that shows it ended (a space, or punctuation that cannot
join it: "Sure," "Hi!"), on both paths.

The engine is the embedded one wrapped in `TokenRecordingEngine`: every `push_text` and
`mark_word_end` the session makes is fed to the Qwen3 engine's own `TextFeed` (tiny fixture's
tokenizer), exactly what the Qwen3 stream posts to its step loop.
"""

from __future__ import annotations

import asyncio
import os

import pytest
from token_arrival import TokenRecordingEngine, TokenRecordingStream

from voice_tts.bench.deltas import llm_deltas
from voice_tts.bench.openings import OPENINGS
from voice_tts.session import SessionDone, TTSSession, WordsEvent
from voice_tts.tn import normalize


def same_text_until(a: str, b: str) -> int:
    """Where `a` and `b` first differ (their common prefix's length)."""
    return len(os.path.commonprefix([a, b]))


async def final_tokens_per_delta(
    recording: TokenRecordingEngine, language: str, deltas: list[str], normalized: bool
) -> tuple[list[list[tuple[int, int]]], TokenRecordingStream]:
    """After each delta, every text token final on the engine's side so far: (id, spoken end)."""
    session = TTSSession(recording, language=language, normalize=normalized)
    stream = recording.streams[-1]
    per_delta = []
    for delta in deltas:
        session.push_text(delta)
        per_delta.append([(i, end) for arrival in stream.arrivals for i, end in zip(arrival.ids, arrival.ends)])
    session.end_input()
    async for event in session.events():
        if isinstance(event, SessionDone):
            break
    return per_delta, stream


@pytest.mark.parametrize(("language", "opening"), OPENINGS, ids=[text for _, text in OPENINGS])
async def test_normalization_adds_no_delta_of_delay(recording, language, opening):
    deltas = llm_deltas(opening)
    spoken = normalize(opening, language)
    normalized, normalized_stream = await final_tokens_per_delta(recording, language, deltas, True)
    raw, raw_stream = await final_tokens_per_delta(recording, language, deltas, False)
    # The whole turn is still exactly one-shot's tokens on both paths.
    assert normalized_stream.ids == recording.tokenizer.encode(spoken)
    assert raw_stream.ids == recording.tokenizer.encode(opening)
    # Tokens ending before the first character normalization changes are the same tokens on
    # both paths, and each is final after the same delta.
    equal_until = same_text_until(spoken, opening)
    for index, (with_tn, without) in enumerate(zip(normalized, raw)):
        sent = "".join(deltas[: index + 1])
        if sent.endswith("?"):
            # Spec §3.3 (case S12): a token ending in '?' waits for the next character (a URL's
            # query may follow); the word before it is final with the next delta.
            without = [t for t in without if t[1] < len(sent) - 1]
        assert [t for t in with_tn if t[1] < equal_until] == [t for t in without if t[1] < equal_until], sent


@pytest.mark.parametrize("text", ["Hello again.", "Okay, sure,", "I'm here, really."])
async def test_a_word_committed_before_its_punctuation_is_reported_with_it(tiny_checkpoint, text):
    """The Qwen3 engine speaks a plain word before a joiner at once ("again" of "again."), before
    the normalizer commits the joiner; the word is still the raw word with its punctuation, as
    the raw text shows it when the word starts (was "again": the period lost from the words,
    and so from Pipecat's word frames and the LLM context)."""
    from engine import Engine

    engine = Engine.from_pretrained(tiny_checkpoint, device="cpu")
    try:
        session = TTSSession(engine)
        session.push_text(text)  # a whole reply at once, as Pipecat sends one
        words: list[str] = []
        events = session.events()
        # Every word starts before the input ends: the early commit speaks the last one.
        while len(words) < len(text.split()):
            event = await asyncio.wait_for(anext(events), timeout=30)
            if isinstance(event, WordsEvent):
                words += [w.text for w in event.words]
        session.end_input()
        async for event in events:
            if isinstance(event, WordsEvent):
                words += [w.text for w in event.words]
            elif isinstance(event, SessionDone):
                heard = event.heard_text
    finally:
        await engine.aclose()
    assert words == text.split() and heard == text
