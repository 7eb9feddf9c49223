"""The embedded voice's bounded wait for a clause end (`ClauseWait`): text without punctuation
is spoken after a few words or a short time, on an injected clock; the defaults get the first
audio of an unpunctuated sentence long before its last token (real eSpeak NG)."""

from __future__ import annotations

import asyncio
import time

import pytest

from engine.backends.espeak import EmbeddedEngine, EspeakStream
from engine.backends.espeak_segments import ClauseWait, complete_words
from engine.backends.espeak_voices import VoiceSelection
from voice_tts.protocol import AudioChunk


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class IdleScheduler:
    """Never synthesizes: the test reads the stream's queue through `ready()` and `due_at()`."""

    def wake(self, job=None) -> None:
        pass


def stream_on(clock: FakeClock, wait: ClauseWait) -> EspeakStream:
    return EspeakStream(IdleScheduler(), VoiceSelection.resolve(None, None), 24000, lambda s: None, wait, clock)


def queued(stream: EspeakStream) -> list[str]:
    return [piece.text for piece in stream._pieces]


def test_complete_words() -> None:
    assert complete_words("hello big wor") == (9, 2)
    assert complete_words("hello big ") == (9, 2)
    assert complete_words("hello") == (0, 0)
    assert complete_words(" hi") == (0, 0)


def test_first_piece_after_a_few_words_without_any_time_passing() -> None:
    clock = FakeClock()
    stream = stream_on(clock, ClauseWait(first_words=4, delay_s=None))
    for token in ["so the", " thing", " we need", " to do is"]:
        stream.push_text(token)
    assert queued(stream) == ["so the thing we"]  # four whole words ("need" may still grow)
    assert stream._pending == " need to do is"
    stream.push_text(" to wait for the end of it")  # later pieces wait for a clause end
    clock.now += 60
    stream.ready()
    assert queued(stream) == ["so the thing we"]


def test_first_piece_after_a_short_time_on_the_fake_clock() -> None:
    clock = FakeClock()
    stream = stream_on(clock, ClauseWait(first_words=None, delay_s=0.3))
    stream.push_text("hello there fri")
    assert queued(stream) == [] and not stream.ready()
    assert stream.due_at() == pytest.approx(100.3)
    clock.now += 0.2
    stream.push_text("end of")  # "friend" completes; the wait still counts from "hello"
    assert not stream.ready()
    clock.now += 0.1
    assert stream.ready()
    assert queued(stream) == ["hello there friend"]
    assert stream._pending == " of"


def test_after_the_first_piece_only_a_stall_releases_words() -> None:
    clock = FakeClock()
    stream = stream_on(clock, ClauseWait(first_words=None, delay_s=0.3))
    stream.push_text("First clause, then a long one")
    assert queued(stream) == ["First clause,"]
    for _ in range(5):  # tokens keep coming: no early cut, the clause keeps its intonation
        clock.now += 0.25
        stream.push_text(" more")
        stream.ready()
        assert queued(stream) == ["First clause,"]
    assert stream.due_at() == pytest.approx(clock.now + 0.3)
    clock.now += 0.3  # the LLM stalls mid-clause
    assert stream.ready()
    assert queued(stream) == ["First clause,", " then a long one more more more more"]
    assert stream._pending == " more"


def test_no_wait_limits_means_clause_ends_only() -> None:
    clock = FakeClock()
    stream = stream_on(clock, ClauseWait(first_words=None, delay_s=None))
    stream.push_text("one two three four five six seven ")
    clock.now += 3600
    assert not stream.ready() and stream.due_at() is None and queued(stream) == []


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="first_words"):
        ClauseWait(first_words=0)
    with pytest.raises(ValueError, match="delay_s"):
        ClauseWait(delay_s=-1)


SENTENCE = (
    "so I looked into it and the short answer is that you can move the booking to any day "
    "next week without paying anything extra"
)


async def first_audio_after(engine: EmbeddedEngine, tokens_per_second: float) -> tuple[float, float]:
    """(seconds from the first token to the first audio, seconds until the last token was sent)."""
    stream = engine.open_stream()
    tokens = [SENTENCE[i : i + 4] for i in range(0, len(SENTENCE), 4)]
    start = time.monotonic()
    first_audio: list[float] = []

    async def feed() -> float:
        for token in tokens:
            stream.push_text(token)
            await asyncio.sleep(1 / tokens_per_second)
        sent = time.monotonic() - start
        stream.end_input()
        return sent

    async def listen() -> None:
        async for event in stream.events():
            if isinstance(event, AudioChunk) and not first_audio:
                first_audio.append(time.monotonic() - start)

    sent, _ = await asyncio.gather(feed(), listen())
    return first_audio[0], sent


async def test_unpunctuated_sentence_speaks_before_its_last_token() -> None:
    engine = EmbeddedEngine()
    try:
        ttfa, last_token = await first_audio_after(engine, tokens_per_second=30)
        # The old behaviour waited for the end (about 1 s here); the margin is a second.
        assert ttfa < last_token - 0.5, (ttfa, last_token)
        clause_only = EmbeddedEngine(clause_wait=ClauseWait(first_words=None, delay_s=None))
        ttfa_clause_only, last_token = await first_audio_after(clause_only, tokens_per_second=30)
        assert ttfa_clause_only >= last_token
    finally:
        await engine.aclose()
