"""When text tokens become final on the engine side, for tests of the word-end handoff.

`TokenRecordingEngine` wraps a real engine (it makes the audio, progress and `Done`) and gives
each stream the Qwen3 engine's own `TextFeed` with the tiny fixture's tokenizer: every
`push_text` and `mark_word_end` records the tokens that became final with it, and the spoken text
the stream had then. A test sends the deltas up to the one that ends the first word, waits for
the first tokens (`first_tokens`, set from whatever thread the stream lives in), and sees that
they came before any text of the next word.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.model.config import read_config
from engine.model.text import OFFICIAL_SPLIT, TextTokenizer
from engine.runtime.text_feed import TextFeed
from voice_tts.protocol import Done

FIRST_TOKENS_TIMEOUT_S = 30.0  # a failure guard, not a measurement


@dataclass(frozen=True)
class Arrival:
    """Tokens that became final with one call (their ids and the spoken characters each ends
    at), and all spoken text the stream had then."""

    call: str  # "push_text", "mark_word_end" or "end_input"
    spoken: str
    ids: tuple[int, ...]
    ends: tuple[int, ...] = ()


@dataclass
class TokenRecordingStream:
    inner: Any
    feed: TextFeed
    spoken: str = ""
    arrivals: list[Arrival] = field(default_factory=list)
    first_tokens: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)

    def push_text(self, text: str) -> None:
        self.spoken += text
        self._record("push_text", self.feed.push(text))
        self.inner.push_text(text)

    def mark_word_end(self, space_follows: bool = False) -> None:
        self._record("mark_word_end", self.feed.end_word(space_follows))
        if (mark := getattr(self.inner, "mark_word_end", None)) is not None:
            mark(space_follows=space_follows)

    def end_input(self) -> None:
        self._record("end_input", self.feed.finish())
        self.inner.end_input()

    def cancel(self) -> None:
        self.inner.cancel()

    async def events(self):
        async with contextlib.aclosing(self.inner.events()) as events:
            async for event in events:
                yield event
                if isinstance(event, Done):
                    self.done.set()

    @property
    def ids(self) -> list[int]:
        return [i for arrival in self.arrivals for i in arrival.ids]

    @property
    def first_arrival(self) -> Arrival:
        return next(arrival for arrival in self.arrivals if arrival.ids)

    def _record(self, call: str, tokens) -> None:
        self.arrivals.append(
            Arrival(call, self.spoken, tuple(t.id for t in tokens), tuple(t.spoken_end for t in tokens))
        )
        if tokens:
            self.first_tokens.set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class TokenRecordingEngine:
    """Delegates to `engine`; its streams record token arrivals (see the module)."""

    def __init__(self, engine: Any, tiny_checkpoint: Path) -> None:
        self.inner = engine
        self.tokenizer = TextTokenizer(tiny_checkpoint, read_config(tiny_checkpoint))
        self.streams: list[TokenRecordingStream] = []
        self.stream_opened = threading.Event()

    def open_stream(self, *args: Any, **options: Any) -> TokenRecordingStream:
        stream = TokenRecordingStream(
            self.inner.open_stream(*args, **options), TextFeed(self.tokenizer.encode, OFFICIAL_SPLIT)
        )
        self.streams.append(stream)
        self.stream_opened.set()
        return stream

    def forget_streams(self) -> None:
        self.streams.clear()
        self.stream_opened.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def first_tokens(engine: TokenRecordingEngine) -> TokenRecordingStream:
    """The last stream opened, once its first tokens are final (the test fails after a long
    guard time if they never come)."""
    await asyncio.to_thread(engine.stream_opened.wait, FIRST_TOKENS_TIMEOUT_S)
    stream = engine.streams[-1]
    if not await asyncio.to_thread(stream.first_tokens.wait, FIRST_TOKENS_TIMEOUT_S):
        raise AssertionError(f"no token became final; the stream has {stream.spoken!r}")
    return stream
