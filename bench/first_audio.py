"""First audio per path: how long after the LLM's first word the listener's first sound leaves.

    python bench/first_audio.py [--model DIR] [--device cpu] [--turns 50] [--rates 30 100]
        [--out bench/results/first_audio_cpu.json]

CPU (reproducible anywhere): the tiny CustomVoice fixture (default `--model`). GPU: a random
1.7B checkpoint (`bench/make_random_checkpoint.py`) with `--device cuda`.

Each turn streams one reply as an LLM sends it (`voice_tts.bench.deltas.llm_deltas`: one delta
per tokenizer piece) at `rate` tokens/s and stops at the first audio (the turn is then cancelled,
so turns stay short). Times, all on this process's monotonic clock:
- `from_first_delta`: first delta sent -> first audio received;
- `from_word`: the delta that completes the first word (the first one after which the raw text
  shows the word ended) sent -> first audio received; the figure the handoff is about;
- `engine_first_frame`: the engine alone, the turn's whole spoken text pushed at once to an
  in-process stream -> its first audio chunk (what no path can beat).
Paths: `session` (TTSSession, in-process engine), `ws_normalized` / `ws_raw` (a server on
127.0.0.1 in this process, `RemoteEngine` over /v1/ws with and without server-side
normalization), `realtime` (/v1/realtime token input), `speech` (OpenAI speech, the whole text
in one request: from_word = from_first_delta), `pipecat` (the Pipecat service in a pipeline,
in-process engine), `livekit` (the LiveKit plugin's stream, in-process engine). p50 and p99 over
`--turns` turns per path and rate, the replies taken in turn.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

from voice_tts.bench.deltas import llm_deltas
from voice_tts.protocol import AudioChunk, Done
from voice_tts.tn import normalize

REPO = Path(__file__).resolve().parents[1]
TINY = REPO.parent / "shared" / "fixtures" / "qwen3-tts-tiny-customvoice"
REPLIES = (
    "Sure thing.",
    "Your order shipped this morning and should arrive on Friday.",
    "The weather today is sunny with a high of 72 degrees",
)
PATHS = ("session", "ws_normalized", "ws_raw", "realtime", "speech", "pipecat", "livekit")


def word_end_index(deltas: list[str]) -> int:
    """The delta after which the raw text shows its first word ended."""
    text = ""
    for index, delta in enumerate(deltas):
        text += delta
        stripped = text.lstrip()
        if stripped and any(not c.isalnum() for c in stripped) and not stripped.isalnum():
            return index
    return len(deltas) - 1


class Clock:
    """One turn's times."""

    def __init__(self) -> None:
        self.first_delta: float | None = None
        self.word: float | None = None
        self.audio: float | None = None
        self.got_audio = asyncio.Event()

    def audio_arrived(self) -> None:
        if self.audio is None:
            self.audio = time.perf_counter()
            self.got_audio.set()


async def send_paced(deltas: list[str], rate: float, send, clock: Clock) -> None:
    """`send(delta)` for each delta at `rate` per second, stopping once audio came."""
    word = word_end_index(deltas)
    began = time.perf_counter()
    for index, delta in enumerate(deltas):
        if clock.audio is not None:
            return
        delay = began + index / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        now = time.perf_counter()
        if index == 0:
            clock.first_delta = now
        if index == word:
            clock.word = now
        await send(delta)


# --- the paths --------------------------------------------------------------------------------


async def via_session(engine, deltas, rate, clock: Clock) -> None:
    from voice_tts.session import TTSSession

    session = TTSSession(engine)

    async def send(delta):
        session.push_text(delta)

    async def events():
        async for event in session.events():
            if isinstance(event, AudioChunk):
                clock.audio_arrived()
                session.cancel()

    await asyncio.gather(send_paced(deltas, rate, send, clock), events())


async def via_remote(remote, deltas, rate, clock: Clock, normalize_text: bool) -> None:
    stream = remote.open_stream(normalize=normalize_text)

    async def send(delta):
        stream.push_text(delta)

    async def events():
        async for event in stream.events():
            if isinstance(event, AudioChunk) and clock.audio is None:
                clock.audio_arrived()
                stream.cancel()
            elif isinstance(event, Done):
                return

    await asyncio.gather(send_paced(deltas, rate, send, clock), events())


async def via_realtime(url, deltas, rate, clock: Clock) -> None:
    async with connect(url) as ws:

        async def send(delta):
            await ws.send(json.dumps({"type": "voice_tts.input_text_buffer.append", "delta": delta}))

        async def events():
            while True:
                event = json.loads(await ws.recv())
                if event["type"] == "response.output_audio.delta" and clock.audio is None:
                    clock.audio_arrived()
                    await ws.send(json.dumps({"type": "response.cancel"}))
                elif event["type"] == "response.done":
                    return

        await asyncio.gather(send_paced(deltas, rate, send, clock), events())


async def via_speech(http: httpx.AsyncClient, url, deltas, rate, clock: Clock) -> None:
    text = "".join(deltas)
    clock.first_delta = clock.word = time.perf_counter()
    body = {"model": "voice-tts", "input": text, "voice": "ryan", "response_format": "pcm"}
    async with http.stream("POST", url, json=body) as response:
        async for chunk in response.aiter_bytes():
            if chunk:
                clock.audio_arrived()
                break


class PipecatPath:
    """One Pipecat pipeline ([service, first-audio watcher]) kept running across turns."""

    async def start(self, engine) -> None:
        from pipecat.frames.frames import TTSAudioRawFrame
        from pipecat.pipeline.pipeline import Pipeline
        from pipecat.pipeline.worker import PipelineParams, PipelineWorker
        from pipecat.processors.frame_processor import FrameProcessor
        from pipecat.workers.runner import WorkerRunner

        from voice_tts.pipecat import Qwen3StreamingTTS

        path = self

        class FirstAudio(FrameProcessor):
            async def process_frame(self, frame, direction):
                await super().process_frame(frame, direction)
                if isinstance(frame, TTSAudioRawFrame) and path.clock is not None:
                    path.clock.audio_arrived()
                await self.push_frame(frame, direction)

        self.clock: Clock | None = None
        self.worker = PipelineWorker(
            Pipeline([Qwen3StreamingTTS(engine=engine), FirstAudio()]),
            params=PipelineParams(audio_out_sample_rate=24000),
            cancel_on_idle_timeout=False,
        )
        self.runner = WorkerRunner(handle_sigint=False)
        await self.runner.add_workers(self.worker)
        self.running = asyncio.ensure_future(self.runner.run())
        await asyncio.sleep(0.5)

    async def turn(self, deltas, rate, clock: Clock) -> None:
        from pipecat.frames.frames import (
            InterruptionFrame,
            LLMFullResponseEndFrame,
            LLMFullResponseStartFrame,
            LLMTextFrame,
        )

        self.clock = clock
        await self.worker.queue_frame(LLMFullResponseStartFrame())

        async def send(delta):
            await self.worker.queue_frame(LLMTextFrame(delta))

        await send_paced(deltas, rate, send, clock)
        await self.worker.queue_frame(LLMFullResponseEndFrame())
        await clock.got_audio.wait()
        await self.worker.queue_frame(InterruptionFrame())
        await asyncio.sleep(0.2)  # the interrupted context is closed before the next one opens
        self.clock = None

    async def stop(self) -> None:
        await self.worker.cancel()
        await self.running


async def via_livekit(tts, deltas, rate, clock: Clock) -> None:
    async with tts.stream() as synthesis:

        async def send(delta):
            synthesis.push_text(delta)

        async def events():
            async for _ in synthesis:
                clock.audio_arrived()
                return

        await asyncio.gather(send_paced(deltas, rate, send, clock), events())


async def engine_first_frame(engine, text: str) -> float:
    stream = engine.open_stream()
    began = time.perf_counter()
    stream.push_text(normalize(text))
    stream.end_input()
    first = None
    async for event in stream.events():
        if isinstance(event, AudioChunk) and first is None:
            first = time.perf_counter() - began
            stream.cancel()
        elif isinstance(event, Done):
            break
    return first


# --- the run ----------------------------------------------------------------------------------


def percentiles(values: list[float]) -> dict:
    ms = sorted(v * 1000 for v in values)
    if not ms:
        return {"p50": None, "p99": None}
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    return {"p50": round(statistics.median(ms), 1), "p99": round(p99, 1)}


async def measure(args) -> dict:
    from engine import Engine
    from engine.server.app import create_app
    from engine.server.runner import BackgroundServer
    from engine.server.settings import ServerSettings
    from voice_tts.client import RemoteEngine
    from voice_tts.livekit import Qwen3StreamingTTS as LiveKitTTS

    began = time.perf_counter()
    engine = Engine.from_pretrained(args.model, device=args.device)
    settings = ServerSettings(port=0, log_level="warning")
    server = BackgroundServer(create_app(engine, settings=settings), settings).start()
    ready_deadline = time.monotonic() + 120
    while httpx.get(server.http_url + "/ready").status_code != 200:
        if time.monotonic() > ready_deadline:
            raise TimeoutError("the server did not get ready")
        await asyncio.sleep(0.05)
    remote = RemoteEngine(server.ws_url)
    realtime_url = server.ws_url.replace("/v1/ws", "/v1/realtime")
    http = httpx.AsyncClient(timeout=60)
    pipecat = PipecatPath()
    await pipecat.start(engine)
    livekit = LiveKitTTS(engine=engine)
    paths = {
        "session": lambda d, r, c: via_session(engine, d, r, c),
        "ws_normalized": lambda d, r, c: via_remote(remote, d, r, c, True),
        "ws_raw": lambda d, r, c: via_remote(remote, d, r, c, False),
        "realtime": lambda d, r, c: via_realtime(realtime_url, d, r, c),
        "speech": lambda d, r, c: via_speech(http, server.http_url + "/v1/audio/speech", d, r, c),
        "pipecat": pipecat.turn,
        "livekit": lambda d, r, c: via_livekit(livekit, d, r, c),
    }
    results: dict = {
        "conditions": {
            "model": str(args.model),
            "device": args.device,
            "dtype": "float32" if args.device == "cpu" else "bfloat16",
            "concurrency": 1,
            "turns_per_path_and_rate": args.turns,
            "replies": list(REPLIES),
            "deltas": "voice_tts.bench.deltas.llm_deltas (one delta per tokenizer piece)",
            "server": "in this process (BackgroundServer), 127.0.0.1",
            "command": "python bench/first_audio.py " + " ".join(args.argv),
        },
        "load_seconds": round(time.perf_counter() - began, 1),
        "rates": {},
    }
    try:
        for _ in range(3):  # warm every path once
            for run in paths.values():
                await run(llm_deltas(REPLIES[0]), 100.0, Clock())
        engine_times = [await engine_first_frame(engine, REPLIES[i % len(REPLIES)]) for i in range(args.turns)]
        results["engine_first_frame_ms"] = percentiles(engine_times)
        for rate in args.rates:
            per_path = {}
            for name in args.paths:
                from_delta, from_word = [], []
                for i in range(args.turns):
                    clock = Clock()
                    await asyncio.wait_for(paths[name](llm_deltas(REPLIES[i % len(REPLIES)]), rate, clock), 60)
                    from_delta.append(clock.audio - clock.first_delta)
                    from_word.append(clock.audio - clock.word)
                per_path[name] = {
                    "from_first_delta_ms": percentiles(from_delta),
                    "from_word_ms": percentiles(from_word),
                }
                print(rate, name, per_path[name], flush=True)
            results["rates"][str(rate)] = per_path
    finally:
        await pipecat.stop()
        await livekit.aclose()
        await http.aclose()
        await remote.aclose()
        server.stop()
        await engine.aclose()
    return results


def main() -> None:
    import sys

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, default=TINY)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--rates", type=float, nargs="+", default=[30.0, 100.0])
    parser.add_argument("--paths", nargs="+", choices=PATHS, default=list(PATHS))
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "first_audio_cpu.json")
    args = parser.parse_args()
    args.argv = sys.argv[1:]
    results = asyncio.run(measure(args))
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
