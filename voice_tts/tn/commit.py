"""What the normalizer hands downstream: one committed span of the raw↔spoken map (spec §3.10)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Commit:
    """Raw code points [raw_start, raw_end) are spoken as `spoken` at [spoken_start, spoken_end).

    Commits tile both streams contiguously and are never withdrawn. `spoken` may be empty
    (markdown, emoji, whitespace) and may start with the lazy separator " ". `forced` marks a
    commit made by a time-out or the tail bound rather than by a closed span. `raw` is the raw
    text of the span, so a consumer can rebuild the raw stream from commits alone.
    """

    raw_start: int
    raw_end: int
    spoken: str
    spoken_start: int
    forced: bool = False
    raw: str = ""
    kind: str = ""

    @property
    def spoken_end(self) -> int:
        return self.spoken_start + len(self.spoken)
