"""Speaking rate: a streaming, pitch-preserving time-scale stage between an engine and a listener.

No engine has a rate parameter (Qwen3-TTS has none; eSpeak's rate changes its prosody), so the
rate is applied to the audio as it leaves the engine. Rubber Band's real-time mode (through
`pylibrb`, the optional `speed` extra) stretches mono PCM chunk by chunk with its state kept
across chunks, so chunk boundaries do not click; docs/benchmarks.md says why it was chosen over
the other stretchers, its look-ahead and its CPU cost.

Everything downstream of the stage is in played time: chunk `start_sample`s, `Progress` times
(hence words, `cancel(played_seconds)` → heard text) and usage. `PlayedClock` maps an engine
time to a played time through every speed change; a change takes effect from the next chunk.

At 1.0, until a turn first asks for another speed, audio passes through untouched: a turn that
never changes its rate costs nothing and keeps its bytes.
"""

from __future__ import annotations

from bisect import bisect_right
import numpy as np

from voice_tts.protocol import AudioChunk, Done, Event, Progress
from voice_tts.request import MAX_SPEED, MIN_SPEED, checked_speed

__all__ = [
    "MAX_SPEED",
    "MIN_SPEED",
    "PlayedClock",
    "SpeedStage",
    "SpeedUnavailable",
    "TimeStretcher",
    "checked_speed",
]

# Samples per Rubber Band call: its buffers are sized for this, so a long chunk goes in pieces.
PROCESS_BLOCK = 8192

SPEED_EXTRA_MISSING = (
    "a speaking rate other than 1.0 needs Rubber Band: pip install 'voice-tts[speed]' "
    "(pylibrb, GPL-2.0-or-later; see NOTICE)"
)


class SpeedUnavailable(ValueError):
    """A rate other than 1.0 on an install without the `speed` extra (servers answer it as a
    refused request, with this code)."""

    code = "unsupported_speed"


def _rubberband():
    try:
        import pylibrb
    except ImportError as exc:
        raise SpeedUnavailable(SPEED_EXTRA_MISSING) from exc
    return pylibrb


class PlayedClock:
    """Engine time → played time through each speed change: piecewise linear, one piece per
    run of audio at one speed."""

    def __init__(self) -> None:
        self._engine_starts = [0.0]
        self._played_starts = [0.0]
        self._speeds = [1.0]

    def advance(self, engine_time: float, speed: float) -> None:
        """Audio from `engine_time` on plays at `speed`."""
        if speed == self._speeds[-1]:
            return
        if engine_time < self._engine_starts[-1]:
            raise ValueError(f"engine time {engine_time} is before the last speed change")
        played = self.played(engine_time)
        if engine_time == self._engine_starts[-1]:
            self._engine_starts.pop()
            self._played_starts.pop()
            self._speeds.pop()
        self._engine_starts.append(engine_time)
        self._played_starts.append(played)
        self._speeds.append(speed)

    def played(self, engine_time: float) -> float:
        i = bisect_right(self._engine_starts, engine_time) - 1
        return self._played_starts[i] + (engine_time - self._engine_starts[i]) / self._speeds[i]


class TimeStretcher:
    """Streaming time-scale modification of mono s16le PCM that keeps pitch: feed chunks with
    `process`, end with `flush`. `set_speed` applies from the next `process`.

    Until the first speed other than 1.0 the audio passes through; from then on Rubber Band
    holds `look_ahead_samples` of input back (its analysis window), released by `flush`."""

    def __init__(self, sample_rate: int, speed: float = 1.0) -> None:
        if not isinstance(sample_rate, int) or sample_rate <= 0:
            raise ValueError(f"sample rate must be a positive integer, got {sample_rate!r}")
        self.sample_rate = sample_rate
        self._speed = checked_speed(speed)
        self._stretcher = None
        self._trim = 0  # output samples still to drop: the stretcher's start delay
        self.look_ahead_samples = 0
        if self._speed != 1.0:
            self._engage()

    @property
    def speed(self) -> float:
        return self._speed

    def set_speed(self, speed: float) -> None:
        self._speed = checked_speed(speed)
        if self._stretcher is None and self._speed != 1.0:
            self._engage()
        elif self._stretcher is not None:
            self._stretcher.time_ratio = 1.0 / self._speed

    def process(self, pcm: bytes) -> bytes:
        if len(pcm) % 2:
            raise ValueError(f"s16le PCM must have an even number of bytes, got {len(pcm)}")
        if self._stretcher is None:
            return bytes(pcm)
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        out = []
        for start in range(0, len(samples), PROCESS_BLOCK):
            self._stretcher.process(samples[None, start : start + PROCESS_BLOCK])
            out.append(self._retrieve())
        return b"".join(out)

    def flush(self) -> bytes:
        """The audio still held back; the stretcher is finished afterwards."""
        if self._stretcher is None:
            return b""
        self._stretcher.process(np.zeros((1, 0), dtype=np.float32), final=True)
        return self._retrieve()

    def _engage(self) -> None:
        self._rb = _rubberband()
        options = self._rb.Option.PROCESS_REALTIME | self._rb.Option.ENGINE_FASTER
        self._stretcher = self._rb.RubberBandStretcher(
            self.sample_rate, 1, options, initial_time_ratio=1.0 / self._speed
        )
        self._stretcher.set_max_process_size(PROCESS_BLOCK)
        # Rubber Band's real-time mode leaves start alignment to its caller: silence in, as
        # much output dropped, and the first real sample comes out first.
        pad = self._stretcher.get_preferred_start_pad()
        self._trim = self._stretcher.get_start_delay()
        self.look_ahead_samples = pad
        self._stretcher.process(np.zeros((1, pad), dtype=np.float32))

    def _retrieve(self) -> bytes:
        out = self._stretcher.retrieve_available()[0]
        if self._trim:
            dropped = min(self._trim, len(out))
            out, self._trim = out[dropped:], self._trim - dropped
        return np.clip(np.rint(out * 32768.0), -32768, 32767).astype("<i2").tobytes()


class SpeedStage:
    """One stream's events at a speaking rate: audio stretched, and `start_sample`s and
    `Progress` times in played time. `Done` passes as it is: a turn's usage is counted on the
    stage's output (`voice_tts.stream_output`). Feed each engine event to `events_for`; it returns
    the events to pass on, in order.

    A `Progress` waits for the next audio chunk (or the end) and goes out right before that
    chunk's stretched audio, mapped at the speed that chunk is played at: a speed change between
    the two cannot misplace its words, and it is still never later than its audio."""

    def __init__(self, speed: float = 1.0) -> None:
        self._speed = 1.0
        self.set_speed(speed)
        self._stretcher: TimeStretcher | None = None
        self._clock = PlayedClock()
        self._held: list[Progress] = []
        self._played_samples = 0
        self._sample_rate = 0
        self._last_time = 0.0

    @property
    def speed(self) -> float:
        return self._speed

    def set_speed(self, speed: float) -> None:
        """From the next audio chunk on. Without the `speed` extra a rate other than 1.0 is
        refused here, when asked for, not at the next chunk."""
        speed = checked_speed(speed)
        if speed != 1.0:
            _rubberband()
        self._speed = speed

    def played_seconds(self, engine_seconds: float) -> float:
        return self._clock.played(engine_seconds)

    @property
    def look_ahead_samples(self) -> int:
        """Audio held back by the stretcher (0 while passing through at 1.0)."""
        return self._stretcher.look_ahead_samples if self._stretcher is not None else 0

    def events_for(self, event: Event) -> list[Event]:
        if isinstance(event, Progress):
            self._held.append(event)
            return []
        if isinstance(event, AudioChunk):
            return self._audio(event)
        if isinstance(event, Done):
            out = [] if event.cancelled else self._tail()
            out += self._release(end=self._played_samples / (self._sample_rate or 1))
            return [*out, event]
        return [event]

    def _audio(self, chunk: AudioChunk) -> list[Event]:
        if self._stretcher is None:
            self._stretcher = TimeStretcher(chunk.sample_rate, self._speed)
            self._sample_rate = chunk.sample_rate
        elif chunk.sample_rate != self._sample_rate:
            raise ValueError(f"sample rate changed mid-stream: {self._sample_rate} -> {chunk.sample_rate}")
        if self._stretcher.speed != self._speed:
            self._stretcher.set_speed(self._speed)
        self._clock.advance(chunk.start_sample / chunk.sample_rate, self._speed)
        out = self._release()
        return out + self._emit(self._stretcher.process(chunk.pcm))

    def _tail(self) -> list[Event]:
        return self._emit(self._stretcher.flush()) if self._stretcher is not None else []

    def _release(self, end: float | None = None) -> list[Event]:
        out: list[Event] = []
        for held in self._held:
            played = self._clock.played(held.audio_time)
            if end is not None:
                # The stretcher may round the total length down: no time past the last sample.
                played = min(played, end)
            self._last_time = played = max(played, self._last_time)
            out.append(Progress(held.spoken_end, played))
        self._held.clear()
        return out

    def _emit(self, pcm: bytes) -> list[Event]:
        if not pcm:
            return []
        chunk = AudioChunk(pcm, self._sample_rate, self._played_samples)
        self._played_samples += chunk.num_samples
        return [chunk]
