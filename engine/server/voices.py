"""Voices over the wire: list (`GET /v1/voices`), clone (`POST /v1/voices`), delete
(`DELETE /v1/voices/{id}`); and the same store in vLLM-Omni's shapes at `/v1/audio/voices`
(docs/vllm-omni.md): `GET` answers `voices` (names) and `uploaded_voices`, `POST` takes its
form (`audio_sample`, `consent`, `name`, `ref_text`, `speaker_description`) and answers
`{"success": true, "voice": {...}}`, `DELETE /v1/audio/voices/{name}` answers
`{"success": true, "message": ...}` (404: `{"success": false, "error": ...}`).

An upload is multipart/form-data, shaped like vLLM-Omni's voice upload: the reference recording
in `audio_sample` (WAV, FLAC or OGG; `file` is accepted too), the voice's `name`, and optionally
`ref_text`, the recording's transcript (given: an in-context "icl" voice; left out: an x-vector
voice). The body is refused with 413 before it is read whole when it is over
`max_voice_upload_bytes`. Every refusal names what is wrong and leaves the voice store unchanged:
not audio, unreadable or truncated files, too short (under the server's `min_voice_reference_s`,
or under what the model can clone from) or too long, silence, absurd sample rates,
duplicate names (and the name prefix of voices made from inline references), deleting a preset,
an engine that cannot clone, an unwritable voices directory.
Several channels are mixed down to one, as the official reference loader does.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import AsyncIterator

from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engine.server.references import BadUpload, check_length, decode_audio
from engine.server.speech import RefusedBody, openai_error, read_body
from engine.server.state import INLINE_PREFIX, ServerState, is_inline_voice
from voice_tts.protocol import CreatedVoice, ErrorCode, VoiceList

AUDIO_FIELDS = ("audio_sample", "file")


@dataclass(frozen=True)
class Upload:
    """A multipart voice upload: the voice's name, its recording, and what the form says of it."""

    name: str
    ref_text: str | None
    data: bytes
    media_type: str | None
    consent: str | None
    speaker_description: str | None


def _text_field(form, field: str) -> str | None:
    value = form.get(field)
    if value is not None and not isinstance(value, str):
        raise BadUpload(f"'{field}' must be a text field")
    return value or None


async def _read_upload(request: Request, body: bytes, limit: int) -> Upload:
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
        name = _text_field(form, "name")
        if name is None:
            raise BadUpload("the upload has no voice 'name'")
        if is_inline_voice(name):
            raise BadUpload(f"voice names starting with {INLINE_PREFIX!r} are kept for inline references (ref_audio)")
        return Upload(
            name=name,
            ref_text=_text_field(form, "ref_text"),
            data=await upload.read(),
            media_type=upload.content_type,
            consent=_text_field(form, "consent"),
            speaker_description=_text_field(form, "speaker_description"),
        )
    finally:
        await form.close()  # spooled file parts


class VoicesEndpoint:
    def __init__(self, state: ServerState) -> None:
        self._state = state

    async def list(self, request: Request) -> Response:
        return Response(VoiceList(voices=self._state.description.listed_voices).model_dump_json(), media_type="application/json")

    async def omni_list(self, request: Request) -> Response:
        voices = self._state.description.listed_voices
        # What the store keeps of each upload, in vLLM-Omni's names; a fact it does not have
        # (no consent named, no transcript) is left out rather than sent as null.
        uploaded = [
            {"name": voice.name, "description": voice.description}
            | voice.model_dump(include={"mode", "created_at", "consent", "ref_text"}, exclude_none=True)
            for voice in voices
            if voice.mode is not None
        ]
        return JSONResponse({"voices": [voice.name for voice in voices], "uploaded_voices": uploaded})

    async def create(self, request: Request) -> Response:
        created = await self._create(request, consent_required=False)
        if isinstance(created, Response):
            return created
        voice, _ = created
        return Response(CreatedVoice(**voice).model_dump_json(), status_code=201, media_type="application/json")

    async def omni_create(self, request: Request) -> Response:
        created = await self._create(request, consent_required=True)
        if isinstance(created, Response):
            return created
        voice, upload = created
        answer = {
            "name": voice["id"],
            "consent": upload.consent,
            "created_at": voice["created_at"],
            "mime_type": upload.media_type,
            "file_size": len(upload.data),
            "mode": voice["mode"],
        }
        if upload.ref_text is not None:
            answer["ref_text"] = upload.ref_text
        if upload.speaker_description is not None:
            answer["speaker_description"] = upload.speaker_description
        return JSONResponse({"success": True, "voice": answer})

    async def _create(self, request: Request, consent_required: bool) -> tuple[dict, Upload] | Response:
        """The voice made from a multipart upload, or the response that refuses it."""
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
            upload = await _read_upload(request, body, limit)
            if consent_required and upload.consent is None:
                raise BadUpload("the upload has no 'consent' (the consent recording's id)")
            audio, sample_rate = decode_audio(upload.data)
            check_length(audio, sample_rate, state.settings.min_voice_reference_s)
        except BadUpload as e:
            return openai_error(400, str(e), ErrorCode.INVALID_AUDIO)
        try:
            created = await asyncio.to_thread(
                engine.create_voice, upload.name, audio, sample_rate, upload.ref_text, upload.consent
            )
        except ValueError as e:
            message = str(e)
            if "already exists" in message or "name of a preset" in message:
                return openai_error(409, message, ErrorCode.VOICE_EXISTS, param="name")
            if "cannot clone voices" in message:
                return openai_error(400, message, ErrorCode.CLONING_UNSUPPORTED)
            return openai_error(400, message, ErrorCode.INVALID_AUDIO)
        except OSError as e:
            return openai_error(500, str(e), ErrorCode.VOICE_STORE_ERROR)
        state.refresh_description()
        return created, upload

    async def delete(self, request: Request) -> Response:
        voice = request.path_params["voice_id"]
        deleted = await self._delete(voice)
        if deleted is not True:
            return deleted or openai_error(404, f"no cloned voice {voice!r}", ErrorCode.VOICE_NOT_FOUND)
        return JSONResponse({"id": voice.lower(), "deleted": True})

    async def omni_delete(self, request: Request) -> Response:
        voice = request.path_params["name"]
        deleted = await self._delete(voice)
        if deleted is not True:
            return deleted or JSONResponse({"success": False, "error": f"Voice {voice!r} not found"}, status_code=404)
        return JSONResponse({"success": True, "message": f"Voice {voice!r} deleted successfully"})

    async def _delete(self, voice: str) -> bool | Response:
        """True once the voice is gone, False when there was none, or the error's answer."""
        state = self._state
        if not hasattr(state.engine, "delete_voice"):
            return openai_error(400, f"this engine ({state.description.backend}) has no cloned voices", ErrorCode.CLONING_UNSUPPORTED)
        try:
            deleted = await asyncio.to_thread(state.engine.delete_voice, voice)
        except ValueError as e:
            return openai_error(400, str(e), ErrorCode.INVALID_VOICE)
        except OSError as e:
            return openai_error(500, str(e), ErrorCode.VOICE_STORE_ERROR)
        if deleted:
            state.refresh_description()
        return deleted
