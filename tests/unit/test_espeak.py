"""The embedded eSpeak NG engine against the engine stream contract (real libespeak-ng)."""

from __future__ import annotations

import asyncio
import itertools
import random
import sys
import threading

import numpy as np
import pytest

from engine import Engine
from engine.backends import espeak_scheduler
from engine.backends.espeak import MAX_QUEUED_AUDIO_SECONDS, EmbeddedEngine, _word_end
from engine.backends.espeak_library import sanitize
from engine.gil import SWITCH_INTERVAL_S
from engine.backends.espeak_scheduler import SynthesisScheduler
from engine.backends.espeak_segments import MAX_PIECE_CHARS, take_pieces
from engine.backends.espeak_voices import LANGUAGES, VOICES, VoiceSelection, script_language
from synthesis_hold import SynthesisHold
from voice_tts.protocol import PRIORITY_NORMAL, AudioChunk, Done, Error, Progress

ENGLISH = (
    "Hello there! This is the embedded voice, speaking while the text is still arriving. "
    "It reports every word it starts; and it stops when asked."
)
MANDARIN = "你好，世界！今天天气很好，我们一起去公园散步吧。"


@pytest.fixture
async def engine():
    engine = EmbeddedEngine()
    yield engine
    await engine.aclose()


async def speak(engine, text: str | list[str], **options) -> list:
    stream = engine.open_stream(**options)
    for delta in [text] if isinstance(text, str) else text:
        stream.push_text(delta)
    stream.end_input()
    return [event async for event in stream.events()]


def pcm_of(events) -> bytes:
    return b"".join(e.pcm for e in events if isinstance(e, AudioChunk))


def rms(pcm: bytes) -> float:
    x = np.frombuffer(pcm, dtype="<i2").astype(float)
    return float(np.sqrt(np.mean(x * x))) if x.size else 0.0


def check_stream_contract(events, text: str, sample_rate: int) -> None:
    """Done once and last; audio contiguous; progress monotonic, covering the text, each
    one released right before the chunk that holds its time."""
    assert isinstance(events[-1], Done)
    assert sum(isinstance(e, Done) for e in events) == 1
    chunks = [e for e in events if isinstance(e, AudioChunk)]
    position = 0
    for chunk in chunks:
        assert chunk.sample_rate == sample_rate
        assert chunk.start_sample == position and chunk.num_samples > 0
        position += chunk.num_samples
    progress = [e for e in events if isinstance(e, Progress)]
    for before, after in zip(progress, progress[1:]):
        assert after.spoken_end > before.spoken_end
        assert after.audio_time >= before.audio_time
    if text.strip():
        assert progress[-1].spoken_end == len(text)
    for i, event in enumerate(events):
        if not isinstance(event, Progress):
            continue
        following = next((e for e in events[i + 1 :] if isinstance(e, AudioChunk)), None)
        if following is None:
            assert event.audio_time * sample_rate <= position + 1e-6
        else:
            # Not late: its word's audio has not gone out. Not early: the next chunk reaches it.
            assert following.start_sample <= event.audio_time * sample_rate + 1e-6
            assert event.audio_time * sample_rate < following.start_sample + following.num_samples
    done = events[-1]
    assert done.usage.characters_received == len(text)
    assert done.usage.audio_seconds == pytest.approx(position / sample_rate)


# -- speech -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text,language", [(ENGLISH, "en"), (MANDARIN, "zh"), (MANDARIN, "auto")])
async def test_speaks_english_and_mandarin(engine, text, language):
    events = await speak(engine, text, language=language)
    assert not [e for e in events if isinstance(e, Error)]
    check_stream_contract(events, text, 24000)
    pcm = pcm_of(events)
    assert len(pcm) / 2 / 24000 > 2.0
    assert rms(pcm) > 500
    done = events[-1]
    assert not done.cancelled and done.usage.characters_spoken == len(text)


async def test_progress_points_at_exact_word_ends_in_non_ascii_text(engine):
    text = "Café naïve résumé works."
    ends = {e.spoken_end for e in await speak(engine, text, language="en") if isinstance(e, Progress)}
    assert {4, 10, 17, 23, 24} <= ends  # after "Café", "naïve", "résumé", "works", "."
    zh = "你好，世界！"
    ends = [e.spoken_end for e in await speak(engine, zh, language="zh") if isinstance(e, Progress)]
    # 世 and 界 each start a word; "你好，" and "世界！" are whole clauses.
    assert {3, 4, 5, 6} <= set(ends)


async def test_audio_starts_before_the_input_ends(engine):
    stream = engine.open_stream(language="en")
    stream.push_text("The first sentence is complete. The second one ")
    events = stream.events()
    first = await asyncio.wait_for(anext(events), 10)
    assert isinstance(first, (Progress, AudioChunk))
    stream.push_text("arrives later.")
    stream.end_input()
    rest = [first] + [e async for e in events]
    check_stream_contract(rest, "The first sentence is complete. The second one arrives later.", 24000)


async def test_auto_language_speaks_each_script_with_its_voice(engine):
    for text, language in [(MANDARIN, "zh"), (ENGLISH, "en")]:
        auto = pcm_of(await speak(engine, text, language="auto"))
        fixed = pcm_of(await speak(engine, text, language=language))
        assert auto == fixed


@pytest.mark.parametrize("sample_rate", [8000, 16000, 22050, 48000])
async def test_requested_sample_rates(engine, sample_rate):
    events = await speak(engine, "Sample rates change the samples, not the speech.", sample_rate=sample_rate)
    check_stream_contract(events, "Sample rates change the samples, not the speech.", sample_rate)
    reference = await speak(engine, "Sample rates change the samples, not the speech.")
    assert events[-1].usage.audio_seconds == pytest.approx(reference[-1].usage.audio_seconds, abs=0.01)


async def test_every_voice_speaks_every_language(engine):
    samples = {"zh": "你好。", "ja": "こんにちは。", "ko": "안녕하세요.", "ru": "Привет."}
    for voice in VOICES:
        for language in LANGUAGES:
            events = await speak(engine, samples.get(language.code, "Hello."), voice=voice, language=language.name)
            assert not [e for e in events if isinstance(e, Error)], (voice, language)
            assert rms(pcm_of(events)) > 50, (voice, language)


async def test_instruct_and_sampling_are_ignored(engine):
    plain = pcm_of(await speak(engine, "Same words."))
    assert pcm_of(await speak(engine, "Same words.", instruct="sound happy", sampling=object())) == plain


# -- end of stream, cancel, errors ------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\n"])
async def test_nothing_to_say_gives_done_without_audio(engine, text):
    events = await speak(engine, text)
    assert not any(isinstance(e, AudioChunk) for e in events)
    assert isinstance(events[-1], Done) and not events[-1].cancelled
    assert events[-1].usage.audio_seconds == 0


async def test_cancel_mid_stream_stops_audio(engine):
    stream = engine.open_stream()
    stream.push_text(ENGLISH * 20)
    stream.end_input()
    events = stream.events()
    received = []
    async for event in events:
        received.append(event)
        if sum(isinstance(e, AudioChunk) for e in received) == 3:
            stream.cancel()
            break
    rest = [e async for e in events]
    assert len(rest) == 1 and isinstance(rest[0], Done) and rest[0].cancelled
    delivered = sum(e.num_samples for e in received if isinstance(e, AudioChunk))
    assert rest[0].usage.audio_seconds == pytest.approx(delivered / 24000)
    assert rest[0].usage.characters_received == len(ENGLISH * 20)
    assert rest[0].usage.characters_spoken < len(ENGLISH * 20)
    stream.cancel()  # idempotent, and text after a cancel is dropped
    stream.push_text("more")
    assert engine.active_streams == 0


async def test_cancel_before_consuming_drops_everything(engine):
    stream = engine.open_stream()
    stream.push_text(ENGLISH)
    stream.end_input()
    await asyncio.sleep(0.05)
    stream.cancel()
    events = [e async for e in stream.events()]
    assert events == [Done(cancelled=True, usage=events[0].usage)]
    assert events[0].usage.audio_seconds == 0


async def test_unknown_voice_language_and_rate_are_stream_errors(engine):
    cases = [
        ({"voice": "nobody"}, "invalid_voice"),
        ({"language": "klingon"}, "unsupported_language"),
        ({"sample_rate": "24000"}, "invalid_sample_rate"),
        ({"sample_rate": 1234}, "invalid_sample_rate"),
    ]
    for options, code in cases:
        stream = engine.open_stream(**options)
        stream.push_text("ignored")
        stream.end_input()
        events = [e async for e in stream.events()]
        assert [type(e) for e in events] == [Error, Done], options
        assert events[0].code == code
        assert not events[1].cancelled
    # A setting of the wrong type is the caller's mistake, refused where the request is built.
    for options in ({"voice": 7}, {"language": ["en"]}):
        with pytest.raises(ValueError, match="is a string or None"):
            engine.open_stream(**options)
    assert engine.active_streams == 0


async def test_push_text_misuse_raises_clearly(engine):
    stream = engine.open_stream()
    with pytest.raises(TypeError):
        stream.push_text(b"bytes")
    stream.end_input()
    with pytest.raises(RuntimeError):
        stream.push_text("late")
    events = [e async for e in stream.events()]
    assert isinstance(events[-1], Done)
    with pytest.raises(RuntimeError):
        [e async for e in stream.events()]


@pytest.mark.parametrize(
    "text",
    [
        "lone \ud800 surrogate and \udfff another",
        "nul\x00byte and bell\x07 and escape\x1b[31m red",
        "\ufeffbom \u200b zero width \u202e reversed \U0010ffff private",
        "👨‍👩‍👧 family 🎉🎉🎉 party",
        "a" * 1000,
        "。。。！！！" * 50,
    ],
)
async def test_hostile_text_is_spoken_cleanly(engine, text):
    events = await speak(engine, text)
    assert not [e for e in events if isinstance(e, Error)]
    check_stream_contract(events, text, 24000)
    # The synthesis thread survived: the next stream still speaks.
    assert rms(pcm_of(await speak(engine, "Still here."))) > 500


async def test_huge_text_is_taken_at_once_and_cancelled_cleanly(engine):
    text = (ENGLISH + " ") * 8000  # about 1.1 MB
    stream = engine.open_stream()
    stream.push_text(text)
    stream.end_input()
    events = stream.events()
    first_audio = None
    async for event in events:
        if isinstance(event, AudioChunk):
            first_audio = event
            break
    assert first_audio is not None
    stream.cancel()
    assert [type(e) for e in [e async for e in events]] == [Done]
    assert rms(pcm_of(await speak(engine, "Still here."))) > 500


async def test_an_unread_stream_stops_synthesizing_until_its_consumer_catches_up(engine):
    stream = engine.open_stream()
    stream.push_text(ENGLISH * 30)  # minutes of audio
    stream.end_input()
    await asyncio.sleep(0.5)  # at over 100x real time this would be long finished
    queued = stream._queued_samples / 24000
    assert MAX_QUEUED_AUDIO_SECONDS <= queued < MAX_QUEUED_AUDIO_SECONDS + 20
    assert engine.active_streams == 1
    events = [e async for e in stream.events()]
    check_stream_contract(events, ENGLISH * 30, 24000)
    assert engine.active_streams == 0


# -- concurrency ------------------------------------------------------------------------------


def _jobs():
    texts = [ENGLISH, MANDARIN, "Short one.", ENGLISH[:90], MANDARIN + ENGLISH[:60]]
    voices = list(VOICES)
    rates = [24000, 16000, 8000, 48000]
    return [
        dict(text=texts[i % 5], voice=voices[i % 4], language=["auto", "en", "zh"][i % 3], sample_rate=rates[i % 4])
        for i in range(20)
    ]


async def test_twenty_concurrent_streams_match_their_solo_runs_bit_for_bit(engine):
    jobs = _jobs()
    solo = []
    for job in jobs:
        options = {k: v for k, v in job.items() if k != "text"}
        solo.append(await speak(engine, job["text"], **options))

    rng = random.Random(3)

    async def concurrent(job):
        options = {k: v for k, v in job.items() if k != "text"}
        stream = engine.open_stream(**options)
        text = job["text"]

        async def feed():
            cuts = sorted(rng.sample(range(1, len(text)), min(12, len(text) - 1)))
            for a, b in zip([0, *cuts], [*cuts, len(text)]):
                stream.push_text(text[a:b])
                await asyncio.sleep(rng.random() * 0.002)
            stream.end_input()

        feeder = asyncio.create_task(feed())
        events = [event async for event in stream.events()]
        await feeder
        return events

    together = await asyncio.gather(*(concurrent(job) for job in jobs))
    for job, alone, mixed in zip(jobs, solo, together):
        check_stream_contract(mixed, job["text"], job["sample_rate"])
        assert pcm_of(mixed) == pcm_of(alone)
        assert [e for e in mixed if isinstance(e, Progress)] == [e for e in alone if isinstance(e, Progress)]
        assert mixed[-1] == alone[-1]


@pytest.mark.parametrize("text,sample_rate", [(ENGLISH, 24000), (MANDARIN, 16000)])
async def test_a_piece_cut_short_goes_on_exactly_where_it_stopped(engine, monkeypatch, text, sample_rate):
    alone = await speak(engine, text, sample_rate=sample_rate)
    # Every other audio buffer that goes further than before, the stream is told to yield.
    checks = itertools.count()
    monkeypatch.setattr(espeak_scheduler.shared_scheduler(), "should_yield", lambda: next(checks) % 2 == 1)
    cut = await speak(engine, text, sample_rate=sample_rate)
    assert next(checks) > 10
    check_stream_contract(cut, text, sample_rate)
    assert pcm_of(cut) == pcm_of(alone)
    assert [e for e in cut if isinstance(e, Progress)] == [e for e in alone if isinstance(e, Progress)]
    assert cut[-1] == alone[-1]


async def test_events_can_be_read_from_another_thread_and_event_loop(engine):
    stream = engine.open_stream()
    stream.push_text("Opened here, read elsewhere.")
    stream.end_input()
    result = {}

    def read():
        async def consume():
            return [e async for e in stream.events()]

        result["events"] = asyncio.run(consume())

    thread = threading.Thread(target=read)
    thread.start()
    await asyncio.to_thread(thread.join, 30)
    check_stream_contract(result["events"], "Opened here, read elsewhere.", 24000)


async def test_capacity_close_and_capabilities():
    engine = Engine.embedded(capacity=2)
    a, b = engine.open_stream(), engine.open_stream()
    assert engine.active_streams == 2
    c = engine.open_stream()
    events = [e async for e in c.events()]
    assert events[0].code == "capacity" and events[0].retryable
    caps = engine.capabilities()
    assert caps.backend == "espeak-ng" and caps.capacity == 2
    assert {"auto", "en", "zh"} <= set(caps.languages) and 24000 in caps.sample_rates
    assert [v.name for v in caps.voices] == [v.name for v in engine.voices] == list(VOICES)
    a.push_text("Closing cancels me.")
    await engine.aclose()
    for stream in (a, b):
        assert [e async for e in stream.events()][-1].cancelled
    assert engine.active_streams == 0
    closed = [e async for e in engine.open_stream().events()]
    assert closed[0].code == "engine_closed"


def test_the_voice_shortens_the_gil_switch_interval_and_never_lengthens_it(monkeypatch):
    calls = []
    monkeypatch.setattr(sys, "setswitchinterval", calls.append)
    for current, expected in ((0.005, [SWITCH_INTERVAL_S]), (SWITCH_INTERVAL_S / 2, [])):
        calls.clear()
        monkeypatch.setattr(sys, "getswitchinterval", lambda: current)
        EmbeddedEngine()
        assert calls == expected


def test_a_missing_checkpoint_folder_is_a_clear_error():
    with pytest.raises(ValueError, match="does not exist"):
        Engine.from_pretrained("/nonexistent", device="cpu")


# -- pieces, voices and helpers ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text,pieces",
    [
        ("Hello, world. Pi is 3.14 and 1,000! ok", ["Hello,", " world.", " Pi is 3.14 and 1,000!", " ok"]),
        ('He said "stop." Then left...', ['He said "stop."', " Then left..."]),
        ("你好，世界！再见", ["你好，", "世界！", "再见"]),
        ("line one\nline two", ["line one\n", "line two"]),
    ],
)
def test_pieces_end_at_clause_boundaries(text, pieces):
    assert take_pieces(text, final=True) == (pieces, "")


def test_pieces_do_not_depend_on_how_text_arrives():
    rng = random.Random(0)
    texts = [ENGLISH * 3, MANDARIN * 5, "word " * 100, "x" * 500, "a. b, " + "y" * 300 + "!!! z"]
    for text in texts:
        whole, rest = take_pieces(text, final=True)
        assert "".join(whole) == text and rest == ""
        assert all(len(p) <= MAX_PIECE_CHARS for p in whole)
        for _ in range(20):
            pending, got = "", []
            cuts = sorted(rng.sample(range(1, len(text)), 15))
            for a, b in zip([0, *cuts], [*cuts, len(text)]):
                ready, pending = take_pieces(pending + text[a:b], final=False)
                got += ready
            ready, pending = take_pieces(pending, final=True)
            assert got + ready == whole


def test_a_trailing_period_waits_for_what_follows():
    assert take_pieces("Pi is 3.", final=False) == ([], "Pi is 3.")
    assert take_pieces("Done. Next", final=False) == (["Done."], " Next")


def test_voice_and_language_names():
    assert VoiceSelection.resolve(None, None).language == "auto"
    assert VoiceSelection.resolve("Female", "Chinese").espeak_voice("zh") == "sit/cmn+f3"
    assert VoiceSelection.resolve("default", "en_US").espeak_voice("en") == "gmw/en-US"
    assert script_language("Hello 世界") == "zh"
    assert script_language("カタカナ と 漢字") == "ja"
    assert script_language("Привет") == "ru"
    assert script_language("123, ...") is None
    selection = VoiceSelection.resolve(None, "auto")
    assert selection.language_for("42.", previous="zh") == "zh"
    assert selection.language_for("42.", previous=None) == "en"


def test_sanitize_keeps_positions():
    text = "a\x00b\ud800c\x07d\ne\tf"
    clean = sanitize(text)
    assert len(clean) == len(text)
    assert clean == "a b c d\ne\tf"
    clean.encode("utf-8")


def test_word_end_never_runs_past_the_word():
    assert _word_end("3.14! next", 1, 4) == 5  # eSpeak's ".14!" for a part of the number
    assert _word_end("hello world", 0, 5) == 5
    assert _word_end("你好世界", 2, 1) == 3
    assert _word_end("abc", 7, 3) == 3


class _FakeJob:
    priority = PRIORITY_NORMAL

    def __init__(self, name: str, turns: int, log: list[str]) -> None:
        self.name, self.turns, self.log, self.has_audio = name, turns, log, False

    @property
    def finished(self) -> bool:
        return self.turns == 0

    def ready(self) -> bool:
        return self.turns > 0

    def due_at(self) -> float | None:
        return None

    def step(self, library) -> None:
        self.log.append(self.name)
        self.has_audio = True
        self.turns -= 1

    def fail(self, code: str, message: str) -> None:
        self.log.append(f"{self.name}:{code}")
        self.turns = 0


def test_scheduler_serves_new_streams_first_then_round_robin():
    log: list[str] = []
    gate = threading.Event()
    scheduler = SynthesisScheduler(make_library=lambda: gate.wait(10) and object())
    long_a, long_b = _FakeJob("a", 4, log), _FakeJob("b", 4, log)
    long_a.has_audio = long_b.has_audio = True
    scheduler.add(long_a)
    scheduler.add(long_b)
    newcomer = _FakeJob("new", 2, log)
    scheduler.add(newcomer)
    gate.set()
    for _ in range(200):
        if len(log) == 10:
            break
        threading.Event().wait(0.01)
    assert log[0] == "new"
    assert log[1:5] == ["a", "b", "new", "a"] or log[1:5] == ["a", "new", "b", "a"]
    assert sorted(log) == sorted(["a"] * 4 + ["b"] * 4 + ["new"] * 2)


class _YieldingJob(_FakeJob):
    """Each turn is `buffers` audio buffers long, and stops early when the scheduler says so."""

    def __init__(self, name, turns, log, scheduler, buffers, priority=PRIORITY_NORMAL) -> None:
        super().__init__(name, turns, log)
        self.scheduler, self.buffers, self.priority = scheduler, buffers, priority
        self.serving = threading.Event()

    def step(self, library) -> None:
        self.serving.set()
        for _ in range(self.buffers):
            threading.Event().wait(0.01)
            if self.scheduler.should_yield():
                self.log.append(f"{self.name} yielded")
                return
        super().step(library)


def test_scheduler_cuts_a_turn_short_for_a_favoured_first_audio_only():
    log: list[str] = []
    scheduler = SynthesisScheduler(make_library=object)
    served = _YieldingJob("served", 2, log, scheduler, buffers=30)
    served.has_audio = True
    scheduler.add(served)
    assert served.serving.wait(10)
    # The same priority waits for the turn to end; a favoured one without audio does not.
    same = _YieldingJob("same", 1, log, scheduler, buffers=1)
    scheduler.add(same)
    scheduler.wake(same)
    favoured = _YieldingJob("favoured", 1, log, scheduler, buffers=1, priority=PRIORITY_NORMAL - 1)
    scheduler.add(favoured)
    scheduler.wake(favoured)
    for _ in range(500):
        if sorted(log) == sorted(["served yielded", "favoured", "same", "served", "served"]):
            break
        threading.Event().wait(0.01)
    # The cut-short turn is served again right after the turns waiting for their first audio.
    assert log == ["served yielded", "favoured", "same", "served", "served"]


def test_scheduler_reports_an_unavailable_library_per_job():
    log: list[str] = []

    def broken():
        raise OSError("no libespeak-ng here")

    scheduler = SynthesisScheduler(make_library=broken)
    scheduler.add(_FakeJob("x", 1, log))
    for _ in range(200):
        if log:
            break
        threading.Event().wait(0.01)
    assert log == ["x:engine_unavailable"]


async def first_audio_order(engine, opened: list[tuple[str, int]], between: float = 0.0) -> list[str]:
    """Opens the streams (name, priority) in order while the synthesis thread is held, then
    lets it choose: the names in the order their first audio arrived."""
    hold = SynthesisHold()
    await hold.hold()
    streams = []
    for name, priority in opened:
        stream = engine.open_stream(priority=priority)
        stream.push_text("Hello there, this is a turn.")
        stream.end_input()
        streams.append((name, stream))
        await asyncio.sleep(between)
    order: list[str] = []
    # Every reader waits on its stream before the thread is let go: consumers are then woken in
    # the order their first audio was made (a reader that started late, on a loaded machine,
    # would find audio already queued and record its stream out of that order).
    waiting, all_waiting = 0, asyncio.Event()

    async def read(name, stream) -> None:
        nonlocal waiting
        waiting += 1
        if waiting == len(streams):
            all_waiting.set()  # the main task runs once this one waits for its first event
        async for event in stream.events():
            if isinstance(event, AudioChunk) and name not in order:
                order.append(name)

    readers = asyncio.gather(*(read(name, stream) for name, stream in streams))
    await all_waiting.wait()
    hold.release()
    await readers
    return order


async def test_first_audio_goes_by_priority_then_arrival(engine, monkeypatch):
    # No stream here waits out the bound on priority, however slow a loaded machine is between
    # opening them and the thread's choice (the bound is the next test's).
    monkeypatch.setattr(espeak_scheduler, "PRIORITY_MAX_WAIT_S", float("inf"))
    order = await first_audio_order(
        engine, [("new 1", PRIORITY_NORMAL), ("known 1", -1), ("new 2", PRIORITY_NORMAL), ("known 2", -1)]
    )
    assert order == ["known 1", "known 2", "new 1", "new 2"]
    with pytest.raises(TypeError):
        engine.open_stream(priority="high")


async def test_priority_holds_back_first_audio_only_so_long(engine, monkeypatch):
    # A stream that has waited past the bound goes ahead of fresher, favoured ones.
    monkeypatch.setattr(espeak_scheduler, "PRIORITY_MAX_WAIT_S", 0.2)
    order = await first_audio_order(engine, [("new", PRIORITY_NORMAL), ("known", -1)], between=0.4)
    assert order == ["new", "known"]
