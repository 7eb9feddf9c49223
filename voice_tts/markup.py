"""Expressive markup in a turn's raw text: tags found as deltas arrive, the text without them.

Two dialects, chosen per turn (`StreamRequest.markup`; none: `<` is text like any other):

- ``expr``, LiveKit's expressive markers: `<expr type="expression" label="warm, amused"/>`,
  `<expr type="break" label="500ms"/>`, `<expr type="prosody" label="slow"/>` (or wrapping
  words: `<expr type="prosody" label="soft">…</expr>`), `<expr type="spell">A7X9</expr>`;
  `<expr type="sound" …/>` asks for a sound the model cannot make and is dropped.
- ``cartesia``, Cartesia Sonic-3's tags: `<emotion value="…"/>`, `<break time="500ms"/>`,
  `<speed ratio="1.2"/>`, `<volume ratio="0.8"/>`, `<spell>…</spell>`.

`MarkupParser.push` returns the delta's pieces in order: plain text (`str`), text to spell
(`Spelled`) and marks (`Expression`, `Pause`, `Rate`, `Gain`) standing between them. A tag split
across deltas is held back until its `>` arrives, so no part of it is ever text. An unknown tag,
a tag with a bad value, a closing tag that closes nothing and an opening tag never closed are
dropped and their words kept. Everything held is bounded: a `<` followed by more than
MAX_TAG_CHARS characters without a `>` is text, and past MAX_MARKS marks in a turn further tags
are dropped (counted in `dropped`), so a flood of tags costs no more than its text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Union

__all__ = [
    "EXPR_INSTRUCTIONS",
    "MARKUP_DIALECTS",
    "MAX_MARKS",
    "Expression",
    "Gain",
    "Mark",
    "MarkupDialect",
    "MarkupParser",
    "Pause",
    "Piece",
    "Rate",
    "Spelled",
    "strip_markup",
]

from voice_tts.request import MARKUP_DIALECTS

MarkupDialect = Literal["expr", "cartesia"]

# A tag longer than this is not one (LiveKit's longest free-form expression labels are a
# sentence); the held-back text of a turn never grows past it.
MAX_TAG_CHARS = 400
# Marks acted on in one turn; each may open a generation segment, so past this a turn is a
# flood and its further tags are dropped, words kept.
MAX_MARKS = 64
# Wrapping tags open at once.
MAX_OPEN = 16
# The longest pause one break asks for, and all of a turn's breaks together (seconds).
MAX_PAUSE_SECONDS = 10.0
MAX_TURN_PAUSE_SECONDS = 30.0
# What a prosody label means as a rate or gain change (LiveKit teaches slow/fast/soft/loud;
# SSML's x- levels are taken too). Gains are amplitude ratios.
PROSODY_RATES = {"x-slow": 0.7, "slow": 0.85, "medium": 1.0, "fast": 1.15, "x-fast": 1.3}
PROSODY_GAINS = {"x-soft": 0.4, "soft": 0.6, "medium": 1.0, "loud": 1.5, "x-loud": 2.0}
# Cartesia's documented ranges for its ratios.
CARTESIA_SPEED_RANGE = (0.6, 1.5)
CARTESIA_VOLUME_RANGE = (0.5, 2.0)
GAIN_RANGE = (0.1, 2.0)


# What an LLM is taught of the `expr` dialect: exactly what a turn does with it (free-form
# expressions, breaks, prosody, spelling; no sounds). LiveKit's `TTS.Markup` gives it.
EXPR_INSTRUCTIONS = f"""\
You control how your words are spoken with one XML marker tag, <expr/>. Every marker has a \
type attribute; use only these types. Markers are never read aloud. Use them where a real \
speaker would change delivery, not on every sentence.

1. Expression - how the sentences after it are delivered, in your own words. Self-closing; \
put it at the start of a sentence. It lasts until the next expression.
   <expr type="expression" label="warm, a little amused"/>
   The label is a short free-form description of tone and manner ("calm and reassuring", \
"excited, speaking quickly", "gently apologetic"), not a single fixed word.

2. Break - silence. Self-closing. The label is a duration in milliseconds or seconds, at \
most {MAX_PAUSE_SECONDS:g}s.
   <expr type="break" label="500ms"/>

3. Prosody - speaking rate or loudness. Self-closing (from there on) or wrapping a span.
   Labels: {", ".join(sorted(PROSODY_RATES, key=PROSODY_RATES.get))} (rate); \
{", ".join(sorted(PROSODY_GAINS, key=PROSODY_GAINS.get))} (loudness).
   <expr type="prosody" label="slow">Let me say that again.</expr>

4. Spell - the wrapped text is read one character at a time (codes, IDs, names spelled out).
   <expr type="spell">A7X9</expr>

This voice makes no non-verbal sounds (no laughs, sighs or breaths): never write a sound \
marker.

Example:
  <expr type="expression" label="bright and friendly"/>You're all set! Your code is \
<expr type="spell">B4J7</expr>. <expr type="break" label="500ms"/><expr type="expression" \
label="calm, unhurried"/>Is there anything else I can help you with?"""


@dataclass(frozen=True)
class Expression:
    """The style instruction for the text from here on (Qwen3-TTS's free-form `instruct`)."""

    label: str


@dataclass(frozen=True)
class Pause:
    """Silence here, in seconds."""

    seconds: float


@dataclass(frozen=True)
class Rate:
    """The speaking rate from here on, as a ratio of the turn's own."""

    ratio: float


@dataclass(frozen=True)
class Gain:
    """The loudness from here on, as an amplitude ratio of the voice's own."""

    ratio: float


@dataclass(frozen=True)
class Spelled:
    """Raw text to be read character by character."""

    text: str


Mark = Union[Expression, Pause, Rate, Gain]
Piece = Union[str, Spelled, Mark]

_TAG = re.compile(r"<(/?)([A-Za-z][\w-]*)((?:\s+[\w-]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>\Z", re.S)
_ATTR = re.compile(r"([\w-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s)?\s*\Z", re.I)
_RATIO = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(%)?\s*\Z")


def _may_open_tag(text: str, pos: int) -> bool:
    """The "<" at `pos` may begin a tag: a letter or "/" and a letter follows, or the text ends
    before that shows."""
    following = text[pos + 1 : pos + 3]
    if following[:1] == "/":
        following = following[1:]
    return not following or following[0].isascii() and following[0].isalpha()


def _seconds(value: str) -> float | None:
    m = _DURATION.match(value)
    if m is None:
        return None
    seconds = float(m.group(1)) / (1000 if (m.group(2) or "s").lower() == "ms" else 1)
    return seconds if 0 < seconds <= MAX_PAUSE_SECONDS else None


def _ratio(value: str, low: float, high: float) -> float | None:
    m = _RATIO.match(value)
    if m is None:
        return None
    ratio = float(m.group(1)) / (100 if m.group(2) else 1)
    return ratio if low <= ratio <= high else None


def _label(value: str | None) -> str | None:
    value = " ".join((value or "").split())
    return value or None


class MarkupParser:
    """One turn's tags, found in raw deltas as they arrive (see the module's docstring)."""

    def __init__(self, dialect: MarkupDialect) -> None:
        if dialect not in MARKUP_DIALECTS:
            raise ValueError(f"markup must be one of {MARKUP_DIALECTS} or null, got {dialect!r}")
        self.dialect = dialect
        self._held = ""  # a tag's beginning, waiting for its `>`
        self._open: list[str] = []  # what each open wrapping tag ends: "spell", "rate", "gain", ""
        self._rates: list[float] = [1.0]
        self._gains: list[float] = [1.0]
        self._marks = 0
        self._pause_seconds = 0.0
        self.dropped = 0  # tags dropped: unknown, malformed, past the bounds, unclosed

    @property
    def held(self) -> str:
        """Raw text held back: the beginning of what may be a tag."""
        return self._held

    def push(self, delta: str) -> list[Piece]:
        pieces: list[Piece] = []
        text = self._held + delta
        self._held = ""
        start = 0  # text before `start` is in pieces already
        pos = text.find("<")
        while pos >= 0:
            self._text(text[start:pos], pieces)
            end = text.find(">", pos + 1, pos + MAX_TAG_CHARS + 1)
            if not _may_open_tag(text, pos):
                start, pos = pos, text.find("<", pos + 1)  # "3 < 5": text
                continue
            if end < 0:
                nxt = text.find("<", pos + 1)
                if len(text) - pos <= MAX_TAG_CHARS and (nxt < 0 or nxt - pos > MAX_TAG_CHARS):
                    self._held = text[pos:]  # may still become a tag
                    return pieces
                start, pos = pos, nxt  # too long to be a tag, or another "<" comes first: text
                continue
            if (inner := text.find("<", pos + 1, end)) >= 0:
                start, pos = pos, inner  # "a < b <tag/>": the first "<" is text
                continue
            self._tag(text[pos : end + 1], pieces)
            start = end + 1
            pos = text.find("<", start)
        self._text(text[start:], pieces)
        return pieces

    def flush(self) -> list[Piece]:
        """The turn's text has ended: a held beginning that cannot be text is dropped, open
        wrapping tags are closed (dropped, their words kept)."""
        pieces: list[Piece] = []
        held, self._held = self._held, ""
        if held and not _may_open_tag(held, 0):
            self._text(held, pieces)
        elif held:
            self.dropped += 1
        self.dropped += len(self._open)
        self._open.clear()
        return pieces

    def _text(self, text: str, pieces: list[Piece]) -> None:
        if text:
            pieces.append(Spelled(text) if "spell" in self._open else text)

    # -- tags ---------------------------------------------------------------------------

    def _tag(self, tag: str, pieces: list[Piece]) -> None:
        m = _TAG.match(tag)
        if m is None:
            self.dropped += 1
            return
        closing, name, attrs, self_closing = m.group(1) == "/", m.group(2).lower(), m.group(3), m.group(4) == "/"
        values = {a.group(1).lower(): a.group(2) if a.group(2) is not None else a.group(3) for a in _ATTR.finditer(attrs)}
        if closing:
            self._close(name, pieces)
            return
        if not self_closing and len(self._open) >= MAX_OPEN:
            self.dropped += 1  # nesting this deep is a flood, not markup
            return
        if self.dialect == "expr":
            act = self._expr(name, values, self_closing)
        else:
            act = self._cartesia(name, values, self_closing)
        if act is None:
            self.dropped += 1
        elif act is not True:
            self._mark(act, pieces)

    def _close(self, name: str, pieces: list[Piece]) -> None:
        wrapping = "expr" if self.dialect == "expr" else "spell"
        if name != wrapping or not self._open:
            self.dropped += 1
            return
        ends = self._open.pop()
        if ends == "rate":
            self._rates.pop()
            self._mark(Rate(self._rates[-1]), pieces)
        elif ends == "gain":
            self._gains.pop()
            self._mark(Gain(self._gains[-1]), pieces)

    def _expr(self, name: str, values: dict[str, str], self_closing: bool) -> Mark | bool | None:
        """What an `expr` tag does: a mark, True (understood, nothing to mark), None (dropped)."""
        if name != "expr":
            return None
        kind, label = values.get("type", "").strip().lower(), _label(values.get("label"))
        if kind == "spell" and not self_closing:
            self._open.append("spell")
            return True
        if kind == "expression" and self_closing and label:
            return Expression(label)
        if kind == "break" and self_closing and label and (seconds := _seconds(label)) is not None:
            return Pause(seconds)
        if kind == "prosody" and label:
            key = label.lower()
            if key in PROSODY_RATES:
                return self._change("rate", PROSODY_RATES[key], not self_closing)
            if key in PROSODY_GAINS:
                return self._change("gain", PROSODY_GAINS[key], not self_closing)
        if not self_closing:
            self._open.append("")  # its words are spoken as they are
        return None

    def _cartesia(self, name: str, values: dict[str, str], self_closing: bool) -> Mark | bool | None:
        if name == "spell" and not self_closing:
            self._open.append("spell")
            return True
        if not self_closing:
            return None
        if name == "emotion" and (label := _label(values.get("value"))):
            return Expression(label)
        if name == "break" and (seconds := _seconds(values.get("time", ""))) is not None:
            return Pause(seconds)
        if name == "speed" and (ratio := _ratio(values.get("ratio", ""), *CARTESIA_SPEED_RANGE)) is not None:
            return self._change("rate", ratio, False)
        if name == "volume" and (ratio := _ratio(values.get("ratio", ""), *CARTESIA_VOLUME_RANGE)) is not None:
            return self._change("gain", ratio, False)
        return None

    def _change(self, what: str, ratio: float, wrapping: bool) -> Mark:
        stack = self._rates if what == "rate" else self._gains
        if wrapping:
            self._open.append(what)
            stack.append(ratio)
        else:
            stack[-1] = ratio
        return Rate(ratio) if what == "rate" else Gain(ratio)

    def _mark(self, mark: Mark, pieces: list[Piece]) -> None:
        if self._marks >= MAX_MARKS:
            self.dropped += 1
            return
        if isinstance(mark, Pause):
            if self._pause_seconds + mark.seconds > MAX_TURN_PAUSE_SECONDS:
                self.dropped += 1
                return
            self._pause_seconds += mark.seconds
        self._marks += 1
        pieces.append(mark)


def strip_markup(text: str, dialect: MarkupDialect) -> str:
    """`text` as a turn with `dialect` markup speaks it, without its tags (spelled text as it
    is written): what transcripts and an LLM's context keep."""
    parser = MarkupParser(dialect)
    pieces = [*parser.push(text), *parser.flush()]
    return "".join(p if isinstance(p, str) else p.text for p in pieces if isinstance(p, (str, Spelled)))
