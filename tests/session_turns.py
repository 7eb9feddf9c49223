"""One `TTSSession` turn heard to the end, for tests that compare turns (at two speeds, in-process
or through a server)."""

from __future__ import annotations

from typing import Callable

from voice_tts.protocol import AudioChunk, Word
from voice_tts.session import SessionDone, TTSSession, WordsEvent


async def run_turn(
    session: TTSSession, text: str, on_words: Callable[[TTSSession, list[Word]], None] | None = None
) -> tuple[float, list[Word], SessionDone | None]:
    """The session's audio seconds, words and final event; `on_words(session, words)` runs as
    each batch of words arrives."""
    seconds, words, done = 0.0, [], None
    session.push_text(text)
    session.end_input()
    async for event in session.events():
        if isinstance(event, AudioChunk):
            seconds += event.duration
        elif isinstance(event, WordsEvent):
            words += event.words
            if on_words:
                on_words(session, words)
        elif isinstance(event, SessionDone):
            done = event
    return seconds, words, done
