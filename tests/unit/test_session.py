"""TTSSession's offset logic against a small, exactly predictable engine."""

from __future__ import annotations

import asyncio
import re

import pytest

from voice_tts.protocol import AudioChunk, Done, Error, Progress, Usage
from voice_tts.session import SessionDone, TTSSession, WordsEvent, normalizer_language
from voice_tts.tn import normalize
from voice_tts.request import StreamRequest
from tests.engine_requests import recorded_options

WORD_SECONDS = 0.1
RATE = 16000


class FakeStream:
    """Speaks each whitespace-separated word of the pushed text as WORD_SECONDS of audio once
    whitespace follows it (or input ends), reporting Progress at the word's end first."""

    def __init__(self, options: dict, fail_with: Error | None = None, late_audio: bool = False) -> None:
        self.options = options
        self._late_audio = late_audio
        self.pushed: list[str] = []
        self.ended = False
        self.cancelled = False
        self._fail_with = fail_with
        self._queue: asyncio.Queue = asyncio.Queue()
        self._spoken = ""
        self._next_word = 0
        self._samples = 0

    @property
    def spoken(self) -> str:
        return "".join(self.pushed)

    def push_text(self, text: str) -> None:
        assert not self.ended
        self.pushed.append(text)
        self._spoken += text
        self._speak(final=False)

    def end_input(self) -> None:
        self.ended = True
        if self._fail_with is not None:
            self._queue.put_nowait(self._fail_with)
        else:
            self._speak(final=True)
        usage = Usage(len(self._spoken), len(self._spoken), self._samples / RATE)
        self._queue.put_nowait(Done(False, usage))

    def cancel(self) -> None:
        self.cancelled = True
        self._queue.put_nowait(None)

    def _speak(self, final: bool) -> None:
        for match in list(re.finditer(r"\S+", self._spoken))[self._next_word :]:
            if match.end() == len(self._spoken) and not final:
                break
            self._queue.put_nowait(Progress(match.end(), self._samples / RATE))
            pcm = b"\x10\x00" * int(WORD_SECONDS * RATE)
            self._queue.put_nowait(AudioChunk(pcm, RATE, self._samples))
            self._samples += len(pcm) // 2
            self._next_word += 1

    async def events(self):
        while True:
            event = await self._queue.get()
            if self.cancelled:
                if self._late_audio:  # like a remote engine whose audio was already in flight
                    yield AudioChunk(b"\x00\x00" * 160, RATE, self._samples)
                yield Done(True, Usage(len(self._spoken), 0, 0.0))
                return
            yield event
            if isinstance(event, Done):
                return


class FakeEngine:
    def __init__(self, fail_with: Error | None = None, late_audio: bool = False) -> None:
        self.streams: list[FakeStream] = []
        self._fail_with = fail_with
        self._late_audio = late_audio

    def open_stream(self, request=None, /, **options) -> FakeStream:
        self.streams.append(FakeStream(recorded_options(request, options), self._fail_with, self._late_audio))
        return self.streams[-1]

    async def aclose(self) -> None:
        pass


async def collect(session: TTSSession) -> list:
    return [event async for event in session.events()]


def words_of(events) -> list:
    return [w for e in events if isinstance(e, WordsEvent) for w in e.words]


def check_words(words, raw: str) -> None:
    assert [w.text for w in words] == raw.split()
    for word in words:
        assert raw[word.raw_start : word.raw_end] == word.text
    times = [w.start_time for w in words]
    assert times == sorted(times)


async def test_without_normalization_offsets_are_the_identity():
    engine = FakeEngine()
    deltas = ["Hel", "lo wor", "ld, how", " are you?"]
    session = TTSSession(engine, voice="female", language="en", sample_rate=RATE, normalize=False)
    for delta in deltas:
        session.push_text(delta)
    session.end_input()
    events = await collect(session)
    stream = engine.streams[0]
    assert stream.options == recorded_options(
        StreamRequest(voice="female", language="en", sample_rate=RATE, normalize=False), {}
    )
    assert stream.pushed == deltas
    raw = "".join(deltas)
    words = words_of(events)
    check_words(words, raw)
    assert [w.start_time for w in words] == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
    done = events[-1]
    assert isinstance(done, SessionDone) and not done.cancelled
    assert done.heard_text == raw == session.raw_text
    assert done.usage == Usage(len(raw), len(raw), pytest.approx(0.5))


async def test_normalized_text_maps_back_to_raw_words():
    engine = FakeEngine()
    raw = "It costs $5. Then **we** go to [the docs](https://x.io) on 2026-03-04. 🎉 Done!"
    session = TTSSession(engine, sample_rate=RATE)
    for i in range(0, len(raw), 4):
        session.push_text(raw[i : i + 4])
    session.end_input()
    events = await collect(session)
    spoken = engine.streams[0].spoken
    assert spoken == normalize(raw)
    assert "*" not in spoken and "https" not in spoken and "🎉" not in spoken
    words = words_of(events)
    check_words(words, raw)
    by_text = {w.text: w for w in words}
    # "$5." is spoken as "five dollars.": it starts with "five", the third spoken word.
    assert spoken.split()[2] == "five"
    assert by_text["$5."].start_time == pytest.approx(0.2)
    # Deleted markup belongs to the word it wraps: "**we**" starts when "we" does.
    assert by_text["**we**"].start_time == pytest.approx(spoken.split().index("we") * WORD_SECONDS)
    assert by_text["[the"].start_time == pytest.approx(spoken.split().index("the") * WORD_SECONDS)
    assert events[-1].heard_text == raw


async def test_words_come_before_the_audio_they_start_in():
    engine = FakeEngine()
    session = TTSSession(engine, sample_rate=RATE, normalize=False)
    session.push_text("one two three four")
    session.end_input()
    audio_time = 0.0
    for event in await collect(session):
        if isinstance(event, WordsEvent):
            assert all(w.start_time >= audio_time - 1e-9 for w in event.words)
        elif isinstance(event, AudioChunk):
            audio_time = (event.start_sample + event.num_samples) / RATE


@pytest.mark.parametrize("late_audio", [False, True])
async def test_cancel_returns_the_heard_whole_words_and_stops_audio(late_audio):
    engine = FakeEngine(late_audio=late_audio)
    raw = "alpha beta gamma delta epsilon zeta eta theta"
    session = TTSSession(engine, sample_rate=RATE)
    session.push_text(raw)
    session.end_input()
    events = session.events()
    chunks = 0
    async for event in events:
        chunks += isinstance(event, AudioChunk)
        if chunks == 4:
            break
    heard = session.cancel(played_seconds=0.15)
    assert heard == "alpha beta"  # words starting at 0.0 and 0.1
    assert raw.startswith(heard)
    rest = [e async for e in events]
    assert [type(e) for e in rest] == [SessionDone]
    assert rest[0].cancelled and rest[0].heard_text == heard
    assert engine.streams[0].cancelled
    session.push_text("ignored after cancel")
    assert engine.streams[0].spoken == normalize(raw)


async def test_cancel_without_play_time_returns_what_progress_produced():
    engine = FakeEngine()
    session = TTSSession(engine, sample_rate=RATE)
    session.push_text("first second third fourth")
    session.end_input()
    events = session.events()
    async for event in events:
        if isinstance(event, AudioChunk) and event.start_sample > 0:
            break  # the second word's audio
    assert session.cancel() == "first second"
    assert (await anext(events)).heard_text == "first second"


async def test_cancel_before_anything_was_spoken_hears_nothing():
    engine = FakeEngine()
    session = TTSSession(engine, sample_rate=RATE)
    session.push_text("never spoken")
    assert session.cancel(played_seconds=5.0) == ""
    events = await collect(session)
    assert events == [SessionDone(True, events[0].usage, "")]


async def test_a_stalled_word_is_committed_by_poll():
    now = [0.0]
    engine = FakeEngine()
    session = TTSSession(engine, sample_rate=RATE, clock=lambda: now[0])
    session.push_text("Hello wor")
    assert engine.streams[0].spoken.strip() == "Hello"
    now[0] = 0.3
    session.poll()
    assert engine.streams[0].spoken.strip() == "Hello"  # not stalled long enough
    now[0] = 1.0
    session.poll()
    assert engine.streams[0].spoken.strip() == "Hello wor"
    session.push_text("ld.")
    session.end_input()
    events = await collect(session)
    assert engine.streams[0].spoken.strip() == "Hello wor ld."
    assert events[-1].heard_text == "Hello world."
    assert [w.text for w in words_of(events)] == ["Hello", "world."]


async def test_events_poll_the_normalizer_while_text_is_held():
    engine = FakeEngine()
    session = TTSSession(engine, sample_rate=RATE)
    session.push_text("Waiting for the rest of this wor")
    consumer = asyncio.create_task(collect(session))
    stream = engine.streams[0]
    for _ in range(100):
        if stream.spoken.endswith("wor"):
            break
        await asyncio.sleep(0.05)
    assert stream.spoken.endswith("wor")
    session.end_input()
    events = await asyncio.wait_for(consumer, 10)
    assert isinstance(events[-1], SessionDone)


async def test_engine_errors_pass_through_before_done():
    engine = FakeEngine(fail_with=Error("synthesis_failed", "broken", retryable=True))
    session = TTSSession(engine, sample_rate=RATE)
    session.push_text("Hello there")
    session.end_input()
    events = await collect(session)
    assert [type(e) for e in events][-2:] == [Error, SessionDone]
    assert events[-2].code == "synthesis_failed"
    assert not events[-1].cancelled


async def test_misuse_raises_clearly():
    session = TTSSession(FakeEngine(), sample_rate=RATE)
    with pytest.raises(TypeError):
        session.push_text(None)
    session.push_text("")
    session.end_input()
    with pytest.raises(RuntimeError):
        session.push_text("late")
    events = await collect(session)
    assert isinstance(events[-1], SessionDone) and events[-1].heard_text == ""


def test_normalizer_language_names():
    assert normalizer_language(None) == "auto"
    assert normalizer_language("Chinese") == normalizer_language("zh-CN") == "zh"
    assert normalizer_language("english") == normalizer_language("en-gb") == "en"
    assert normalizer_language("Japanese") == normalizer_language("ja-JP") == "ja"
    assert normalizer_language("ar") == normalizer_language("auto") == "auto"


class WordReportingEngine(FakeEngine):
    """Stands in for a remote engine: its server reports words, and it connects per turn."""

    reports_words = True


def test_a_connect_timeout_reaches_only_an_engine_that_connects() -> None:
    remote, local = WordReportingEngine(), FakeEngine()
    TTSSession(remote, connect_timeout=1.5)
    TTSSession(local, connect_timeout=1.5)
    TTSSession(remote)
    assert remote.streams[0].options["connect_timeout"] == 1.5
    assert "connect_timeout" not in local.streams[0].options
    assert "connect_timeout" not in remote.streams[1].options


def test_a_remote_engine_refuses_a_connect_timeout_that_is_not_positive() -> None:
    from voice_tts.client import RemoteEngine

    engine = RemoteEngine("ws://127.0.0.1:9/v1/ws")
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="connect_timeout"):
            engine.open_stream(connect_timeout=bad)
