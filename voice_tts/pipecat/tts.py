"""Pipecat TTS service: LLM tokens in, speech and word timestamps out.

One Pipecat audio context (an assistant turn, or one `TTSSpeakFrame`) is one `TTSSession`, that
is one engine stream. Every token goes to the session the moment it arrives (TOKEN aggregation,
no sentence wait). The session's audio chunks become `TTSAudioRawFrame`s and its words become
word timestamps; from those the base service builds `TTSTextFrame`s that the output transport
releases at playback time, so after a barge-in the LLM context holds exactly the words that were
played (`push_text_frames=False`). A turn that fails (engine error or exception, a silent or
lost engine, a refused voice, `CancelFrame`) keeps only the words whose audio was produced; an
`EndFrame` lets the turn finish first.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncGenerator
from typing import Any

from loguru import logger

from voice_tts.audio import PCMResampler
from voice_tts.engines import default_engine, model_name
from voice_tts.languages import language_tag
from voice_tts.markup import MarkupDialect
from voice_tts.progress import Word
from voice_tts.protocol import SUPPORTED_SAMPLE_RATES, AudioChunk, Error, ErrorCode, StreamingEngine
from voice_tts.session import SILENCE_TIMEOUT, SessionDone, TTSSession, WordsEvent, prepare_normalizer
from voice_tts.tn.chars import is_unspaced

try:
    from pipecat.frames.frames import (
        CancelFrame,
        EndFrame,
        Frame,
        LLMFullResponseEndFrame,
        LLMFullResponseStartFrame,
        LLMTextFrame,
        StartFrame,
        TTSAudioRawFrame,
        TTSSpeakFrame,
        TTSStoppedFrame,
    )
    from pipecat.processors.frame_processor import FrameDirection
    from pipecat.services.settings import TTSSettings
    from pipecat.services.tts_service import TextAggregationMode
    from pipecat.transcriptions.language import Language
    from pipecat.utils.errors import ErrorCategory
    from pipecat.utils.time import nanoseconds_to_seconds
    from pipecat.utils.tracing.service_decorators import traced_tts
    from pipecat.utils.types import is_given
except ModuleNotFoundError as e:
    logger.error(f"Exception: {e}")
    logger.error('To use Qwen3StreamingTTS, you need to `pip install "voice-tts[pipecat]"`.')
    raise ImportError(f"Missing module: {e}") from e

from .errors import error_category, refusal_category
from .service_hooks import TTSServiceHooks
from .settings import Qwen3StreamingTTSSettings, refused_values, turn_request
from .slots import SlotCutter, word_batches
from .tagged_text import TaggedText
from .turn import ContextTurn, current_trace


# Seconds before asking again a server that accepts connections but failed to answer
# `prewarm` (its capabilities) for a passing reason.
PREWARM_RETRY_DELAY = 1.0
# Seconds `start` waits for a remote engine's first connection (its model named, a socket
# warm), as vendor services connect in `start`; a server slower than this is followed by the
# connection task, and turns before then report no model.
START_CONNECT_WAIT = 5.0

# Engines produce the protocol's SUPPORTED_SAMPLE_RATES; at any other pipeline rate audio is
# asked for at the models' own rate and resampled here.
_NATIVE_RATE = 24000

class Qwen3StreamingTTS(TTSServiceHooks):
    """Streaming TTS on a voice-tts engine: an in-process `Engine`, the embedded voice
    (`Engine.embedded()`) or a co-located server (`RemoteEngine(url)`).

    Example::

        tts = Qwen3StreamingTTS(settings=Qwen3StreamingTTS.Settings(voice="ryan"))
    """

    Settings = Qwen3StreamingTTSSettings
    _settings: Settings

    def __init__(
        self,
        *,
        engine: StreamingEngine | None = None,
        settings: Settings | None = None,
        text_aggregation_mode: TextAggregationMode = TextAggregationMode.TOKEN,
        normalize: bool = True,
        spell_acronyms: bool = True,
        silence_timeout: float = SILENCE_TIMEOUT,
        markup: MarkupDialect | None = None,
        **kwargs,
    ):
        """Initialize the service.

        Args:
            engine: The engine to speak with. Default: `RemoteEngine($VOICE_TTS_URL)` if that
                is set, else the embedded voice; a default engine is created at pipeline start
                and closed at teardown, while a given one stays open (its owner closes it).
            settings: Runtime-updatable settings; voice None is the engine's default voice,
                language None lets the engine decide.
            text_aggregation_mode: TOKEN (the default) hands every LLM token to the engine at
                once; SENTENCE waits for whole sentences.
            normalize: Run streaming text normalization (numbers, dates, ...) on the text.
            spell_acronyms: Spell capitals that are not words ("FBI" -> "F B I") when normalizing.
            silence_timeout: Seconds the engine may stay silent once it has all of a turn's
                text before the turn fails with an `ErrorFrame`.
            markup: "cartesia": the LLM's text carries Cartesia Sonic-3's tags (`<emotion
                value="calm"/>`, `<break time="500ms"/>`, `<speed ratio="1.2"/>`, `<volume
                ratio="0.8"/>`, `<spell>…</spell>`), as an app written for Pipecat's Cartesia
                service sends them; "expr": LiveKit's `expr` markers. The tags are spoken as
                they direct (an emotion becomes the model's style instruction) and never reach
                the word frames or the LLM context. None: `<` is text.
            **kwargs: Passed to `TTSService` (e.g. `sample_rate`, `text_transforms`).
        """
        default_settings = self.Settings(
            model=None, voice=None, language=None, instruct=None, lexicon=None, speed=1.0
        )
        if settings is not None:
            default_settings.apply_update(settings)
        # A bad dictionary or speed fails here, not at the first turn; turns take them checked.
        checked = turn_request(default_settings, _NATIVE_RATE, normalize, spell_acronyms, markup)
        default_settings.lexicon, default_settings.speed = checked.lexicon, checked.speed

        super().__init__(
            text_aggregation_mode=text_aggregation_mode,
            push_text_frames=False,
            push_start_frame=True,
            push_stop_frames=False,
            pause_frame_processing=False,
            settings=default_settings,
            **kwargs,
        )
        self._engine = engine
        self._owns_engine = engine is None
        self._model_named_by_app = default_settings.model is not None
        self._normalize = normalize
        prepare_normalizer(engine, normalize)
        self._spell_acronyms = spell_acronyms
        self._markup = markup
        self._tagged = TaggedText(markup) if markup else None
        self._silence_timeout = silence_timeout
        self._turns: dict[str, ContextTurn] = {}
        # Contexts whose text had nothing to say (only punctuation, say): silent by design.
        self._nothing_to_say: set[str] = set()
        # Contexts whose turn failed: only the words with audio go to the LLM context.
        self._failed_contexts: set[str] = set()
        self._connect_task: asyncio.Task | None = None
        self._connected = False
        # Why the engine cannot be reached, while the service is written off for it.
        self._unreachable_reason: str | None = None
        self._streams_tokens = text_aggregation_mode == TextAggregationMode.TOKEN
        self._slots = SlotCutter()
        # Counts settings changes: a turn's refusal writes the service off only while the
        # settings it was refused for are still the service's.
        self._settings_version = 0

    def can_generate_metrics(self) -> bool:
        """TTFB, TTFA and usage (characters) metrics are reported."""
        return True

    @property
    def supports_processing_metrics(self) -> bool:
        """Audio arrives on a background task, after `run_tts` returns: TTFB and TTFA carry
        the latency instead."""
        return False

    def language_to_service_language(self, language: Language) -> str | None:
        """A Pipecat `Language` as the BCP 47 tag every engine takes ("en-gb"): each engine
        keeps what it can use of it (the embedded voice has a British English)."""
        return language_tag(language)

    async def start(self, frame: StartFrame):
        """Start the service, creating the default engine if none was given, and connect a
        remote engine ahead of the first turn: the first turn's metrics then name the model,
        which a remote engine learns from its server (waited for up to START_CONNECT_WAIT)."""
        if self._engine is None:
            self._engine = default_engine()
        await self._name_model()  # before the start's metrics go out
        await super().start(frame)
        first_attempt = asyncio.Event()
        self._connect_task = self.create_task(self._connect(first_attempt), name="tts-connect")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(START_CONNECT_WAIT):
                await first_attempt.wait()

    async def _name_model(self):
        """The engine's model in the metrics (a stand-in name for an engine that names none,
        such as an app's own wrapper), unless the app named one."""
        if not self._model_named_by_app:
            await super()._update_settings(self.Settings(model=model_name(self._engine)))

    async def _connect(self, first_attempt: asyncio.Event):
        """Open a remote engine's connection and follow it (in-process engines are connected
        from the start). `on_connected` when it is up; as soon as the server is lost,
        `on_disconnected` and the service written off (a `ServiceSwitcher` fails over);
        `on_connected` again, and usable, once the server is back. A refused API key is
        reported as such and not retried: only a new key fixes it. `first_attempt` is set
        once the first connection has succeeded or failed."""
        prewarm = getattr(self._engine, "prewarm", None)
        if prewarm is None:
            await self._set_connected(True)
            first_attempt.set()
            return
        try:
            connected = await self._prewarm(prewarm, report_unreachable=True)
        finally:
            first_attempt.set()
        while connected is not None:
            if connected:
                await self._engine.wait_reachable(False)
                await self._set_connected(False)
                await self._unreachable(f"lost the connection to {self._engine.url}")
                connected = False
            else:
                await self._engine.wait_reachable(True)
                connected = await self._prewarm(prewarm, report_unreachable=False)
                if connected is False:
                    await asyncio.sleep(PREWARM_RETRY_DELAY)

    async def _prewarm(self, prewarm, report_unreachable: bool) -> bool | None:
        """Connected (True), not yet (False), or refused for good (None: a wrong API key)."""
        try:
            await prewarm()
        except Exception as e:
            category = error_category(e, ErrorCategory.CONNECTIVITY)
            if category.is_permanent:
                await self.push_error(
                    error_msg=f"{self} was refused by the engine: {e}", category=category
                )
                return None
            if report_unreachable:
                await self._unreachable(f"{e}")
            else:
                logger.debug(f"{self}: engine still unreachable: {e}")
            return False
        await self._name_model()  # a remote engine knows its model once connected
        self._unreachable_reason = None
        await self.set_usable(True)
        await self._set_connected(True)
        return True

    async def _set_connected(self, connected: bool):
        if connected != self._connected:
            self._connected = connected
            await self._call_event_handler("on_connected" if connected else "on_disconnected")

    async def _unreachable(self, message: str):
        self._unreachable_reason = message
        await self._call_event_handler("on_connection_error", message)
        await self.push_error(
            error_msg=f"{self} cannot reach the engine: {message}",
            category=ErrorCategory.CONNECTIVITY,
            force_treat_as_permanent=True,
        )

    async def stop(self, frame: EndFrame):
        """End gracefully: a turn still being written is spoken to its end (its text so far),
        then playback finishes and the engine sessions are released."""
        if self.turn_context_id is not None:
            # The reply ends here; as if the LLM had finished it.
            await self.process_frame(LLMFullResponseEndFrame(), FrameDirection.DOWNSTREAM)
        await super().stop(frame)
        await self._close_turns()
        await self._disconnect()

    async def cancel(self, frame: CancelFrame):
        """Stop at once: cancel every engine stream."""
        await super().cancel(frame)
        await self._close_turns()
        await self._disconnect()

    async def cleanup(self):
        """Release the engine sessions, and the engine if this service created it."""
        await super().cleanup()
        await self._close_turns()
        await self._disconnect()
        if self._owns_engine and self._engine is not None:
            await self._engine.aclose()
            self._engine = None

    async def _disconnect(self):
        if self._connect_task is None:
            return
        task, self._connect_task = self._connect_task, None
        await self.cancel_task(task)
        await self._set_connected(False)

    #
    # Text in
    #

    async def process_frame(self, frame: Frame, direction: FrameDirection):
        """Process a frame; under markup, LLM text goes on without its tags; in TOKEN mode,
        LLM text goes in slots of bounded size."""
        if isinstance(frame, (LLMFullResponseStartFrame, TTSSpeakFrame)):
            await self._refuse_turn_while_unreachable()
        if self._tagged is not None and isinstance(frame, LLMTextFrame) and not frame.skip_tts:
            if not (text := self._tagged.push(frame.text)):
                return  # a tag, or the start of one: Pipecat gets no text for it
            frame = dataclasses.replace(frame, text=text)
        elif self._tagged is not None and isinstance(frame, LLMFullResponseEndFrame):
            if text := self._tagged.end():  # held back, and text after all ("3 <")
                await self._process_text(LLMTextFrame(text), direction)
        if self._streams_tokens and isinstance(frame, LLMTextFrame) and not frame.skip_tts:
            await self._process_text(frame, direction)
        else:
            await super().process_frame(frame, direction)

    async def _process_text(self, frame: LLMTextFrame, direction: FrameDirection):
        if not self._streams_tokens:
            await super().process_frame(frame, direction)
            return
        for piece in self._slots.pieces(frame.text):
            if piece.cut:
                await self.end_pending_sentence()
                if piece.inside_word and (turn := self._turns.get(self.turn_context_id)):
                    turn.word_cuts.append(turn.text_chars)
            if piece.text is frame.text:
                await super().process_frame(frame, direction)
            else:
                await super().process_frame(dataclasses.replace(frame, text=piece.text), direction)
                await asyncio.sleep(0)  # the rest of a huge token waits its turn on the loop

    async def _refuse_turn_while_unreachable(self):
        """A turn that comes while the engine cannot be reached is not handed to the written-off
        service (Pipecat drops its text, a `ServiceSwitcher` has failed over): the app hears of
        that turn at once, as CONNECTIVITY, rather than from a silence. The service stays
        written off until the connection task reaches the engine again."""
        if self._unreachable_reason is not None and not self.is_usable:
            await self.push_error(
                error_msg=f"{self} did not speak a turn: the engine cannot be reached ({self._unreachable_reason})",
                category=ErrorCategory.CONNECTIVITY,
            )

    @traced_tts
    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame | None, None]:
        """Hand text to the context's engine session; audio follows on the session's task."""
        turn = self._turns.get(context_id) or await self._open_turn(context_id)
        if turn.finished:
            # The session failed; the rest of the turn stays unspoken.
            logger.trace(f"{self}: dropping text of failed context {context_id}")
        else:
            # Pipecat hands each sentence without the space before it: joined as they come,
            # "friend." and "The" would read (and be cut into words) as "friend.The". Chinese
            # and Japanese sentences follow each other without one.
            joined = self._streams_tokens or not turn.text_chars or text[:1].isspace()
            separator = "" if joined or is_unspaced(turn.last_char) or is_unspaced(text[:1]) else " "
            turn.text_chars += len(separator) + len(text)
            turn.last_char = text[-1:] or turn.last_char
            if self._tagged is not None and (tagged := self._tagged.take()):
                text = tagged  # the session acts on the tags Pipecat never saw
            await turn.session.feed(separator + text)
        yield None

    async def flush_audio(self, context_id: str | None = None):
        """No more text for this context: the engine speaks what it has, then finishes."""
        context_id = context_id or self.get_active_audio_context_id()
        turn = self._turns.get(context_id) if context_id else None
        if turn is None or turn.input_ended:
            return
        turn.input_ended = True
        if turn.finished:
            # The session failed before the turn's text ended: the context ends with the turn.
            self._forget(context_id, turn)
            await self._end_context(context_id, turn)
        else:
            turn.session.end_input()

    async def on_turn_context_completed(self):
        """Complete the turn, also ending input of a context that went quiet.

        The base flushes only a context that is still registered; one that had no new item
        for `stop_frame_timeout_s` was dropped, yet its engine stream still waits for text.
        """
        context_id = self.turn_context_id
        await super().on_turn_context_completed()
        if context_id:
            await self.flush_audio(context_id)

    async def _open_turn(self, context_id: str) -> ContextTurn:
        try:
            with current_trace(self.turn_trace_context()):  # a remote engine's server joins it
                rate = self.sample_rate if self.sample_rate in SUPPORTED_SAMPLE_RATES else _NATIVE_RATE
                request = turn_request(self._settings, rate, self._normalize, self._spell_acronyms, self._markup)
                session = TTSSession(self._engine, request, silence_timeout=self._silence_timeout)
        except Exception as e:
            turn = ContextTurn(session=None, finished=True, failed=True)
            self._failed_contexts.add(context_id)
            self._turns[context_id] = turn
            await self.push_error(
                error_msg=f"{self} could not open an engine stream: {e}",
                exception=e,
                category=refusal_category(e),
            )
            return turn
        turn = ContextTurn(session=session, settings_version=self._settings_version)
        turn.pump = self.create_task(self._pump(context_id, turn), name=f"tts-{context_id}")
        self._turns[context_id] = turn
        return turn

    #
    # Engine events out
    #

    async def _pump(self, context_id: str, turn: ContextTurn):
        """Map the session's events onto the audio context, in order, until the session ends."""
        try:
            async for event in turn.session.events():
                if turn.cancelled:
                    # Barge-in: drain the session to its end, dropping what is left of it.
                    continue
                if isinstance(event, AudioChunk):
                    turn.produced_audio = True
                    await self._append_audio(context_id, turn, event)
                    if turn.words_before_audio or turn.held_words:
                        await self._add_words(context_id, turn, [])
                elif isinstance(event, WordsEvent):
                    await self._add_words(context_id, turn, event.words)
                elif isinstance(event, Error):
                    self._fail(context_id, turn)
                    await self._push_engine_error(event, turn)
                elif isinstance(event, SessionDone):
                    if event.cancelled:
                        self._fail(context_id, turn)
                    elif not (
                        turn.produced_audio or turn.failed or _says_anything(turn.session.raw_text)
                    ):
                        self._nothing_to_say.add(context_id)
        except Exception as e:
            # One turn's failure must not stop the service: report it, end the context.
            self._fail(context_id, turn)
            if not turn.cancelled:
                await self.push_error(error_msg=f"{self} engine session failed: {e}", exception=e)
        turn.finished = True
        if turn.cancelled:
            return
        # A session that ended before the turn's text did (an error) leaves the context open
        # until the turn ends, so the rest of the turn does not open another one.
        if turn.input_ended:
            self._forget(context_id, turn)
            await self._end_context(context_id, turn)

    async def _append_audio(self, context_id: str, turn: ContextTurn, chunk: AudioChunk):
        pcm = chunk.pcm
        if chunk.sample_rate != self.sample_rate:
            if turn.resampler is None:
                turn.resampler = PCMResampler(chunk.sample_rate, self.sample_rate)
            pcm = turn.resampler.process(pcm)
        turn.audio_seconds += chunk.duration
        if pcm:
            await self.append_to_audio_context(
                context_id, TTSAudioRawFrame(pcm, self.sample_rate, 1, context_id=context_id)
            )

    async def _add_words(self, context_id: str, turn: ContextTurn, words: list[Word], hold: bool = True):
        """Hand words to Pipecat a few at a time, each batch matched against its slot before
        the next goes in: Pipecat matches every queued word in one go (the ones that come
        before the context's first audio too, so those wait for it here). In TOKEN mode a word
        whose sentence has no slot yet waits here too, unless `hold` is off (the context ends)."""
        words, turn.held_words = turn.held_words + words, []
        if hold and self._streams_tokens and not turn.input_ended:
            slotted = next((i for i, w in enumerate(words) if w.raw_end > turn.slotted_chars), len(words))
            words, turn.held_words = words[:slotted], words[slotted:]
        if not turn.produced_audio:
            turn.words_before_audio.extend(words)
            return
        words, turn.words_before_audio = turn.words_before_audio + words, []
        for i, (batch, spaceless) in enumerate(word_batches(words, turn.word_cuts)):
            if i:
                await asyncio.sleep(0)  # Pipecat may match the last batch before the next comes
            await self._add_word_batch(context_id, batch, spaceless)

    async def _add_word_batch(self, context_id: str, batch: list[tuple[str, float]], spaceless: bool):
        # Chinese and Japanese words carry no spaces between them, nor do the pieces of a
        # word that slots cut: such runs are marked so that the text built from the word
        # frames is not spaced out.
        await self.add_word_timestamps(
            batch, context_id, includes_inter_frame_spaces=True if spaceless else None
        )

    async def on_sentence_slotted(self, context_id: str) -> None:
        if (turn := self._turns.get(context_id)) is not None:
            turn.slotted_chars = turn.text_chars

    async def _end_context(self, context_id: str, turn: ContextTurn):
        if turn.held_words:
            await self._add_words(context_id, turn, [], hold=False)
        if turn.resampler is not None and (tail := turn.resampler.flush()):
            await self.append_to_audio_context(
                context_id, TTSAudioRawFrame(tail, self.sample_rate, 1, context_id=context_id)
            )
        # A context that went quiet past stop_frame_timeout_s after its turn ended is gone.
        if self.audio_context_available(context_id):
            await self.append_to_audio_context(context_id, TTSStoppedFrame(context_id=context_id))
            await self.remove_audio_context(context_id)

    def _fail(self, context_id: str, turn: ContextTurn):
        turn.failed = True
        self._failed_contexts.add(context_id)

    async def _push_engine_error(self, error: Error, turn: ContextTurn):
        await self.stop_all_metrics()
        category = error_category(error)
        if category.is_permanent and turn.produced_audio:
            # The engine spoke this turn with these settings: the failure is the turn's, and
            # must not write the service off for the turns that follow.
            category = ErrorCategory.SERVER
        elif category.is_permanent and turn.settings_version != self._settings_version:
            # Refused for settings the app has changed since (the fix sent right behind the
            # turn, before its error came back): the next turns use the new ones, and this
            # stale error must not write the service off again.
            category = ErrorCategory.APPLICATION
        message = f"{self} engine error [{error.code}]: {error.message}"
        if error.code == ErrorCode.UNREACHABLE and not error.retryable:
            # Refused: nothing listens. Written off at once, so that a ServiceSwitcher fails
            # over now; the connection task brings the service back with the server.
            if self.is_usable:
                await self._unreachable(error.message)
            return
        if category is ErrorCategory.CONNECTIVITY:
            await self._call_event_handler("on_connection_error", error.message)
        await self.push_error(error_msg=message, category=category)

    def keeps_untimed_words(self, context_id: str) -> bool:
        """A failed turn's unspoken words stay out of the LLM context, and so do the words
        of a turn given to a service that was written off (Pipecat does not hand it the
        text, so nothing of it was spoken)."""
        return self.is_usable and context_id not in self._failed_contexts

    def counts_as_silent(self, context_id: str) -> bool:
        """A turn of only punctuation or symbols is silent by design; a failed turn has
        reported its own error."""
        return context_id not in self._nothing_to_say and context_id not in self._failed_contexts

    async def on_audio_context_completed(self, context_id: str):
        """Forget what was noted about the context."""
        self._nothing_to_say.discard(context_id)
        self._failed_contexts.discard(context_id)
        await super().on_audio_context_completed(context_id)

    #
    # Interruptions
    #

    async def on_audio_context_interrupted(self, context_id: str):
        """Barge-in: cancel the context's engine stream; nothing more of it is emitted."""
        self._nothing_to_say.discard(context_id)
        self._failed_contexts.discard(context_id)
        if self._tagged is not None:
            self._tagged.clear()
        turn = self._turns.pop(context_id, None)
        if turn is not None and turn.session is not None and not turn.finished:
            turn.cancelled = True
            heard = turn.session.cancel(played_seconds=self._played_seconds(turn))
            logger.debug(f"{self}: context {context_id} interrupted; heard [{heard}]")
        await super().on_audio_context_interrupted(context_id)

    async def push_frame(self, frame: Frame, direction: FrameDirection = FrameDirection.DOWNSTREAM):
        """Push a frame, noting when each context's audio starts going out."""
        if isinstance(frame, TTSAudioRawFrame) and frame.context_id in self._turns:
            turn = self._turns[frame.context_id]
            if turn.playback_started_ns is None:
                turn.playback_started_ns = self.get_clock().get_time()
        await super().push_frame(frame, direction)

    def _played_seconds(self, turn: ContextTurn) -> float:
        """Seconds of the context's audio played so far, judged from when it started going
        out (the output transport plays in real time), never more than was produced."""
        if turn.playback_started_ns is None:
            return 0.0
        elapsed = nanoseconds_to_seconds(self.get_clock().get_time() - turn.playback_started_ns)
        return max(0.0, min(elapsed, turn.audio_seconds))

    async def _close_turns(self):
        for context_id, turn in list(self._turns.items()):
            self._forget(context_id, turn)
            if turn.session is not None and not turn.finished:
                self._fail(context_id, turn)
                turn.cancelled = True
                turn.session.cancel()
            if turn.pump is not None:
                await self.cancel_task(turn.pump)

    def _forget(self, context_id: str, turn: ContextTurn):
        if self._turns.get(context_id) is turn:
            del self._turns[context_id]

    #
    # Settings
    #

    async def _update_settings(self, delta: TTSSettings) -> dict[str, Any]:
        """Apply a settings delta as any app sends it: Pipecat's base `TTSSettings` or ours,
        built from a dict or not (`voice_id` too), with `Language` enums or tags. A value the
        service cannot take is refused with an `ErrorFrame` naming the setting, of category
        APPLICATION: the service goes on, healthy, with the value it had. Voice, language or
        instruct move an open turn to a new engine stream, so the rest of the turn is spoken
        with the new settings; a speed change reaches open turns from their next chunk."""
        delta = type(self._settings).from_mapping(delta.given_fields())
        for refusal in refused_values(delta, self._settings, self._engine):
            await self.push_error(
                error_msg=f"{self}: setting refused: {refusal}", category=ErrorCategory.APPLICATION
            )
        if is_given(delta.model):
            self._model_named_by_app = True
        changed = await super()._update_settings(delta)
        if changed:
            self._settings_version += 1
        if "speed" in changed:
            try:
                for turn in self._turns.values():
                    if turn.session is not None and not turn.finished:
                        turn.session.set_speed(self._settings.speed)
            except ValueError as e:  # no Rubber Band here: the `speed` extra is missing
                await self.push_error(
                    error_msg=f"{self}: setting refused: {e}", category=ErrorCategory.APPLICATION
                )
        if changed.keys() & {"voice", "language", "instruct"}:
            await self.start_new_turn_context()
        return changed


def _says_anything(text: str) -> bool:
    """Whether text has a letter or digit: text of only punctuation, symbols or emoji is
    legitimately silent."""
    return any(char.isalnum() for char in text)
