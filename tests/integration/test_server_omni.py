"""vLLM-Omni's speech dialect on real servers (docs/vllm-omni.md): requests shaped as its docs,
its example clients (examples/online_serving/qwen3_tts/openai_speech_client.py) and the public
harness's `vllm-omni` target send them, on the embedded voice and the tiny CustomVoice, Base and
VoiceDesign-shaped checkpoints; every bad value of a new field refused clearly, nothing left."""

from __future__ import annotations

import base64
import functools
import http.server
import json
import os
import shutil
import threading
from pathlib import Path

import aiohttp
import httpx
import numpy as np
import pytest
from server_harness import ServerProcess, start_server
from test_server_voices import TRANSCRIPT_C, greedy_engine, tone, wav_bytes

from engine.model.loader import load_model
from engine.runtime.qwen3_engine import EngineSettings, Qwen3Engine

CUSTOM_VOICE_MODEL = "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice"
SENTENCE = "Hello, this is a cloned voice reading a sentence."


def data_url(data: bytes, mime: str = "audio/wav") -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def speech(server, body: dict) -> httpx.Response:
    return httpx.post(server.http_url + "/v1/audio/speech", json=body, timeout=60)


def golden_pcm(checkpoint: Path, case: str) -> np.ndarray:
    return np.load(checkpoint / "golden" / f"{case}.npz")["wav"]


def same_audio(a: bytes, b: bytes) -> bool:
    """The same codes decoded: equal lengths, samples within float rounding (the codec's chunks
    follow the loop's load, and a chunk boundary moves the last bit)."""
    x, y = (np.frombuffer(pcm, np.int16).astype(np.int32) for pcm in (a, b))
    return len(a) > 0 and x.shape == y.shape and int(np.abs(x - y).max()) <= 4


def close_to(pcm: bytes, golden: np.ndarray) -> bool:
    wav = np.frombuffer(pcm, np.int16) / 32767.0
    return wav.shape == golden.shape and np.abs(wav - golden).max() <= 1e-4


@pytest.fixture(scope="module")
def embedded():
    server = start_server()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def custom_voice(tiny_checkpoint, tmp_path_factory):
    engine = greedy_engine(tiny_checkpoint, tmp_path_factory.mktemp("voices"))
    server = start_server(engine)
    yield server
    server.stop()
    engine.close()


@pytest.fixture(scope="module")
def base_voices(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("base-voices")


@pytest.fixture(scope="module")
def base(base_checkpoint, base_voices):
    engine = greedy_engine(base_checkpoint, base_voices)
    server = start_server(engine, max_voice_upload_bytes=256 * 1024)
    yield server
    server.stop()
    engine.close()


@pytest.fixture(scope="module")
def voice_design(tiny_checkpoint, tmp_path_factory):
    """The tiny CustomVoice weights in the shape of a VoiceDesign checkpoint: its kind, no speakers."""
    folder = tmp_path_factory.mktemp("voice-design")
    for entry in tiny_checkpoint.iterdir():
        if entry.name not in ("config.json", "golden"):
            os.symlink(entry, folder / entry.name)
    config = json.loads((tiny_checkpoint / "config.json").read_text())
    config["tts_model_type"] = "voice_design"
    config["talker_config"].update(spk_id={}, spk_is_dialect={})
    (folder / "config.json").write_text(json.dumps(config))
    model = load_model(folder)
    model.generation_config.update(do_sample=False, subtalker_dosample=False)
    engine = Qwen3Engine(model, EngineSettings(max_streams=2, voices_dir=folder / "voices"))
    server = start_server(engine)
    yield server
    server.stop()
    engine.close()


# ---- the public harness's `vllm-omni` target ---------------------------------------------


async def harness_request(url: str, text: str, voice: str) -> tuple[str, bytes]:
    """tts_bench's vllm-omni request and response handling: its canonical body, a raw PCM
    stream whose content type must be one of its PCM types, read as it arrives; 24 kHz
    mono s16le is what it expects (the target sends no sample-rate header)."""
    body = {
        "model": CUSTOM_VOICE_MODEL,
        "input": text,
        "voice": voice,
        "language": "English",
        "stream": True,
        "non_streaming_mode": False,
        "response_format": "pcm",
        "stream_format": "audio",
    }
    pcm = bytearray()
    async with aiohttp.ClientSession() as session, session.post(url + "/v1/audio/speech", json=body) as response:
        assert response.status == 200, await response.text()
        content_type = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        async for chunk in response.content.iter_any():
            pcm += chunk
    return content_type, bytes(pcm)


async def test_the_harness_vllm_omni_target_gets_raw_pcm_from_voice_tts_serve():
    server = ServerProcess()
    try:
        for text in ("The train to the coast leaves at half past nine.", "Please water the plants while I am away."):
            content_type, pcm = await harness_request(server.http_url, text, "default")
            assert content_type in {"audio/pcm", "audio/l16", "application/octet-stream", "audio/raw"}
            assert not pcm.startswith(b"RIFF") and len(pcm) % 2 == 0
            seconds = len(pcm) / 2 / 24000  # at the 24 kHz the target assumes: a plausible length
            assert 1.0 < seconds < 10.0
    finally:
        server.stop()


# ---- /v1/audio/speech --------------------------------------------------------------------


def test_custom_voice_as_the_example_client_sends_it(custom_voice, tiny_checkpoint):
    # openai_speech_client.py: model, input, voice (any case), response_format; then language.
    answer = speech(
        custom_voice,
        {
            "model": CUSTOM_VOICE_MODEL,
            "input": "The quick brown fox jumps over the lazy dog, and then it rests.",
            "voice": "Uncle_Fu",
            "response_format": "pcm",
            "language": "Auto",
            "stream": False,
        },
    )
    assert answer.status_code == 200, answer.text
    assert close_to(answer.content, golden_pcm(tiny_checkpoint, "A10_en_uncle_fu_auto_stream"))
    # max_new_tokens has the official meaning: 8 -> 7 frames (case A07).
    capped = speech(
        custom_voice,
        {
            "model": CUSTOM_VOICE_MODEL,
            "input": "Please read this sentence at a calm and steady pace.",
            "voice": "aiden",
            "response_format": "pcm",
            "max_new_tokens": 8,
            "task_type": "CustomVoice",
            "non_streaming_mode": False,
            "initial_codec_chunk_frames": 1,
            "stream": False,
        },
    )
    assert capped.status_code == 200, capped.text
    assert close_to(capped.content, golden_pcm(tiny_checkpoint, "A07_en_aiden_auto_stream_maxtokens"))


def sse_audio(answer: httpx.Response) -> list[bytes]:
    """The audio of each `speech.audio.delta` event of a server-sent events answer."""
    events = [json.loads(line[6:]) for line in answer.text.splitlines() if line.startswith("data: ")]
    assert events[-1]["type"] == "speech.audio.done", events[-1]
    return [base64.b64decode(event["audio"]) for event in events if event["type"] == "speech.audio.delta"]


def test_initial_codec_chunk_frames_sizes_the_first_chunk_only(custom_voice, tiny_checkpoint):
    body = {
        "input": "The quick brown fox jumps over the lazy dog, and then it rests.",
        "voice": "Uncle_Fu",
        "language": "Auto",
        "response_format": "pcm",
        "stream": True,
    }
    golden = golden_pcm(tiny_checkpoint, "A10_en_uncle_fu_auto_stream")
    for frames in (3, 8):
        deltas = sse_audio(speech(custom_voice, body | {"initial_codec_chunk_frames": frames}))
        assert len(deltas[0]) == frames * 1920 * 2, frames  # 24 kHz s16le: 1920 samples a frame
        assert all(len(delta) <= 4 * 1920 * 2 for delta in deltas[1:]), frames  # then one codec run each
        assert close_to(b"".join(deltas), golden), frames
    assert close_to(b"".join(sse_audio(speech(custom_voice, body))), golden)


def test_stream_true_means_server_sent_events_and_stream_format_audio_means_audio(custom_voice):
    body = {"input": "Hello there.", "voice": "vivian", "response_format": "pcm"}
    events = speech(custom_voice, body | {"stream": True})
    assert events.headers["content-type"].startswith("text/event-stream")
    lines = [json.loads(line[6:]) for line in events.text.splitlines() if line.startswith("data: ")]
    assert lines[-1]["type"] == "speech.audio.done" and lines[0]["type"] == "speech.audio.delta"
    pcm = b"".join(base64.b64decode(line["audio"]) for line in lines[:-1])
    streamed = speech(custom_voice, body | {"stream": True, "stream_format": "audio"})
    assert streamed.headers["content-type"] == "audio/pcm" and "content-length" not in streamed.headers
    whole = speech(custom_voice, body | {"stream": False})
    assert whole.headers["content-length"] == str(len(whole.content))
    assert same_audio(pcm, streamed.content) and same_audio(pcm, whole.content)


def test_voice_design_on_a_voice_design_checkpoint(voice_design, custom_voice, embedded):
    body = {"input": "Hello world", "task_type": "VoiceDesign", "instructions": "A warm, friendly female voice with a gentle tone"}
    answer = speech(voice_design, body | {"response_format": "pcm", "max_new_tokens": 12, "stream": False})
    assert answer.status_code == 200, answer.text
    assert 0 < len(answer.content) <= 11 * 1920 * 2
    no_description = speech(voice_design, {"input": "Hello world", "task_type": "VoiceDesign"})
    assert no_description.status_code == 400 and no_description.json()["error"]["param"] == "instructions"
    # Where the checkpoint is another kind, the refusal names it.
    refused = speech(custom_voice, body).json()["error"]
    assert refused["code"] == "unsupported_task" and refused["param"] == "task_type"
    assert "CustomVoice checkpoint" in refused["message"] and "VoiceDesign" in refused["message"]
    embedded_refusal = speech(embedded, body).json()["error"]
    assert embedded_refusal["code"] == "unsupported_task" and "preset voices only" in embedded_refusal["message"]


def inline_voices(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("inline-"))


def test_an_inline_reference_speaks_as_the_same_reference_uploaded(base, base_checkpoint, base_voices):
    reference = (base_checkpoint / "golden" / "ref_c.wav").read_bytes()
    uploaded = httpx.post(
        base.http_url + "/v1/audio/voices",
        data={"consent": "user_consent_id", "name": "calm_upload", "ref_text": TRANSCRIPT_C},
        files={"audio_sample": ("ref_c.wav", reference, "audio/wav")},
        timeout=60,
    )
    assert uploaded.status_code == 200, uploaded.text
    voice = uploaded.json()["voice"]
    assert voice | {"created_at": 0} == {
        "name": "calm_upload", "consent": "user_consent_id", "created_at": 0, "mime_type": "audio/wav",
        "file_size": len(reference), "mode": "icl", "ref_text": TRANSCRIPT_C,
    }
    body = {"model": "Qwen/Qwen3-TTS-12Hz-1.7B-Base", "input": SENTENCE, "response_format": "pcm", "stream": False}
    by_name = speech(base, body | {"voice": "calm_upload"})
    assert by_name.status_code == 200, by_name.text
    # As openai_speech_client.py sends a Base request: its default voice, a data URL, the transcript.
    inline = body | {"voice": "vivian", "task_type": "Base", "ref_audio": data_url(reference), "ref_text": TRANSCRIPT_C}
    first = speech(base, inline)
    assert first.status_code == 200, first.text
    assert same_audio(first.content, by_name.content)
    made = inline_voices(base_voices)
    assert len(made) == 1
    # Sent again (task_type inferred from ref_audio), the reference is not cloned again.
    again = speech(base, {k: v for k, v in inline.items() if k != "task_type"})
    assert same_audio(again.content, by_name.content) and inline_voices(base_voices) == made
    # The voices made from references are the server's cache, not the user's voices.
    listed = httpx.get(base.http_url + "/v1/audio/voices").json()
    assert listed["voices"] == ["calm_upload"] and [v["name"] for v in listed["uploaded_voices"]] == ["calm_upload"]
    # Each entry carries what the voice store kept of the upload.
    entry = listed["uploaded_voices"][0]
    assert {k: entry[k] for k in ("mode", "created_at", "consent", "ref_text")} == {
        "mode": "icl", "created_at": voice["created_at"], "consent": "user_consent_id", "ref_text": TRANSCRIPT_C,
    }
    assert [v["name"] for v in httpx.get(base.http_url + "/v1/voices").json()["voices"]] == ["calm_upload"]
    assert [v["name"] for v in httpx.get(base.http_url + "/v1/capabilities").json()["voices"]] == ["calm_upload"]
    unknown = speech(base, body | {"voice": "nobody"}).json()["error"]
    assert unknown["code"] == "invalid_voice" and "['calm_upload']" in unknown["message"]


def test_x_vector_only_mode_speaks_as_an_upload_without_transcript(base, base_checkpoint):
    reference = (base_checkpoint / "golden" / "ref_d_16k.wav").read_bytes()
    uploaded = httpx.post(
        base.http_url + "/v1/audio/voices",
        data={"consent": "c-2", "name": "xvec_upload"},
        files={"audio_sample": ("ref_d.wav", reference, "audio/wav")},
        timeout=60,
    )
    assert uploaded.status_code == 200 and "ref_text" not in uploaded.json()["voice"]
    body = {"input": SENTENCE, "response_format": "pcm", "stream": False}
    by_name = speech(base, body | {"voice": "xvec_upload"})
    inline = speech(base, body | {"task_type": "Base", "ref_audio": data_url(reference), "x_vector_only_mode": True})
    assert inline.status_code == by_name.status_code == 200
    assert same_audio(inline.content, by_name.content)


def test_audio_voices_delete_and_errors_in_vllm_omni_shapes(base, base_checkpoint):
    reference = (base_checkpoint / "golden" / "ref_c.wav").read_bytes()
    form = {"consent": "c-3", "name": "to_delete"}
    files = {"audio_sample": ("ref.wav", reference, "audio/wav")}
    assert httpx.post(base.http_url + "/v1/audio/voices", data=form, files=files, timeout=60).status_code == 200
    duplicate = httpx.post(base.http_url + "/v1/audio/voices", data=form, files=files, timeout=60)
    assert duplicate.status_code == 409 and duplicate.json()["error"]["code"] == "voice_exists"
    no_consent = httpx.post(base.http_url + "/v1/audio/voices", data={"name": "other"}, files=files, timeout=60)
    assert no_consent.status_code == 400 and "consent" in no_consent.json()["error"]["message"]
    reserved = httpx.post(base.http_url + "/v1/audio/voices", data={**form, "name": "inline-mine"}, files=files, timeout=60)
    assert reserved.status_code == 400 and "inline" in reserved.json()["error"]["message"]
    deleted = httpx.delete(base.http_url + "/v1/audio/voices/to_delete")
    assert deleted.json() == {"success": True, "message": "Voice 'to_delete' deleted successfully"}
    missing = httpx.delete(base.http_url + "/v1/audio/voices/to_delete")
    assert missing.status_code == 404 and missing.json() == {"success": False, "error": "Voice 'to_delete' not found"}
    assert "to_delete" not in httpx.get(base.http_url + "/v1/audio/voices").json()["voices"]


def bad_fields(base_checkpoint: Path) -> dict[str, tuple[dict, int, str, str]]:
    """request fields -> (status, error code, words the message must hold)."""
    reference = (base_checkpoint / "golden" / "ref_c.wav").read_bytes()
    clone = {"task_type": "Base", "ref_text": TRANSCRIPT_C}
    return {
        "task_type wrong type": ({"task_type": 3}, 400, "invalid_message", "task_type"),
        "unknown task": ({"task_type": "Cloning"}, 400, "invalid_message", "'CustomVoice', 'VoiceDesign' or 'Base'"),
        "task of another checkpoint": ({"task_type": "CustomVoice"}, 400, "unsupported_task", "Base checkpoint"),
        "ref_audio wrong type": ({**clone, "ref_audio": 5}, 400, "invalid_message", "ref_audio"),
        "ref_audio not a data URL": ({**clone, "ref_audio": "UklGRg=="}, 400, "invalid_audio", "base64 data URL"),
        "ref_audio URL while URLs are off": (
            {**clone, "ref_audio": "https://example.com/reference.wav"}, 400, "reference_url_refused", "--reference-url-hosts",
        ),
        "ref_audio file while files are off": (
            {**clone, "ref_audio": "file:///etc/passwd"}, 400, "reference_url_refused", "--reference-file-dir",
        ),
        "oversized reference": (
            {**clone, "ref_audio": data_url(bytes(300 * 1024))}, 413, "request_too_large", "max_voice_upload_bytes",
        ),
        "not audio": ({**clone, "ref_audio": data_url(b"not audio" * 100)}, 400, "invalid_audio", "not a readable audio file"),
        "too short": ({**clone, "ref_audio": data_url(wav_bytes(tone(0.3), 24000))}, 400, "invalid_audio", "at least 1 s"),
        "bad base64": ({**clone, "ref_audio": "data:audio/wav;base64,%%%"}, 400, "invalid_audio", "not valid base64"),
        "no transcript": ({"task_type": "Base", "ref_audio": data_url(reference)}, 400, "invalid_message", "ref_text"),
        "ref_text wrong type": ({**clone, "ref_text": ["a"], "ref_audio": data_url(reference)}, 400, "invalid_message", "ref_text"),
        "x_vector_only_mode wrong type": (
            {"task_type": "Base", "ref_audio": data_url(reference), "x_vector_only_mode": [1]}, 400, "invalid_message", "x_vector_only_mode",
        ),
        "max_new_tokens too small": ({"max_new_tokens": 1}, 400, "invalid_message", "max_new_tokens"),
        "max_new_tokens wrong type": ({"max_new_tokens": "ten"}, 400, "invalid_message", "max_new_tokens"),
        "initial_codec_chunk_frames negative": ({"initial_codec_chunk_frames": -1}, 400, "invalid_message", "initial_codec_chunk_frames"),
        "initial_codec_chunk_frames zero": ({"initial_codec_chunk_frames": 0}, 400, "invalid_message", "from 1 to 32 codec frames"),
        "initial_codec_chunk_frames too large": ({"initial_codec_chunk_frames": 33}, 400, "invalid_message", "from 1 to 32"),
        "initial_codec_chunk_frames wrong type": ({"initial_codec_chunk_frames": 2.5}, 400, "invalid_message", "initial_codec_chunk_frames"),
        "non_streaming_mode wrong type": ({"non_streaming_mode": [True]}, 400, "invalid_message", "non_streaming_mode"),
        "a vLLM-Omni field not implemented": ({"speaker_embedding": [0.1, 0.2]}, 400, "invalid_message", "speaker_embedding"),
        "a field nobody defines": ({"non_streaming": False}, 400, "invalid_message", "Extra inputs are not permitted"),
    }


def test_bad_values_of_the_new_fields_are_refused_and_leave_nothing(base, base_checkpoint, base_voices):
    before = sorted(p.name for p in base_voices.iterdir())
    for case, (fields, status, code, words) in bad_fields(base_checkpoint).items():
        answer = speech(base, {"input": SENTENCE, **fields})
        error = answer.json()["error"]
        assert (answer.status_code, error["code"]) == (status, code), (case, error)
        assert words in error["message"], (case, error)
    assert sorted(p.name for p in base_voices.iterdir()) == before
    assert httpx.get(base.http_url + "/v1/capabilities").json()["active_streams"] == 0


@pytest.fixture
def file_server(tmp_path):
    """An HTTP server on 127.0.0.1 serving `tmp_path`."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_reference_urls_and_files_only_where_the_operator_allows(base_checkpoint, tmp_path, file_server):
    shutil.copy(base_checkpoint / "golden" / "ref_c.wav", tmp_path / "ref_c.wav")
    (tmp_path / "big.wav").write_bytes(bytes(300 * 1024))
    engine = greedy_engine(base_checkpoint, tmp_path / "voices")
    server = start_server(
        engine, reference_file_dir=str(tmp_path), reference_url_hosts="127.0.0.1", max_voice_upload_bytes=256 * 1024
    )
    try:
        body = {"input": SENTENCE, "task_type": "Base", "ref_text": TRANSCRIPT_C, "response_format": "pcm", "stream": False}
        from_file = speech(server, body | {"ref_audio": f"file://{tmp_path}/ref_c.wav"})
        assert from_file.status_code == 200, from_file.text
        fetched = speech(server, body | {"ref_audio": f"{file_server}/ref_c.wav"})
        assert fetched.status_code == 200, fetched.text
        assert same_audio(fetched.content, from_file.content)
        outside = speech(server, body | {"ref_audio": f"file://{base_checkpoint}/golden/ref_c.wav"}).json()["error"]
        assert outside["code"] == "reference_url_refused" and "outside" in outside["message"]
        other_host = speech(server, body | {"ref_audio": file_server.replace("127.0.0.1", "localhost") + "/ref_c.wav"})
        assert other_host.json()["error"]["code"] == "reference_url_refused" and "127.0.0.1" in other_host.json()["error"]["message"]
        too_large = speech(server, body | {"ref_audio": f"{file_server}/big.wav"})
        assert too_large.status_code == 413 and "max_voice_upload_bytes" in too_large.json()["error"]["message"]
        missing = speech(server, body | {"ref_audio": f"{file_server}/none.wav"}).json()["error"]
        assert "HTTP 404" in missing["message"]
    finally:
        server.stop()
        engine.close()
