"""The text side of one turn, wherever it runs (an adapter's `TTSSession`, a server turn or
Realtime response): raw LLM deltas in, spoken text for the engine out (through streaming TN when
the turn normalizes), the engine's progress in, raw words and heard text out
(`voice_tts.progress` maps progress through the TN commits). The one place a turn's input is
normalized, whichever door it came through.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import replace

from voice_tts.languages import iso_code
from voice_tts.markup import Mark, MarkupDialect, MarkupParser, Spelled
from voice_tts.progress import ProgressTracker
from voice_tts.protocol import AudioChunk, Usage, Word
from voice_tts.tn import Commit, Lexicon, StreamingNormalizer, locales, normalize

__all__ = ["TurnText", "close_events", "normalizer_language"]

# How often held text is offered to the normalizer's time-based commit while no event arrives.
POLL_INTERVAL = 0.05
# Below this much queued audio the listener is about to hear silence (spec streaming-tn §3.9).
STARVING_SECONDS = 0.2
# Received text is normalized this much at a time (about 2 ms of TN), and ahead of the
# engine's progress only while less than SPOKEN_AHEAD_CHARS of spoken text wait there (about
# 35 s of speech). An engine that makes no progress for ENGINE_HOLD_SECONDS may be holding its
# text back until more comes (a long unbroken token): `poll` gives it the next slice anyway.
NORMALIZE_SLICE_CHARS = 256
SPOKEN_AHEAD_CHARS = 512
ENGINE_HOLD_SECONDS = 1.0
# A spelled word waits for its end this long at most (characters after the spelled text).
MAX_SPELLED_WORD_CHARS = 64



async def close_events(events: AsyncIterator, pending: asyncio.Future | None) -> None:
    """Ends an iteration over an engine's events: its read in flight cancelled, the stream
    closed now, not at garbage collection (a remote engine's socket goes back to its pool only
    when its stream is closed)."""
    if pending is not None and not pending.done():
        pending.cancel()
        with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration, Exception):
            await pending
    if aclose := getattr(events, "aclose", None):
        await aclose()


def normalizer_language(language: str | None) -> str:
    """The normalizer's language for a turn's language as people write it (`voice_tts.languages`):
    English and Chinese variants map to "en" and "zh", a language with its own rules
    (`voice_tts.tn.locales`) to its code; anything else lets the normalizer route by script."""
    code = iso_code(language)
    if code in ("en", "zh") or code in locales.available():
        return code
    return "auto"


class TurnText:
    """The text side of one turn, wherever the turn runs (an adapter's `TTSSession`, a server
    turn): raw deltas in, spoken text for the engine out (through streaming TN when
    normalizing), engine progress in, raw words, heard text and usage out.

    `push`, `flush` and `poll` return the spoken text to push to the engine stream ("" for
    none): one push per call, since an engine looks at its pending text on every push.

    `markup` (a `voice_tts.markup` dialect): the raw text carries tags. They are taken out as
    deltas arrive, so the raw text, words, heard text and usage here never contain them; spelled
    text is spoken a character at a time; each mark goes to `on_mark` with the spoken offset
    where it acts, before the spoken text around it is returned (the text before a mark is
    committed at once, so a mark is always at a commit boundary). `forward_markup`: the engine
    parses the tags itself (a remote engine's server): the tagged text is returned as it came.
    """

    def __init__(
        self,
        *,
        language: str | None = None,
        normalize: bool = True,
        lexicon: Lexicon | None = None,
        spell_acronyms: bool = True,
        markup: MarkupDialect | None = None,
        forward_markup: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._clock = clock
        self._language = normalizer_language(language)
        self._parser = MarkupParser(markup) if markup else None
        self._forward_markup = forward_markup and markup is not None
        self.on_mark: Callable[[int, Mark], None] | None = None
        # Received marks at raw offsets, and raw spans to spell, not reached by normalizing yet.
        self._marks: deque[tuple[int, Mark]] = deque()
        self._spelled: deque[list[int]] = deque()
        # Spelled text bypasses the normalizer: its offsets are behind the turn's by these.
        self._raw_shift = 0
        self._spoken_shift = 0
        # The last spoken text was spelled: the raw word it spells may go on ("A7X" then ".").
        self._spelled_last = False
        self._input_ended = False  # `flush`: held spelled text goes too
        self._normalizer = (
            StreamingNormalizer(
                normalizer_language(language), clock=clock, lexicon=lexicon, spell_acronyms=spell_acronyms
            )
            if normalize
            else None
        )
        self._tracker = ProgressTracker()
        # Received raw text from `_waiting_from` on is not normalized yet (`receive`): an offset,
        # so that normalizing a long text a slice at a time never copies the rest.
        self._waiting = ""
        self._waiting_from = 0
        self._normalized_length = 0
        self._spoken_length = 0
        self._voiced_end = 0  # the engine's progress: spoken characters it has voiced
        self._fed_at = clock()  # when the engine last got text or made progress
        self._audio_samples = 0
        self._sample_rate = 24000
        self._first_audio_at: float | None = None
        self._heard_at_cancel: str | None = None

    # -- text in ------------------------------------------------------------------------

    def push(self, delta: str) -> str:
        self.receive(delta)
        if self._forward_markup:
            return delta
        return self._normalize(self.unnormalized)

    def receive(self, delta: str) -> None:
        """Raw text in, normalized later by `take_ahead` (or the next `push` or `flush`)."""
        if self._parser is None:
            self._take(delta)
        else:
            self._take_pieces(self._parser.push(delta))

    def _take(self, text: str) -> None:
        self._tracker.receive(text)
        if self._forward_markup:
            # The engine is sent the tagged text and reports words of this, the text without tags.
            start, self._normalized_length = self._normalized_length, self._normalized_length + len(text)
            self._add([Commit(start, self._normalized_length, text, self._spoken_length, raw=text, kind="raw")])
        else:
            self._waiting = self._waiting[self._waiting_from :] + text
            self._waiting_from = 0

    def _take_pieces(self, pieces: list) -> None:
        for piece in pieces:
            if isinstance(piece, str):
                self._take(piece)
            elif isinstance(piece, Spelled):
                if self._spelled and self._spelled[-1][1] == self.raw_length:
                    self._spelled[-1][1] += len(piece.text)
                else:
                    self._spelled.append([self.raw_length, self.raw_length + len(piece.text)])
                self._take(piece.text)
            elif not self._forward_markup:
                self._marks.append((self.raw_length, piece))

    def take_ahead(self) -> str:
        """Spoken text for the next slice of the received text, if the engine needs more: none
        while `SPOKEN_AHEAD_CHARS` of spoken text wait ahead of its progress. Text is normalized
        just ahead of the voice, so a turn whose audio nobody takes (its engine stream stops
        ahead of an idle consumer, and no progress comes) costs no normalizing for the rest."""
        return self._normalize(NORMALIZE_SLICE_CHARS) if self.needs_normalizing else ""

    @property
    def needs_normalizing(self) -> bool:
        """Received text waits and the engine is short of spoken text (`take_ahead` would work)."""
        return self.unnormalized > 0 and self._spoken_length - self._voiced_end < SPOKEN_AHEAD_CHARS

    @property
    def unnormalized(self) -> int:
        """Received characters not normalized yet, and not waiting for a spelled word's end
        (`_spellable`: such text is held, as the normalizer holds a word)."""
        waiting = len(self._waiting) - self._waiting_from
        if waiting and self._spelled and self._spelled[0][0] <= self._normalized_length:
            if self._spellable(min(waiting, self._spelled[0][1] - self._normalized_length)) == 0:
                return 0
        return waiting

    def _normalize(self, max_chars: int) -> str:
        if self._parser is None:
            return self._normalize_text(max_chars)
        spoken = [self._reach_marks()]
        while max_chars > 0 and self.unnormalized:
            # A piece never crosses a mark or the edge of spelled text.
            stops = [self._marks[0][0]] if self._marks else []
            spelling = bool(self._spelled) and self._spelled[0][0] <= self._normalized_length
            if self._spelled:
                stops.append(self._spelled[0][1] if spelling else self._spelled[0][0])
            size = min([max_chars, *(stop - self._normalized_length for stop in stops if stop > self._normalized_length)])
            if spelling and not (size := self._spellable(size)):
                break
            spoken.append(self._spell(size) if spelling else self._normalize_text(size))
            max_chars -= size
            if self._spelled and self._spelled[0][1] <= self._normalized_length:
                self._spelled.popleft()
            spoken.append(self._reach_marks())
        return "".join(spoken)

    def _spellable(self, size: int) -> int:
        """How much of the next `size` received characters to spell now: all of them once the
        raw word they end in has ended (whitespace follows, or the input ended); else up to
        that word, which waits, as the normalizer waits for a word's end. A word is reported
        with the raw text it has when it starts, so it must not start before it is whole."""
        start = self._waiting_from
        rest = self._waiting[start + size : start + size + MAX_SPELLED_WORD_CHARS]
        if self._input_ended or len(rest) == MAX_SPELLED_WORD_CHARS or any(c.isspace() for c in rest):
            return size
        piece = self._waiting[start : start + size]
        return next((i + 1 for i in range(len(piece) - 1, -1, -1) if piece[i].isspace()), 0)

    def _reach_marks(self) -> str:
        """Marks at the normalized end act now: the text before them is committed (the
        normalizer flushed), then each goes to `on_mark` at the spoken end."""
        if not self._marks or self._marks[0][0] > self._normalized_length:
            return ""
        spoken = self._add(self._shifted(self._normalizer.flush())) if self._normalizer is not None else ""
        while self._marks and self._marks[0][0] <= self._normalized_length:
            _, mark = self._marks.popleft()
            if self.on_mark is not None:
                self.on_mark(self._spoken_length, mark)
        return spoken

    def _take_waiting(self, max_chars: int) -> str:
        delta = self._waiting[self._waiting_from : self._waiting_from + max_chars]
        self._waiting_from += len(delta)
        if self._waiting_from == len(self._waiting):
            self._waiting, self._waiting_from = "", 0
        return delta

    def _normalize_text(self, max_chars: int) -> str:
        delta = self._take_waiting(max_chars)
        if not delta:
            return ""
        self._fed_at = self._clock()
        start = self._normalized_length
        self._normalized_length += len(delta)
        self._spelled_last = False
        if self._normalizer is None:
            commit = Commit(start, self._normalized_length, delta, self._spoken_length, raw=delta, kind="raw")
            return self._add([commit])
        return self._add(self._shifted(self._normalizer.push(delta)))

    def _spell(self, max_chars: int) -> str:
        """Received text inside a spell tag, one commit per character: a letter as its capital
        (read as the letter), anything else as the normalizer says it alone ("7" -> "seven")."""
        delta = self._take_waiting(max_chars)
        before = self._add(self._shifted(self._normalizer.flush())) if self._normalizer is not None else ""
        self._fed_at = self._clock()
        commits = []
        spoken_at = self._spoken_length
        for i, char in enumerate(delta):
            said = char.upper() if char.isalpha() else normalize(char, self._language).strip() if not char.isspace() else ""
            if said and (spoken_at or commits):
                said = " " + said
            raw_at = self._normalized_length + i
            commits.append(Commit(raw_at, raw_at + 1, said, spoken_at, raw=char, kind="spell"))
            spoken_at += len(said)
        self._normalized_length += len(delta)
        self._spelled_last = True
        self._raw_shift += len(delta)
        self._spoken_shift += spoken_at - self._spoken_length
        return before + self._add(commits)

    def _shifted(self, commits: list[Commit]) -> list[Commit]:
        """The normalizer's commits at the turn's offsets (spelled text went around it)."""
        if not (self._raw_shift or self._spoken_shift):
            return commits
        return [
            replace(
                c,
                raw_start=c.raw_start + self._raw_shift,
                raw_end=c.raw_end + self._raw_shift,
                spoken_start=c.spoken_start + self._spoken_shift,
            )
            for c in commits
        ]

    def flush(self) -> str:
        """No more text: the received text, and whatever the normalizer holds, is committed."""
        self._input_ended = True
        if self._parser is not None:
            pieces = self._parser.flush()
            if self._forward_markup:
                return ""  # the engine parses the tags: the text went out as it came
            self._take_pieces(pieces)
        spoken = self._normalize(self.unnormalized)
        return spoken + (self._add(self._shifted(self._normalizer.flush())) if self._normalizer is not None else "")

    def poll(self, now: float | None = None) -> str:
        """No event came for a while. While received text waits: its next slice if the engine
        needs it, or if it has made no progress for ENGINE_HOLD_SECONDS. Otherwise: held text
        the normalizer gives up waiting for (an LLM stalled mid-span)."""
        now = self._clock() if now is None else now
        if self.unnormalized:
            held = now - self._fed_at >= ENGINE_HOLD_SECONDS
            return self._normalize(NORMALIZE_SLICE_CHARS) if held or self.needs_normalizing else ""
        if self._normalizer is None:
            return ""
        return self._add(self._shifted(self._normalizer.poll(now, starving=self._starving(now))))

    def drop_held(self) -> None:
        """Held text will never be spoken."""
        self._waiting, self._waiting_from = "", 0
        if self._normalizer is not None:
            self._normalizer.reset()

    def cancel(self, played_seconds: float | None = None) -> str:
        """A cancel: held text will never be spoken, and the heard text is from now on what
        `played_seconds` of audio covered (None: everything whose audio was produced), whatever
        progress still arrives. Returns it."""
        self.drop_held()
        self._heard_at_cancel = self._tracker.heard_text(played_seconds)
        return self._heard_at_cancel

    @property
    def word_end(self) -> bool:
        """The spoken text so far ends a word (`StreamingNormalizer.word_end`); raw text shows
        its own spaces, so without normalization this is never needed."""
        return self._normalizer is not None and not self._spelled_last and self._normalizer.word_end

    @property
    def space_follows(self) -> bool:
        """The spoken text so far goes on with a space, then a letter
        (`StreamingNormalizer.space_follows`): it closes punctuation too."""
        return self._normalizer is not None and self._normalizer.space_follows

    @property
    def holds_text(self) -> bool:
        """Received text is not committed yet: `poll` may have pieces."""
        waiting = len(self._waiting) > self._waiting_from
        return waiting or (self._normalizer is not None and bool(self._normalizer.pending))

    def _add(self, commits: list[Commit]) -> str:
        if not commits:
            return ""
        self._tracker.add_commits(commits)
        self._spoken_length = commits[-1].spoken_end
        return "".join(commit.spoken for commit in commits)

    def _starving(self, now: float) -> bool:
        if self._first_audio_at is None:
            return True
        queued = self._audio_samples / self._sample_rate - (now - self._first_audio_at)
        return queued < STARVING_SECONDS

    # -- progress in --------------------------------------------------------------------

    def on_progress(self, spoken_end: int, audio_time: float) -> list[Word]:
        """Raw words that started by `audio_time`, each once, in order."""
        if spoken_end > self._voiced_end:
            self._voiced_end, self._fed_at = spoken_end, self._clock()
        return self._tracker.on_progress(spoken_end, audio_time)

    def on_words(self, words: Iterable[Word]) -> None:
        """Words tracked on the far side of a wire, for the raw text pushed here."""
        self._tracker.add_started(words)

    def on_audio(self, chunk: AudioChunk) -> None:
        if self._first_audio_at is None:
            self._first_audio_at = self._clock()
        self._audio_samples += chunk.num_samples
        self._sample_rate = chunk.sample_rate

    async def with_polling(
        self, events: AsyncIterator, forward: Callable[[str], None]
    ) -> AsyncIterator:
        """`events` as they come; while text is held back, `poll` runs between them and its
        spoken text goes to `forward`. Closes `events` when done."""
        pending: asyncio.Task | None = None
        try:
            while True:
                if pending is None:
                    pending = asyncio.ensure_future(anext(events))
                if self.holds_text:
                    await asyncio.wait({pending}, timeout=POLL_INTERVAL)
                    if not pending.done():
                        forward(self.poll())
                        continue
                try:
                    event = await pending
                except StopAsyncIteration:
                    return
                pending = None
                yield event
        finally:
            await close_events(events, pending)

    # -- answers ------------------------------------------------------------------------

    @property
    def raw_text(self) -> str:
        """Every raw character received so far."""
        return self._tracker.raw_text

    @property
    def raw_length(self) -> int:
        return self._tracker.raw_length

    @property
    def heard_end(self) -> int:
        """Raw offset of the end of the last word that has started (0: none yet)."""
        return self._tracker.heard_end

    def heard_text(self, played_seconds: float | None = None) -> str:
        return self._tracker.heard_text(played_seconds)

    @property
    def heard(self) -> str:
        """The turn's heard text: fixed by a cancel, else every word whose audio started."""
        if self._heard_at_cancel is not None:
            return self._heard_at_cancel
        return self._tracker.heard_text(None)

    @property
    def audio_seconds(self) -> float:
        return self._audio_samples / self._sample_rate

    @property
    def usage(self) -> Usage:
        """Raw characters received, raw characters heard (exactly `len(heard)`), audio seconds."""
        return Usage(self.raw_length, len(self.heard), self.audio_seconds)
