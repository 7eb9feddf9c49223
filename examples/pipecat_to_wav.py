"""A Pipecat pipeline that speaks an LLM's token stream into a WAV file.

Tokens go to `Qwen3StreamingTTS` one at a time, as an LLM writes them; speech starts before
the sentence is finished. Each word frame carries the time its audio starts.

    python examples/pipecat_to_wav.py [out.wav]

Speaks with the embedded voice in this process (no GPU, no download).
"""

import asyncio
import re
import sys

from pipecat.frames.frames import (
    EndFrame,
    Frame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
    TTSAudioRawFrame,
    TTSTextFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.workers.runner import WorkerRunner

from engine import Engine
from voice_tts.audio import write_wav
from voice_tts.pipecat import Qwen3StreamingTTS
from voice_tts.protocol import StreamingEngine

REPLY = "Your table for four is booked for 7:30 pm on Friday, June 6th. See you then!"
SAMPLE_RATE = 24000


class Recorder(FrameProcessor):
    """Keeps the audio, and prints each word with the time its audio starts."""

    def __init__(self):
        super().__init__()
        self.pcm = bytearray()
        self.first_pts: int | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, TTSAudioRawFrame):
            self.pcm += frame.audio
        elif isinstance(frame, TTSTextFrame):
            self.first_pts = self.first_pts or frame.pts
            print(f"{(frame.pts - self.first_pts) / 1e9:6.2f}s  {frame.text}")
        await self.push_frame(frame, direction)


async def speak_to_wav(engine: StreamingEngine, wav_path: str) -> float:
    """Stream the reply's tokens through `Qwen3StreamingTTS` on `engine` into `wav_path`, then
    close the engine; returns the seconds of speech written."""
    recorder = Recorder()
    worker = PipelineWorker(
        Pipeline([Qwen3StreamingTTS(engine=engine), recorder]),
        params=PipelineParams(audio_out_sample_rate=SAMPLE_RATE),
    )
    tokens = [LLMTextFrame(token) for token in re.findall(r"\s*\S+", REPLY)]
    await worker.queue_frames(
        [LLMFullResponseStartFrame(), *tokens, LLMFullResponseEndFrame(), EndFrame()]
    )
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    try:
        await runner.run()
    finally:
        await engine.aclose()
    write_wav(wav_path, bytes(recorder.pcm), SAMPLE_RATE)
    return len(recorder.pcm) / 2 / SAMPLE_RATE


async def main(wav_path: str) -> None:
    seconds = await speak_to_wav(Engine.embedded(), wav_path)
    print(f"{seconds:.2f} s of speech in {wav_path}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "out.wav"))
