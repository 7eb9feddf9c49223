"""An independent G.711 implementation to check ours against: CPython's `audioop` (the CCITT
reference code; in the standard library up to 3.12, `audioop-lts` after)."""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import audioop

# A stream format → audioop's encoder and decoder for it.
_CODECS = {"mulaw": (audioop.lin2ulaw, audioop.ulaw2lin), "alaw": (audioop.lin2alaw, audioop.alaw2lin)}
G711_FORMATS = tuple(_CODECS)


def reference_encode(pcm: bytes, audio_format: str) -> bytes:
    """s16le PCM as G.711 `audio_format` ("mulaw" or "alaw") bytes, by audioop."""
    return _CODECS[audio_format][0](pcm, 2)


def reference_decode(data: bytes, audio_format: str) -> bytes:
    """G.711 `audio_format` bytes to s16le PCM, by audioop."""
    return _CODECS[audio_format][1](data, 2)
