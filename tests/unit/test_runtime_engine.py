"""The Qwen3 runtime on the tiny checkpoint (CPU, float32): parity, batching, pauses, cancel,
capacity, progress, usage, and that nothing is left behind."""

from __future__ import annotations

import asyncio
import concurrent.futures
import random
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from text_pieces import random_pieces

from voice_tts.protocol import AudioChunk, Done, Error, Progress

from engine.model.generate import generate
from engine.model.sampling import SamplingParams
from engine.runtime.loop import DeviceCall
from engine.runtime.output import ChunkPolicy
from engine.runtime.qwen3_engine import FULL_COLLECTION_AFTER, Qwen3Engine

GREEDY = SamplingParams.greedy()


@pytest.fixture(scope="module")
def engine(tiny_checkpoint: Path):
    # First chunks of one frame however loaded this machine is (a busy CI core makes iterations
    # long enough for the loaded size): the tests below assert what a first chunk covers.
    eng = Qwen3Engine.from_pretrained(
        tiny_checkpoint, device="cpu", max_streams=8, keep_codes=True, chunks=ChunkPolicy(first_chunk_frames_loaded=1)
    )
    yield eng
    eng.close()


def open_case(engine: Qwen3Engine, case: dict, sampling: SamplingParams = GREEDY):
    a = case["args"]
    return engine.open_stream(
        voice=a["speaker"], language=a["language"], instruct=a.get("instruct"), sampling=sampling,
        max_new_tokens=a["max_new_tokens"],
    )


async def collect(stream) -> list:
    return [event async for event in stream.events()]


async def feed(stream, text: str, rng: random.Random, max_delay: float) -> None:
    for piece in random_pieces(text, rng, 1, 6):
        stream.push_text(piece)
        await asyncio.sleep(rng.uniform(0, max_delay))
    stream.end_input()


async def run_alone(engine: Qwen3Engine, case: dict):
    """The case's whole text at once; returns (events, the stream after its Done)."""
    stream = open_case(engine, case)
    stream.push_text(case["args"]["text"])
    stream.end_input()
    return await collect(stream), stream


def pcm_of(events: list) -> np.ndarray:
    return np.frombuffer(b"".join(e.pcm for e in events if isinstance(e, AudioChunk)), dtype=np.int16)


def streaming_cases(golden_cases: dict) -> list[str]:
    return [cid for cid, c in golden_cases.items() if not c["args"]["non_streaming_mode"]]


async def test_streaming_goldens_are_reproduced(engine, golden_cases):
    for cid in streaming_cases(golden_cases):
        case = golden_cases[cid]
        events, stream = await run_alone(engine, case)
        assert stream.codes == case["codes"], cid
        assert stream.end_reason == case["stop_reason"], cid
        wav = pcm_of(events) / 32767.0
        assert wav.shape == case["wav"].shape, cid
        assert np.abs(wav - case["wav"]).max() <= 1e-4, cid
        assert isinstance(events[-1], Done) and not events[-1].cancelled


async def test_batch_invariance_with_random_arrival(engine, golden_cases):
    """8 streams opened at different times, text arriving in random pieces: each produces the
    codes of its text run alone (and the golden codes where the golden uses the streaming layout)."""
    chosen = streaming_cases(golden_cases) + [
        "A05_en_serena_english_instruct_nonstream",
        "A08_regex_sohee_english_nonstream",
    ]
    assert len(chosen) == 8
    alone = {cid: (await run_alone(engine, golden_cases[cid]))[1].codes for cid in chosen}
    for cid in streaming_cases(golden_cases):
        assert alone[cid] == golden_cases[cid]["codes"], cid

    async def one(cid: str, seed: int):
        rng = random.Random(seed)
        await asyncio.sleep(rng.uniform(0, 0.3))
        stream = open_case(engine, golden_cases[cid])
        events, _ = await asyncio.gather(collect(stream), feed(stream, golden_cases[cid]["args"]["text"], rng, 0.03))
        return stream.codes, events

    for round_seed in (1, 2):
        results = await asyncio.gather(*(one(cid, round_seed * 100 + i) for i, cid in enumerate(chosen)))
        for cid, (codes, events) in zip(chosen, results):
            assert codes == alone[cid], (round_seed, cid)
            assert isinstance(events[-1], Done)


async def test_a_starved_stream_waits_with_its_state_and_resumes_unchanged(engine, golden_cases):
    target = golden_cases["A02_en_ryan_english_stream"]
    text = target["args"]["text"]
    head = "Hello world. This is"  # commits "Hello world. This"; " is" may still grow
    committed = len(engine.model.tokenizer.encode("Hello world. This"))

    others = [open_case(engine, golden_cases[cid]) for cid in ("A10_en_uncle_fu_auto_stream", "A04_zh_eric_auto_stream_dialect")]
    for other, cid in zip(others, ("A10_en_uncle_fu_auto_stream", "A04_zh_eric_auto_stream_dialect")):
        other.push_text(golden_cases[cid]["args"]["text"])
        other.end_input()
    other_events = [asyncio.ensure_future(collect(o)) for o in others]

    stream = open_case(engine, target)
    stream.push_text(head)
    received: list = []

    async def consume() -> None:
        async for event in stream.events():
            received.append(event)

    consumer = asyncio.ensure_future(consume())
    await asyncio.sleep(2.0)  # starved for 2 s while the others run
    # Every frame the committed text allows was produced and vocoded while parked: one per token.
    assert len(pcm_of(received)) == committed * 1920
    assert not any(isinstance(e, Done) for e in received)

    stream.push_text(text[len(head):])
    stream.end_input()
    await consumer
    assert stream.codes == target["codes"]
    assert np.abs(pcm_of(received) / 32767.0 - target["wav"]).max() <= 1e-4
    for other, cid, events in zip(others, ("A10_en_uncle_fu_auto_stream", "A04_zh_eric_auto_stream_dialect"), other_events):
        await events
        assert other.codes == golden_cases[cid]["codes"]


async def wait_idle(engine: Qwen3Engine, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while engine.active_streams or engine.runner.pool.free_slots != engine.capacity:
        assert time.monotonic() < deadline, "slots were not released"
        await asyncio.sleep(0.01)


async def test_cancel_mid_stream_stops_audio_and_frees_the_slot(engine, golden_cases):
    case = golden_cases["A02_en_ryan_english_stream"]
    stream = open_case(engine, case)
    stream.push_text(" ".join([case["args"]["text"]] * 3))
    events, after_cancel = [], []
    async for event in stream.events():
        if not after_cancel and isinstance(event, AudioChunk) and event.start_sample >= 3 * 1920:
            events.append(event)
            stream.cancel()
            after_cancel.append("cancelled")
            continue
        (after_cancel if after_cancel else events).append(event)
    after_cancel = after_cancel[1:]
    assert not any(isinstance(e, AudioChunk) for e in after_cancel)
    done = after_cancel[-1]
    assert isinstance(done, Done) and done.cancelled
    delivered = sum(e.duration for e in events if isinstance(e, AudioChunk))
    assert done.usage.audio_seconds == pytest.approx(delivered)
    assert done.usage.characters_received == len(" ".join([case["args"]["text"]] * 3))
    await wait_idle(engine)

    _, again = await run_alone(engine, golden_cases["A09_short_ono_anna_japanese_stream"])
    assert again.codes == golden_cases["A09_short_ono_anna_japanese_stream"]["codes"]


async def test_capacity_error_beyond_the_slots(tiny_checkpoint: Path):
    engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=2)
    try:
        held = [engine.open_stream(voice="ryan", language="english") for _ in range(2)]
        assert engine.active_streams == 2
        refused = await asyncio.wait_for(collect(engine.open_stream(voice="ryan")), 1.0)
        assert isinstance(refused[0], Error) and refused[0].code == "capacity" and refused[0].retryable
        assert isinstance(refused[-1], Done) and len(refused) == 2
        for stream in held:
            stream.cancel()
            events = await collect(stream)
            assert len(events) == 1 and isinstance(events[0], Done) and events[0].cancelled
        await wait_idle(engine)
        ok = engine.open_stream(voice="ryan")
        ok.push_text("Hi!")
        ok.end_input()
        assert isinstance((await collect(ok))[-1], Done)
    finally:
        engine.close()


async def test_progress_is_monotonic_never_ahead_of_audio_and_usage_is_exact(engine, golden_cases):
    case = golden_cases["A10_en_uncle_fu_auto_stream"]
    text = case["args"]["text"]
    stream = open_case(engine, case)
    events, _ = await asyncio.gather(collect(stream), feed(stream, text, random.Random(5), 0.02))
    audio_end = 0.0
    last_spoken, last_time = 0, 0.0
    next_sample = 0
    for i, event in enumerate(events):
        if isinstance(event, AudioChunk):
            assert event.start_sample == next_sample
            next_sample += event.num_samples
            audio_end += event.duration
        elif isinstance(event, Progress):
            assert event.spoken_end >= last_spoken and event.audio_time >= last_time
            last_spoken, last_time = event.spoken_end, event.audio_time
            # Never ahead of the audio: the chunk right after it (or the audio so far) reaches it.
            following = events[i + 1] if i + 1 < len(events) else None
            reach = audio_end + (following.duration if isinstance(following, AudioChunk) else 0.0)
            assert event.audio_time < reach + 1e-9
    done = events[-1]
    assert isinstance(done, Done) and not done.cancelled
    assert done.usage.characters_received == len(text)
    assert done.usage.characters_spoken == last_spoken == len(text)
    assert done.usage.audio_seconds == pytest.approx(audio_end) == pytest.approx(len(case["codes"]) * 0.08)


async def test_progress_follows_the_text_cursor(engine, golden_cases):
    """Progress after the first chunk covers only the text fed before it: the first token."""
    stream = open_case(engine, golden_cases["A02_en_ryan_english_stream"])
    stream.push_text("Hello world. ")
    first = None
    async for event in stream.events():
        if isinstance(event, Progress) and first is None:
            first = event
            stream.cancel()
    assert first.spoken_end == len("Hello") and first.audio_time == 0.0


async def test_open_and_cancel_200_streams_leaves_nothing_behind(engine, golden_cases):
    await wait_idle(engine)
    threads = threading.active_count()
    tasks = len(asyncio.all_tasks())
    for i in range(200):
        stream = engine.open_stream(voice="ryan", language="english", sampling=GREEDY)
        stream.push_text("Hello world. This is a test. ")
        if i % 10 == 0:
            async for event in stream.events():
                if isinstance(event, AudioChunk):
                    stream.cancel()
        else:
            stream.cancel()
            events = await collect(stream)
            assert events == [Done(cancelled=True, usage=events[-1].usage)]
    await wait_idle(engine)
    assert threading.active_count() == threads
    assert len(asyncio.all_tasks()) == tasks
    assert engine.loop.alive
    assert len(engine.loop.prefix_cache) <= engine.settings.loop.prefix_cache_entries


async def test_bad_options_and_misuse_get_clear_errors(engine):
    events = await collect(engine.open_stream(voice="nobody"))
    assert isinstance(events[0], Error) and events[0].code == "invalid_voice" and "nobody" in events[0].message
    assert isinstance(events[1], Done)
    events = await collect(engine.open_stream(voice="ryan", sample_rate=7))
    assert events[0].code == "invalid_sample_rate"
    stream = engine.open_stream(voice="ryan")
    with pytest.raises(TypeError):
        stream.push_text(b"bytes")
    stream.push_text("Hi!")
    stream.end_input()
    with pytest.raises(RuntimeError):
        stream.push_text("more")
    assert isinstance((await collect(stream))[-1], Done)
    with pytest.raises(RuntimeError):
        await collect(stream)  # events() is single-use


async def test_resampled_output(engine, golden_cases):
    case = golden_cases["A09_short_ono_anna_japanese_stream"]
    a = case["args"]
    stream = engine.open_stream(voice=a["speaker"], language=a["language"], sample_rate=16000, sampling=GREEDY)
    stream.push_text(a["text"])
    stream.end_input()
    events = await collect(stream)
    chunks = [e for e in events if isinstance(e, AudioChunk)]
    assert chunks and all(c.sample_rate == 16000 for c in chunks)
    total = sum(c.num_samples for c in chunks)
    assert abs(total - len(case["codes"]) * 1920 * 2 // 3) <= 32
    assert events[-1].usage.audio_seconds == pytest.approx(total / 16000)


async def test_sampled_streams_match_the_reference_and_ignore_batching(tiny_checkpoint: Path, golden_cases):
    """Counter-based draws: a sampled stream equals the reference generate with its seed,
    whether it runs alone or next to others."""
    engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=4, keep_codes=True, eos_after_text_end=False)
    try:
        chosen = ["A02_en_ryan_english_stream", "A10_en_uncle_fu_auto_stream", "A04_zh_eric_auto_stream_dialect"]
        params = {  # published defaults; top-p on; top-k off (the whole-vocabulary sampler)
            chosen[0]: SamplingParams(seed=1000),
            chosen[1]: SamplingParams(seed=1001, top_p=0.8, subtalker_top_p=0.9),
            chosen[2]: SamplingParams(seed=1002, top_k=0, subtalker_top_k=0),
        }
        reference = {}
        for cid in chosen:
            a = golden_cases[cid]["args"]
            reference[cid] = generate(
                engine.model, a["text"], speaker=a["speaker"], language=a["language"], instruct=a.get("instruct"),
                non_streaming_mode=False, max_new_tokens=a["max_new_tokens"], sampling=params[cid],
            ).codes.tolist()

        async def one(cid: str, rng: random.Random):
            stream = open_case(engine, golden_cases[cid], params[cid])
            await asyncio.gather(collect(stream), feed(stream, golden_cases[cid]["args"]["text"], rng, 0.02))
            return stream.codes

        rng = random.Random(9)
        together = await asyncio.gather(*(one(cid, rng) for cid in chosen))
        for cid, codes in zip(chosen, together):
            assert codes == reference[cid], cid
        for cid in chosen:
            assert await one(cid, rng) == reference[cid], cid
    finally:
        engine.close()


async def test_the_engine_facade_serves_both_backends(tiny_checkpoint: Path):
    from engine import Engine

    qwen = Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=3)
    try:
        caps = qwen.capabilities()
        assert caps["backend"] == "qwen3" and caps["capacity"] == 3 == qwen.capacity
        assert {"ryan", "vivian"} <= {v["name"] for v in caps["voices"]}
        assert {v.name for v in qwen.voices} == {v["name"] for v in caps["voices"]}
        assert "auto" in caps["languages"] and 24000 in caps["sample_rates"]
        stream = qwen.open_stream(voice="ryan", language="english", instruct=None, sample_rate=24000, sampling=GREEDY)
        stream.push_text("Hi!")
        stream.end_input()
        assert any(isinstance(e, AudioChunk) for e in await collect(stream))
        assert qwen.active_streams == 0
    finally:
        await qwen.aclose()
    closed = await collect(qwen.open_stream(voice="ryan"))
    assert closed[0].code == "engine_closed"
    assert not qwen.loop.alive
    assert type(Engine.embedded()).__name__ == "EmbeddedEngine"


async def test_an_instruct_the_checkpoint_does_not_take_is_ignored(tiny_checkpoint: Path, caplog):
    """A 0.6B CustomVoice checkpoint takes no instruct: the official wrapper drops it, so does
    the engine (with a warning), and its capabilities leave "instruct" out."""
    import dataclasses

    from engine.model.loader import load_model

    model = load_model(tiny_checkpoint)
    model.config = dataclasses.replace(model.config, tts_model_size="0b6")
    small = Qwen3Engine(model)
    try:
        assert "instruct" not in small.capabilities()["features"] and "instruct" not in small.features
        with caplog.at_level("WARNING"):
            stream = small.open_stream(voice="ryan", language="english", instruct="Whisper.", sampling=GREEDY, max_new_tokens=4)
        stream.push_text("Hi!")
        stream.end_input()
        events = await collect(stream)
        assert "ignoring the instruct" in caplog.text
        assert any(isinstance(e, AudioChunk) for e in events) and not any(isinstance(e, Error) for e in events)
    finally:
        small.close()


async def test_a_stream_whose_reader_stops_parks_then_goes_on_unchanged(tiny_checkpoint, golden_cases):
    """A paused consumer: the stream stops stepping once `max_unread_audio_s` is unread (no
    batch row held, the loop idle), then continues exactly where it stopped."""
    engine = Qwen3Engine.from_pretrained(
        tiny_checkpoint, device="cpu", max_streams=2, keep_codes=True, max_unread_audio_s=1.0
    )
    case = golden_cases["A02_en_ryan_english_stream"]  # 54 frames: 4.3 s of audio
    try:
        stream = open_case(engine, case)
        stream.push_text(case["args"]["text"])
        stream.end_input()
        events = stream.events()
        received = [await anext(events)]
        await asyncio.sleep(1.5)  # the reader pauses; unparked, all 54 frames take far less
        steps_parked = engine.loop.stats.iterations
        await asyncio.sleep(0.5)
        assert engine.loop.stats.iterations == steps_parked  # parked: the loop runs nothing for it
        # At most the bound (12.5 frames) plus the chunk in flight were made ahead of the reader.
        assert steps_parked < 30
        received += [event async for event in events]
    finally:
        engine.close()
    assert isinstance(received[-1], Done) and not received[-1].cancelled
    assert stream.codes == case["codes"]
    assert np.abs(pcm_of(received) / 32767.0 - case["wav"]).max() <= 1e-4


def test_the_engine_shortens_the_gil_switch_interval_only_when_asked(tiny_checkpoint: Path, monkeypatch):
    """The step loop must get the GIL back at once after each device wait; the engine lowers
    the interpreter's switch interval (never raises it) unless the setting is None."""
    import sys

    monkeypatch.setattr(sys, "setswitchinterval", lambda s: calls.append(s))
    monkeypatch.setattr(sys, "getswitchinterval", lambda: 0.005)
    calls: list[float] = []
    for options, expected in (({}, [0.0005]), ({"gil_switch_interval_s": None}, []), ({"gil_switch_interval_s": 0.01}, [])):
        calls.clear()
        engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=1, **options)
        engine.close()
        assert calls == expected, options


def test_the_engine_freezes_the_collector_after_loading_when_asked(tiny_checkpoint: Path, monkeypatch):
    """Full collections walk every object alive; the engine moves what exists once the model is
    loaded out of their reach (on CUDA by default, where a 0.1 s pause makes audio late)."""
    import gc

    calls: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "set_threshold", lambda *thresholds: calls.append(thresholds))
    young, middle, _ = gc.get_threshold()
    frozen = ["freeze", (young, middle, FULL_COLLECTION_AFTER)]  # and full collections made rarer
    for options, expected in (({}, []), ({"freeze_gc": True}, frozen), ({"freeze_gc": False}, [])):
        calls.clear()
        engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=1, **options)
        engine.close()
        assert calls == expected, options


async def test_a_stream_opened_as_the_loop_ends_is_refused_not_lost(tiny_checkpoint: Path):
    """Once the loop has begun its final drain it takes no command, so a stream opened then (a
    failed loop's thread is still alive for a moment) gets `engine_closed` instead of waiting
    forever on a command nobody reads."""
    engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=2)
    engine.loop.stop()
    assert engine.loop.post(object()) is False
    engine.loop._thread = threading.Thread(target=lambda: time.sleep(0.5))  # ended loop, live thread
    engine.loop._thread.start()
    events = await asyncio.wait_for(collect(engine.open_stream(voice="ryan")), 2.0)
    assert isinstance(events[0], Error) and events[0].code == "engine_closed"
    assert engine.active_streams == 0
    engine.close()


def test_fused_kernels_take_only_power_of_two_head_sizes():
    from engine.runtime import kernels

    assert kernels.fits((128, 128)) and kernels.fits((16, 16))
    assert not kernels.fits((12, 8)) and not kernels.fits((128, 96))


async def test_a_favoured_stream_fills_its_voice_prefix_and_speaks_first(tiny_checkpoint: Path):
    engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=4, prefill_rows_per_step=1)
    try:
        # The loop is held (between two steps) while both streams open, so that it next plans
        # with both waiting for their voice prefixes; one row a step fills one prefix at a time.
        holding, release = threading.Event(), threading.Event()
        engine.loop.post(DeviceCall(lambda: holding.set() or release.wait(30), concurrent.futures.Future()))
        assert await asyncio.to_thread(holding.wait, 30)
        streams = {
            "new": engine.open_stream(voice="ryan", language="english", sampling=GREEDY, max_new_tokens=6),
            "known": engine.open_stream(
                voice="vivian", language="english", sampling=GREEDY, max_new_tokens=6, priority=-1
            ),
        }
        for stream in streams.values():
            stream.push_text("Hello there.")
            stream.end_input()
        order: list[str] = []

        async def read(name: str, stream) -> None:
            async for event in stream.events():
                if isinstance(event, AudioChunk) and name not in order:
                    order.append(name)

        readers = asyncio.gather(*(read(name, stream) for name, stream in streams.items()))
        release.set()
        await readers
        assert order == ["known", "new"]
    finally:
        await engine.aclose()
