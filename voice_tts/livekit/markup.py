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

from voice_tts.markup import MAX_PAUSE_SECONDS, PROSODY_GAINS, PROSODY_RATES

__all__ = ["LLM_INSTRUCTIONS", "Markup"]

LLM_INSTRUCTIONS = f"""\
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

# Markers that never wrap text, written by the LLM as an opening tag.
_OPEN_SELF_CLOSING = re.compile(r'(<expr\b(?=[^>]*\btype\s*=\s*"(?:expression|break|sound)")[^>]*?[^/\s])\s*>')


class Markup(tts.TTS.Markup):
    """`Qwen3StreamingTTS.Markup`: LiveKit's `expr` dialect, spoken by the engine as it is."""

    @property
    def info(self) -> tts.MarkupInfo:
        return tts.MarkupInfo(nonverbals={})  # no sounds

    def llm_instructions(self, *, speech_steering=None) -> str | None:
        return LLM_INSTRUCTIONS

    def normalize(self, text: str) -> str:
        """Closes a marker that never wraps text, left open: `<expr type="break" label="1s">`."""
        return _OPEN_SELF_CLOSING.sub(r"\1/>", text)

    def convert(self, text: str) -> str:
        return text  # the engine reads `expr` markers natively
