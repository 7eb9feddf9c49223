"""`voice-tts`: run the engine server, speak text as an LLM would stream it, list voices.

voice-tts serve [--model DIR|HUB_ID [--revision R]] [--device cuda:0] [--host 127.0.0.1] [--port 8000]
                [--api-key-file F] [--lexicon FILE] [--workers N] [--replicas auto|N] [every server setting: --help]
voice-tts speak "text" -o out.wav [--voice V] [--language L] [--speed 1.0] [--tokens-per-second 30] [--url URL]
voice-tts voices [--url URL]
voice-tts voices add NAME ref.wav [--text TRANSCRIPT] [--url URL]
voice-tts voices rm ID [--url URL]
voice-tts bench [--url URL] [--concurrency 1 8 32] [--tokens-per-second 30] [--deltas llm] [--turns 2]
                [--text-file FILE] [--format pcm16|mulaw|alaw] [--processes 1] [--turn-timeout 120]
                [--out bench.json] [--plot bench.png]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Sequence, TextIO

from voice_tts.protocol import AudioChunk, Error, StreamingEngine
from voice_tts.request import AUDIO_FORMATS

if TYPE_CHECKING:
    from voice_tts.progress import Word

API_KEY_ENV = "VOICE_TTS_API_KEY"


class CommandError(Exception):
    """A failure the user can act on: printed as one line, exit status 2."""


# speak ---------------------------------------------------------------------------------------


@dataclass
class SpeakResult:
    pcm: bytes = b""
    sample_rate: int = 24000
    ttfa: float | None = None  # first text pushed → first audio received, seconds
    wall_seconds: float = 0.0
    words: list["Word"] = field(default_factory=list)
    errors: list[Error] = field(default_factory=list)
    heard_text: str = ""

    @property
    def audio_seconds(self) -> float:
        return len(self.pcm) / 2 / self.sample_rate

    @property
    def rtf(self) -> float:
        """Wall time over audio time (includes waiting for the paced text)."""
        return self.wall_seconds / self.audio_seconds if self.audio_seconds else float("inf")


async def speak_streaming(
    engine: StreamingEngine,
    text: str,
    *,
    voice: str | None = None,
    language: str | None = None,
    sample_rate: int = 24000,
    tokens_per_second: float = 30.0,
    speed: float = 1.0,
) -> SpeakResult:
    """Feed `text` as paced LLM token deltas through a `TTSSession` and collect what it says."""
    from voice_tts.bench.deltas import llm_token_deltas
    from voice_tts.session import SessionDone, TTSSession, WordsEvent

    session = TTSSession(engine, voice=voice, language=language, sample_rate=sample_rate, speed=speed)
    result = SpeakResult(sample_rate=sample_rate)
    interval = 1.0 / tokens_per_second
    started = time.monotonic()

    async def feed() -> None:
        for delta in llm_token_deltas(text):
            session.push_text(delta)
            await asyncio.sleep(interval)
        session.end_input()

    feeder = asyncio.create_task(feed())
    pcm = bytearray()
    try:
        async for event in session.events():
            if isinstance(event, AudioChunk):
                if result.ttfa is None and event.pcm:
                    result.ttfa = time.monotonic() - started
                pcm.extend(event.pcm)
            elif isinstance(event, WordsEvent):
                result.words.extend(event.words)
            elif isinstance(event, Error):
                result.errors.append(event)
            elif isinstance(event, SessionDone):
                result.heard_text = event.heard_text
    finally:
        feeder.cancel()
    result.wall_seconds = time.monotonic() - started
    result.pcm = bytes(pcm)
    return result


def print_report(result: SpeakResult, output: str, out: TextIO | None = None) -> None:
    ttfa = f"{result.ttfa * 1000:.0f} ms" if result.ttfa is not None else "no audio"
    print(f"TTFA          {ttfa}", file=out)
    print(f"audio         {result.audio_seconds:.2f} s at {result.sample_rate} Hz", file=out)
    print(f"wall time     {result.wall_seconds:.2f} s", file=out)
    print(
        f"RTF           {result.rtf:.3f} (wall / audio, text arriving at the given rate)", file=out
    )
    print(f"written       {output}", file=out)
    print("word timeline:", file=out)
    for word in result.words:
        print(f"  {word.start_time:8.3f} s  {word.text}", file=out)
    for error in result.errors:
        print(f"error: {error.code}: {error.message}", file=out)


def open_engine(url: str | None, api_key: str | None) -> StreamingEngine:
    if url:
        from voice_tts.client import RemoteEngine

        return RemoteEngine(url, api_key=api_key)
    from engine import Engine

    return Engine.embedded()


async def run_speak(args: argparse.Namespace) -> int:
    from voice_tts.audio import write_wav

    engine = open_engine(args.url, args.api_key)
    try:
        result = await speak_streaming(
            engine,
            args.text,
            voice=args.voice,
            language=args.language,
            sample_rate=args.sample_rate,
            tokens_per_second=args.tokens_per_second,
            speed=args.speed,
        )
    finally:
        await engine.aclose()
    write_wav(args.output, result.pcm, result.sample_rate)
    print_report(result, args.output)
    return 1 if result.errors else 0


# voices --------------------------------------------------------------------------------------


async def run_voices(args: argparse.Namespace) -> int:
    if args.url:
        from voice_tts.client import RemoteEngine, RemoteEngineError

        remote = RemoteEngine(args.url, api_key=args.api_key)
        try:
            voices = await remote.voices()
        except RemoteEngineError as exc:
            raise CommandError(str(exc)) from exc
        rows = [(v.name, v.language or "any", v.description) for v in voices]
    else:
        from engine import Engine

        engine = Engine.embedded()
        try:
            rows = [
                (v.name, getattr(v, "language", None) or "any", getattr(v, "description", ""))
                for v in engine.voices
            ]
        finally:
            await engine.aclose()
    for name, language, description in rows:
        print(f"{name:16} {language:8} {description}")
    return 0


DEFAULT_SERVER = "ws://127.0.0.1:8000/v1/ws"


async def run_voice_add(args: argparse.Namespace) -> int:
    from voice_tts.client import RemoteEngine, RemoteEngineError

    try:
        audio = args.reference.read_bytes()
    except OSError as exc:
        raise CommandError(f"cannot read {args.reference}: {exc}") from exc
    remote = RemoteEngine(args.url, api_key=args.api_key)
    try:
        created = await remote.create_voice(args.name, audio, args.text, args.reference.name)
    except RemoteEngineError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        await remote.aclose()
    kind = "in-context (ICL)" if created.mode == "icl" else "x-vector"
    print(f"added voice {created.id} ({kind}); speak with --voice {created.id}")
    return 0


async def run_voice_rm(args: argparse.Namespace) -> int:
    from voice_tts.client import RemoteEngine, RemoteEngineError

    remote = RemoteEngine(args.url, api_key=args.api_key)
    try:
        await remote.delete_voice(args.voice)
    except RemoteEngineError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        await remote.aclose()
    print(f"removed voice {args.voice}")
    return 0


# bench ---------------------------------------------------------------------------------------


async def run_bench(args: argparse.Namespace) -> int:
    import dataclasses
    import json

    from tqdm import tqdm

    from voice_tts.bench.plot import plot_sweep
    from voice_tts.bench.sweep import (
        BUILT_IN_TEXTS,
        SweepSettings,
        conditions,
        format_client_cpu,
        format_context_ratios,
        format_table,
        read_texts,
        run_sweep,
    )
    from voice_tts.bench.processes import ClientProcessError, run_sweep_in_processes
    from voice_tts.client import RemoteEngine, RemoteEngineError

    try:
        texts = tuple(read_texts(args.text_file)) if args.text_file else BUILT_IN_TEXTS
    except (OSError, ValueError) as exc:
        raise CommandError(f"cannot read the texts: {exc}") from exc
    settings = SweepSettings(
        concurrency=args.concurrency,
        turns=args.turns,
        tokens_per_second=args.tokens_per_second,
        deltas=args.deltas,
        texts=texts,
        voice=args.voice,
        language=args.language,
        spread=args.spread,
        turn_timeout=args.turn_timeout,
        server_pid=args.server_pid,
        format=args.format,
    )
    runs = []
    total = sum(args.concurrency) * args.turns * len(args.contexts_per_socket)
    with tqdm(total=total, unit="turn", desc="bench", file=sys.stderr) as bar:
        for contexts_per_socket in args.contexts_per_socket:
            run_settings = dataclasses.replace(settings, contexts_per_socket=contexts_per_socket)
            engine = RemoteEngine(args.url, api_key=args.api_key, contexts_per_socket=contexts_per_socket)
            try:
                try:
                    # Each run starts on a server done with the last one's streams.
                    capabilities = (await wait_for_idle_server(engine, args.turn_timeout)).model_dump()
                except RemoteEngineError as exc:
                    raise CommandError(str(exc)) from exc
                if args.processes == 1:
                    levels = await run_sweep(engine, run_settings, on_turn=lambda: bar.update())
                else:
                    try:
                        levels = await asyncio.to_thread(
                            run_sweep_in_processes,
                            args.url,
                            args.api_key,
                            run_settings,
                            args.processes,
                            on_turn=lambda: bar.update(),
                        )
                    except ClientProcessError as exc:
                        raise CommandError(str(exc)) from exc
            finally:
                await engine.aclose()
            runs.append({"contexts_per_socket": contexts_per_socket, "levels": levels})
    results = {"conditions": conditions(settings, args.url, capabilities), "levels": runs[0]["levels"]}
    if len(runs) > 1:
        # One run per --contexts-per-socket value, the first also as `levels`.
        results["conditions"]["contexts_per_socket"] = args.contexts_per_socket
        results["runs"] = runs
    args.out.write_text(json.dumps(results, indent=1))
    engine_name = f"{capabilities['backend']} ({capabilities['model']})"
    title = f"{engine_name}, text at {args.tokens_per_second:g} tokens/s"
    plot_sweep(runs[0]["levels"], title, args.plot)
    for run in runs:
        if len(runs) > 1:
            print(f"{run['contexts_per_socket']} context(s) per socket")
        print(format_table(run["levels"]))
        print(format_client_cpu(run["levels"]))
    if len(runs) > 1:
        print(format_context_ratios(runs))
    print(f"written       {args.out}, {args.plot}")
    return 0 if any(level["completed"] for run in runs for level in run["levels"]) else 1


async def wait_for_idle_server(engine, bound: float):
    """The server's capabilities once it runs no stream (or `bound` seconds have passed)."""
    deadline = asyncio.get_running_loop().time() + bound
    while (capabilities := await engine.capabilities()).active_streams and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.2)
    return capabilities


# serve ---------------------------------------------------------------------------------------


def run_serve(args: argparse.Namespace) -> int:
    from engine.server.serve import ServeError, run_serve

    try:
        return run_serve(args)
    except ServeError as exc:
        raise CommandError(str(exc)) from exc


def replica_count(value: str) -> int:
    """`--replicas`: a positive count, or `auto` (0: one per GPU)."""
    if value == "auto":
        return 0
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number or 'auto', got {value!r}")
    return int(value)


# entry point ---------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="voice-tts", description="Streaming TTS for voice agents."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    key_help = f"API key (default: ${API_KEY_ENV})"

    serve = commands.add_parser(
        "serve",
        help="run the engine server (one per GPU)",
        description="Run the engine server. Every server setting is a flag below and an environment "
        "variable named after it: --ws-idle-timeout-s 300 or VOICE_TTS_WS_IDLE_TIMEOUT_S=300 (the flag wins).",
    )
    # The server's settings come from its pydantic model, which only needs pydantic: importing it
    # here loads no engine.
    from engine.server.settings import add_setting_arguments

    model = serve.add_argument_group("model")
    model.add_argument(
        "--model",
        help="Qwen3-TTS checkpoint: a local folder or a Hugging Face Hub id such as "
        "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice, taken from the Hub cache or downloaded into it "
        "(HF_HUB_OFFLINE=1: the cache only; HF_TOKEN for gated repositories) (default: the embedded voice)",
    )
    model.add_argument("--revision", help="with a Hub id: a branch, tag or commit (default: main)")
    model.add_argument("--device", default=None, help="torch device for --model, e.g. cuda:0")
    model.add_argument(
        "--voices-dir", help="where cloned voices are kept (default: voice-tts/voices in the user's data dir)"
    )
    model.add_argument(
        "--max-streams",
        type=positive_int,
        metavar="N",
        help="streams served at once: the engine's KV slots and, on a GPU, the CUDA graphs it captures "
        "before serving (default 64; one H200 keeps 512 real-time); admission by measured headroom "
        "may refuse streams below it",
    )
    model.add_argument(
        "--max-context",
        type=positive_int,
        metavar="ROWS",
        help="a --model stream's talker rows, prompt and frames at 12.5 a second (default 2048, "
        "about 2.6 min); with --max-streams it sizes the KV cache",
    )
    model.add_argument(
        "--lexicon",
        metavar="FILE",
        help="server-wide pronunciation dictionary, JSON or CSV: rules like "
        '{"match": "SQL", "say": "sequel"} (a turn\'s own rules come first)',
    )
    model.add_argument(
        "--workers",
        type=non_negative_int,
        metavar="N",
        help="with --model: API worker processes on the port, beside the engine core's own process "
        "(default: all but four CPU cores, at least half: 12 on 16 cores); 0 serves from one process. The embedded voice "
        "always runs in one process",
    )
    model.add_argument(
        "--replicas",
        type=replica_count,
        help="run N engine replicas (or 'auto': one per GPU) behind one port with Ray Serve",
    )
    settings = add_setting_arguments(serve)
    settings["server"].add_argument(
        "--api-key-file", metavar="FILE", help="file whose first line is the API key (instead of --api-key)"
    )
    serve.set_defaults(handler=run_serve)

    speak = commands.add_parser("speak", help="speak text streamed as LLM token deltas")
    speak.add_argument("text")
    speak.add_argument("-o", "--output", default="out.wav", help="WAV file to write")
    speak.add_argument("--voice")
    speak.add_argument("--language")
    speak.add_argument("--sample-rate", type=int, default=24000)
    speak.add_argument(
        "--speed", type=speed_value, default=1.0,
        help="speaking rate, 0.5-2.0, pitch kept (the embedded voice needs the speed extra; a server stretches itself)",
    )
    speak.add_argument("--tokens-per-second", type=float, default=30.0)
    speak.add_argument(
        "--url",
        help="engine server, e.g. ws://127.0.0.1:8000/v1/ws "
        "(default: the embedded voice in this process)",
    )
    speak.add_argument("--api-key", default=os.environ.get(API_KEY_ENV), help=key_help)
    speak.set_defaults(handler=lambda args: asyncio.run(run_speak(args)))

    voices = commands.add_parser("voices", help="list the voices; add or remove cloned voices")
    voices.add_argument("--url", help="engine server (default: the embedded voice)")
    voices.add_argument("--api-key", default=os.environ.get(API_KEY_ENV), help=key_help)
    voices.set_defaults(handler=lambda args: asyncio.run(run_voices(args)))
    voice_commands = voices.add_subparsers(dest="voice_command")
    add = voice_commands.add_parser(
        "add", help="clone a voice from a reference recording of up to 30 s (needs a Base checkpoint; "
        "the server's minimum is its --min-voice-reference-s, 1 s by default)"
    )
    add.add_argument("name", help="the voice's name (letters, digits, '_', '-', '.'); its id is the name lower-cased")
    add.add_argument("reference", type=Path, help="WAV, FLAC or OGG file")
    add.add_argument("--text", help="the recording's transcript: in-context cloning (without: x-vector only)")
    add.add_argument("--url", default=DEFAULT_SERVER, help=f"engine server (default: {DEFAULT_SERVER})")
    add.add_argument("--api-key", default=os.environ.get(API_KEY_ENV), help=key_help)
    add.set_defaults(handler=lambda args: asyncio.run(run_voice_add(args)))
    remove = voice_commands.add_parser("rm", help="delete a cloned voice")
    remove.add_argument("voice", help="the voice's id")
    remove.add_argument("--url", default=DEFAULT_SERVER, help=f"engine server (default: {DEFAULT_SERVER})")
    remove.add_argument("--api-key", default=os.environ.get(API_KEY_ENV), help=key_help)
    remove.set_defaults(handler=lambda args: asyncio.run(run_voice_rm(args)))

    from voice_tts.bench.deltas import DELTA_KINDS  # it cuts "chars2" deltas with this module's helper

    bench = commands.add_parser(
        "bench", help="load a running server at several concurrency levels; table, JSON, plot"
    )
    bench.add_argument("--url", default="ws://127.0.0.1:8000/v1/ws", help="engine server")
    bench.add_argument("--api-key", default=os.environ.get(API_KEY_ENV), help=key_help)
    bench.add_argument(
        "--concurrency",
        type=positive_int,
        nargs="+",
        default=[1, 8, 32],
        help="concurrent clients, one level after another",
    )
    bench.add_argument("--turns", type=positive_int, default=2, help="turns per client and level")
    bench.add_argument("--tokens-per-second", type=float, default=30.0)
    bench.add_argument(
        "--deltas",
        choices=DELTA_KINDS,
        default="llm",
        help="text deltas: an LLM tokenizer's pieces (default) or words in 1-3 characters",
    )
    bench.add_argument(
        "--text-file", type=Path, help="texts, one per paragraph (default: built-in replies)"
    )
    bench.add_argument("--voice")
    bench.add_argument("--language")
    bench.add_argument(
        "--format",
        choices=AUDIO_FORMATS,
        default="pcm16",
        help="the audio's encoding on the wire: 24 kHz pcm16 (default), or G.711 mulaw or alaw at 8 kHz",
    )
    bench.add_argument(
        "--spread", type=float, default=1.0, help="seconds over which a level's clients start"
    )
    bench.add_argument(
        "--processes",
        type=positive_int,
        default=1,
        help="client processes the clients are spread over (each process's CPU is reported)",
    )
    bench.add_argument(
        "--turn-timeout",
        type=positive_float,
        default=120.0,
        metavar="SECONDS",
        help="a turn without `done` this long after its start is cancelled and counted as an error",
    )
    bench.add_argument(
        "--contexts-per-socket",
        type=positive_int,
        nargs="+",
        default=[1],
        metavar="N",
        help="turns one client socket carries (contexts); several values: the sweep once per value, "
        "with their ratios (sockets, server CPU, TTFA p99)",
    )
    bench.add_argument(
        "--server-pid",
        type=positive_int,
        metavar="PID",
        help="the server's process id (a server on this machine): each level reports its CPU, per process",
    )
    bench.add_argument("--out", type=Path, default=Path("bench.json"), help="results as JSON")
    bench.add_argument("--plot", type=Path, default=Path("bench.png"), help="PNG plot")
    bench.set_defaults(handler=lambda args: asyncio.run(run_bench(args)))
    return parser


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is not a number of 0 or more")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def speed_value(text: str) -> float:
    from voice_tts.speed import checked_speed

    try:
        return checked_speed(float(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "tokens_per_second", 1.0) <= 0:
        print("voice-tts: error: --tokens-per-second must be positive", file=sys.stderr)
        return 2
    try:
        return args.handler(args)
    except CommandError as exc:
        print(f"voice-tts: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
