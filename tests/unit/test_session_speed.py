"""`TTSSession(speed=…)` and `set_speed` on the embedded voice: audio, words, heard text at a
barge-in and usage are in played time."""

from __future__ import annotations

import pytest
from session_turns import run_turn

from engine.backends.espeak import EmbeddedEngine
from voice_tts.session import TTSSession

pytest.importorskip("pylibrb")

RATE = 24000
SENTENCE = "Thank you for calling the front desk, how can I help you today?"
TEXT = f"{SENTENCE} {SENTENCE}"
SENTENCE_WORDS = len(SENTENCE.split())


async def test_a_session_at_a_speed_has_its_words_and_usage_in_played_time():
    engine = EmbeddedEngine()
    normal_seconds, normal, _ = await run_turn(TTSSession(engine, sample_rate=RATE), TEXT)
    seconds, words, done = await run_turn(TTSSession(engine, sample_rate=RATE, speed=1.5), TEXT)
    assert seconds == pytest.approx(normal_seconds / 1.5, rel=0.03)
    assert [w.text for w in words] == [w.text for w in normal] == TEXT.split()
    for quick, plain in zip(words, normal):
        assert quick.start_time == pytest.approx(plain.start_time / 1.5, abs=0.025)
    assert done.usage.audio_seconds == pytest.approx(seconds, abs=0.01)
    assert done.heard_text == TEXT


async def test_set_speed_mid_turn_keeps_heard_text_exact_at_a_barge_in():
    engine = EmbeddedEngine()
    _, normal, _ = await run_turn(TTSSession(engine, sample_rate=RATE), TEXT)
    heard: list[str] = []

    def change_then_barge_in(session: TTSSession, words) -> None:
        if session.speed == 1.0 and len(words) >= 3:
            session.set_speed(1.5)
        elif len(words) > SENTENCE_WORDS + 3 and not heard:
            # Between the starts of two words the engine made after the change.
            played = (words[SENTENCE_WORDS + 1].start_time + words[SENTENCE_WORDS + 2].start_time) / 2
            heard.append(session.cancel(played))

    session = TTSSession(engine, sample_rate=RATE)
    _, words, done = await run_turn(session, TEXT, change_then_barge_in)
    # The second sentence came after the change: in played time its words are closer together.
    first, last = SENTENCE_WORDS, SENTENCE_WORDS + 3
    span = words[last].start_time - words[first].start_time
    assert span == pytest.approx((normal[last].start_time - normal[first].start_time) / 1.5, abs=0.03)
    expected = TEXT[: words[SENTENCE_WORDS + 1].raw_end]
    assert heard == [expected]
    assert done.cancelled and done.heard_text == expected


def test_a_session_refuses_a_speed_outside_the_range():
    with pytest.raises(ValueError, match="speed must be"):
        TTSSession(EmbeddedEngine(), speed=3.0)
    session = TTSSession(EmbeddedEngine())
    with pytest.raises(ValueError, match="speed must be"):
        session.set_speed(0.2)
