"""Engine options an operator sets on `voice-tts serve`, on the tiny checkpoint through the
options the server passes: the runaway guard (`--max-frames-per-text-token`: a turn whose text has
ended stops after max(50, guard x its text tokens) frames, reason `frame_cap`) and the cache
folder, with the start-up phases the engine reports."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pytest

from voice_tts.protocol import Done

from engine.model.sampling import SamplingParams
from engine.runtime.loop import LoopSettings
from engine.runtime.qwen3_engine import Qwen3Engine
from engine.server.engine_loader import ServeError, load_engine
from engine.server.settings import add_setting_arguments, settings_from

# Long enough that the guard's share of it passes the 50-frame floor, and that EOS (barred until
# the end-of-text row is fed) cannot end the turn first.
TEXT = " ".join(["Your order shipped this morning and should arrive on Friday, tracking number attached."] * 8)


def flags(*argv: str):
    parser = argparse.ArgumentParser()
    add_setting_arguments(parser)
    return settings_from(parser.parse_args(list(argv)), {})


def test_the_guard_is_an_engine_option_only_when_set():
    assert flags().engine_options() == {}
    assert flags("--max-frames-per-text-token", "4").engine_options() == {"max_frames_per_text_token": 4.0}
    assert settings_from(argparse.Namespace(), {"VOICE_TTS_MAX_FRAMES_PER_TEXT_TOKEN": "0.5"}).engine_options() == {
        "max_frames_per_text_token": 0.5
    }
    with pytest.raises(SystemExit):
        flags("--max-frames-per-text-token", "0")
    with pytest.raises(ServeError, match="needs --model"):
        load_engine(None, None, max_frames_per_text_token=4.0)


async def turn_frames(engine: Qwen3Engine) -> tuple[int, str]:
    stream = engine.open_stream(voice="ryan", language="english", sampling=SamplingParams.greedy(), max_new_tokens=4096)
    stream.push_text(TEXT)
    stream.end_input()
    events = [event async for event in stream.events()]
    assert isinstance(events[-1], Done)
    return len(stream.codes), stream.end_reason


async def test_the_guard_sets_a_turns_length(tiny_checkpoint: Path):
    options = flags("--max-frames-per-text-token", "0.5").engine_options()
    engine = load_engine(str(tiny_checkpoint), "cpu", max_streams=1, **options, keep_codes=True)
    try:
        frames, reason = await turn_frames(engine)
        tokens = len(engine.model.tokenizer.encode(TEXT))
    finally:
        await engine.aclose()
    floor = LoopSettings().min_frame_cap
    assert 0.5 * tokens > floor
    assert (frames, reason) == (math.ceil(0.5 * tokens), "frame_cap")


async def test_the_start_up_phases_are_reported_and_the_cache_folder_is_an_engine_option(tiny_checkpoint: Path, tmp_path):
    options = flags("--cache-dir", str(tmp_path)).engine_options()
    assert options == {"cache_dir": str(tmp_path)}
    engine = load_engine(str(tiny_checkpoint), "cpu", max_streams=1, **options)
    try:
        phases = engine.capabilities()["startup_seconds"]
    finally:
        await engine.aclose()
    # On a CPU nothing is captured: the model's load and the KV cache with its kernels' check.
    assert set(phases) == {"load_model", "kv_cache_and_kernels"} and all(seconds >= 0 for seconds in phases.values())
