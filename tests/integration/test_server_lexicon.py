"""Pronunciation dictionaries through a real server: `start.lexicon` on /v1/ws, `lexicon` on
/v1/audio/speech and the server-wide `--lexicon` default. What the engine is asked to say
changes; the words, heard text and offsets stay the raw text's."""

from __future__ import annotations

import argparse
import json

import httpx
import pytest
from server_harness import next_json, speak, start_server, ws_connect

from engine import Engine
from engine.server.serve import ServeError, server_lexicon
from voice_tts.client import RemoteEngine
from voice_tts.protocol import ErrorCode
from voice_tts.session import TTSSession
from voice_tts.tn import Lexicon

SEQUEL = [{"match": "SQL", "say": "sequel"}]


class RecordingEngine:
    """The embedded voice, keeping the spoken text each stream was given."""

    def __init__(self) -> None:
        self._engine = Engine.embedded()
        self.spoken: list[list[str]] = []

    def __getattr__(self, name):
        return getattr(self._engine, name)

    def open_stream(self, request=None, /, **kwargs):
        stream = self._engine.open_stream(request, **kwargs)
        pieces: list[str] = []
        self.spoken.append(pieces)
        push = stream.push_text

        def push_text(text: str) -> None:
            pieces.append(text)
            push(text)

        stream.push_text = push_text
        return stream

    def last_spoken(self) -> str:
        return "".join(self.spoken[-1])


@pytest.fixture(scope="module")
def engine():
    return RecordingEngine()


@pytest.fixture(scope="module")
def server(engine):
    default = Lexicon([{"match": "GPU", "say": "graphics card"}, {"match": "SQL", "say": "ess cue ell"}])
    server = start_server(engine, lexicon=default)
    yield server
    server.stop()


async def test_turn_lexicon_changes_what_is_said_and_keeps_the_raw_words(server, engine):
    text = "I love SQL on a GPU."
    async with ws_connect(server.ws_url) as ws:
        result = await speak(ws, ["I love S", "QL on a G", "PU."], lexicon=SEQUEL)
    # the turn's rule comes before the server's SQL rule; the server's GPU rule still applies
    assert engine.last_spoken() == "I love sequel on a graphics card."
    assert result.done["heard_text"] == text
    assert [w["text"] for w in result.words] == text.split()
    sql = next(w for w in result.words if w["text"] == "SQL")
    assert text[sql["raw_start"]:sql["raw_end"]] == "SQL"


async def test_server_default_applies_without_a_turn_lexicon(server, engine):
    async with ws_connect(server.ws_url) as ws:
        await speak(ws, ["Ask SQL."])
    assert engine.last_spoken() == "Ask ess cue ell."


async def test_acronym_spelling_has_a_switch(server, engine):
    async with ws_connect(server.ws_url) as ws:
        await speak(ws, ["The FBI."])
        assert engine.last_spoken() == "The F B I."
        await speak(ws, ["The FBI."], spell_acronyms=False)
        assert engine.last_spoken() == "The FBI."


async def test_remote_session_sends_the_dictionary_and_the_switch(server, engine):
    remote = RemoteEngine(server.ws_url)
    try:
        session = TTSSession(remote, lexicon=SEQUEL, spell_acronyms=False)
        session.push_text("SQL and the FBI.")
        session.end_input()
        events = [event async for event in session.events()]
    finally:
        await remote.aclose()
    assert engine.last_spoken() == "sequel and the FBI."
    assert events[-1].heard_text == "SQL and the FBI."


async def test_bad_lexicon_is_refused_and_the_socket_keeps_serving(server, engine):
    async with ws_connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "start", "lexicon": [{"match": "(", "say": "x", "regex": True}]}))
        error = await next_json(ws)
        assert error["code"] == ErrorCode.INVALID_LEXICON
        assert "rule 0: invalid regex" in error["message"]
        await ws.send(json.dumps({"type": "start", "normalize": False, "lexicon": SEQUEL}))
        error = await next_json(ws)
        assert error["code"] == ErrorCode.INVALID_LEXICON and "normalize" in error["message"]
        await ws.send(json.dumps({"type": "start", "lexicon": [{"match": "SQL"}]}))
        assert (await next_json(ws))["code"] == ErrorCode.INVALID_MESSAGE
        result = await speak(ws, ["Fine."], lexicon=SEQUEL)
    assert result.done["heard_text"] == "Fine."
    assert server_is_idle(server)


def server_is_idle(server) -> bool:
    capabilities = httpx.get(server.http_url + "/v1/capabilities").json()
    return capabilities["active_streams"] == 0 and "pronunciation_lexicon" in capabilities["features"]


def test_speech_endpoint_takes_a_lexicon(server, engine):
    body = {"model": "tts-1", "voice": "alloy", "input": "Use SQL.", "lexicon": SEQUEL, "stream": False}
    response = httpx.post(server.http_url + "/v1/audio/speech", json=body, timeout=60)
    assert response.status_code == 200 and len(response.content) > 44
    assert engine.last_spoken() == "Use sequel."
    body["lexicon"] = [{"match": "", "say": "x"}]
    response = httpx.post(server.http_url + "/v1/audio/speech", json=body, timeout=60)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == ErrorCode.INVALID_LEXICON
    assert "'match' is empty" in response.json()["error"]["message"]
    assert server_is_idle(server)


def test_serve_lexicon_file(tmp_path):
    path = tmp_path / "words.csv"
    path.write_text("match,say\nSQL,sequel\n")
    assert server_lexicon(argparse.Namespace(lexicon=str(path))) == Lexicon(SEQUEL)
    assert server_lexicon(argparse.Namespace(lexicon=None)) is None
    path.write_text("match,say,regex\n(,x,true\n")
    with pytest.raises(ServeError, match=r"bad --lexicon: .*words.csv: rule 0: invalid regex"):
        server_lexicon(argparse.Namespace(lexicon=str(path)))
