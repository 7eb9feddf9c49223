"""The engine core in its own process (engine/core) on the tiny checkpoint on the CPU: through
`CoreClient` it gives the in-process engine's bytes, and behind `voice-tts serve --workers 2`
it is one server: turns, cancel, pause/resume, reconnect-resume across workers, one usage line
per turn, /metrics summed over the workers, one `--capacity` for all, /ready only once every
worker is warm; and when the core dies every turn ends with an
error, /health fails and the server exits non-zero, within bounds."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import pytest
from server_harness import TurnResult, next_json, receive_until_done, speak, ws_connect
from websockets.asyncio.client import unix_connect

from engine import Engine, SamplingParams
from engine.core.channel import ReaderBehind, WorkerStreamChannel
from engine.core.client import CoreClient
from engine.runtime.output import ChunkPolicy
from engine.server.resume import token_instance
from voice_tts.bench.sweep import SweepSettings, run_level
from voice_tts.client import RemoteEngine
from voice_tts.protocol import AudioChunk, Done, Progress

BOUND_S = 30.0  # no client waits longer than this for anything
TEXT = ["Hello there, ", "how are you ", "today?"]


def sampling(checkpoint: Path, seed: int) -> SamplingParams:
    config = json.loads((checkpoint / "generation_config.json").read_text())
    return SamplingParams.from_generation_config(config, seed=seed)


async def speak_stream(
    engine, checkpoint: Path, seed: int, sample_rate: int, first_chunk_frames: int | None = None
) -> tuple[list[bytes], list, Done]:
    """The stream's audio chunks, the spoken ends of its progress events, and its Done."""
    stream = engine.open_stream(
        sampling=sampling(checkpoint, seed), sample_rate=sample_rate, first_chunk_frames=first_chunk_frames
    )
    for piece in TEXT:
        stream.push_text(piece)
    stream.end_input()
    chunks, progress = [], []
    async with asyncio.timeout(BOUND_S * 4):
        async for event in stream.events():
            if isinstance(event, AudioChunk):
                assert event.start_sample == sum(len(chunk) for chunk in chunks) // 2
                chunks.append(event.pcm)
            elif isinstance(event, Progress):
                progress.append(event.spoken_end)
            elif isinstance(event, Done):
                return chunks, progress, event
    raise AssertionError("no Done")


def test_core_process_gives_the_in_process_engines_bytes(tiny_checkpoint):
    # Every frame decoded as soon as it is made, and a first chunk of one frame however long the
    # loop's iterations take: chunk sizes (and so the codec's float rounding) do not depend on
    # how fast either process runs.
    every_frame = {"chunks": ChunkPolicy(low_water=1e9, first_chunk_frames_loaded=1)}
    in_process = Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=2, **every_frame)
    core = CoreClient.spawn(str(tiny_checkpoint), device="cpu", max_streams=2, extra=every_frame)
    try:
        for seed, rate, first_chunk_frames in ((3, 24000, None), (11, 16000, None), (5, 24000, 3)):
            chunks, progress, done = asyncio.run(speak_stream(core, tiny_checkpoint, seed, rate, first_chunk_frames))
            assert chunks
            assert progress[-1] == done.usage.characters_spoken == len("".join(TEXT))
            expected, _, expected_done = asyncio.run(speak_stream(in_process, tiny_checkpoint, seed, rate, first_chunk_frames))
            assert (b"".join(chunks), done) == (b"".join(expected), expected_done)
            if first_chunk_frames is not None:  # the request's first chunk size reaches the core's runtime
                assert len(chunks[0]) == first_chunk_frames * 1920 * 2
    finally:
        core.close()
        in_process.close()
    assert core.process.exitcode == 0


def test_a_worker_channel_parks_its_stream_while_its_reader_is_behind():
    posted = []
    channel = WorkerStreamChannel(5, behind_at=1000, post=posted.append)
    channel.put_many([AudioChunk(b"\0\0" * 600, 24000, 0), AudioChunk(b"\0\0" * 600, 24000, 600)])
    assert posted == [ReaderBehind(5, True)]
    channel.get_nowait()  # 600 unread: more than half the bound
    assert posted == [ReaderBehind(5, True)]
    channel.get_nowait()
    assert posted == [ReaderBehind(5, True), ReaderBehind(5, False)]


# ---- the server ---------------------------------------------------------------------------------


class WorkersServer:
    """`voice-tts serve --model tiny --workers 2` in a child process; its log is read as it comes
    (the core's pid is in it)."""

    def __init__(
        self, checkpoint: Path, usage_log: Path, max_streams: int = 8, *options: str, wait_ready: bool = True
    ) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/v1/ws"
        # Its own temporary folder: the workers' own sockets (the resume relay's) are found there.
        self.tmp = Path(tempfile.mkdtemp(prefix="workers-server-"))
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "voice_tts.cli", "serve", "--model", str(checkpoint), "--device", "cpu",
                "--workers", "2", "--max-streams", str(max_streams), "--port", str(self.port),
                "--usage-log", str(usage_log), *options,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=os.environ | {"TMPDIR": str(self.tmp)},
        )
        self.log: list[str] = []
        self._core_pid = threading.Event()
        threading.Thread(target=self._read_log, daemon=True).start()
        if wait_ready:
            self.wait_ready()

    def _read_log(self) -> None:
        for line in self.process.stdout:
            self.log.append(line)
            if re.search(r"engine core process \d+ ready", line):
                self._core_pid.set()

    @property
    def core_pid(self) -> int:
        assert self._core_pid.wait(BOUND_S), "".join(self.log)
        return int(next(re.search(r"engine core process (\d+) ready", l).group(1) for l in self.log if "engine core process" in l))

    def ready(self) -> httpx.Response:
        """/ready, answered by whichever worker takes it; none takes it before it is warm."""
        return httpx.get(self.url + "/ready", timeout=BOUND_S)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "".join(self.log)
            try:
                if self.ready().status_code == 200:
                    return
            except httpx.TransportError:
                pass  # not listening yet, or the core still loading (nothing accepts yet)
            time.sleep(0.2)
        raise TimeoutError("the server did not get ready:\n" + "".join(self.log))

    def worker_pids(self) -> list[int]:
        """The API workers' processes: the server process's spawned children but the core."""
        core = self.core_pid
        deadline = time.monotonic() + BOUND_S
        while time.monotonic() < deadline:
            pids = [pid for pid in spawned_children(self.process.pid) if pid != core]
            if len(pids) == 2:
                return pids
            time.sleep(0.01)
        raise TimeoutError("the workers did not start:\n" + "".join(self.log))

    @property
    def worker_sockets(self) -> list[Path]:
        """Each worker's own Unix socket: a connection there reaches that worker, not the one
        the kernel would pick."""
        sockets = sorted(self.tmp.glob("voice-tts-relay-*/*.sock"))
        assert len(sockets) == 2, sockets
        return sockets

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(BOUND_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def usage_log(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("usage") / "usage.jsonl"


@pytest.fixture(scope="module")
def server(tiny_checkpoint, usage_log):
    server = WorkersServer(tiny_checkpoint, usage_log, 16)
    yield server
    server.stop()
    assert server.process.returncode == 0, "".join(server.log)


def turns_total(metrics: str) -> float:
    return sum(float(v) for v in re.findall(r"^voice_tts_turns_total\{[^}]*\} (\S+)$", metrics, re.M))


def test_turns_on_several_sockets_are_logged_once_and_counted_over_all_workers(server, usage_log):
    async def turns():
        sockets = [await ws_connect(server.ws_url) for _ in range(3)]
        try:
            return await asyncio.gather(*(speak(ws, TEXT) for ws in sockets))
        finally:
            for ws in sockets:
                await ws.close()

    before = usage_log.read_text().count("\n") if usage_log.exists() else 0
    results = asyncio.run(turns())
    for result in results:
        assert result.audio and result.done["cancelled"] is False
        assert result.done["usage"]["characters_spoken"] == len("".join(TEXT))
    deadline = time.monotonic() + BOUND_S
    while usage_log.read_text().count("\n") < before + 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = [json.loads(line) for line in usage_log.read_text().splitlines()]
    assert len(lines) == before + 3
    assert {line["outcome"] for line in lines[before:]} == {"done"}
    # Whichever worker answers the scrape, it counts every worker's turns.
    for _ in range(4):
        assert turns_total(httpx.get(server.url + "/metrics").text) == len(lines)


def test_api_workers_run_without_torch(server):
    """Only the engine core runs the model: a worker that has served turns (speech and /v1/ws)
    has never loaded torch, which would cost each worker hundreds of MB."""
    answer = httpx.post(server.url + "/v1/audio/speech", json={"input": "Hello there."}, timeout=BOUND_S)
    assert answer.status_code == 200 and len(answer.content) > 44

    async def turns() -> None:
        for _ in range(2):  # on two sockets: the kernel may hand them to either worker
            async with ws_connect(server.ws_url) as ws:
                assert (await speak(ws, TEXT)).audio

    asyncio.run(turns())

    def loads_torch(pid: int) -> bool:  # the process maps libtorch once torch is imported
        return "libtorch" in Path(f"/proc/{pid}/maps").read_text()

    assert loads_torch(server.core_pid), "the check sees torch where it runs"
    for pid in server.worker_pids():
        assert not loads_torch(pid), f"API worker {pid} loaded torch"


def test_cancel_and_pause_resume_through_a_worker(server):
    async def run() -> tuple[TurnResult, TurnResult]:
        async with ws_connect(server.ws_url) as ws:
            await ws.send(json.dumps({"type": "start"}))
            assert (await next_json(ws))["type"] == "started"
            await ws.send(json.dumps({"type": "text", "text": "A sentence that is long enough to cancel in the middle of it."}))
            await ws.send(json.dumps({"type": "stop"}))
            async with asyncio.timeout(BOUND_S):
                while not isinstance(await ws.recv(), bytes):
                    pass
            await ws.send(json.dumps({"type": "cancel"}))
            cancelled = await receive_until_done(ws)

            await ws.send(json.dumps({"type": "start"}))
            assert (await next_json(ws))["type"] == "started"
            await ws.send(json.dumps({"type": "pause"}))
            await ws.send(json.dumps({"type": "text", "text": "".join(TEXT)}))
            await ws.send(json.dumps({"type": "stop"}))
            with pytest.raises(TimeoutError):  # held while paused
                await asyncio.wait_for(ws.recv(), 1.0)
            await ws.send(json.dumps({"type": "resume"}))
            return cancelled, await receive_until_done(ws)

    cancelled, resumed = asyncio.run(run())
    assert cancelled.done["cancelled"] is True
    assert resumed.done["cancelled"] is False and resumed.audio
    assert resumed.done["usage"]["characters_spoken"] == len("".join(TEXT))


def test_a_reconnect_on_the_other_worker_resumes_the_turn(server):
    async def run() -> tuple[int, TurnResult]:
        ws = await ws_connect(server.ws_url)
        await ws.send(json.dumps({"type": "start", "resumable": True}))
        started = await next_json(ws)
        token = started["resume_token"]
        await ws.send(json.dumps({"type": "text", "text": "".join(TEXT)}))
        await ws.send(json.dumps({"type": "stop"}))
        received = 0
        async with asyncio.timeout(BOUND_S):
            while not received:
                frame = await ws.recv()
                if isinstance(frame, bytes):
                    received += len(frame) // 2
        await ws.close()
        # The kernel picks the worker of a TCP connection; the other worker's own socket makes
        # sure the reconnect lands on the worker that does not hold the turn.
        other = next(path for path in server.worker_sockets if path.stem != token_instance(token))
        async with unix_connect(str(other), "ws://worker/v1/ws", max_size=None) as second:
            await second.send(json.dumps({"type": "reconnect", "resume_token": token, "received_samples": received}))
            reconnected = await next_json(second)
            assert reconnected["type"] == "reconnected" and reconnected["from_sample"] == received
            return received, await receive_until_done(second)

    received, rest = asyncio.run(run())
    assert rest.done["cancelled"] is False
    assert rest.done["usage"]["characters_spoken"] == len("".join(TEXT))
    assert received * 2 + len(rest.audio) == round(rest.done["usage"]["audio_seconds"] * 24000) * 2


def worker_http(path: Path) -> httpx.Client:
    """HTTP to one worker, through its own socket."""
    return httpx.Client(transport=httpx.HTTPTransport(uds=str(path)), base_url="http://worker", timeout=60)


def errors_total(metrics: str, code: str) -> float:
    return sum(float(v) for v in re.findall(rf'^voice_tts_errors_total\{{code="{code}"\}} (\S+)$', metrics, re.M))


def test_capabilities_count_every_workers_streams(server):
    async def run() -> list[int]:
        sockets = [await unix_connect(str(path), "ws://worker/v1/ws") for path in server.worker_sockets]
        try:
            for ws in sockets:  # one turn on each worker, its input left open
                await ws.send(json.dumps({"type": "start"}))
                assert (await next_json(ws))["type"] == "started"
            clients = [worker_http(path) for path in server.worker_sockets]
            # The core reports its count a few times a second.
            deadline = time.monotonic() + BOUND_S
            while True:
                counts = [client.get("/v1/capabilities").json()["active_streams"] for client in clients]
                if counts == [2, 2] or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.05)
            for ws in sockets:
                await ws.send(json.dumps({"type": "cancel"}))
                await receive_until_done(ws)
            return counts
        finally:
            for ws in sockets:
                await ws.close()

    assert asyncio.run(run()) == [2, 2]


def test_a_burst_below_capacity_is_all_admitted(server):
    # 16 clients starting within 1 s on --max-streams 16, spread over both workers: no turn is
    # refused, not even once before a retry (the server counts every `capacity` it sends).
    before = errors_total(httpx.get(server.url + "/metrics").text, "capacity")
    settings = SweepSettings(concurrency=[16], turns=1, spread=1.0, texts=("".join(TEXT),), turn_timeout=BOUND_S * 4)

    async def run() -> dict:
        engine = RemoteEngine(server.ws_url, contexts_per_socket=1)
        try:
            return await run_level(engine, settings, 16)
        finally:
            await engine.aclose()

    level = asyncio.run(run())
    assert (level["completed"], level["capacity_refusals"], level["errors"]) == (16, 0, 0), level
    assert errors_total(httpx.get(server.url + "/metrics").text, "capacity") == before


def test_turns_refused_by_the_core_leave_reused_sockets_clean(server):
    # Twice the core's streams over two workers (each takes up to 16): the core refuses turns
    # after their `started`, while the client's text is on its way. Each client's next turns
    # reuse sockets (a turn each) and are answered by their own `started` or refusal: no
    # `no_active_turn` or `turn_active` from the turn before.
    settings = SweepSettings(concurrency=[32], turns=3, spread=0.3, texts=("".join(TEXT),), turn_timeout=BOUND_S * 4)

    async def run() -> dict:
        engine = RemoteEngine(server.ws_url, contexts_per_socket=1)
        try:
            return await run_level(engine, settings, 32)
        finally:
            await engine.aclose()

    level = asyncio.run(run())
    assert level["errors"] == 0, level["errors_by_code"]
    assert level["capacity_refusals"] > 0
    assert level["completed"] + level["capacity_refusals"] == 96
    # Every refusal counted by its cause, the count of slots taken out of the message.
    assert sum(level["capacity_refusals_by_cause"].values()) == level["capacity_refusals"]
    assert all(cause.startswith(("all N streams are busy", "no KV cache room", "no real-time headroom"))
               for cause in level["capacity_refusals_by_cause"]), level["capacity_refusals_by_cause"]


def test_a_voice_cloned_through_one_worker_speaks_through_the_other(base_checkpoint, tmp_path):
    server = WorkersServer(base_checkpoint, tmp_path / "usage.jsonl", 2, "--voices-dir", str(tmp_path / "voices"))
    try:
        first, second = server.worker_sockets
        reference = (base_checkpoint / "golden" / "ref_c.wav").read_bytes()
        with worker_http(first) as one:
            created = one.post(
                "/v1/voices", data={"name": "Calm", "ref_text": "A calm voice reads a short line."},
                files={"audio_sample": ("ref.wav", reference)},
            )
        assert created.status_code == 201, created.text
        voice = created.json()["id"]
        with worker_http(second) as other:
            assert voice in [v["name"] for v in other.get("/v1/voices").json()["voices"]]

        async def turn() -> TurnResult:
            async with unix_connect(str(second), "ws://worker/v1/ws", max_size=None) as ws:
                return await speak(ws, TEXT, voice=voice, language="English")

        result = asyncio.run(turn())
        assert not result.of_type("error") and result.audio
        assert result.done["usage"]["characters_spoken"] == len("".join(TEXT))
        # Deleted through the second worker: the first no longer knows it.
        with worker_http(second) as other:
            assert other.delete(f"/v1/voices/{voice}").status_code in (200, 204)
        with worker_http(first) as one:
            assert voice not in [v["name"] for v in one.get("/v1/voices").json()["voices"]]
    finally:
        server.stop()


def test_when_the_core_dies_every_turn_ends_health_fails_and_the_server_exits(tiny_checkpoint, tmp_path):
    server = WorkersServer(tiny_checkpoint, tmp_path / "usage.jsonl")
    try:
        async def run() -> list[TurnResult]:
            sockets = [await ws_connect(server.ws_url) for _ in range(2)]
            for ws in sockets:
                await ws.send(json.dumps({"type": "start"}))
                await ws.send(json.dumps({"type": "text", "text": "A long sentence, so that the turn is still speaking when the engine goes away."}))
                await ws.send(json.dumps({"type": "stop"}))
            results = [TurnResult() for _ in sockets]
            async with asyncio.timeout(BOUND_S):
                for ws, result in zip(sockets, results):
                    while not result.audio:
                        frame = await ws.recv()
                        if isinstance(frame, bytes):
                            result.audio += frame
                        else:
                            result.messages.append(json.loads(frame))
            os_kill(server.core_pid)
            ended = await asyncio.gather(*(receive_until_done(ws, result) for ws, result in zip(sockets, results)))
            health = httpx.get(server.url + "/health")
            for ws in sockets:
                await ws.close()
            assert health.status_code == 503, health.text
            return ended

        for result in asyncio.run(run()):
            assert [m["code"] for m in result.of_type("error")] == ["engine_error"]
            assert result.done["type"] == "done"
        assert server.process.wait(BOUND_S) == 70
    finally:
        server.stop()


def spawned_children(parent: int) -> list[int]:
    """Processes `parent` started through multiprocessing's spawn (not its resource tracker)."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue  # it exited meanwhile
        if ppid == parent and b"spawn_main" in command:
            pids.append(int(stat.parent.name))
    return pids


def os_kill(pid: int) -> None:
    import os

    os.kill(pid, signal.SIGKILL)


def test_capacity_is_one_limit_over_every_worker(tiny_checkpoint, tmp_path):
    # --capacity 3 behind two workers (the core has 16 streams): three turns open over both
    # workers, and one more is refused on either, where each worker counting its own would take
    # three more on each.
    server = WorkersServer(tiny_checkpoint, tmp_path / "usage.jsonl", 16, "--capacity", "3")
    try:
        first, second = server.worker_sockets

        async def run() -> list[TurnResult]:
            sockets = [await unix_connect(str(path), "ws://worker/v1/ws") for path in (first, first, second)]
            try:
                for ws in sockets:  # input left open: each holds its stream
                    await ws.send(json.dumps({"type": "start"}))
                    assert (await next_json(ws))["type"] == "started"
                with worker_http(first) as client:  # the core reports its count a few times a second
                    deadline = time.monotonic() + BOUND_S
                    while client.get("/v1/capabilities").json()["active_streams"] < 3 and time.monotonic() < deadline:
                        await asyncio.sleep(0.05)
                refused = []
                for path in (first, second):
                    async with unix_connect(str(path), "ws://worker/v1/ws", max_size=None) as ws:
                        refused.append(await speak(ws, TEXT))
                for ws in sockets:
                    await ws.send(json.dumps({"type": "cancel"}))
                    await receive_until_done(ws)
                return refused
            finally:
                for ws in sockets:
                    await ws.close()

        for result in asyncio.run(run()):
            assert [(m["code"], m["message"]) for m in result.of_type("error")] == [("capacity", "all 3 streams are busy")]
            assert not result.audio
        for path in (first, second):  # said once, the same by every worker
            with worker_http(path) as client:
                assert client.get("/v1/capabilities").json()["capacity"] == 3
        # Below the limit again: a turn is served.
        async def turn() -> TurnResult:
            async with ws_connect(server.ws_url) as ws:
                return await speak(ws, TEXT)

        assert not asyncio.run(turn()).of_type("error")
    finally:
        server.stop()


def test_ready_only_once_every_worker_is_warm(tiny_checkpoint, tmp_path):
    # The core held (SIGSTOP) as soon as it has loaded, so no worker can finish its warm-up,
    # then one worker held: the other warms up and serves, but the server is not ready until
    # the held worker is warm too.
    server = WorkersServer(tiny_checkpoint, tmp_path / "usage.jsonl", wait_ready=False)
    held = []
    try:
        os.kill(server.core_pid, signal.SIGSTOP)
        held.append(server.core_pid)
        cold = server.worker_pids()[0]
        os.kill(cold, signal.SIGSTOP)
        held.append(cold)
        assert not any("engine warm: ready" in line for line in server.log), "".join(server.log)
        os.kill(server.core_pid, signal.SIGCONT)
        held.remove(server.core_pid)
        deadline = time.monotonic() + BOUND_S * 4
        while not any("engine warm: ready" in line for line in server.log):
            assert time.monotonic() < deadline, "".join(server.log)
            time.sleep(0.05)
        answer = server.ready()
        assert answer.status_code == 503
        # Two until the core's next status counts the warm one (four a second).
        assert answer.json()["detail"] in ("warming up: 1 API worker of the server", "warming up: 2 API workers of the server")

        async def turn() -> TurnResult:
            async with ws_connect(server.ws_url) as ws:
                return await speak(ws, TEXT)

        served = asyncio.run(turn())  # by the warm worker
        assert not served.of_type("error") and served.audio
        os.kill(cold, signal.SIGCONT)
        held.remove(cold)
        server.wait_ready()
        assert server.ready().json() == {"ready": True, "detail": "ready"}
    finally:
        for pid in held:
            os.kill(pid, signal.SIGCONT)
        server.stop()
    assert server.process.returncode == 0, "".join(server.log)


def test_a_model_the_core_cannot_load_stops_the_workers_with_one_clear_line(tiny_checkpoint, tmp_path):
    # The workers start beside the core: when its model fails to load they are stopped, and the
    # server says why once and exits 2, as the one-process server does.
    broken = tmp_path / "broken"
    shutil.copytree(tiny_checkpoint, broken, ignore=shutil.ignore_patterns("golden"))
    (broken / "model.safetensors").write_bytes((tiny_checkpoint / "model.safetensors").read_bytes()[:1000])
    process = subprocess.Popen(
        [sys.executable, "-m", "voice_tts.cli", "serve", "--model", str(broken), "--device", "cpu", "--workers", "2", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    _, err = process.communicate(timeout=BOUND_S * 4)
    assert process.returncode == 2, err
    assert err.strip().splitlines()[-1].startswith(f"voice-tts: error: cannot load the model from {broken}"), err
    assert "Traceback" not in err
    deadline = time.monotonic() + BOUND_S  # multiprocessing's resource tracker leaves a moment later
    while left := subprocess.run(["pgrep", "-a", "-s", str(process.pid)], capture_output=True, text=True).stdout:
        assert time.monotonic() < deadline, f"still running: {left}"
        time.sleep(0.1)
