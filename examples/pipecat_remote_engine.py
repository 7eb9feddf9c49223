"""The Pipecat pipeline of `pipecat_to_wav.py`, speaking through a co-located engine server.

One server per GPU holds the model; every bot process on the host reaches it over a local
WebSocket with `RemoteEngine`, and the adapter cannot tell it from an in-process engine.

    voice-tts serve --port 8000 &          # the embedded voice; --model DIR for Qwen3-TTS
    python examples/pipecat_remote_engine.py [out.wav] [ws://127.0.0.1:8000/v1/ws]

`Qwen3StreamingTTS()` with no engine does the same when `VOICE_TTS_URL` is set.
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
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.workers.runner import WorkerRunner

from voice_tts.audio import write_wav
from voice_tts.client import RemoteEngine
from voice_tts.pipecat import Qwen3StreamingTTS

REPLY = "Your table for four is booked for 7:30 pm on Friday, June 6th. See you then!"
SAMPLE_RATE = 24000


class Recorder(FrameProcessor):
    def __init__(self):
        super().__init__()
        self.pcm = bytearray()

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        await super().process_frame(frame, direction)
        if isinstance(frame, TTSAudioRawFrame):
            self.pcm += frame.audio
        await self.push_frame(frame, direction)


async def main(wav_path: str, url: str) -> None:
    engine = RemoteEngine(url)
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
    await runner.run()
    await engine.aclose()

    write_wav(wav_path, bytes(recorder.pcm), SAMPLE_RATE)
    print(f"{len(recorder.pcm) / 2 / SAMPLE_RATE:.2f} s of speech from {url} in {wav_path}")


if __name__ == "__main__":
    args = sys.argv[1:]
    asyncio.run(
        main(
            args[0] if args else "out.wav",
            args[1] if len(args) > 1 else "ws://127.0.0.1:8000/v1/ws",
        )
    )
