"""Reference recordings: how an uploaded or inline one is read and checked, where the bytes of an
inline one (vLLM-Omni's `ref_audio`) may come from, and the voice it becomes.

`ref_audio` is a base64 `data:` URL. An `http(s)://` URL is fetched only from the hosts the
server's `--reference-url-hosts` names, and a `file://` path only inside `--reference-file-dir`;
both are off by default. Whatever the source, the recording meets the limits of a voice upload
(`max_voice_upload_bytes`, `min_voice_reference_s`, the formats and lengths the engine clones
from), and a fetch that takes longer than `reference_fetch_timeout_s` is refused.

A reference becomes a cloned voice of the voice store named by its content (the recording's bytes,
the cloning mode and the transcript): the same reference sent again speaks at once with the voice
made the first time, from every API worker, and after a restart. At most `max_inline_voices`
are kept; the oldest beyond that are deleted. They are not listed with the uploaded voices, and
an upload may not take their name prefix.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import io
import logging
import struct
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import httpx
import numpy as np
import soundfile as sf

from engine.server.state import INLINE_PREFIX, ServerState, is_inline_voice
from voice_tts.protocol import ErrorCode

log = logging.getLogger(__name__)

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


class ReferenceRefused(ValueError):
    """A reference that cannot be used: `status` and `code` for the HTTP answer, and a message
    that names what is wrong."""

    def __init__(self, message: str, code: str = ErrorCode.INVALID_AUDIO, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


@dataclass(frozen=True)
class Reference:
    """An inline reference as a request gives it."""

    audio: str
    text: str | None  # None: an x-vector voice (the recording alone)

    @property
    def mode(self) -> str:
        return "x_vector" if self.text is None else "icl"


async def reference_voice(state: ServerState, reference: Reference) -> str:
    """The voice id that speaks with `reference`, cloned now unless its content was cloned
    before. Raises ReferenceRefused."""
    data = await _reference_bytes(state, reference.audio)
    digest = hashlib.sha256()
    for part in (data, reference.mode.encode(), (reference.text or "").encode()):
        digest.update(len(part).to_bytes(8, "little") + part)
    name = INLINE_PREFIX + digest.hexdigest()[:32]
    if any(voice.name == name for voice in state.description.voices):
        return name
    try:
        audio, sample_rate = decode_audio(data)
        check_length(audio, sample_rate, state.settings.min_voice_reference_s)
    except BadUpload as e:
        raise ReferenceRefused(f"ref_audio: {e}") from None
    engine = state.engine
    try:
        await asyncio.to_thread(engine.create_voice, name, audio, sample_rate, reference.text)
    except ValueError as e:
        if "already exists" not in str(e):  # another request made it meanwhile
            raise ReferenceRefused(f"ref_audio: {e}") from None
    except OSError as e:
        raise ReferenceRefused(f"ref_audio: {e}", ErrorCode.VOICE_STORE_ERROR, 500) from None
    state.refresh_description()
    await _forget_oldest(state)
    return name


async def _forget_oldest(state: ServerState) -> None:
    """Engines list cloned voices oldest first: those beyond `max_inline_voices` go."""
    inline = [voice.name for voice in state.description.voices if is_inline_voice(voice.name)]
    excess = inline[: max(0, len(inline) - state.settings.max_inline_voices)]
    for name in excess:
        try:
            await asyncio.to_thread(state.engine.delete_voice, name)
        except (ValueError, OSError) as e:
            log.warning("could not delete the inline reference voice %s: %s", name, e)
    if excess:
        state.refresh_description()


async def _reference_bytes(state: ServerState, source: str) -> bytes:
    settings = state.settings
    limit = settings.max_voice_upload_bytes
    scheme = source.split(":", 1)[0].lower() if ":" in source else ""
    if scheme == "data":
        return _data_url_bytes(source, limit)
    if scheme in ("http", "https"):
        hosts = _names(settings.reference_url_hosts)
        if not hosts:
            raise ReferenceRefused(
                "ref_audio: this server does not fetch URLs (its --reference-url-hosts is not set); "
                "send the recording as a base64 data URL (data:audio/wav;base64,...)",
                "reference_url_refused",
            )
        return await _fetch(source, hosts, limit, settings.reference_fetch_timeout_s)
    if scheme == "file":
        if settings.reference_file_dir is None:
            raise ReferenceRefused(
                "ref_audio: this server reads no local files (its --reference-file-dir is not set); "
                "send the recording as a base64 data URL (data:audio/wav;base64,...)",
                "reference_url_refused",
            )
        return _read_file(source, Path(settings.reference_file_dir), limit)
    raise ReferenceRefused(
        "ref_audio must be a base64 data URL (data:audio/wav;base64,...), or an http(s):// or "
        "file:// URL where the server allows them"
    )


def _too_large(size: int, limit: int) -> ReferenceRefused:
    return ReferenceRefused(
        f"ref_audio has {size} bytes; the limit for a reference recording is {limit} "
        "(the server's max_voice_upload_bytes)",
        ErrorCode.REQUEST_TOO_LARGE,
        413,
    )


def _data_url_bytes(source: str, limit: int) -> bytes:
    header, comma, payload = source.partition(",")
    if not comma or not header.lower().endswith(";base64"):
        raise ReferenceRefused("ref_audio: a data URL must be base64 (data:audio/wav;base64,...)")
    if len(payload) // 4 * 3 > limit + 2:  # known before decoding
        raise _too_large(len(payload) // 4 * 3, limit)
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ReferenceRefused(f"ref_audio: the data URL is not valid base64 ({e})") from None
    if len(data) > limit:
        raise _too_large(len(data), limit)
    return data


def _names(hosts: str | None) -> frozenset[str]:
    return frozenset(host.strip().lower() for host in (hosts or "").split(",") if host.strip())


async def _fetch(url: str, hosts: frozenset[str], limit: int, timeout_s: float) -> bytes:
    host = (urlsplit(url).hostname or "").lower()
    if host not in hosts:
        raise ReferenceRefused(
            f"ref_audio: host {host!r} is not one this server fetches from ({', '.join(sorted(hosts))})",
            "reference_url_refused",
        )
    data = bytearray()
    try:
        async with asyncio.timeout(timeout_s), httpx.AsyncClient(follow_redirects=False) as client:
            async with client.stream("GET", url) as response:
                if response.status_code != 200:
                    raise ReferenceRefused(f"ref_audio: {url} answered HTTP {response.status_code}")
                async for chunk in response.aiter_bytes():
                    data += chunk
                    if len(data) > limit:
                        raise _too_large(len(data), limit)
    except TimeoutError:
        raise ReferenceRefused(
            f"ref_audio: {url} did not arrive within {timeout_s:g} s", ErrorCode.REQUEST_TIMEOUT
        ) from None
    except httpx.HTTPError as e:
        raise ReferenceRefused(f"ref_audio: could not fetch {url}: {e}") from None
    return bytes(data)


def _read_file(url: str, folder: Path, limit: int) -> bytes:
    path = Path(unquote(urlsplit(url).path)).resolve()
    if not path.is_relative_to(folder.resolve()):
        raise ReferenceRefused(
            f"ref_audio: {path} is outside the folder this server reads references from",
            "reference_url_refused",
        )
    try:
        size = path.stat().st_size
        if size > limit:
            raise _too_large(size, limit)
        return path.read_bytes()
    except OSError as e:
        raise ReferenceRefused(f"ref_audio: cannot read {path}: {e.strerror or e}") from None
