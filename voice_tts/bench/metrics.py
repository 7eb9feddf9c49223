"""What the benchmarks measure, defined once (`voice-tts bench` and bench/engine_bench.py).

- TTFA: from a stream's first text (each tool says which moment that is) to the arrival of its
  first audio chunk.
- Underrun under real-time playout: the stream is played from the arrival of its first chunk,
  in real time, with no extra jitter buffer; a chunk that arrives after its own playout time
  (first arrival + its start sample / rate) is late. A stream with a late chunk has an underrun.
- RTF: from the first text to the arrival of the last chunk, over the seconds of audio. With
  text arriving at an LLM's pace this includes waiting for the text.
- Percentiles: nearest rank on the sorted values.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

# Arrival-clock jitter below this is not an underrun.
LATE_TOLERANCE_S = 1e-4
# Where in a stream its late chunks start (seconds of audio), as labelled bins.
LATE_POSITION_BINS_S = (
    ("<0.5", 0.0, 0.5),
    ("0.5-1", 0.5, 1.0),
    ("1-2", 1.0, 2.0),
    (">=2", 2.0, float("inf")),
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


@dataclass
class Arrival:
    at: float  # clock seconds (time.perf_counter) when the chunk reached the consumer
    start_sample: int  # the stream's samples before this chunk
    samples: int


@dataclass
class StreamTiming:
    """One stream's timeline, as its consumer saw it."""

    sample_rate: int
    first_text_at: float | None = None
    arrivals: list[Arrival] = field(default_factory=list)

    def chunk(self, at: float, start_sample: int, samples: int) -> None:
        self.arrivals.append(Arrival(at, start_sample, samples))

    @property
    def ttfa_ms(self) -> float | None:
        if not self.arrivals or self.first_text_at is None:
            return None
        return (self.arrivals[0].at - self.first_text_at) * 1e3

    @property
    def audio_seconds(self) -> float:
        return sum(a.samples for a in self.arrivals) / self.sample_rate

    @property
    def generation_seconds(self) -> float | None:
        """First text to the last chunk's arrival."""
        if not self.arrivals or self.first_text_at is None:
            return None
        return self.arrivals[-1].at - self.first_text_at

    @property
    def rtf(self) -> float | None:
        seconds = self.generation_seconds
        return seconds / self.audio_seconds if seconds is not None and self.audio_seconds else None

    def late_chunks(self) -> list[tuple[float, float]]:
        """(where the chunk starts in the stream, how late it arrived), seconds, per late chunk
        under real-time playout from the first arrival."""
        if not self.arrivals:
            return []
        start = self.arrivals[0].at
        late = []
        for arrival in self.arrivals:
            position = arrival.start_sample / self.sample_rate
            lateness = arrival.at - (start + position)
            if lateness > LATE_TOLERANCE_S:
                late.append((position, lateness))
        return late


    def figures(self) -> dict:
        """This stream's figures as plain data (what `summarize` takes, and what a JSON
        result can hold)."""
        late = self.late_chunks()
        return {
            "ttfa_ms": self.ttfa_ms,
            "underruns": len(late),
            "late_seconds": sum(lateness for _, lateness in late),
            "late_at": [position for position, _ in late],
            "chunks": len(self.arrivals),
            "audio_seconds": self.audio_seconds,
            "generation_seconds": self.generation_seconds,
            "rtf": self.rtf,
        }


def summarize(streams: list[dict], wall_seconds: float) -> dict:
    """The figures of one load level, from its streams' `StreamTiming.figures()`: TTFA
    percentiles, underruns, audio throughput, RTF."""
    ttfa = [s["ttfa_ms"] for s in streams if s["ttfa_ms"] is not None]
    rtf = [s["rtf"] for s in streams if s["rtf"] is not None]
    audio = sum(s["audio_seconds"] for s in streams)
    return {
        "ttfa_ms_p50": round(percentile(ttfa, 50), 2) if ttfa else None,
        "ttfa_ms_p99": round(percentile(ttfa, 99), 2) if ttfa else None,
        "ttfa_ms_max": round(max(ttfa), 2) if ttfa else None,
        "streams_with_underruns": sum(1 for s in streams if s["underruns"]),
        "underrun_chunks": sum(s["underruns"] for s in streams),
        "late_seconds_total": round(sum(s["late_seconds"] for s in streams), 4),
        "late_chunks_by_position_s": {
            label: sum(1 for s in streams for position in s["late_at"] if lo <= position < hi)
            for label, lo, hi in LATE_POSITION_BINS_S
        },
        "chunks_per_stream": round(statistics.mean(s["chunks"] for s in streams), 1)
        if streams
        else 0.0,
        "audio_seconds_total": round(audio, 2),
        "audio_seconds_per_wall_second": round(audio / wall_seconds, 2) if wall_seconds else None,
        "rtf_p50": round(percentile(rtf, 50), 4) if rtf else None,
    }
