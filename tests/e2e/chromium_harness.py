"""Headless Chromium (Debian's `chromium`) driven over the DevTools protocol, for the e2e tests."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import subprocess
import time
import urllib.request
from contextlib import asynccontextmanager
from typing import AsyncIterator

CHROMIUM = "/usr/bin/chromium"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def start_chromium(debug_port: int, profile: str, *extra_flags: str) -> subprocess.Popen:
    """Chromium with remote debugging, a fake microphone and camera, and autoplay allowed.
    Without a sound card its audio output is a fake sink that still runs in real time."""
    return subprocess.Popen(
        [
            CHROMIUM,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={profile}",
            f"--remote-debugging-port={debug_port}",
            "--use-fake-ui-for-media-stream",
            "--use-fake-device-for-media-stream",
            "--autoplay-policy=no-user-gesture-required",
            "--allow-loopback-in-peer-connection",
            "--disable-features=WebRtcHideLocalIpsWithMdns",
            *extra_flags,
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def stop(process: subprocess.Popen | None) -> None:
    if process is None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class DevTools:
    """Just enough of the Chrome DevTools protocol: send a command, await its answer."""

    def __init__(self, websocket):
        self._ws = websocket
        self._next_id = 0

    async def call(self, method: str, **params) -> dict:
        self._next_id += 1
        await self._ws.send(json.dumps({"id": self._next_id, "method": method, "params": params}))
        while True:
            message = json.loads(await self._ws.recv())
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    async def evaluate(self, expression: str):
        result = await self.call(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_for(self, expression: str, timeout: float, what: str):
        """Polls `expression` until it is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = await self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out waiting for {what}")
            await asyncio.sleep(0.1)

    async def press_key(self, key: str, code: str, key_code: int, text: str = "") -> None:
        """A real key press (keyDown then keyUp) on the focused element; `text` is what the key
        types (Enter types "\r", which is what activates a focused button)."""
        for kind in ("keyDown", "keyUp"):
            typed = {"text": text} if text and kind == "keyDown" else {}
            await self.call(
                "Input.dispatchKeyEvent",
                type=kind,
                key=key,
                code=code,
                windowsVirtualKeyCode=key_code,
                **typed,
            )

    async def screenshot(self) -> bytes:
        shot = await self.call("Page.captureScreenshot", format="png")
        return base64.b64decode(shot["data"])


@asynccontextmanager
async def first_page(debug_port: int) -> AsyncIterator[DevTools]:
    """DevTools on the browser's first tab."""
    from websockets.asyncio.client import connect

    targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{debug_port}/json/list"))
    page = next(t for t in targets if t["type"] == "page")
    async with connect(page["webSocketDebuggerUrl"], max_size=None) as ws:
        devtools = DevTools(ws)
        await devtools.call("Page.enable")
        yield devtools
