"""What the Pipecat service keeps about one audio context's turn (its engine session, how far
its text and audio got), and the trace its engine stream opens in."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from voice_tts.audio import PCMResampler
from voice_tts.progress import Word
from voice_tts.session import TTSSession


@dataclass
class ContextTurn:
    """The engine session of one audio context, and how far its audio got."""

    # None when the session could not be opened.
    session: TTSSession | None
    # The service's settings version the turn was opened with (`Qwen3StreamingTTS`).
    settings_version: int = 0
    pump: asyncio.Task | None = None
    # Created on the first chunk whose rate differs from the pipeline's.
    resampler: PCMResampler | None = None
    audio_seconds: float = 0.0
    # Characters of text handed to the session, and where a slot of Pipecat's ends inside a
    # word (offsets in that text).
    text_chars: int = 0
    last_char: str = ""  # the last character of that text
    word_cuts: list[int] = field(default_factory=list)
    # Words reported before the context's first audio.
    words_before_audio: list[Word] = field(default_factory=list)
    # TOKEN mode: characters of that text inside sentences Pipecat has a slot for, and the
    # words reported past them, held until their sentence has one.
    slotted_chars: int = 0
    held_words: list[Word] = field(default_factory=list)
    # Clock time at which the context's first audio went downstream.
    playback_started_ns: int | None = None
    input_ended: bool = False
    finished: bool = False
    cancelled: bool = False
    # The turn ended without speaking all its text (an error, a timeout, a cancel).
    failed: bool = False
    produced_audio: bool = False


@contextlib.contextmanager
def current_trace(context) -> Iterator[None]:
    """`context` as the current OpenTelemetry context inside the block (None: as it is)."""
    if context is None:
        yield
        return
    from opentelemetry import context as otel_context

    token = otel_context.attach(context)
    try:
        yield
    finally:
        otel_context.detach(token)
