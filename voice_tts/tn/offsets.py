"""The raw↔spoken offset map at span granularity (spec §3.10)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

from voice_tts.tn.commit import Commit


def separator_length(commit: Commit) -> int:
    """Length of the lazy separator in front of an identity span (spoken as the separator, then
    the raw text); -1 for a span that replaces its raw text."""
    raw, spoken = commit.raw, commit.spoken
    return len(spoken) - len(raw) if raw and spoken.endswith(raw) and not spoken[: -len(raw)].strip() else -1


class OffsetMap:
    """Maps positions between the raw stream and the spoken stream of a sequence of commits."""

    def __init__(self, commits: Iterable[Commit] = ()) -> None:
        self._commits: list[Commit] = []
        self._spoken_ends: list[int] = []
        self._raw_ends: list[int] = []
        self.add(commits)

    def add(self, commits: Iterable[Commit]) -> None:
        for commit in commits:
            self._commits.append(commit)
            self._spoken_ends.append(commit.spoken_end)
            self._raw_ends.append(commit.raw_end)

    def commit_at_spoken(self, p: int) -> Commit | None:
        """The spoken span that contains spoken offset `p` (empty spans are skipped)."""
        i = bisect_right(self._spoken_ends, p)
        while i < len(self._commits) and not self._commits[i].spoken:
            i += 1
        return self._commits[i] if i < len(self._commits) and self._commits[i].spoken_start <= p else None

    def raw_at_spoken(self, p: int) -> int:
        """Raw offset reached when the spoken stream has reached `p`.

        Exact inside identity spans; a replacing span reports its raw start while inside it.
        """
        commit = self.commit_at_spoken(p)
        if commit is None:
            return self._commits[-1].raw_end if self._commits and p >= self._spoken_ends[-1] else 0
        if (separator := separator_length(commit)) >= 0:
            return commit.raw_start + max(0, min(p - commit.spoken_start - separator, len(commit.raw)))
        return commit.raw_start

    def spoken_at_raw(self, r: int) -> int:
        """First spoken offset of raw offset `r`; a deleted span maps to the next spoken position."""
        i = bisect_right(self._raw_ends, r)
        if i >= len(self._commits):
            return self._spoken_ends[-1] if self._commits else 0
        commit = self._commits[i]
        if (separator := separator_length(commit)) >= 0:
            return commit.spoken_start + separator + (r - commit.raw_start)
        return commit.spoken_start + 1 if commit.spoken and commit.spoken[0] == " " else commit.spoken_start
