"""KV slots and blocks on the tiny checkpoint (CPU, float32): 64 sampled streams joining and
leaving mid-run give each the codes it gives alone (and its audio to the last bit of the codec's
rounding), and every slot and every KV block is free again after its stream ends, however it ends
(EOS or a cap, cancel, a failed step, the engine closing); a stream beyond the KV memory is
refused with `capacity`, and a turn whose text has ended gives back the room its guard rules out."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import numpy as np
from text_pieces import random_pieces

from voice_tts.protocol import AudioChunk, Done, Error

from engine.model.sampling import SamplingParams
from engine.runtime.kv_cache import kv_bytes_per_row
from engine.runtime.qwen3_engine import Qwen3Engine

STREAMS = 64
PCM_STEPS = 1
SEEDS = 8  # distinct (case, seed) turns; each runs STREAMS // SEEDS times at once


def streaming_cases(golden_cases: dict) -> list[str]:
    return [cid for cid, c in golden_cases.items() if not c["args"]["non_streaming_mode"]]


def open_turn(engine: Qwen3Engine, case: dict, seed: int):
    a = case["args"]
    return engine.open_stream(
        voice=a["speaker"], language=a["language"], instruct=a.get("instruct"), sampling=SamplingParams(seed=seed),
        max_new_tokens=a["max_new_tokens"],
    )


def pcm(events: list) -> bytes:
    return b"".join(e.pcm for e in events if isinstance(e, AudioChunk))


def assert_slots_free(engine: Qwen3Engine) -> None:
    pool = engine.runner.pool
    assert pool.free_slots == engine.capacity and not engine.loop.scheduler
    assert pool.free_blocks == pool.blocks and pool.unreserved_blocks == pool.blocks
    assert not any(pool.table(slot) for slot in range(pool.slots))
    assert engine.active_streams == 0


async def wait_idle(engine: Qwen3Engine, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while engine.active_streams or engine.runner.pool.free_slots != engine.capacity or engine.kv_cache()["held"]:
        assert time.monotonic() < deadline, "slots were not released"
        await asyncio.sleep(0.01)


async def test_64_streams_joining_and_leaving_give_the_bytes_each_gives_alone(tiny_checkpoint: Path, golden_cases):
    engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=STREAMS, keep_codes=True)
    cases = streaming_cases(golden_cases)
    turns = [(cases[i % len(cases)], 5000 + i) for i in range(SEEDS)]
    try:
        alone = {}
        for cid, seed in turns:
            stream = open_turn(engine, golden_cases[cid], seed)
            stream.push_text(golden_cases[cid]["args"]["text"])
            stream.end_input()
            alone[(cid, seed)] = (pcm([e async for e in stream.events()]), stream.codes)

        async def one(index: int) -> tuple[tuple[str, int], bool, list, list | None]:
            rng = random.Random(index)
            cid, seed = turns[index % SEEDS]
            await asyncio.sleep(rng.uniform(0, 1.0))  # streams join while others run
            stream = open_turn(engine, golden_cases[cid], seed)
            leaves = index % 5 == 4  # and some leave mid-run (barge-in)

            async def feed() -> None:
                for piece in random_pieces(golden_cases[cid]["args"]["text"], rng, 1, 6):
                    stream.push_text(piece)
                    await asyncio.sleep(rng.uniform(0, 0.02))
                stream.end_input()

            async def consume() -> list:
                events = []
                async for event in stream.events():
                    events.append(event)
                    if leaves and isinstance(event, AudioChunk):
                        stream.cancel()
                return events

            events, _ = await asyncio.gather(consume(), feed())
            return (cid, seed), leaves, events, stream.codes

        results = await asyncio.gather(*(one(i) for i in range(STREAMS)))
        finished = 0
        for turn, leaves, events, codes in results:
            assert isinstance(events[-1], Done) and not any(isinstance(e, Error) for e in events)
            if leaves:
                assert events[-1].cancelled
                continue
            assert codes == alone[turn][1], turn  # the model's output: exact
            # The codec's float32 convolutions on a CPU round the last bit by batch size: a
            # sample may differ by one step of 16-bit PCM, never more.
            here, there = (np.frombuffer(b, dtype=np.int16).astype(np.int32) for b in (pcm(events), alone[turn][0]))
            assert len(here) == len(there) and np.abs(here - there).max() <= PCM_STEPS, turn
            finished += 1
        assert finished == STREAMS - STREAMS // 5
        await wait_idle(engine)
        assert_slots_free(engine)
    finally:
        engine.close()
    assert_slots_free(engine)


async def test_every_slot_is_free_after_a_failed_step_and_after_close(tiny_checkpoint: Path, golden_cases):
    case = golden_cases["A02_en_ryan_english_stream"]
    # A step that fails on the device ends every stream with an error.
    engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=4)
    try:
        streams = [open_turn(engine, case, seed) for seed in range(3)]
        for stream in streams:
            stream.push_text(case["args"]["text"])
        launch, launched = engine.runner.launch_step, []

        def failing(*args):
            launched.append(1)
            if len(launched) == 3:
                raise RuntimeError("device fault")
            return launch(*args)

        engine.runner.launch_step = failing
        for stream in streams:
            events = [e async for e in stream.events()]
            assert isinstance(events[-2], Error) and events[-2].code == "engine_error" and isinstance(events[-1], Done)
        assert_slots_free(engine)
    finally:
        engine.close()
    # Streams still open when the engine closes (a restart) end, and give their slots back.
    engine = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=4)
    streams = [open_turn(engine, case, seed) for seed in range(4)]
    for stream in streams:
        stream.push_text(case["args"]["text"] * 4)
    first = streams[0].events()
    while not isinstance(await anext(first), AudioChunk):  # the streams are running
        pass
    await engine.aclose()
    assert isinstance([e async for e in first][-1], Done)
    for stream in streams[1:]:
        assert isinstance([e async for e in stream.events()][-1], Done)
    assert_slots_free(engine)


async def test_a_stream_beyond_the_kv_memory_is_refused_with_capacity(tiny_checkpoint: Path):
    # Room for two and a half streams of --max-context rows, though eight may run: the third
    # stream is refused at admission, never fails mid-turn; once a running turn's text has ended,
    # its guard bounds its frames, it gives back the rest of its room, and a new stream fits.
    talker = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=1, warm_up_rows=0)
    layers = talker.model.config.talker.layers
    per_row = kv_bytes_per_row(layers.num_layers, layers.num_kv_heads, layers.head_dim, talker.model.dtype)
    talker.close()
    engine = Qwen3Engine.from_pretrained(
        tiny_checkpoint, device="cpu", max_streams=8, max_context=256, memory_budget=int(2.5 * 256 * per_row),
        max_frames_per_text_token=4,
    )
    try:
        assert engine.capacity == 8 and engine.kv_cache()["blocks"] == 2 * 8 + 4
        held = [engine.open_stream(voice="ryan", language="english") for _ in range(2)]
        refused = [e async for e in engine.open_stream(voice="ryan", language="english").events()]
        assert isinstance(refused[0], Error) and refused[0].code == "capacity" and refused[0].retryable
        assert isinstance(refused[-1], Done)
        assert engine.active_streams == 2
        held[0].push_text("Hi.")
        held[0].end_input()  # at most 50 frames now: a few blocks instead of eight
        deadline = time.monotonic() + 10
        while engine.kv_cache()["unreserved"] < 8:
            assert time.monotonic() < deadline, "the ended turn kept its whole reservation"
            await asyncio.sleep(0.01)
        third = engine.open_stream(voice="ryan", language="english")
        third.push_text("Hello there.")
        third.end_input()
        events = [e async for e in third.events()]
        assert not any(isinstance(e, Error) for e in events) and any(isinstance(e, AudioChunk) for e in events)
        assert not events[-1].cancelled
        held[1].cancel()
        for stream in held:
            assert isinstance([e async for e in stream.events()][-1], Done)
        await wait_idle(engine)
        assert_slots_free(engine)
    finally:
        engine.close()
