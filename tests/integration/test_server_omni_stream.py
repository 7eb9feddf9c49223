"""vLLM-Omni's streaming-input socket (`/v1/audio/speech/stream`) on real servers: messages shaped
as its example client (examples/online_serving/qwen3_tts/streaming_speech_client.py) sends them,
word by word, with `session.config` changed between utterances; the same audio as a `/v1/ws`
turn; a Base session cloning from its `ref_audio` as the speech endpoint does; bad messages
answered with `error` while the socket goes on; cancel and close."""

from __future__ import annotations

import asyncio
import io
import json
import wave

import httpx
import pytest
from server_harness import speak, ws_connect
from test_server_omni import base, base_voices, custom_voice, data_url, embedded, inline_voices, same_audio, speech  # noqa: F401 (fixtures)
from test_server_voices import TRANSCRIPT_C
from websockets.exceptions import ConnectionClosed

from voice_tts.client import RemoteEngine
from voice_tts.protocol import AudioChunk

TEXT = "Hello there, this is the first sentence. And here comes a second one."
TIMEOUT_S = 60.0


def stream_url(server) -> str:
    return server.ws_url.replace("/v1/ws", "/v1/audio/speech/stream")


async def send(ws, kind: str, **fields) -> None:
    await ws.send(json.dumps({"type": kind, **fields}))


async def utterance(ws) -> tuple[list[dict], list[bytes]]:
    """Every event and audio frame up to `session.done`."""
    events, audio = [], []
    async with asyncio.timeout(TIMEOUT_S):
        while True:
            frame = await ws.recv()
            if isinstance(frame, bytes):
                audio.append(frame)
                continue
            events.append(json.loads(frame))
            if events[-1]["type"] == "session.done":
                return events, audio


async def speak_words(ws, text: str) -> None:
    words = text.split(" ")
    for i, word in enumerate(words):  # as the example client's --simulate-stt sends them
        await send(ws, "input.text", text=word + (" " if i < len(words) - 1 else ""))
    await send(ws, "input.done")


def kinds(events: list[dict]) -> list[str]:
    return [event["type"] for event in events]


async def test_utterances_word_by_word_with_the_config_changed_between_them(embedded):
    async with ws_connect(stream_url(embedded)) as ws:
        # The example client's config: its defaults (speaker, task, language, format, speed).
        await send(ws, "session.config", speaker="default", task_type="CustomVoice", language="Auto", response_format="wav", speed=1.0)
        await speak_words(ws, TEXT)
        events, audio = await utterance(ws)
        assert kinds(events) == ["audio.start", "audio.done", "session.done"] and len(audio) == 1
        assert events[0] | {"sentence_text": ""} == {
            "type": "audio.start", "utterance_index": 0, "sentence_index": 0, "sentence_text": "", "format": "wav", "sample_rate": 24000,
        }
        assert events[1] == {"type": "audio.done", "utterance_index": 0, "sentence_index": 0, "total_bytes": len(audio[0]), "error": False}
        assert events[2] == {"type": "session.done", "utterance_index": 0, "total_sentences": 1}
        with wave.open(io.BytesIO(audio[0])) as wav:
            assert (wav.getframerate(), wav.getnchannels(), wav.getsampwidth()) == (24000, 1, 2) and wav.getnframes() > 24000

        # Another voice, audio as it is produced, word progress: the same socket.
        await send(ws, "session.config", voice="female", response_format="pcm", stream_audio=True, word_progress=True)
        await speak_words(ws, TEXT)
        events, audio = await utterance(ws)
        assert events[0]["type"] == "audio.start" and events[0]["utterance_index"] == 1
        assert kinds(events)[-2:] == ["audio.done", "session.done"] and len(audio) > 1
        assert events[-2]["total_bytes"] == sum(map(len, audio))
        words = [word["text"] for event in events if event["type"] == "voice_tts.word_progress" for word in event["words"]]
        assert words == TEXT.split(" ")

        # The config is sticky: the third utterance streams PCM in the second one's voice.
        await speak_words(ws, "A third one.")
        events, audio = await utterance(ws)
        assert events[0]["utterance_index"] == 2 and events[-1]["utterance_index"] == 2 and len(audio) >= 1
        # A flush with nothing buffered is an empty utterance.
        await send(ws, "input.done")
        assert json.loads(await ws.recv()) == {"type": "session.done", "utterance_index": 3, "total_sentences": 0}
        await send(ws, "session.close")
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), TIMEOUT_S)
        assert ws.close_code == 1000


async def test_the_socket_speaks_as_a_v1_ws_turn_and_starts_before_the_flush(custom_voice):
    async with ws_connect(stream_url(custom_voice)) as ws:
        await send(ws, "session.config", voice="Ryan", language="English", response_format="pcm", stream_audio=True)
        words = TEXT.split(" ")
        for word in words[:4]:
            await send(ws, "input.text", text=word + " ")
        # The first words are spoken before the utterance is flushed.
        first = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT_S))
        assert first["type"] == "audio.start"
        for word in words[4:]:
            await send(ws, "input.text", text=word + " ")
        await send(ws, "input.done")
        events, audio = await utterance(ws)
    async with ws_connect(custom_voice.ws_url) as ws:
        turn = await speak(ws, [word + " " for word in words], voice="ryan", language="English")
    assert same_audio(b"".join(audio), bytes(turn.audio))


async def test_a_session_sizes_each_utterances_first_chunk_as_configured(custom_voice):
    async with ws_connect(stream_url(custom_voice)) as ws:
        for frames in (6, None):  # the config is sticky until the next one replaces it
            await send(ws, "session.config", voice="Ryan", language="English", response_format="pcm", stream_audio=True,
                       initial_codec_chunk_frames=frames)
            await send(ws, "input.text", text=TEXT)
            await send(ws, "input.done")
            events, audio = await utterance(ws)
            assert kinds(events) == ["audio.start", "audio.done", "session.done"]
            if frames is not None:
                sized = audio
                assert len(audio[0]) == frames * 1920 * 2  # 24 kHz s16le: 1920 samples a frame
        assert len(audio[0]) < 6 * 1920 * 2  # the engine's own first chunk: one or two frames
    assert same_audio(b"".join(sized), b"".join(audio))


async def test_a_remote_engine_carries_the_first_chunk_and_the_frame_cap_to_the_server(custom_voice):
    """`RemoteEngine` sends every setting a server turn takes: the first chunk's size and the
    frame cap reach the server's engine (they were dropped on the way)."""
    engine = RemoteEngine(custom_voice.ws_url)
    try:
        stream = engine.open_stream(voice="ryan", language="English", first_chunk_frames=5, max_new_tokens=9)
        stream.push_text(TEXT)
        stream.end_input()
        chunks = [event async for event in stream.events() if isinstance(event, AudioChunk)]
        with pytest.raises(ValueError, match="sampling"):  # a server samples as its checkpoint says
            engine.open_stream(sampling=object())
    finally:
        await engine.aclose()
    assert len(chunks[0].pcm) == 5 * 1920 * 2  # 24 kHz s16le: 1920 samples a frame
    assert sum(len(chunk.pcm) for chunk in chunks) == 8 * 1920 * 2  # at most max_new_tokens - 1 frames


async def test_bad_messages_get_errors_and_the_socket_goes_on(custom_voice):
    async with ws_connect(stream_url(custom_voice)) as ws:

        async def error_after(message) -> dict:
            await (ws.send(message) if isinstance(message, (str, bytes)) else send(ws, **message))
            answer = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT_S))
            assert answer["type"] == "error", answer
            return answer

        assert (await error_after({"kind": "input.text", "text": "early"}))["code"] == "no_active_turn"
        assert "Extra inputs" in (await error_after({"kind": "session.config", "voice": "ryan", "stream_audo": True}))["message"]
        assert "CustomVoice checkpoint" in (await error_after({"kind": "session.config", "task_type": "VoiceDesign", "instructions": "warm"}))["message"]
        assert "response_format 'pcm'" in (await error_after({"kind": "session.config", "stream_audio": True, "response_format": "wav"}))["message"]
        assert "speaker_embedding" in (await error_after({"kind": "session.config", "speaker_embedding": [0.5]}))["message"]
        assert "from 1 to 32 codec frames" in (await error_after({"kind": "session.config", "initial_codec_chunk_frames": 0}))["message"]
        assert (await error_after(b"\x00\x01"))["code"] == "unexpected_binary"
        assert (await error_after("{not json"))["code"] == "invalid_json"
        assert (await error_after({"kind": "input.speak"}))["code"] == "unknown_message"
        assert (await error_after({"kind": "input.text", "text": 5}))["message"] == "input.text requires a string 'text'"

        await send(ws, "session.config", voice="vivian", response_format="pcm")
        await send(ws, "input.text", text="Hello there, ")
        changed = await error_after({"kind": "session.config", "voice": "ryan"})
        assert changed["code"] == "turn_active" and "input.done first" in changed["message"]
        await send(ws, "input.text", text="friend.")
        await send(ws, "input.done")
        events, audio = await utterance(ws)
        assert kinds(events) == ["audio.start", "audio.done", "session.done"] and events[0]["sentence_text"] == "Hello there, friend."
        assert events[1]["total_bytes"] == len(audio[0]) > 0
    assert httpx.get(custom_voice.http_url + "/v1/capabilities").json()["active_streams"] == 0


async def test_input_cancel_stops_an_utterance_and_a_closed_socket_frees_its_stream(embedded):
    long_text = " ".join(["This sentence keeps the voice busy for a while."] * 20)
    async with ws_connect(stream_url(embedded)) as ws:
        await send(ws, "session.config", voice="default", response_format="pcm", stream_audio=True)
        await send(ws, "input.text", text=long_text + " ")
        await send(ws, "input.done")
        # The next utterance is queued behind the one being spoken; the barge-in drops it too.
        await speak_words(ws, "Queued words that nobody should hear.")
        while isinstance(await asyncio.wait_for(ws.recv(), TIMEOUT_S), str):
            pass  # up to the first audio
        await send(ws, "input.cancel")
        events, _ = await utterance(ws)
        assert events[-1] == {"type": "session.done", "utterance_index": 0, "total_sentences": 1, "cancelled": True}
        await speak_words(ws, "Still here.")
        events, audio = await utterance(ws)
        assert events[0]["sentence_text"] == "Still here." and audio
        assert events[-1] == {"type": "session.done", "utterance_index": 1, "total_sentences": 1}

        await send(ws, "input.text", text=long_text + " ")
        await send(ws, "input.done")
        while isinstance(await asyncio.wait_for(ws.recv(), TIMEOUT_S), str):
            pass
    async with asyncio.timeout(TIMEOUT_S):  # the client left mid-utterance: its stream ends
        while httpx.get(embedded.http_url + "/v1/capabilities").json()["active_streams"]:
            await asyncio.sleep(0.05)


async def test_a_session_clones_from_its_reference_as_the_speech_endpoint_does(base, base_checkpoint, base_voices):
    reference = data_url((base_checkpoint / "golden" / "ref_c.wav").read_bytes())
    clone = {"task_type": "Base", "ref_audio": reference, "ref_text": TRANSCRIPT_C, "response_format": "pcm"}
    spoken = speech(base, {"input": TEXT, "stream": False, **clone})
    assert spoken.status_code == 200, spoken.text
    made = inline_voices(base_voices)
    async with ws_connect(stream_url(base)) as ws:
        await send(ws, "session.config", **{**clone, "ref_audio": "https://example.com/ref.wav"})
        refused = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT_S))
        assert refused["type"] == "error" and refused["code"] == "reference_url_refused"
        await send(ws, "session.config", **clone, stream_audio=True)
        await speak_words(ws, TEXT)
        events, audio = await utterance(ws)
    assert kinds(events)[-2:] == ["audio.done", "session.done"] and not events[-2]["error"]
    assert same_audio(b"".join(audio), spoken.content)
    assert inline_voices(base_voices) == made  # the reference was cloned once, for both
