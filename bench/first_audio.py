"""First audio per path: how long after the LLM's first word the listener's first sound leaves.

    python bench/first_audio.py [--model DIR] [--device cpu] [--turns 50] [--rates 30 100] [--openings]
        [--out bench/results/first_audio_cpu.json] [--turns-out turns.json]

CPU (reproducible anywhere): the tiny CustomVoice fixture (default `--model`). GPU: a random
1.7B checkpoint (`bench/make_random_checkpoint.py`) with `--device cuda`.

Each turn streams one reply as an LLM sends it (`voice_tts.bench.deltas.llm_deltas`: one delta
per tokenizer piece) at `rate` tokens/s and stops at the first audio (the turn is then cancelled,
so turns stay short). Times, all on this process's monotonic clock:
- `from_first_delta`: first delta sent -> first audio received;
- `from_word`: the delta that completes the first word (the first one after which the raw text
  shows the word ended) sent -> first audio received; the figure the handoff is about;
- `engine` (a path of its own): the engine alone, the turn's whole spoken text pushed at once
  to an in-process stream -> its first audio chunk (what no path can beat);
- `over_engine_same_round`: a turn's from_word minus the engine's first audio in the same round.
Paths: `session` (TTSSession, in-process engine), `ws_normalized` / `ws_raw` (a server on
127.0.0.1 in this process, `RemoteEngine` over /v1/ws with and without server-side
normalization), `realtime` (/v1/realtime token input), `speech` (OpenAI speech, the whole text
in one request: from_word = from_first_delta), `pipecat` (the Pipecat service in a pipeline,
in-process engine), `livekit` (the LiveKit plugin's stream, in-process engine). p50 and p99 over
`--turns` rounds per rate; round i runs every path once on reply i (round-robin, so that on a
shared machine every path meets the same load), and `StageTrace` times each turn's stages.
`--turns-out` keeps every turn's stages.

`--openings` (instead of the paths): normalized against raw, per agent reply opening
(`voice_tts.bench.openings`, ten languages), in one run. Each round sends every opening through
`TTSSession` (in-process engine) twice, with and without normalization, at `rate` tokens/s:
`from_first_delta` p50/p99 of each and `normalized_minus_raw_ms` (the round's normalized turn
minus its raw turn, p50/p99), beside `first_token_after_delta` (which delta made the first
text token final on the engine's side, on each path; the same index means no delta of delay).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import statistics
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

from voice_tts.bench.deltas import llm_deltas
from voice_tts.protocol import AudioChunk, Done
from voice_tts.tn import normalize

REPO = Path(__file__).resolve().parents[1]
TINY = Path(os.environ.get("VOICE_TTS_SHARED", REPO.parent / "shared")) / "fixtures" / "qwen3-tts-tiny-customvoice"
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
        self.stages: dict[str, float] = {}  # filled by `StageTrace` while this turn runs

    def audio_arrived(self) -> None:
        if self.audio is None:
            self.audio = time.perf_counter()
            self.got_audio.set()


class StageTrace:
    """Where one turn's first audio spends its time, stage by stage, from wrappers around the
    engine's and the server's own methods (nothing in them changes; one stream at a time):
    - `token_posted`: the caller's thread posts the turn's first text tokens to the step loop;
    - `token_applied`: the loop takes them from its inbox;
    - `step_launched`: the loop launches the turn's first frame step (on the CPU the step runs
      inside the launch: `frame_taken` minus this is the step);
    - `frame_taken`: the loop has that step's frame;
    - `chunk_posted`: the loop posts the first audio chunk (`first_chunk_frames`: its frames);
    - `chunk_read`: the engine stream's consumer (session, server turn) takes it;
    - `adapter_in` / `adapter_out` (Pipecat and LiveKit): see `_install_adapters`;
    - `sent`: the server's socket write of the first audio (server paths only);
    and then `received` (`Clock.audio`). The stream followed is the first opened after `begin`."""

    def __init__(self) -> None:
        self.clock: Clock | None = None
        self._stream_id: int | None = None
        self._channel = None

    def begin(self, clock: Clock | None) -> None:
        self.clock, self._stream_id, self._channel = clock, None, None

    def mark(self, stage: str, value: float | None = None) -> None:
        clock = self.clock
        if clock is not None and stage not in clock.stages:
            clock.stages[stage] = time.perf_counter() if value is None else value

    def install(self, adapters: bool) -> None:
        """`adapters`: also trace the Pipecat and LiveKit adapters (their frameworks imported)."""
        from engine.runtime import loop as loop_module
        from engine.runtime import output as output_module
        from engine.runtime import stream as stream_module
        from engine.server.sender import Sender

        trace = self
        StepLoop, Output, Qwen3Stream = loop_module.StepLoop, output_module.Output, stream_module.Qwen3Stream
        init, apply, launch, take = Qwen3Stream.__init__, StepLoop._apply, StepLoop._launch_step, StepLoop._take_frames
        post, get = Output.post, stream_module.StreamChannel.get
        audio, send_json = Sender.audio, Sender.json

        def stream_init(self, stream_id, feed, post_command, *args, **kwargs):
            if trace.clock is not None and trace._stream_id is None:
                trace._stream_id = stream_id  # the first stream opened in the turn

            def traced_post(command):
                if isinstance(command, stream_module.TextCommand) and command.tokens and command.stream_id == trace._stream_id:
                    trace.mark("token_posted")
                post_command(command)

            init(self, stream_id, feed, traced_post, *args, **kwargs)

        def traced_apply(self, command):
            apply(self, command)
            if isinstance(command, stream_module.TextCommand) and command.tokens and command.stream_id == trace._stream_id:
                trace.mark("token_applied")

        def traced_launch(self, rows):
            if any(self.batch.streams[row].id == trace._stream_id for row in rows.tolist()):
                trace.mark("step_launched")
                # What the loop expects of its iterations decides the first chunk's size.
                trace.mark("expected_iteration", self._expected_iteration_s())
            launch(self, rows)

        def traced_take(self, rows, codes):
            take(self, rows, codes)
            streams = [self.batch.streams[row] for row in rows.tolist()]
            if any(s is not None and s.id == trace._stream_id and s.frames_produced for s in streams):
                trace.mark("frame_taken")

        def traced_post_chunks(self, chunks, pending, clock):
            first = None
            for row, frames in zip(chunks.rows.tolist(), chunks.frames.tolist()):
                stream = self.batch.streams[row]
                if frames and stream.id == trace._stream_id and trace._channel is None:
                    first = frames
                    trace._channel = stream.channel  # before the consumer can take it
            post(self, chunks, pending, clock)
            if first is not None:
                trace.mark("chunk_posted")
                trace.mark("first_chunk_frames", first)

        async def traced_get(self):
            item = await get(self)
            # Audio comes as an `AudioChunk`, or as the loop's record of a decoded chunk.
            if self is trace._channel and (isinstance(item, AudioChunk) or type(item) is tuple):
                trace.mark("chunk_read")
            return item

        async def traced_audio(self, data, still_wanted, deadline=None):
            sent = await audio(self, data, still_wanted, deadline)
            if sent:
                trace.mark("sent")
            return sent

        async def traced_json(self, payload):
            sent = await send_json(self, payload)
            if sent and payload.get("type") == "response.output_audio.delta":
                trace.mark("sent")
            return sent

        if adapters:
            self._install_adapters()
        Qwen3Stream.__init__ = stream_init
        StepLoop._apply, StepLoop._launch_step, StepLoop._take_frames = traced_apply, traced_launch, traced_take
        Output.post = traced_post_chunks
        stream_module.StreamChannel.get = traced_get
        Sender.audio, Sender.json = traced_audio, traced_json


    def _install_adapters(self) -> None:
        """`adapter_in`: the adapter hands the first audio to its framework (Pipecat's audio
        context, LiveKit's `AudioEmitter`); `adapter_out`: the framework sends it on (Pipecat's
        service pushes the frame downstream)."""
        from voice_tts.livekit import tts as livekit_tts
        from voice_tts.pipecat import tts as pipecat_tts

        trace = self
        service, speech = pipecat_tts.Qwen3StreamingTTS, livekit_tts._Speech
        append, push_frame, on_audio = service._append_audio, service.push_frame, speech._on_audio

        async def traced_append(self, context_id, turn, chunk):
            trace.mark("adapter_in")
            await append(self, context_id, turn, chunk)

        async def traced_push_frame(self, frame, direction=pipecat_tts.FrameDirection.DOWNSTREAM):
            if isinstance(frame, pipecat_tts.TTSAudioRawFrame):
                trace.mark("adapter_out")
            await push_frame(self, frame, direction)

        def traced_on_audio(self, chunk):
            trace.mark("adapter_in")
            on_audio(self, chunk)

        service._append_audio, service.push_frame, speech._on_audio = traced_append, traced_push_frame, traced_on_audio


# The stages of `StageTrace`, in order; each is reported from the delta that completes the word.
STAGES = (
    "token_posted", "token_applied", "step_launched", "frame_taken", "chunk_posted", "chunk_read",
    "adapter_in", "adapter_out", "sent",
)


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


async def via_session(engine, deltas, rate, clock: Clock, **settings) -> None:
    """`settings`: the session's own (language, normalize), its defaults where left out."""
    from voice_tts.session import TTSSession

    session = TTSSession(engine, **settings)

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

    await asyncio.gather(send_paced(deltas, rate, send, clock), until_first_audio(stream, clock))


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
        self.service = Qwen3StreamingTTS(engine=engine)
        self.worker = PipelineWorker(
            Pipeline([self.service, FirstAudio()]),
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
            LLMFullResponseStartFrame,
            LLMTextFrame,
        )

        self.clock = clock
        await self.worker.queue_frame(LLMFullResponseStartFrame())

        sent = 0

        async def send(delta):
            nonlocal sent
            sent += len(delta)
            await self.worker.queue_frame(LLMTextFrame(delta))

        await send_paced(deltas, rate, send, clock)
        await clock.got_audio.wait()
        # The barge-in comes once the service has every delta sent and cuts the reply off (no
        # LLMFullResponseEndFrame): an InterruptionFrame is a system frame that overtakes
        # frames still queued, and a delta or end frame reaching the service after it opens
        # a context that nothing ends; Pipecat's playback then waits `stop_frame_timeout_s`
        # (3 s) on it before the next turn's audio goes out.
        while sum(turn.text_chars for turn in self.service._turns.values()) < sent:
            await asyncio.sleep(0.005)
        await self.worker.queue_frame(InterruptionFrame())
        while self.service._turns or self.service.get_audio_contexts():
            await asyncio.sleep(0.005)  # the interrupted context is gone before the next opens
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


def first_token_after_delta(model: Path, language: str, deltas: list[str], normalized: bool) -> int:
    """The delta after which the first text token is final on the engine's side: deltas through
    the session's text side and `push_spoken` into the Qwen3 stream's own `TextFeed`."""
    from engine.model.config import read_config
    from engine.model.text import TextTokenizer
    from engine.runtime.text_feed import TextFeed
    from voice_tts.turn_text import TurnText

    tokenizer = TextTokenizer(model, read_config(model))
    feed = TextFeed(tokenizer.encode, tokenizer.split_pattern)
    text = TurnText(language=language, normalize=normalized)
    for index, delta in enumerate(deltas):
        tokens = feed.push(text.push(delta))
        if text.word_end or text.space_follows:
            tokens += feed.end_word(text.space_follows)
        if tokens:
            return index
    return len(deltas)


async def measure_openings(engine, args) -> dict:
    """Normalized against raw per opening (see the module)."""
    from voice_tts.bench.openings import OPENINGS

    for language, opening in OPENINGS:  # warm every language on both paths
        for normalized in (True, False):
            await via_session(engine, llm_deltas(opening), 100.0, Clock(), language=language, normalize=normalized)
    per_rate = {}
    for rate in args.rates:
        times = {(opening, normalized): [] for _, opening in OPENINGS for normalized in (True, False)}
        load_before = os.getloadavg()
        for _ in range(args.turns):
            for language, opening in OPENINGS:
                for normalized in (True, False):
                    clock = Clock()
                    await asyncio.wait_for(
                        via_session(engine, llm_deltas(opening), rate, clock, language=language, normalize=normalized), 60
                    )
                    times[opening, normalized].append(clock.audio - clock.first_delta)
        rows = {}
        for language, opening in OPENINGS:
            deltas = llm_deltas(opening)
            normalized, raw = times[opening, True], times[opening, False]
            rows[opening] = {
                "language": language,
                "normalized_from_first_delta_ms": percentiles(normalized),
                "raw_from_first_delta_ms": percentiles(raw),
                "normalized_minus_raw_ms": percentiles([n - r for n, r in zip(normalized, raw)]),
                "first_token_after_delta": {
                    "normalized": first_token_after_delta(args.model, language, deltas, True),
                    "raw": first_token_after_delta(args.model, language, deltas, False),
                },
            }
            print(rate, opening, rows[opening], flush=True)
        per_rate[str(rate)] = {"openings": rows, "load_average": {"before": load_before, "after": os.getloadavg()}}
    return per_rate


async def via_engine(engine, deltas, clock: Clock) -> None:
    """The engine alone: the reply's whole spoken text pushed at once to an in-process stream
    (from_word = from_first_delta = the push)."""
    stream = engine.open_stream()
    clock.first_delta = clock.word = time.perf_counter()
    stream.push_text(normalize("".join(deltas)))
    stream.end_input()
    await until_first_audio(stream, clock)


async def until_first_audio(stream, clock: Clock) -> None:
    """Reads an engine stream until it ends, timing its first audio and cancelling it there."""
    async for event in stream.events():
        if isinstance(event, AudioChunk) and clock.audio is None:
            clock.audio_arrived()
            stream.cancel()
        elif isinstance(event, Done):
            return


# --- the run ----------------------------------------------------------------------------------


def percentiles(values: list[float]) -> dict:
    ms = sorted(v * 1000 for v in values)
    if not ms:
        return {"p50": None, "p99": None}
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    return {"p50": round(statistics.median(ms), 1), "p99": round(p99, 1)}


def summary(clocks: list[Clock], engine: list[Clock]) -> dict:
    """One path's turns at one rate: TTFA from the first delta and from the word, the same
    minus the engine's own first frame in the same round, each stage from the word (p50), and
    how many first chunks had one frame and how many two (the loop makes them two while its
    iterations take longer than `ChunkPolicy.loaded_iteration_s`)."""
    from_word = [c.audio - c.word for c in clocks]
    stages = {
        stage: percentiles([c.stages[stage] - c.word for c in clocks if stage in c.stages])["p50"]
        for stage in STAGES
        if any(stage in c.stages for c in clocks)
    }
    frames = collections.Counter(str(c.stages.get("first_chunk_frames")) for c in clocks)
    return {
        "from_first_delta_ms": percentiles([c.audio - c.first_delta for c in clocks]),
        "from_word_ms": percentiles(from_word),
        "over_engine_same_round_ms": percentiles(
            [w - (e.audio - e.word) for w, e in zip(from_word, engine)]
        ),
        "stages_from_word_p50_ms": stages,
        "first_chunk_frames": dict(sorted(frames.items())),
    }


async def measure(args) -> dict:
    from engine import Engine
    from engine.server.app import create_app
    from engine.server.http_server import BackgroundServer
    from engine.server.settings import ServerSettings
    from voice_tts.client import RemoteEngine
    if args.openings:
        return await measure_openings_run(args)
    adapters = bool({"pipecat", "livekit"} & set(args.paths))  # a GPU machine may have neither framework

    trace = StageTrace()
    trace.install(adapters)
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
    if adapters:
        from voice_tts.livekit import Qwen3StreamingTTS as LiveKitTTS

        pipecat = PipecatPath()
        await pipecat.start(engine)
        livekit = LiveKitTTS(engine=engine)
    paths = {
        "session": lambda d, r, c: via_session(engine, d, r, c),
        "ws_normalized": lambda d, r, c: via_remote(remote, d, r, c, True),
        "ws_raw": lambda d, r, c: via_remote(remote, d, r, c, False),
        "realtime": lambda d, r, c: via_realtime(realtime_url, d, r, c),
        "speech": lambda d, r, c: via_speech(http, server.http_url + "/v1/audio/speech", d, r, c),
        "engine": lambda d, r, c: via_engine(engine, d, c),
    }
    if adapters:
        paths["pipecat"] = pipecat.turn
        paths["livekit"] = lambda d, r, c: via_livekit(livekit, d, r, c)
    results: dict = {
        "conditions": {
            **engine_conditions(args),
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
        turns: list[dict] = []  # every turn's stages, for `--turns-out`
        names = ["engine", *args.paths]
        for rate in args.rates:
            # Round-robin: round i runs every path once on reply i, so that all paths (and the
            # engine's own first frame beside them) meet the same load on a shared machine.
            times: dict[str, list[Clock]] = {name: [] for name in names}
            load_before = os.getloadavg()
            for i in range(args.turns):
                for name in names:
                    clock = Clock()
                    trace.begin(clock)
                    await asyncio.wait_for(paths[name](llm_deltas(REPLIES[i % len(REPLIES)]), rate, clock), 60)
                    trace.begin(None)
                    times[name].append(clock)
                    turns.append(
                        {"path": name, "rate": rate, "round": i}
                        | {"from_word_ms": round((clock.audio - clock.word) * 1000, 2)}
                        | {stage: round((t - clock.word) * 1000, 2) if stage in STAGES else t for stage, t in clock.stages.items()}
                    )
            per_path = {name: summary(clocks, times["engine"]) for name, clocks in times.items()}
            per_path["load_average"] = {"before": load_before, "after": os.getloadavg()}
            for name in names:
                print(rate, name, per_path[name], flush=True)
            results["rates"][str(rate)] = per_path
        if args.turns_out is not None:
            args.turns_out.write_text(json.dumps(turns, indent=0) + "\n")
    finally:
        if adapters:
            await pipecat.stop()
            await livekit.aclose()
        await http.aclose()
        await remote.aclose()
        server.stop()
        await engine.aclose()
    return results


def engine_conditions(args) -> dict:
    """The engine every turn of a run speaks through, one turn at a time."""
    return {
        "model": str(args.model),
        "device": args.device,
        "dtype": "float32" if args.device == "cpu" else "bfloat16",
        "concurrency": 1,
    }


async def measure_openings_run(args) -> dict:
    from engine import Engine

    began = time.perf_counter()
    engine = Engine.from_pretrained(args.model, device=args.device)
    results: dict = {
        "conditions": {
            **engine_conditions(args),
            "turns_per_opening_and_path": args.turns,
            "path": "TTSSession, in-process engine, normalize=True against normalize=False",
            "deltas": "voice_tts.bench.deltas.llm_deltas (one delta per tokenizer piece)",
            "command": "python bench/first_audio.py " + " ".join(args.argv),
        },
        "load_seconds": round(time.perf_counter() - began, 1),
    }
    try:
        results["rates"] = await measure_openings(engine, args)
    finally:
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
    parser.add_argument("--turns-out", type=Path, help="every turn's stage times (JSON)")
    parser.add_argument("--openings", action="store_true", help="normalized against raw per reply opening")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "first_audio_cpu.json")
    args = parser.parse_args()
    args.argv = sys.argv[1:]
    results = asyncio.run(measure(args))
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
