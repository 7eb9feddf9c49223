"""How a stream's native-rate audio and word timings become its events at the requested rate.

Audio is resampled with one streaming resampler per stream. Each `Progress` is released right
before the first output chunk that reaches its time, so it is never late (its word's audio
has not gone out yet) and never runs ahead of the audio that follows it.
"""

from __future__ import annotations

from collections import deque
from typing import Callable

from voice_tts.audio import PCMResampler
from voice_tts.protocol import AudioChunk, Event, Progress


class TimedOutput:
    def __init__(self, native_rate: int, sample_rate: int, emit: Callable[[Event], None]) -> None:
        self.native_rate = native_rate
        self.sample_rate = sample_rate
        self._emit = emit
        self._resampler: PCMResampler | None = PCMResampler(native_rate, sample_rate)
        self.native_samples = 0
        self.output_samples = 0
        self._spoken_end = 0
        self._time = 0.0
        self._held: deque[Progress] = deque()

    def progress(self, spoken_end: int, native_sample: int) -> None:
        """Everything before `spoken_end` starts at or before native sample `native_sample`
        of this stream. Reports that do not advance are dropped; times never go backwards and
        never point into audio that was already emitted."""
        if spoken_end <= self._spoken_end:
            return
        self._spoken_end = spoken_end
        self._time = max(
            native_sample / self.native_rate, self._time, self.output_samples / self.sample_rate
        )
        self._held.append(Progress(spoken_end, self._time))

    def audio(self, pcm: bytes) -> None:
        self.native_samples += len(pcm) // 2
        self._emit_audio(self._resampler.process(pcm))

    def finish(self) -> None:
        """Flush the resampler and release every held progress report."""
        self._emit_audio(self._resampler.flush())
        self._resampler = None
        # What is left ends the audio; the resampler may round the total length down by a
        # sample, and a time past the last sample would point at audio that never comes.
        end = self.output_samples / self.sample_rate
        while self._held:
            held = self._held.popleft()
            self._emit(Progress(held.spoken_end, min(held.audio_time, end)))

    def _emit_audio(self, pcm: bytes) -> None:
        count = len(pcm) // 2
        if not count:
            return
        end = self.output_samples + count
        while self._held and self._held[0].audio_time * self.sample_rate < end:
            self._emit(self._held.popleft())
        self._emit(AudioChunk(pcm, self.sample_rate, self.output_samples))
        self.output_samples = end
