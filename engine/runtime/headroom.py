"""The engine's real-time headroom, measured: loop iteration time against the audio it makes.

Every busy loop iteration makes one frame (80 ms of audio) for each stream it steps, so the
streams stay real-time while an iteration takes less than a frame. `Headroom` keeps the recent
settled iterations (streams stepped, seconds), fits iteration time = fixed + per-stream cost by
least squares, and admits a new stream only while the predicted iteration time with one more
stream stays under `target` of a frame (the rest is the margin for jitter, first-audio latency
and openings). The loop records only iterations where few streams are opening: in a burst (a
thousand clients within a second) nearly every stream stepped is opening and its iterations are
slow for what opens, in step with the streams stepped, so no fit can tell the two costs apart;
read as per-stream cost they made the fit refuse half a burst that, once open, fit.
Until it has seen iterations with at least two different batch sizes it predicts from their mean
time per stream; it admits everything before the first settled iteration, and any stream past
twice the largest batch seen settled (`admits`).
"""

from __future__ import annotations

import collections
import threading
from dataclasses import dataclass

from engine.runtime.stream import FRAME_SECONDS

# The furthest the fit is trusted: twice the largest batch it has seen settle. Measured on an
# H100 through the server: in a burst of 1,024 openings no iteration settles, and the line drawn
# from the few small settled batches before it refused 40 % of a burst that then ran at 64 % of a frame.
EXTRAPOLATION_LIMIT = 2.0


@dataclass(frozen=True)
class HeadroomReport:
    iteration_seconds: float  # mean of the recent busy iterations
    streams: float  # mean streams stepped in them
    headroom: float  # 1 - iteration time / frame time (0: exactly real-time)
    max_streams: int  # the most streams the fit admits


class Headroom:
    def __init__(self, target: float = 0.7, window: int = 256, frame_seconds: float = FRAME_SECONDS) -> None:
        if not 0 < target <= 1:
            raise ValueError("target must be in (0, 1]")
        self.target = target
        self.frame_seconds = frame_seconds
        self._samples: collections.deque[tuple[int, float]] = collections.deque(maxlen=window)
        # Running sums of x, y, x² and xy over the samples: the fit is read every loop iteration.
        self._sums = [0.0, 0.0, 0.0, 0.0]
        self._lock = threading.Lock()

    def record(self, streams: int, seconds: float) -> None:
        """One busy iteration that stepped `streams` streams in `seconds`."""
        if streams > 0:
            with self._lock:
                if len(self._samples) == self._samples.maxlen:
                    self._add(*self._samples[0], sign=-1.0)
                self._samples.append((streams, seconds))
                self._add(streams, seconds, sign=1.0)

    def _add(self, x: float, y: float, sign: float) -> None:
        sums = self._sums
        sums[0] += sign * x
        sums[1] += sign * y
        sums[2] += sign * x * x
        sums[3] += sign * x * y

    def _fit(self, extrapolate: bool = True) -> tuple[float, float] | None:
        """(fixed seconds, seconds per stream) of the recent iterations, or None without any.
        Recent iterations of one batch size give no line: then, with `extrapolate`, all their
        time counts as per-stream (the cautious reading for admission), else None."""
        with self._lock:
            n = len(self._samples)
            sx, sy, sxx, sxy = self._sums
        if not n:
            return None
        mean_x, mean_y = sx / n, sy / n
        var = sxx - sx * sx / n
        if var > 1e-9 * max(1.0, sxx):
            slope = (sxy - sx * sy / n) / var
            if slope > 0:
                return max(0.0, mean_y - slope * mean_x), slope
        return (0.0, mean_y / mean_x) if extrapolate else None

    def predicted_seconds(self, streams: int, extrapolate: bool = True) -> float | None:
        fit = self._fit(extrapolate)
        return None if fit is None else fit[0] + fit[1] * streams

    def admits(self, streams: int) -> bool:
        """Whether one more stream beside `streams` keeps the predicted iteration under target.
        No prediction past `EXTRAPOLATION_LIMIT` times the largest batch seen settled: a burst
        that outgrows what the loop has measured is admitted as one arriving before the first
        iteration is, and the iterations it settles into decide from then on."""
        with self._lock:
            largest = max((x for x, _ in self._samples), default=0)
        if streams + 1 > EXTRAPOLATION_LIMIT * largest:
            return True
        predicted = self.predicted_seconds(streams + 1)
        return predicted is None or predicted <= self.target * self.frame_seconds

    def report(self) -> HeadroomReport | None:
        fit = self._fit()
        if fit is None:
            return None
        with self._lock:
            samples = list(self._samples)
        seconds = sum(y for _, y in samples) / len(samples)
        streams = sum(x for x, _ in samples) / len(samples)
        fixed, per_stream = fit
        limit = self.target * self.frame_seconds - fixed
        return HeadroomReport(
            iteration_seconds=seconds, streams=streams, headroom=1 - seconds / self.frame_seconds,
            max_streams=max(0, int(limit / per_stream)) if per_stream > 0 else 0,
        )
