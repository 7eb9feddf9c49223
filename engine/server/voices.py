"""Voices over the wire: list (`GET /v1/voices`), clone (`POST /v1/voices`), delete
(`DELETE /v1/voices/{id}`).

An upload is multipart/form-data, shaped like vLLM-Omni's voice upload: the reference recording
in `audio_sample` (WAV, FLAC or OGG; `file` is accepted too), the voice's `name`, and optionally
`ref_text`, the recording's transcript (given: an in-context "icl" voice; left out: an x-vector
voice). The body is refused with 413 before it is read whole when it is over
`max_voice_upload_bytes`. Every refusal names what is wrong and leaves the voice store unchanged:
not audio, unreadable or truncated files, too short (under the server's `min_voice_reference_s`,
or under what the model can clone from) or too long, silence, absurd sample rates,
duplicate names, deleting a preset, an engine that cannot clone, an unwritable voices directory.
Several channels are mixed down to one, as the official reference loader does.
"""

from __future__ import annotations

import asyncio
import io
import struct
from typing import AsyncIterator

import numpy as np
import soundfile as sf
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engine.server.speech import RefusedBody, openai_error, read_body
from engine.server.state import EngineDescription, ServerState
from voice_tts.protocol import CreatedVoice, ErrorCode, VoiceList

AUDIO_FIELDS = ("audio_sample", "file")


class BadUpload(ValueError):
    pass


def decode_audio(data: bytes) -> tuple[np.ndarray, int]:
    """A reference recording's samples ([samples] or [samples, channels] float32) and rate."""
    if not data:
        raise BadUpload("the audio file is empty")
    _check_wav_length(data)
    try:
        audio, sample_rate = sf.read(io.BytesIO(data), dtype="float32", always_2d=False)
    except (sf.LibsndfileError, RuntimeError, TypeError, ValueError) as e:
        raise BadUpload(f"not a readable audio file (WAV, FLAC or OGG): {e}") from e
    return audio, int(sample_rate)


def check_length(audio: np.ndarray, sample_rate: int, min_seconds: float) -> None:
    """The server's minimum for uploaded voices (the model's own limits are the engine's)."""
    seconds = len(audio) / sample_rate
    if seconds < min_seconds:
        raise BadUpload(
            f"the reference is {seconds:.2f} s long; this server makes voices from at least {min_seconds:g} s "
            "of speech (its min_voice_reference_s)"
        )


def _check_wav_length(data: bytes) -> None:
    """A WAV file whose data chunk is shorter than its header says was cut off in transit;
    libsndfile would read the part that is there without complaint."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return
    offset = 12
    while offset + 8 <= len(data):
        chunk, size = data[offset : offset + 4], struct.unpack("<I", data[offset + 4 : offset + 8])[0]
        if chunk == b"data":
            if size != 0xFFFFFFFF and offset + 8 + size > len(data):
                raise BadUpload(f"the WAV file is truncated: its data chunk should hold {size} bytes, {len(data) - offset - 8} arrived")
            return
        offset += 8 + size + (size & 1)
    raise BadUpload("the WAV file has no data chunk (truncated?)")


async def _read_upload(request: Request, body: bytes, limit: int) -> tuple[str, str | None, bytes]:
    """(name, ref_text or None, audio file bytes) of a multipart upload."""

    async def stream() -> AsyncIterator[bytes]:
        yield body

    try:
        form = await MultiPartParser(request.headers, stream(), max_files=1, max_fields=8, max_part_size=limit).parse()
    except MultiPartException as e:
        raise BadUpload(f"not a multipart/form-data upload: {e.message}") from e
    try:
        upload = next((form[f] for f in AUDIO_FIELDS if isinstance(form.get(f), UploadFile)), None)
        if upload is None:
            raise BadUpload("the upload has no audio file (field 'audio_sample')")
        name = form.get("name")
        if not isinstance(name, str) or not name:
            raise BadUpload("the upload has no voice 'name'")
        ref_text = form.get("ref_text")
        if ref_text is not None and not isinstance(ref_text, str):
            raise BadUpload("'ref_text' must be a text field")
        return name, ref_text or None, await upload.read()
    finally:
        await form.close()  # spooled file parts


class VoicesEndpoint:
    def __init__(self, state: ServerState) -> None:
        self._state = state

    async def list(self, request: Request) -> Response:
        body = VoiceList(voices=list(self._state.description.voices))
        return Response(body.model_dump_json(), media_type="application/json")

    async def create(self, request: Request) -> Response:
        state = self._state
        engine = state.engine
        if not hasattr(engine, "create_voice"):
            return openai_error(400, f"this engine ({state.description.backend}) cannot clone voices", ErrorCode.CLONING_UNSUPPORTED)
        limit = state.settings.max_voice_upload_bytes
        try:
            body = await read_body(request, state.settings, limit)
        except RefusedBody as refused:
            return refused.response
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            return openai_error(400, "upload the voice as multipart/form-data (audio_sample, name, ref_text)", ErrorCode.INVALID_AUDIO)
        try:
            name, ref_text, data = await _read_upload(request, body, limit)
            audio, sample_rate = decode_audio(data)
            check_length(audio, sample_rate, state.settings.min_voice_reference_s)
        except BadUpload as e:
            return openai_error(400, str(e), ErrorCode.INVALID_AUDIO)
        try:
            created = await asyncio.to_thread(engine.create_voice, name, audio, sample_rate, ref_text)
        except ValueError as e:
            message = str(e)
            if "already exists" in message or "name of a preset" in message:
                return openai_error(409, message, ErrorCode.VOICE_EXISTS, param="name")
            if "cannot clone voices" in message:
                return openai_error(400, message, ErrorCode.CLONING_UNSUPPORTED)
            return openai_error(400, message, ErrorCode.INVALID_AUDIO)
        except OSError as e:
            return openai_error(500, str(e), ErrorCode.VOICE_STORE_ERROR)
        state.description = EngineDescription.of(engine)
        return Response(CreatedVoice(**created).model_dump_json(), status_code=201, media_type="application/json")

    async def delete(self, request: Request) -> Response:
        state = self._state
        voice = request.path_params["voice_id"]
        if not hasattr(state.engine, "delete_voice"):
            return openai_error(400, f"this engine ({state.description.backend}) has no cloned voices", ErrorCode.CLONING_UNSUPPORTED)
        try:
            deleted = await asyncio.to_thread(state.engine.delete_voice, voice)
        except ValueError as e:
            return openai_error(400, str(e), ErrorCode.INVALID_VOICE)
        except OSError as e:
            return openai_error(500, str(e), ErrorCode.VOICE_STORE_ERROR)
        if not deleted:
            return openai_error(404, f"no cloned voice {voice!r}", ErrorCode.VOICE_NOT_FOUND)
        state.description = EngineDescription.of(state.engine)
        return JSONResponse({"id": voice.lower(), "deleted": True})
