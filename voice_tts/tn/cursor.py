"""Reading the uncommitted tail so that every look-ahead is either decided or explicitly waits.

Every rule reads characters through `Cursor.at`. Reading past the buffer raises `NeedMore` while
more text may come, and returns "" at the end of the turn. Reading past the span's bound raises
`TooLong`. Because a rule can only observe text it has waited for, a span decided on a prefix is
the span a one-shot run decides on the whole text: stream output equals batch output (I2).
"""

from __future__ import annotations


class NeedMore(Exception):
    """The decision needs a character that has not arrived yet."""


class TooLong(Exception):
    """The decision needs a character beyond the tail bound (max_tail_chars)."""


class Cursor:
    """`text[:end]` is what has arrived; `final` says nothing more will (end of turn or a forced cut)."""

    __slots__ = ("text", "end", "final", "limit")

    def __init__(self, text: str, final: bool, limit: int, end: int | None = None) -> None:
        self.text = text
        self.end = len(text) if end is None else end
        self.final = final
        self.limit = limit

    def at(self, i: int) -> str:
        """The character at `i`, or "" at the end of the turn."""
        if i >= self.limit:
            raise TooLong
        if i < self.end:
            return self.text[i]
        if self.final:
            return ""
        raise NeedMore

    def peek(self, i: int) -> str:
        """The character at `i` if it is present and within bounds, else "" (never waits)."""
        return "" if i >= self.limit or i >= self.end else self.text[i]

    def startswith(self, i: int, word: str, fold: bool = False) -> bool:
        """Whether `word` is at `i`; waits while the present text is a proper prefix of it."""
        for k, expected in enumerate(word):
            c = self.at(i + k)
            if (c.lower() if fold else c) != expected:
                return False
        return True
