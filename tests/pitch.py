"""Speech measurements for the speaking-rate checks: median F0, spectral lines and clicks."""

from __future__ import annotations

import numpy as np


def f0_track(pcm: bytes, rate: int, speed: float = 1.0, low: float = 70.0, high: float = 300.0) -> np.ndarray:
    """The voiced frames' (time, F0 in Hz), by YIN's cumulative mean normalized difference (a
    frame is voiced where it dips below 0.2). Each frame covers 30 ms of the speech *as spoken
    at 1.0* (30 ms / `speed` of this audio) and its time is in that speech's time (its centre
    × `speed`), so the same text at two rates is measured over the same stretches of its
    intonation."""
    x = np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32768.0
    frame = int(0.03 * rate / speed)
    min_lag, max_lag = int(rate / high), int(rate / low)
    track = []
    for start in range(0, len(x) - frame - max_lag, max(frame // 2, 1)):
        window = x[start : start + frame + max_lag]
        if np.sqrt(np.mean(window[:frame] ** 2)) < 0.02:
            continue  # silence or a quiet consonant
        diff = np.array([np.sum((window[:frame] - window[lag : lag + frame]) ** 2) for lag in range(max_lag + 1)])
        cmnd = np.ones_like(diff)
        cmnd[1:] = diff[1:] * np.arange(1, max_lag + 1) / np.maximum(np.cumsum(diff[1:]), 1e-12)
        below = np.flatnonzero(cmnd[min_lag:max_lag] < 0.2)
        if not below.size:
            continue  # unvoiced
        lag = below[0] + min_lag
        while lag + 1 < max_lag and cmnd[lag + 1] < cmnd[lag]:
            lag += 1
        a, b, c = cmnd[lag - 1], cmnd[lag], cmnd[lag + 1]
        curvature = a - 2 * b + c
        f0 = rate / (lag + (0.5 * (a - c) / curvature if curvature else 0.0))
        track.append(((start + frame / 2) / rate * speed, f0))
    if not track:
        raise ValueError("no voiced frames")
    return np.array(track)


def median_f0(pcm: bytes, rate: int, speed: float = 1.0) -> float:
    """Median fundamental frequency (Hz) of the voiced frames (`f0_track`)."""
    return float(np.median(f0_track(pcm, rate, speed)[:, 1]))


def median_f0_ratio(stretched: bytes, reference: bytes, rate: int, speed: float) -> float:
    """Median F0 of `stretched` (`reference` played at `speed`) over the reference's, both over
    the moments of the text voiced in both. Stretching blurs a fast glide enough that the
    voicing threshold drops more of its frames (at 2.0 about half of eSpeak's), and not evenly
    over the pitch range; comparing the same moments keeps that out of the pitch measurement."""
    ours, theirs = f0_track(stretched, rate, speed), f0_track(reference, rate)
    nearest = np.abs(ours[:, :1] - theirs[None, :, 0]).argmin(axis=1)
    same_moment = np.abs(theirs[nearest, 0] - ours[:, 0]) <= 0.0075  # within half a 15 ms hop
    if not same_moment.any():
        raise ValueError("no moment of the text is voiced in both")
    return float(np.median(ours[same_moment, 1]) / np.median(theirs[nearest[same_moment], 1]))


def spectral_lines(pcm: bytes, rate: int, count: int = 2, low: float = 1000.0, frame: int = 4096) -> list[float]:
    """Frequencies (Hz) of the `count` strongest spectral peaks above `low`, strongest first,
    from the mean power spectrum of the clip's frames (each frame's mean removed, Hann window,
    8× zero-padded: 0.7 Hz resolution at 24 kHz). A stretch that keeps pitch leaves them where
    they are; one that does not moves them by the speed."""
    x = np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32768.0
    if len(x) < frame:
        raise ValueError(f"a clip of {len(x)} samples is shorter than one {frame}-sample frame")
    window = np.hanning(frame)
    power = np.mean(
        [np.abs(np.fft.rfft((f - f.mean()) * window, 8 * frame)) ** 2
         for f in (x[i : i + frame] for i in range(0, len(x) - frame + 1, frame // 4))],
        axis=0,
    )
    freqs = np.fft.rfftfreq(8 * frame, 1 / rate)
    is_peak = (power[1:-1] > power[:-2]) & (power[1:-1] >= power[2:]) & (freqs[1:-1] >= low)
    peaks = np.flatnonzero(is_peak) + 1
    lines: list[float] = []
    for i in peaks[np.argsort(power[peaks])[::-1]]:
        # One line per lobe: a peak within 1 % of a stronger one is that line's side lobe.
        if all(abs(freqs[i] - f) > 0.01 * f for f in lines):
            lines.append(float(freqs[i]))
        if len(lines) == count:
            break
    return lines


def click_ratio(pcm: bytes, around: int, width: int = 240) -> float:
    """How much the sharpest jump (second difference) within `width` samples of sample
    `around` exceeds the 99.9th percentile of jumps over the whole clip: well above 1 is a click."""
    x = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    jumps = np.abs(np.diff(x, 2))
    near = jumps[max(around - width, 0) : around + width]
    return float(near.max() / max(np.percentile(jumps, 99.9), 1.0))
