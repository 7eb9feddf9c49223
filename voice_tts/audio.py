"""Audio utilities for mono s16le PCM: resampling, G.711 (µ-law and A-law) and WAV containers.

Everything here works on `bytes` of little-endian int16 samples, the format every engine
stream produces, so adapters and the server convert without knowing the backend.
"""

from __future__ import annotations

import io
import wave
from functools import lru_cache
from os import PathLike

import numpy as np
import soxr

_PCM16 = np.dtype("<i2")


def _samples(pcm: bytes) -> np.ndarray:
    if len(pcm) % 2:
        raise ValueError(f"s16le PCM must have an even number of bytes, got {len(pcm)}")
    return np.frombuffer(pcm, dtype=_PCM16)


def _check_rate(rate: int) -> None:
    if not isinstance(rate, int) or rate <= 0:
        raise ValueError(f"sample rate must be a positive integer, got {rate!r}")


def _to_float(samples: np.ndarray) -> np.ndarray:
    return samples.astype(np.float32) / 32768.0


def _to_pcm16(samples: np.ndarray) -> bytes:
    # Rounded, not dithered: soxr's own int16 output adds random dither, which would make
    # the same input give different bytes on every run.
    return np.clip(np.rint(samples * 32768.0), -32768, 32767).astype(_PCM16).tobytes()


class PCMResampler:
    """Streaming resampler: feed chunks with `process`, end with `flush`.

    One soxr stream carries the filter state across chunks, so chunk boundaries do not click.
    Input may be split at odd byte offsets (network reads); a dangling byte waits for the next call.
    The output is a deterministic function of the input and its chunking.
    """

    def __init__(self, from_rate: int, to_rate: int, quality: str = "HQ") -> None:
        _check_rate(from_rate)
        _check_rate(to_rate)
        self.from_rate = from_rate
        self.to_rate = to_rate
        self._carry = b""
        self._stream = (
            None
            if from_rate == to_rate
            else soxr.ResampleStream(from_rate, to_rate, 1, dtype="float32", quality=quality)
        )

    def process(self, pcm: bytes) -> bytes:
        data = self._carry + bytes(pcm)
        cut = len(data) - len(data) % 2
        self._carry = data[cut:]
        data = data[:cut]
        if self._stream is None:
            return data
        return _to_pcm16(self._stream.resample_chunk(_to_float(np.frombuffer(data, dtype=_PCM16))))

    def flush(self) -> bytes:
        """Return the samples held back by the filter; the resampler is finished afterwards."""
        if self._carry:
            raise ValueError("s16le PCM stream ended in the middle of a sample")
        if self._stream is None:
            return b""
        return _to_pcm16(self._stream.resample_chunk(np.zeros(0, dtype=np.float32), last=True))


def resample_pcm16(pcm: bytes, from_rate: int, to_rate: int) -> bytes:
    """Resample a whole clip at once."""
    _check_rate(from_rate)
    _check_rate(to_rate)
    samples = _samples(pcm)
    if from_rate == to_rate or samples.size == 0:
        return samples.tobytes()
    return _to_pcm16(soxr.resample(_to_float(samples), from_rate, to_rate, quality="HQ"))


# G.711 µ-law, bit-exact with the CCITT reference (and CPython's former `audioop`):
# 16-bit samples are reduced to 14 bits, biased, and coded as segment + 4-bit mantissa.
_ULAW_BIAS = 0x84
_ULAW_CLIP = 8159
_ULAW_SEGMENT_ENDS = np.array([0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF])


@lru_cache(maxsize=1)
def _mulaw_encode_table() -> np.ndarray:
    """µ-law byte for every int16 value, indexed by the value's uint16 bit pattern."""
    values = np.arange(-32768, 32768, dtype=np.int32) >> 2
    mask = np.where(values < 0, 0x7F, 0xFF)
    magnitude = np.minimum(np.abs(values), _ULAW_CLIP) + (_ULAW_BIAS >> 2)
    segment = np.searchsorted(_ULAW_SEGMENT_ENDS, magnitude, side="left")
    code = np.where(
        segment >= 8,
        0x7F,
        (segment << 4) | ((magnitude >> (np.minimum(segment, 7) + 1)) & 0x0F),
    )
    table = np.empty(65536, dtype=np.uint8)
    table[np.arange(-32768, 32768, dtype=np.int32).astype(np.uint16)] = (code ^ mask).astype(np.uint8)
    return table


@lru_cache(maxsize=1)
def _mulaw_decode_table() -> np.ndarray:
    codes = ~np.arange(256, dtype=np.int32) & 0xFF
    magnitude = (((codes & 0x0F) << 3) + _ULAW_BIAS) << ((codes & 0x70) >> 4)
    return np.where(codes & 0x80, _ULAW_BIAS - magnitude, magnitude - _ULAW_BIAS).astype(_PCM16)


def pcm16_to_mulaw(pcm: bytes) -> bytes:
    """Encode s16le PCM as G.711 µ-law, one byte per sample."""
    return _mulaw_encode_table()[_samples(pcm).view(np.uint16)].tobytes()


def mulaw_to_pcm16(data: bytes) -> bytes:
    """Decode G.711 µ-law bytes to s16le PCM."""
    return _mulaw_decode_table()[np.frombuffer(data, dtype=np.uint8)].tobytes()


# G.711 A-law, bit-exact with the CCITT reference (and CPython's former `audioop`): 16-bit
# samples are reduced to 13 bits and coded as segment + 4-bit mantissa, with even bits inverted.
_ALAW_SEGMENT_ENDS = np.array([0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF])


@lru_cache(maxsize=1)
def _alaw_encode_table() -> np.ndarray:
    """A-law byte for every int16 value, indexed by the value's uint16 bit pattern."""
    values = np.arange(-32768, 32768, dtype=np.int32) >> 3
    mask = np.where(values >= 0, 0xD5, 0x55)
    magnitude = np.where(values >= 0, values, -values - 1)
    segment = np.searchsorted(_ALAW_SEGMENT_ENDS, magnitude, side="left")
    shift = np.where(segment < 2, 1, np.minimum(segment, 7))
    code = np.where(segment >= 8, 0x7F, (segment << 4) | ((magnitude >> shift) & 0x0F))
    table = np.empty(65536, dtype=np.uint8)
    table[np.arange(-32768, 32768, dtype=np.int32).astype(np.uint16)] = (code ^ mask).astype(np.uint8)
    return table


@lru_cache(maxsize=1)
def _alaw_decode_table() -> np.ndarray:
    codes = np.arange(256, dtype=np.int32) ^ 0x55
    segment = (codes & 0x70) >> 4
    magnitude = ((codes & 0x0F) << 4) + np.where(segment == 0, 8, 0x108)
    magnitude = np.where(segment > 1, magnitude << np.maximum(segment - 1, 0), magnitude)
    return np.where(codes & 0x80, magnitude, -magnitude).astype(_PCM16)


def pcm16_to_alaw(pcm: bytes) -> bytes:
    """Encode s16le PCM as G.711 A-law, one byte per sample."""
    return _alaw_encode_table()[_samples(pcm).view(np.uint16)].tobytes()


def alaw_to_pcm16(data: bytes) -> bytes:
    """Decode G.711 A-law bytes to s16le PCM."""
    return _alaw_decode_table()[np.frombuffer(data, dtype=np.uint8)].tobytes()


# The wire encodings of a stream's audio (`StreamRequest.format`) and their codecs: s16le PCM
# as it is, or G.711 at one byte a sample. Every door encodes (and a client decodes) through these.
_ENCODERS = {"pcm16": bytes, "mulaw": pcm16_to_mulaw, "alaw": pcm16_to_alaw}
_DECODERS = {"pcm16": bytes, "mulaw": mulaw_to_pcm16, "alaw": alaw_to_pcm16}


def encode_pcm16(pcm: bytes, audio_format: str) -> bytes:
    """s16le PCM in the wire encoding `audio_format` (`voice_tts.request.AUDIO_FORMATS`)."""
    return _ENCODERS[audio_format](pcm)


def decode_to_pcm16(data: bytes, audio_format: str) -> bytes:
    """Audio in the wire encoding `audio_format` back to s16le PCM."""
    return _DECODERS[audio_format](data)


def wav_bytes(pcm: bytes, rate: int, channels: int = 1) -> bytes:
    """A complete 16-bit WAV file holding `pcm`."""
    _check_rate(rate)
    if len(pcm) % (2 * channels):
        raise ValueError(f"{len(pcm)} bytes is not a whole number of {channels}-channel s16le frames")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm)
    return buffer.getvalue()


def write_wav(path: str | PathLike[str], pcm: bytes, rate: int, channels: int = 1) -> None:
    with open(path, "wb") as out:
        out.write(wav_bytes(pcm, rate, channels))


def scaled_pcm16(pcm: bytes, gain: float) -> bytes:
    """s16le `pcm` `gain` times as loud, clipped to the sample range."""
    if gain == 1.0:
        return pcm
    return _to_pcm16(_to_float(_samples(pcm)) * gain)
