"""The engine's real-time headroom, measured: loop iteration time against the audio it makes.

Every busy loop iteration makes one frame (80 ms of audio) for each stream it steps, so the
streams stay real-time while an iteration takes less than a frame. `Headroom` keeps the recent
iterations (streams stepped, how many of them are opening, seconds), fits iteration time = fixed +
per-stream cost + per-opening cost by least squares, and admits a new stream only while the
predicted iteration time with one more stream, none opening, stays under `target` of a frame (the
rest is the margin for jitter and first-audio latency). An opening stream (in its first frames:
started, its first chunk decoded apart, its client's first text arriving) is its own term because
a burst of openings (a thousand clients within a second) makes the iterations of that second slow
for what opens, not for what steps: read as per-stream cost, those iterations made the fit refuse
half the burst although the streams, once open, fit. Where openings do not vary enough apart from
the streams to tell their cost, the fit is fixed + per-stream cost; until it has seen iterations
with at least two different batch sizes it predicts from their mean time per stream (and admits
everything before the first iteration).
"""

from __future__ import annotations

import collections
import threading
from dataclasses import dataclass

import numpy as np

from engine.runtime.stream import FRAME_SECONDS


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
        self._samples: collections.deque[tuple[int, int, float]] = collections.deque(maxlen=window)
        # Running sums over the samples of v vᵀ and v y, v = (1, streams, opening), y = seconds:
        # the fit is read every loop iteration.
        self._vv = np.zeros((3, 3))
        self._vy = np.zeros(3)
        self._lock = threading.Lock()

    def record(self, streams: int, seconds: float, opening: int = 0) -> None:
        """One busy iteration that stepped `streams` streams, `opening` of them opening, in `seconds`."""
        if streams > 0:
            with self._lock:
                if len(self._samples) == self._samples.maxlen:
                    self._add(*self._samples[0], sign=-1.0)
                self._samples.append((streams, opening, seconds))
                self._add(streams, opening, seconds, sign=1.0)

    def _add(self, streams: int, opening: int, seconds: float, sign: float) -> None:
        v = np.array([1.0, streams, opening])
        self._vv += sign * np.outer(v, v)
        self._vy += sign * seconds * v

    def _fit(self, extrapolate: bool = True) -> tuple[float, float] | None:
        """(fixed seconds, seconds per stream) of the recent iterations, or None without any.
        Recent iterations of one batch size give no line: then, with `extrapolate`, all their
        time counts as per-stream (the cautious reading for admission), else None."""
        with self._lock:
            vv, vy = self._vv.copy(), self._vy.copy()
        n = vv[0, 0]
        if n < 0.5:
            return None
        sums, sy = vv[0, 1:], vy[0]  # of streams and opening; of seconds
        cov = vv[1:, 1:] - np.outer(sums, sums) / n  # n x their covariance
        cov_y = vy[1:] - sums * sy / n
        var_x, var_s, cov_xs = cov[0, 0], cov[1, 1], cov[0, 1]
        # Openings varied, and not in step with the streams stepped: their cost is a term of its own.
        if var_s > 1e-9 * n and cov_xs * cov_xs < 0.95 * var_x * var_s:
            slope, per_opening = np.linalg.solve(cov, cov_y)
            if slope > 0 and per_opening >= 0:
                return max(0.0, (sy - slope * sums[0] - per_opening * sums[1]) / n), slope
        mean_x, mean_y = sums[0] / n, sy / n
        if var_x > 1e-9 * max(1.0, vv[1, 1]):
            slope = cov_y[0] / var_x
            if slope > 0:
                return max(0.0, mean_y - slope * mean_x), slope
        return (0.0, mean_y / mean_x) if extrapolate else None

    def predicted_seconds(self, streams: int, extrapolate: bool = True) -> float | None:
        fit = self._fit(extrapolate)
        return None if fit is None else fit[0] + fit[1] * streams

    def admits(self, streams: int) -> bool:
        """Whether one more stream beside `streams` keeps the predicted iteration under target."""
        predicted = self.predicted_seconds(streams + 1)
        return predicted is None or predicted <= self.target * self.frame_seconds

    def report(self) -> HeadroomReport | None:
        fit = self._fit()
        if fit is None:
            return None
        with self._lock:
            samples = list(self._samples)
        seconds = sum(y for _, _, y in samples) / len(samples)
        streams = sum(x for x, _, _ in samples) / len(samples)
        fixed, per_stream = fit
        limit = self.target * self.frame_seconds - fixed
        return HeadroomReport(
            iteration_seconds=seconds, streams=streams, headroom=1 - seconds / self.frame_seconds,
            max_streams=max(0, int(limit / per_stream)) if per_stream > 0 else 0,
        )
