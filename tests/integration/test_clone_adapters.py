"""A voice uploaded with `voice-tts voices add` speaks after a server restart through Pipecat
(`Settings(voice=...)`) and LiveKit (`TTS(voice=...)`), remote and in-process (tiny Base
checkpoint on the CPU)."""

from __future__ import annotations

import array
import math

import pytest
from livekit.agents.types import USERDATA_TIMED_TRANSCRIPT
from pipecat.frames.frames import ErrorFrame, LLMFullResponseEndFrame, LLMFullResponseStartFrame, LLMTextFrame, TTSAudioRawFrame
from pipecat.pipeline.worker import PipelineParams
from pipecat.tests.utils import SleepFrame, run_test
from pipecat_harness import AGENTS_DIR  # noqa: F401  (puts agents/ on sys.path)
from scripted_llm import tokenize
from server_harness import start_server

from engine.runtime.qwen3_engine import Qwen3Engine
from voice_tts import livekit, pipecat
from voice_tts.cli import main
from voice_tts.client import RemoteEngine

pytestmark = pytest.mark.slow

REPLY = "Hello there, my friend. The weather is lovely today."
VOICES = {"calm": ("ref_c.wav", "A calm voice reads a short line."), "plain": ("ref_d_16k.wav", None)}


@pytest.fixture(scope="module")
def restarted(base_checkpoint, tmp_path_factory):
    """Voices added through the CLI to one server; yields a second server (and its engine) on
    the same voices directory."""
    voices_dir = tmp_path_factory.mktemp("voices")
    first_engine = Qwen3Engine.from_pretrained(base_checkpoint, device="cpu", max_streams=2, voices_dir=voices_dir)
    first = start_server(first_engine)
    try:
        for name, (reference, transcript) in VOICES.items():
            text = ["--text", transcript] if transcript else []
            assert main(["voices", "add", name, str(base_checkpoint / "golden" / reference), *text, "--url", first.ws_url]) == 0
    finally:
        first.stop()
        first_engine.close()
    engine = Qwen3Engine.from_pretrained(base_checkpoint, device="cpu", max_streams=2, voices_dir=voices_dir)
    server = start_server(engine)
    yield server, engine
    server.stop()
    engine.close()


def rms(pcm: bytes) -> float:
    samples = array.array("h", pcm)
    return math.sqrt(sum(s * s for s in samples) / max(len(samples), 1))


@pytest.mark.parametrize("voice", sorted(VOICES))
@pytest.mark.parametrize("where", ["remote", "in-process"])
async def test_pipecat_speaks_a_cloned_voice(restarted, voice, where):
    server, engine = restarted
    backend = RemoteEngine(server.ws_url) if where == "remote" else engine
    tts = pipecat.Qwen3StreamingTTS(engine=backend, settings=pipecat.Qwen3StreamingTTS.Settings(voice=voice, language="english"))
    frames = [LLMFullResponseStartFrame()]
    for token in tokenize(REPLY):
        frames += [LLMTextFrame(token), SleepFrame(0.02)]
    down, up = await run_test(tts, frames_to_send=[*frames, LLMFullResponseEndFrame()], pipeline_params=PipelineParams(audio_out_sample_rate=24000))
    assert not [f for f in up if isinstance(f, ErrorFrame)]
    audio = b"".join(f.audio for f in down if isinstance(f, TTSAudioRawFrame))
    assert len(audio) > 2 * 24000 // 2 and rms(audio) > 100  # over half a second of sound
    if where == "remote":
        await backend.aclose()


@pytest.mark.parametrize("voice", sorted(VOICES))
async def test_livekit_speaks_a_cloned_voice(restarted, voice):
    server, _ = restarted
    remote = RemoteEngine(server.ws_url)
    plugin = livekit.Qwen3StreamingTTS(engine=remote, voice=voice, language="english")
    try:
        async with plugin.stream() as stream:
            for token in tokenize(REPLY):
                stream.push_text(token)
            stream.end_input()
            frames = [ev.frame async for ev in stream]
        audio = b"".join(bytes(f.data) for f in frames)
        pieces = [p for f in frames for p in f.userdata.get(USERDATA_TIMED_TRANSCRIPT, [])]
        assert sum(f.duration for f in frames) > 0.5 and rms(audio) > 100
        assert "".join(pieces) == REPLY
    finally:
        await plugin.aclose()
        await remote.aclose()
