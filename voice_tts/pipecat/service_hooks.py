"""Every private `TTSService` member the adapter relies on, in one place.

Pipecat's public API covers audio contexts, word timestamps and interruptions, but three things
the adapter must do have no public hook in pipecat-ai 1.14:

- At the end of an audio context the base class writes the context's words that never got a
  timestamp to the LLM context (`_apply_force_complete`). That suits a provider that drops
  word events; for a turn that failed those words were never spoken, so they are dropped.
- Every context that ends with no audio counts towards writing the service off
  (`_record_context_audio_outcome`); a turn of only punctuation is silent by design.
- A turn's context id and the sentence still pending in TOKEN mode (`_turn_context_id`,
  `_aggregated_frame_sequencer`, `_push_sequencer_frames`) are needed to move a turn to a new
  engine stream when its voice changes mid-turn, and to keep a sentence slot bounded: the
  base class matches each word against its whole slot, so one slot of 20,000 characters costs
  seconds per word.
- The trace context of the conversation turn (`_tracing_context`, set by `PipelineTask(
  enable_tracing=True)`): a remote engine's server joins its span of the turn to it.
- When a sentence gets its slot (`_push_sequencer_frames` with the sentence's frame): the base
  class matches a word when its audio context plays it, and a word whose sentence has no slot
  yet is held in the sequencer and replayed, at the slot's creation, behind the words queued
  after it, out of order. The adapter gives Pipecat only words whose sentence has a slot.

`check_hooks()` runs at import: if Pipecat renames or reshapes any of these, importing the
adapter fails at once with the member's name instead of the LLM context silently filling with
unspoken words. tests/integration/test_pipecat_service_hooks.py tests each hook's behaviour.
"""

from __future__ import annotations

import inspect

from pipecat.frames.frames import AggregatedTextFrame, AggregatedTextProgressFrame, Frame, TTSTextFrame
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.ai_service import AIService
from pipecat.services.tts_service import TTSService

# (member, its parameters after self) as of pipecat-ai 1.14.0.
_HOOKS = {
    "_apply_force_complete": ["context_id"],
    "_record_context_audio_outcome": ["context_id", "received_audio"],
    "_push_sequencer_frames": ["frames", "context_id"],
}
_ATTRIBUTES = ("_turn_context_id", "_aggregated_frame_sequencer")


def check_hooks() -> None:
    """Raise ImportError naming the private member that is gone or changed."""
    for name, parameters in _HOOKS.items():
        member = getattr(TTSService, name, None)
        if member is None or not inspect.iscoroutinefunction(member):
            raise ImportError(f"voice_tts.pipecat needs TTSService.{name}, gone in this Pipecat")
        found = list(inspect.signature(member).parameters)[1:]
        if found != parameters:
            raise ImportError(
                f"voice_tts.pipecat needs TTSService.{name}({', '.join(parameters)}), "
                f"this Pipecat has ({', '.join(found)})"
            )
    source = inspect.getsource(TTSService.__init__)
    for name in _ATTRIBUTES:
        if f"self.{name}" not in source:
            raise ImportError(f"voice_tts.pipecat needs TTSService.{name}, gone in this Pipecat")
    if "self._tracing_context" not in inspect.getsource(AIService.__init__):
        raise ImportError("voice_tts.pipecat needs AIService._tracing_context, gone in this Pipecat")
    finalize = getattr(type_of_sequencer(), "finalize", None)
    if finalize is None or list(inspect.signature(finalize).parameters)[1:] != ["context_id"]:
        raise ImportError("voice_tts.pipecat needs AggregatedFrameSequencer.finalize(context_id)")


def type_of_sequencer() -> type:
    from pipecat.utils.context.aggregated_frame_sequencer import AggregatedFrameSequencer

    return AggregatedFrameSequencer


check_hooks()


class TTSServiceHooks(TTSService):
    """A `TTSService` whose private hooks are reached only through the methods below."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        # Contexts whose untimed words are being dropped (a failed turn's unspoken rest).
        self._dropping_untimed_words: str | None = None

    # -- what subclasses decide ------------------------------------------------------------

    def keeps_untimed_words(self, context_id: str) -> bool:
        """Whether a context's words that never got a timestamp go to the LLM context when
        it ends (the base class's behaviour)."""
        return True

    def counts_as_silent(self, context_id: str) -> bool:
        """Whether a context that ended with no audio counts towards writing the service off."""
        return True

    async def on_sentence_slotted(self, context_id: str) -> None:
        """A sentence of the context got its slot: words of the text handed to `run_tts` so far
        can be matched (TOKEN mode promotes a sentence before the token that ended it is spoken)."""

    # -- what subclasses use ---------------------------------------------------------------

    def turn_trace_context(self):
        """The OpenTelemetry context of the conversation turn being traced (None: not traced)."""
        tracing = getattr(self, "_tracing_context", None)
        if tracing is None or not getattr(self, "_tracing_enabled", False):
            return None
        return tracing.get_turn_context()

    @property
    def turn_context_id(self) -> str | None:
        """The context of the LLM turn in progress (None between turns)."""
        return self._turn_context_id

    async def end_pending_sentence(self) -> None:
        """Make the text pending in the turn's sentence (TOKEN mode) a slot of its own now."""
        context_id = self._turn_context_id
        if context_id is not None:
            await self._push_sequencer_frames(
                await self._aggregated_frame_sequencer.finalize(context_id), context_id
            )

    async def start_new_turn_context(self) -> None:
        """End the turn's context where it is (its pending sentence promoted first, so the
        words already spoken in it still produce word frames) and go on in a new one."""
        context_id = self._turn_context_id
        if context_id is None:
            return
        await self.end_pending_sentence()
        await self.flush_audio(context_id)
        self._turn_context_id = None
        self._turn_context_id = self.create_context_id()

    # -- the private overrides -------------------------------------------------------------

    async def _apply_force_complete(self, context_id: str):
        if self.keeps_untimed_words(context_id):
            await super()._apply_force_complete(context_id)
            return
        # Completing the slots also releases the skipped frames queued behind them and
        # forgets the context; only the word frames built from the unspoken text are dropped.
        self._dropping_untimed_words = context_id
        try:
            await super()._apply_force_complete(context_id)
        finally:
            self._dropping_untimed_words = None

    async def push_frame(self, frame: Frame, direction: FrameDirection = FrameDirection.DOWNSTREAM):
        if (
            self._dropping_untimed_words is not None
            and isinstance(frame, (TTSTextFrame, AggregatedTextProgressFrame))
            and getattr(frame, "context_id", None) == self._dropping_untimed_words
        ):
            return
        await super().push_frame(frame, direction)

    async def _push_sequencer_frames(self, frames: list[Frame], context_id: str | None):
        await super()._push_sequencer_frames(frames, context_id)
        if context_id and any(type(f) is AggregatedTextFrame and f.will_be_spoken for f in frames):
            await self.on_sentence_slotted(context_id)

    async def _record_context_audio_outcome(self, context_id: str, received_audio: bool):
        if received_audio or self.counts_as_silent(context_id):
            await super()._record_context_audio_outcome(context_id, received_audio)
