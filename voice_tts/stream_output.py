"""One stream's output pipeline: an engine's events in, what the listener gets out.

Every door that serves a stream (the server's `/v1/ws` turns and Realtime responses,
`TTSSession` under the Pipecat and LiveKit adapters; the speech endpoint can call the same)
opens a `StreamOutput` for its `StreamRequest` and passes each engine event through `process`,
in stream order. Each fact about the stream is computed here, once:

    engine events ─▶ speed stage (stretch, played time) ─▶ audio: counted, encoded
                                                        ─▶ progress: raw words, heard text
                                                        ─▶ done: usage, heard text

as vLLM's `OutputProcessor` keeps one `RequestState` per request. The stream's `TurnText` (its
text side, `voice_tts.turn_text`) is built here from the request too: raw deltas go into it and
its spoken text to the engine; its words and heard text come out through `process`.

Usage is the turn's own, whatever the engine's `Done` says: raw characters received, raw
characters heard (the length of the heard text) and seconds of audio that went out of the
pipeline, in played time. A turn's `done`, the usage log and `/metrics` all read it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Union

from voice_tts.audio import encode_pcm16
from voice_tts.turn_text import TurnText
from voice_tts.protocol import AudioChunk, Done, EngineStream, Error, Event, Progress, StreamingEngine, Usage, Word, Words
from voice_tts.request import MAX_SPEED, MIN_SPEED, StreamRequest
from voice_tts.segmented_stream import SegmentedStream
from voice_tts.speed import SpeedStage
from voice_tts.tn import Lexicon

__all__ = ["AudioOut", "Finished", "Output", "StreamOutput", "WordsOut"]


@dataclass(frozen=True)
class AudioOut:
    """Audio for the listener: `chunk` is s16le in played time; `data` the same audio in the
    request's format."""

    chunk: AudioChunk
    data: bytes


@dataclass(frozen=True)
class WordsOut:
    """The engine's progress: raw words that newly started (maybe none), everything before
    `spoken_end` starts by `audio_time`, and `raw_end` is the end of the last word started."""

    words: list[Word]
    spoken_end: int
    audio_time: float
    raw_end: int


@dataclass(frozen=True)
class Finished:
    """The stream ended: the last output."""

    cancelled: bool
    usage: Usage
    heard_text: str


Output = Union[AudioOut, WordsOut, Error, Finished]


class StreamOutput:
    """The per-stream state of the output pipeline. `default_lexicon` (a server's) comes after
    the request's own rules. `words_from_engine`: the engine tracks words itself (a remote
    engine whose server normalizes, stretches and sends `Words`); its words are taken as they
    are. `meter(seconds)` is told each piece of audio as it goes out (a server's metrics)."""

    def __init__(
        self,
        request: StreamRequest,
        *,
        default_lexicon: Lexicon | None = None,
        words_from_engine: bool = False,
        meter: Callable[[float], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.request = request
        lexicon = request.lexicon
        if default_lexicon:
            lexicon = lexicon + default_lexicon if lexicon else default_lexicon
        self.text = TurnText(
            language=request.language,
            normalize=request.normalize and not words_from_engine,
            lexicon=lexicon,
            spell_acronyms=request.spell_acronyms,
            markup=request.markup,
            forward_markup=words_from_engine,
            clock=clock,
        )
        self._words_from_engine = words_from_engine
        # A remote engine's server stretches: its audio and times are in played time already.
        self._stage = None if words_from_engine else SpeedStage(request.speed)
        self._speed = request.speed  # the app's rate; tags scale it by `_rate`
        self._rate = 1.0
        self._meter = meter
        self.cancelled = False
        self.finished: Finished | None = None

    def open_stream(self, engine: StreamingEngine, **options: Any) -> EngineStream:
        """The stream's engine stream on `engine` (`options`: the engine's own, such as a remote
        engine's `connect_timeout`). A request with markup whose tags are parsed here gets a
        `SegmentedStream`: each tag acts at its place in the spoken text."""
        if self.request.markup is None or self._words_from_engine:
            return engine.open_stream(self.request, **options)
        stream = SegmentedStream(engine, self.request, on_rate=self.set_rate)
        self.text.on_mark = stream.mark
        return stream

    @property
    def speed(self) -> float:
        return self._stage.speed if self._stage is not None else self.request.speed

    def set_speed(self, speed: float) -> None:
        """The speaking rate from the engine's next audio chunk on (a stretching pipeline's)."""
        self._speed = speed
        self._retime()

    def set_rate(self, ratio: float) -> float:
        """Expressive markup's rate, a ratio of the speaking rate, from the next audio chunk on;
        returns the rate in effect (within the range every door accepts)."""
        self._rate = ratio
        return self._retime()

    def _retime(self) -> float:
        speed = min(MAX_SPEED, max(MIN_SPEED, self._speed * self._rate))
        if self._stage is not None:
            self._stage.set_speed(speed)
        return speed

    def cancel(self, played_seconds: float | None = None) -> str:
        """Nothing but the end goes out from now on; the heard text is fixed at what
        `played_seconds` of audio covered (None: every word whose audio went out). Returns it."""
        self.cancelled = True
        return self.text.cancel(played_seconds)

    @property
    def usage(self) -> Usage:
        return self.text.usage

    def process(self, event: Event) -> list[Output]:
        """What `event` (the engine's next) gives the listener, in order."""
        events = self._stage.events_for(event) if self._stage is not None else [event]
        out: list[Output] = []
        for item in events:
            if isinstance(item, AudioChunk):
                if item.pcm and not self.cancelled:
                    out.append(self._audio(item))
            elif isinstance(item, Progress):
                # After a cancel the heard text is fixed: later progress says nothing heard.
                if not (self.cancelled or self._words_from_engine):  # such an engine's words come as `Words`
                    words = self.text.on_progress(item.spoken_end, item.audio_time)
                    out.append(WordsOut(words, item.spoken_end, item.audio_time, self.text.heard_end))
            elif isinstance(item, Words):
                if not self.cancelled:
                    self.text.on_words(item.words)
                    time_ = item.words[-1].start_time if item.words else 0.0
                    out.append(WordsOut(list(item.words), 0, time_, self.text.heard_end))
            elif isinstance(item, Error):
                out.append(item)
            elif isinstance(item, Done):
                self.finished = Finished(item.cancelled or self.cancelled, self.usage, self.text.heard)
                out.append(self.finished)
        return out

    def _audio(self, chunk: AudioChunk) -> AudioOut:
        self.text.on_audio(chunk)
        if self._meter is not None:
            self._meter(chunk.duration)
        data = chunk.pcm if self.request.format == "pcm16" else encode_pcm16(chunk.pcm, self.request.format)
        return AudioOut(chunk, data)
