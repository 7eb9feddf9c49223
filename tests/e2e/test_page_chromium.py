"""Headless Chromium opens the page at `/` of a real server (embedded voice, with an API key)
and speaks through it. Chromium has no sound card here: its audio output is a fake sink that
runs in real time, so the page's audio clock advances as it would on speakers.

What the page does is checked from outside its code: a script injected before the page loads
records every `AudioBufferSourceNode.start(when)` (which audio is scheduled for which instant of
the audio context's clock) and, through a MutationObserver, the context time at which each word
is marked spoken. A word may be marked only once the context clock has reached the instant its
first sample plays.
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import tempfile
from pathlib import Path

import httpx
import pytest
from chromium_harness import first_page, free_port, start_chromium, stop, wait_http
from PIL import Image
from server_harness import start_server

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("VOICE_TTS_TEST_ARTIFACTS", REPO_ROOT / "test-artifacts"))
API_KEY = "page-test-key"
SHORT = "Hello there. The weather today is sunny and warm, with a light breeze."
LONG = (
    "This reply keeps going for a while so that the listener can interrupt it somewhere in "
    "the middle, long before the speaker reaches the end of everything it wanted to say about "
    "the weather, the traffic and the news of the day."
)
SPOKEN_RGB = (0xFF, 0xE2, 0x7A)  # style.css --spoken
CURRENT_RGB = (0xFF, 0xB4, 0x00)  # style.css --current

RECORD_AUDIO_AND_WORDS = """
(() => {
  window.__audioStarts = [];
  window.__highlights = [];
  const NativeContext = window.AudioContext;
  window.AudioContext = class extends NativeContext {
    constructor(...args) { super(...args); window.__audioContext = this; }
  };
  const nativeStart = AudioBufferSourceNode.prototype.start;
  AudioBufferSourceNode.prototype.start = function (when = 0, ...rest) {
    window.__audioStarts.push({when, length: this.buffer.length, rate: this.buffer.sampleRate});
    return nativeStart.call(this, when, ...rest);
  };
  document.addEventListener('DOMContentLoaded', () => {
    new MutationObserver(records => {
      for (const record of records) {
        const el = record.target;
        if (!el.classList.contains('spoken') || el.__recorded) continue;
        el.__recorded = true;
        window.__highlights.push({text: el.textContent, startMs: Number(el.dataset.startMs),
                                  at: window.__audioContext.currentTime});
      }
    }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['class']});
  });
})();
"""
RESET_RECORDS = "window.__audioStarts = []; window.__highlights = []; true"
RECORDS = "({starts: window.__audioStarts, highlights: window.__highlights})"
SPOKEN_WORDS = "[...document.querySelectorAll('#reply .word.spoken')].map(e => e.textContent)"


def text_of(element_id: str) -> str:
    return f"(document.getElementById('{element_id}')?.textContent ?? '')"


def assert_never_ahead_of_audio(records: dict) -> None:
    """Each marked word's first sample was scheduled at or before the clock reading at which
    it was marked; marks come in the order of the words' start times."""
    starts, highlights = records["starts"], records["highlights"]
    assert starts and highlights, records
    start_ms = [h["startMs"] for h in highlights]
    assert start_ms == sorted(start_ms), highlights
    for highlight in highlights:
        sample = round(highlight["startMs"] / 1000 * starts[0]["rate"])
        first = 0
        for chunk in starts:
            if first <= sample < first + chunk["length"]:
                plays_at = chunk["when"] + (sample - first) / chunk["rate"]
                break
            first += chunk["length"]
        else:
            raise AssertionError(f"{highlight} marked spoken, but no audio holds its start")
        assert highlight["at"] >= plays_at, (highlight, plays_at)


@pytest.fixture(scope="module")
def server():
    server = start_server(api_key=API_KEY)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser(chromium):
    debug_port = free_port()
    profile = tempfile.mkdtemp(prefix="chromium-page-")
    process = start_chromium(debug_port, profile, "--window-size=1200,1000")
    try:
        wait_http(f"http://127.0.0.1:{debug_port}/json/version", timeout=60)
        yield debug_port
    finally:
        stop(process)
        shutil.rmtree(profile, ignore_errors=True)


async def open_page(devtools, server) -> None:
    await devtools.call("Page.addScriptToEvaluateOnNewDocument", source=RECORD_AUDIO_AND_WORDS)
    await devtools.call("Page.navigate", url=server.http_url + "/")
    await devtools.wait_for(f"{text_of('engine')}.includes('401')", 30, "the 401 without a key")
    # The key typed in: voices and capabilities load, and the socket will carry it.
    await devtools.evaluate(
        f"const k = document.getElementById('api-key'); k.value = '{API_KEY}';"
        "k.dispatchEvent(new Event('change')); true"
    )
    await devtools.wait_for(f"{text_of('engine')}.includes('espeak')", 30, "the engine line")


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.timeout(240)
async def test_page_highlights_words_with_the_audio_and_barges_in(server, browser):
    voices = httpx.get(
        server.http_url + "/v1/voices", headers={"Authorization": f"Bearer {API_KEY}"}
    ).json()["voices"]
    async with first_page(browser) as devtools:
        await open_page(devtools, server)
        options = await devtools.evaluate(
            "[...document.getElementById('voice').options].map(o => o.value)"
        )
        assert options == [""] + [voice["name"] for voice in voices]

        # A whole turn, started from the Speak button: every word lights up, in order, never
        # before its audio plays; the heard text is the whole reply.
        await devtools.evaluate(
            f"document.getElementById('text').value = {SHORT!r}; {RESET_RECORDS}"
        )
        await devtools.evaluate("document.getElementById('speak').click(); true")
        await devtools.wait_for(f"{text_of('heard')} !== ''", 60, "the end of the turn")
        records = await devtools.evaluate(RECORDS)
        assert [h["text"] for h in records["highlights"]] == SHORT.split()
        assert_never_ahead_of_audio(records)
        assert await devtools.evaluate(text_of("heard")) == SHORT
        assert await devtools.evaluate(text_of("ttfa")) != "–"

        # Streamed like an LLM, barged in from the keyboard (Escape) after a few words: the
        # heard text is exactly the words whose audio started, and nothing plays after it.
        await devtools.evaluate(
            f"document.getElementById('text').value = {LONG!r}; {RESET_RECORDS}"
        )
        await devtools.evaluate("document.getElementById('stream').focus(); true")
        await devtools.press_key("Enter", "Enter", 13, text="\r")
        await devtools.wait_for(f"{SPOKEN_WORDS}.length >= 4", 60, "four spoken words")
        await devtools.press_key("Escape", "Escape", 27)
        heard = await devtools.wait_for(text_of("heard"), 30, "the heard text after barge-in")
        spoken = await devtools.evaluate(SPOKEN_WORDS)
        assert heard == " ".join(spoken)
        assert LONG.startswith(heard) and len(spoken) < len(LONG.split())
        assert "barged in" in await devtools.evaluate(text_of("status"))
        records = await devtools.evaluate(RECORDS)
        assert [h["text"] for h in records["highlights"]] == spoken
        assert_never_ahead_of_audio(records)
        await asyncio.sleep(1.0)
        assert await devtools.evaluate(SPOKEN_WORDS) == spoken

        # Everything the page loaded came from the server itself.
        origins = await devtools.evaluate(
            "performance.getEntriesByType('resource').map(r => new URL(r.name).origin)"
        )
        assert set(origins) <= {server.http_url}, origins

        png = await devtools.screenshot()
        scale = await devtools.evaluate("window.devicePixelRatio")
        rects = await devtools.evaluate(
            "[...document.querySelectorAll('#reply .word.spoken')].map(e => {"
            "const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })"
        )

        # On a phone's width the page reflows into one column, nothing wider than the screen.
        await devtools.call(
            "Emulation.setDeviceMetricsOverride",
            width=390, height=844, deviceScaleFactor=2, mobile=True,
        )
        fits = "document.documentElement.scrollWidth <= window.innerWidth"
        assert await devtools.wait_for(fits, 10, "the page to fit a phone's width")
        columns = "getComputedStyle(document.querySelector('.transcripts')).gridTemplateColumns"
        assert len((await devtools.evaluate(columns)).split()) == 1
        phone_png = await devtools.screenshot()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "page-barge-in.png").write_bytes(png)
    (ARTIFACTS / "page-phone.png").write_bytes(phone_png)
    # The screenshot shows the spoken words highlighted: their boxes hold the highlight colours.
    image = Image.open(io.BytesIO(png)).convert("RGB")
    highlighted = 0
    for x, y, width, height in rects:
        box = image.crop(
            (int(x * scale), int(y * scale), int((x + width) * scale), int((y + height) * scale))
        )
        colours = {rgb for _, rgb in box.getcolors(box.width * box.height)}
        highlighted += bool(colours & {SPOKEN_RGB, CURRENT_RGB})
    assert highlighted == len(rects) == len(spoken)
