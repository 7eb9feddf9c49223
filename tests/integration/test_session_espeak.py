"""TTSSession on the real embedded eSpeak NG engine: LLM deltas in, audio and raw words out."""

from __future__ import annotations

import asyncio

import pytest
from loop_watch import watch_loop

from engine import Engine
from voice_tts.progress import segment_words
from voice_tts.protocol import AudioChunk, Error
from voice_tts.session import SessionDone, TTSSession, WordsEvent
from voice_tts.tn import normalize

RATE = 24000

REPLY = (
    "Sure! The **total** comes to $12.50 per kg, delivered on 2026-03-04. "
    "See [the docs](https://example.com/a) for _details_, then call me back. "
    "Anything else I can help you with today?"
)
CHINESE = "价格是12.5元，共计100人。我今天很开心！"


class RecordingEngine:
    """The real engine, remembering what each stream was sent."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.sent: list[list[str]] = []

    def open_stream(self, request=None, /, **options):
        stream = self.engine.open_stream(request, **options)
        sent: list[str] = []
        self.sent.append(sent)
        push = stream.push_text

        def push_text(text: str) -> None:
            sent.append(text)
            push(text)

        stream.push_text = push_text
        return stream

    async def aclose(self) -> None:
        await self.engine.aclose()


@pytest.fixture
async def engine():
    engine = RecordingEngine(Engine.embedded())
    yield engine
    await engine.aclose()


def tokens(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


async def run_turn(session: TTSSession, text: str) -> list:
    async def feed():
        for token in tokens(text):
            session.push_text(token)
            await asyncio.sleep(0.001)
        session.end_input()

    feeder = asyncio.create_task(feed())
    events = [event async for event in session.events()]
    await feeder
    return events


def check_words_and_audio(events, raw: str) -> list:
    """Words in order, once each, with non-decreasing times, each announced before the audio
    it starts in; together they are the raw text's words."""
    words, audio_end = [], 0.0
    for event in events:
        if isinstance(event, WordsEvent):
            for word in event.words:
                assert word.start_time >= audio_end - 1e-9
                words.append(word)
        elif isinstance(event, AudioChunk):
            assert event.sample_rate == RATE
            audio_end = (event.start_sample + event.num_samples) / RATE
    assert [w.text for w in words] == [raw[a:b] for a, b in segment_words(raw)]
    for word in words:
        assert raw[word.raw_start : word.raw_end] == word.text
    times = [w.start_time for w in words]
    assert times == sorted(times)
    assert times[-1] <= audio_end
    return words


async def test_llm_deltas_become_timed_raw_words(engine):
    session = TTSSession(engine, voice="female", language="en", sample_rate=RATE)
    events = await run_turn(session, REPLY)
    assert not [e for e in events if isinstance(e, Error)]
    words = check_words_and_audio(events, REPLY)
    spoken = "".join(engine.sent[0])
    assert spoken == normalize(REPLY, "en")
    assert "*" not in spoken and "_" not in spoken and "https" not in spoken and "$" not in spoken
    done = events[-1]
    assert isinstance(done, SessionDone) and not done.cancelled
    assert done.heard_text == REPLY == session.raw_text
    assert done.usage.characters_received == len(REPLY)
    assert done.usage.audio_seconds > 5
    assert [w.text for w in words][:4] == ["Sure!", "The", "**total**", "comes"]


async def test_chinese_words_are_characters_with_times(engine):
    session = TTSSession(engine, language="zh", sample_rate=RATE)
    events = await run_turn(session, CHINESE)
    words = check_words_and_audio(events, CHINESE)
    assert words[0].text == "价" and any(w.text == "12.5" for w in words)
    assert "".join(engine.sent[0]) == normalize(CHINESE, "zh")
    assert events[-1].heard_text == CHINESE


async def test_audio_starts_before_the_turn_ends(engine):
    session = TTSSession(engine, sample_rate=RATE)
    session.push_text("The first sentence is done. And the second ")
    events = session.events()
    while not isinstance(event := await asyncio.wait_for(anext(events), 10), AudioChunk):
        pass
    session.push_text("one comes later.")
    session.end_input()
    rest = [e async for e in events]
    assert rest[-1].heard_text == "The first sentence is done. And the second one comes later."


async def test_barge_in_returns_the_whole_words_heard(engine):
    raw = REPLY * 3
    session = TTSSession(engine, sample_rate=RATE)
    session.push_text(raw)
    session.end_input()
    events = session.events()
    seen, delivered = [], 0.0
    async for event in events:
        seen.append(event)
        if isinstance(event, AudioChunk):
            delivered = (event.start_sample + event.num_samples) / RATE
            if delivered >= 4.0:
                break
    played = 2.5
    heard = session.cancel(played_seconds=played)
    rest = [e async for e in events]
    assert [type(e) for e in rest] == [SessionDone]
    assert rest[0].cancelled and rest[0].heard_text == heard
    # A prefix of the raw text made of whole words: exactly the words started by `played`.
    assert raw.startswith(heard) and heard
    started = [w for e in seen if isinstance(e, WordsEvent) for w in e.words]
    in_time = [w for w in started if w.start_time <= played]
    assert heard == raw[: in_time[-1].raw_end]
    assert all(w.start_time > played for w in started[len(in_time) :])
    assert raw[len(heard)].isspace()
    assert session.cancel() == raw[: started[-1].raw_end]


async def test_without_normalization_the_engine_gets_the_raw_deltas(engine):
    raw = "Already spoken form, twelve dollars. Nothing to change here."
    session = TTSSession(engine, sample_rate=RATE, normalize=False)
    events = await run_turn(session, raw)
    assert engine.sent[0] == tokens(raw)
    check_words_and_audio(events, raw)
    assert events[-1].heard_text == raw


async def test_unknown_voice_is_an_error_then_done(engine):
    session = TTSSession(engine, voice="nobody", sample_rate=RATE)
    session.push_text("Hello.")
    session.end_input()
    events = [e async for e in session.events()]
    assert [type(e) for e in events] == [Error, SessionDone]
    assert events[0].code == "invalid_voice"


@pytest.mark.parametrize(
    "delta", ["word " * 4000, "x" * 20000, "中" * 20000], ids=["words", "no_spaces", "chinese"]
)
async def test_a_huge_delta_does_not_hold_the_event_loop(engine, delta):
    warm_up = TTSSession(engine)  # everything loaded before the watch
    await warm_up.feed("Hello there, 12 of them.")
    warm_up.end_input()
    [event async for event in warm_up.events()]
    async with watch_loop() as loop:
        session = TTSSession(engine)
        await session.feed(delta)
        session.end_input()
        started = asyncio.get_running_loop().time()
        async for event in session.events():
            if asyncio.get_running_loop().time() - started > 1.0:
                session.cancel(0.0)
    # Word spans and the raw text were re-scanned on every slice (50 ms and more per slice
    # for a run without spaces); a few ms on a quiet machine now (docs/benchmarks.md).
    assert loop.longest_cpu < 0.02, loop.longest_cpu
