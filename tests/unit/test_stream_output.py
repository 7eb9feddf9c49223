"""The output pipeline (`voice_tts.stream_output`): each fact about a stream computed once, on
the audio that goes out, whatever the engine's own `Done` says."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Engine
from voice_tts.audio import pcm16_to_mulaw
from voice_tts.protocol import AudioChunk, Done, Error, Progress, Usage
from voice_tts.request import StreamRequest
from voice_tts.stream_output import AudioOut, Finished, StreamOutput, WordsOut

RATE = 24000
TEXT = "Hello there, how are you today?"


def tone(samples: int, start: int) -> AudioChunk:
    pcm = (np.sin(np.arange(start, start + samples) / 9.0) * 8000).astype("<i2").tobytes()
    return AudioChunk(pcm, RATE, start)


def engine_events() -> list:
    """A made-up engine stream: words as their audio comes, and a `Done` whose usage is wrong
    on purpose (the pipeline counts its own)."""
    return [
        Progress(5, 0.0),
        tone(4800, 0),
        Progress(12, 0.2),
        tone(4800, 4800),
        Progress(len(TEXT), 0.4),
        tone(2400, 9600),
        Done(usage=Usage(999, 999, 99.0)),
    ]


def run(output: StreamOutput, events: list) -> list:
    output.text.push(TEXT)
    output.text.flush()
    return [out for event in events for out in output.process(event)]


def test_usage_is_the_pipelines_own_count():
    meter = []
    output = StreamOutput(StreamRequest(normalize=False), meter=meter.append)
    outs = run(output, engine_events())
    audio = [out for out in outs if isinstance(out, AudioOut)]
    [finished] = [out for out in outs if isinstance(out, Finished)]
    seconds = sum(out.chunk.num_samples for out in audio) / RATE
    assert finished.usage == Usage(len(TEXT), len(finished.heard_text), pytest.approx(seconds))
    assert finished.heard_text == TEXT and sum(meter) == pytest.approx(seconds)
    assert output.usage == finished.usage and outs[-1] is finished


def test_audio_is_encoded_in_the_requests_format():
    outs = run(StreamOutput(StreamRequest(format="mulaw")), engine_events())
    audio = [out for out in outs if isinstance(out, AudioOut)]
    assert audio and all(out.data == pcm16_to_mulaw(out.chunk.pcm) for out in audio)
    assert all(len(out.data) == out.chunk.num_samples for out in audio)


def test_words_come_before_their_audio_in_stream_order():
    outs = run(StreamOutput(StreamRequest()), engine_events())
    kinds = [type(out).__name__ for out in outs]
    assert kinds == ["WordsOut", "AudioOut", "WordsOut", "AudioOut", "WordsOut", "AudioOut", "Finished"]
    words = [word.text for out in outs if isinstance(out, WordsOut) for word in out.words]
    assert " ".join(words) == TEXT


def test_after_a_cancel_only_the_end_goes_out_and_the_heard_text_stays():
    output = StreamOutput(StreamRequest())
    events = engine_events()
    outs = run(output, events[:2])
    heard = output.cancel(played_seconds=None)
    outs += [out for event in [*events[2:-1], Error("engine_error", "late"), Done()] for out in output.process(event)]
    assert heard == "Hello"
    assert [type(out) for out in outs[2:]] == [Error, Finished]
    assert outs[-1].cancelled and outs[-1].heard_text == heard
    assert outs[-1].usage == Usage(len(TEXT), len(heard), pytest.approx(4800 / RATE))


async def test_a_sped_up_stream_counts_played_time():
    pytest.importorskip("pylibrb")
    engine = Engine.embedded()
    try:
        counts = {}
        for speed in (1.0, 1.5):
            output = StreamOutput(StreamRequest(speed=speed, normalize=True))
            stream = engine.open_stream(output.request)
            stream.push_text(output.text.push(TEXT) + output.text.flush())
            stream.end_input()
            outs = [out async for event in stream.events() for out in output.process(event)]
            samples = sum(out.chunk.num_samples for out in outs if isinstance(out, AudioOut))
            assert outs[-1].usage.audio_seconds == pytest.approx(samples / RATE)
            counts[speed] = samples
        assert counts[1.5] == pytest.approx(counts[1.0] / 1.5, rel=0.03)
    finally:
        await engine.aclose()
