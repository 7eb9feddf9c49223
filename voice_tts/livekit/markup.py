"""The plugin's expressive markup for LiveKit Agents (`TTS.Markup`): what the LLM is taught and
how its markers reach the engine.

The engine reads LiveKit's `expr` markers itself (`voice_tts.markup`, "expr" dialect), so
`convert` changes nothing and `normalize` only closes markers the LLM left open. The
instructions teach exactly what the engine does: free-form expressions (Qwen3-TTS's style
instruction, from that sentence on), breaks, prosody (rate and loudness), spelling; no sounds.
"""

from __future__ import annotations

import re

from livekit.agents import tts

from voice_tts.markup import EXPR_INSTRUCTIONS

__all__ = ["Markup"]

# Markers that never wrap text, written by the LLM as an opening tag.
_OPEN_SELF_CLOSING = re.compile(r'(<expr\b(?=[^>]*\btype\s*=\s*"(?:expression|break|sound)")[^>]*?[^/\s])\s*>')


class Markup(tts.TTS.Markup):
    """`Qwen3StreamingTTS.Markup`: LiveKit's `expr` dialect, spoken by the engine as it is."""

    @property
    def info(self) -> tts.MarkupInfo:
        return tts.MarkupInfo(nonverbals={})  # no sounds

    def llm_instructions(self, *, speech_steering=None) -> str | None:
        return EXPR_INSTRUCTIONS

    def normalize(self, text: str) -> str:
        """Closes a marker that never wraps text, left open: `<expr type="break" label="1s">`."""
        return _OPEN_SELF_CLOSING.sub(r"\1/>", text)

    def convert(self, text: str) -> str:
        return text  # the engine reads `expr` markers natively
