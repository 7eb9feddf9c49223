"""Compressed `response_format`s of the speech endpoint (mp3, opus, aac, flac), encoded as the
audio streams through PyAV (FFmpeg's encoders and muxers).

Every container is written for a stream that cannot seek: MP3 frames, Ogg pages of Opus,
AAC in ADTS frames, FLAC frames (its STREAMINFO without a total length). The bytes an encoder
has finished go out at once; codecs with fixed frame sizes hold back less than one frame.
"""

from __future__ import annotations

import numpy as np

# response_format → (container, codec, media type)
FORMATS = {
    "mp3": ("mp3", "libmp3lame", "audio/mpeg"),
    "opus": ("ogg", "libopus", "audio/ogg"),
    "aac": ("adts", "aac", "audio/aac"),
    "flac": ("flac", "flac", "audio/flac"),
}
# Ogg pages are flushed every 100 ms of audio (FFmpeg's default is a second) for low latency.
OGG_PAGE_MICROSECONDS = "100000"


class _Sink:
    """A write-only file: the muxer sees a stream it cannot seek back in."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def write(self, data) -> int:
        self.parts.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        data, self.parts = b"".join(self.parts), []
        return data


class StreamEncoder:
    """Mono s16le PCM in, the encoded stream's bytes out as they become final."""

    def __init__(self, response_format: str, sample_rate: int) -> None:
        # PyAV (FFmpeg's libraries, tens of MB) loads with the first compressed response, not
        # with the server: a server that never sends one runs without it.
        import av

        self._av = av
        container_format, codec, self.media_type = FORMATS[response_format]
        self._sink = _Sink()
        options = {"page_duration": OGG_PAGE_MICROSECONDS} if container_format == "ogg" else {}
        self._container = self._av.open(self._sink, mode="w", format=container_format, options=options)
        self._stream = self._container.add_stream(codec, rate=sample_rate, layout="mono")
        self._sample_rate = sample_rate
        self._samples = 0

    def encode(self, pcm: bytes) -> bytes:
        samples = np.frombuffer(pcm, dtype=np.int16).reshape(1, -1)
        frame = self._av.AudioFrame.from_ndarray(samples, format="s16", layout="mono")
        frame.sample_rate = self._sample_rate
        frame.pts = self._samples
        self._samples += samples.shape[1]
        for packet in self._stream.encode(frame):
            self._container.mux(packet)
        return self._sink.take()

    def finish(self) -> bytes:
        for packet in self._stream.encode(None):
            self._container.mux(packet)
        self._container.close()
        return self._sink.take()
