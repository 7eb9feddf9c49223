"""An LLM reply with expressive tags, split two ways: Pipecat gets the text without tags (its
word frames and the LLM context are built from it), the turn's session gets the text with them
(its text side acts on the tags and reports words of the same text without them).

Pipecat keeps, for each word frame, the LLM text it came from (`TTSTextFrame.raw_text`, which
the assistant context aggregator writes into the context); tags left in the text Pipecat
aggregates would be kept there. So the tags are taken out before Pipecat sees the text, and
the tagged text is handed to the session in the same order, when Pipecat passes the text
without them to `run_tts`.
"""

from __future__ import annotations

from voice_tts.markup import MarkupDialect, MarkupParser, Spelled

__all__ = ["TaggedText"]


class TaggedText:
    """One service's LLM text under `dialect` markup, a reply at a time."""

    def __init__(self, dialect: MarkupDialect) -> None:
        self._dialect = dialect
        self._parser = MarkupParser(dialect)
        self._tagged: list[str] = []  # received, not handed to a session yet

    def push(self, delta: str) -> str:
        """A delta of the reply; the text without tags that it completes (a tag split across
        deltas is held until its end shows)."""
        self._tagged.append(delta)
        return _text(self._parser.push(delta))

    def end(self) -> str:
        """The reply ended: what was held back that is text after all."""
        text = _text(self._parser.flush())
        self._parser = MarkupParser(self._dialect)
        return text

    def take(self) -> str:
        """The tagged text received since the last `take`, for the session."""
        tagged, self._tagged = "".join(self._tagged), []
        return tagged

    def clear(self) -> None:
        """An interruption: nothing received so far will be spoken."""
        self._tagged.clear()
        self._parser = MarkupParser(self._dialect)


def _text(pieces: list) -> str:
    return "".join(p if isinstance(p, str) else p.text for p in pieces if isinstance(p, (str, Spelled)))
