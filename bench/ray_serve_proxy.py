"""What Ray Serve's proxy hop costs: TTFA of the same engine served directly and behind Serve.

The same load (`voice_tts.bench.sweep`, as `voice-tts bench` applies it) goes first to one
engine server on 127.0.0.1 (uvicorn, no Ray running), then to one engine replica of the same
embedded voice behind Ray Serve's proxy on this machine (`engine.deploy.ray_serve`), then to the
direct server again (to see how much the machine drifted between runs). Results go to
bench/results/ray_serve_proxy.json; docs/benchmarks.md quotes them.

    .venv/bin/python bench/ray_serve_proxy.py --concurrency 1 8 32 --turns 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import time
from pathlib import Path

from voice_tts.bench.sweep import SweepSettings, conditions, format_table, run_sweep
from voice_tts.client import RemoteEngine

RESULTS = Path(__file__).resolve().parent / "results" / "ray_serve_proxy.json"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def sweep(url: str, settings: SweepSettings) -> list[dict]:
    engine = RemoteEngine(url, contexts_per_socket=settings.contexts_per_socket)
    try:
        return await run_sweep(engine, settings)
    finally:
        await engine.aclose()


def direct(settings: SweepSettings) -> list[dict]:
    from engine import Engine
    from engine.server.app import create_app
    from engine.server.http_server import BackgroundServer
    from engine.server.settings import ServerSettings

    server_settings = ServerSettings(port=0, log_level="warning")
    engine = Engine.embedded()
    with BackgroundServer(create_app(engine, settings=server_settings), server_settings) as server:
        while not ready(server.http_url):
            time.sleep(0.05)
        levels = asyncio.run(sweep(server.ws_url, settings))
    asyncio.run(engine.aclose())
    return levels


def behind_serve(settings: SweepSettings) -> list[dict]:
    import ray
    from ray import serve

    from engine.deploy.ray_serve import APP_NAME, EngineAppArgs, build_app

    port = free_port()
    ray.init(include_dashboard=False, log_to_driver=False)
    try:
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        serve.run(build_app(EngineAppArgs(replicas=1)), name=APP_NAME, route_prefix="/")
        return asyncio.run(sweep(f"ws://127.0.0.1:{port}/v1/ws", settings))
    finally:
        serve.shutdown()
        ray.shutdown()


def ready(http_url: str) -> bool:
    import httpx

    try:
        return httpx.get(http_url + "/ready").status_code == 200
    except httpx.HTTPError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--tokens-per-second", type=float, default=30.0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    settings = SweepSettings(
        concurrency=args.concurrency, turns=args.turns, tokens_per_second=args.tokens_per_second
    )
    runs = {}
    for name, run in (("direct", direct), ("serve", behind_serve), ("direct_again", direct)):
        runs[name] = run(settings)
        print(f"{name}:\n{format_table(runs[name])}\n", flush=True)
    overhead = [
        {
            "concurrency": serve_level["concurrency"],
            "ttfa_ms_p50_added": round(
                serve_level["ttfa_ms_p50"]
                - (first["ttfa_ms_p50"] + again["ttfa_ms_p50"]) / 2,
                1,
            ),
            "ttfa_ms_p99_added": round(
                serve_level["ttfa_ms_p99"]
                - (first["ttfa_ms_p99"] + again["ttfa_ms_p99"]) / 2,
                1,
            ),
        }
        for first, serve_level, again in zip(runs["direct"], runs["serve"], runs["direct_again"])
    ]
    print(json.dumps(overhead, indent=1))
    machine = {
        "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "gpu": None,
    }
    result = {
        "conditions": {
            **conditions(settings, "ws://127.0.0.1/v1/ws", None),
            "backend": "espeak-ng (embedded voice)",
            "serve": "Ray Serve 2.60.0, 1 replica, proxy and replica on this machine",
            "machine": machine,
        },
        "runs": runs,
        "serve_overhead": overhead,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
