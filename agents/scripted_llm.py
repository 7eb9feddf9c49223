"""An offline stand-in for an LLM: canned replies, streamed token by token at an LLM's pace.

The agents use it when no LLM endpoint is configured, so a voice agent runs on a fresh machine
with no network and no keys while the TTS still sees what a real LLM produces: small deltas
(" Hello", ",", " stream", "ing") after a first-token delay, then a steady token rate.
Framework-neutral: the Pipecat and LiveKit agents wrap `stream_tokens` in their own LLM shapes.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass

REPLIES = (
    "Hello! I'm a voice agent running entirely on this machine. My words are spoken while "
    "they are still being written, one token at a time. Go ahead and interrupt me whenever "
    "you like, and I'll stop right where you cut in.",
    "Every word you hear is tracked as it plays. If you talk over me, the conversation "
    "history keeps only the part of my answer that you actually heard, so I never pretend "
    "I said more than I did.",
    "Without a language model configured, I answer from a short script. Set an API key and "
    "a base URL for any OpenAI compatible endpoint, and the same pipeline will hold a real "
    "conversation with you.",
    "Numbers work too: the meeting moved from 9:30 to 11:15 on March 3rd, and the budget "
    "grew by 12.5 percent, to $4,200.",
)

# The same kind of script for an expressive agent, as an LLM taught the markup writes it: LiveKit's
# `expr` markers (voice_tts.livekit.markup teaches them) and Cartesia Sonic-3's tags (what a
# Pipecat app written for Cartesia's service asks its LLM for). Spoken, never shown.
EXPR_REPLIES = (
    '<expr type="expression" label="warm and welcoming"/>Hello! I can change how I speak as I '
    'go. <expr type="break" label="500ms"/><expr type="expression" label="excited, a little '
    'fast"/>Like this, when something is exciting! <expr type="expression" label="calm and '
    'slow"/>Or like this, when it is not.',
    '<expr type="expression" label="clear and helpful"/>Your booking code is <expr '
    'type="spell">K7Q2</expr>. <expr type="prosody" label="slow">Once more: <expr '
    'type="spell">K7Q2</expr>.</expr>',
)
CARTESIA_REPLIES = (
    '<emotion value="content"/>Hello! I can change how I speak as I go. <break time="500ms"/>'
    '<emotion value="excited"/>Like this, when something is exciting! <emotion value="calm"/>'
    '<speed ratio="0.9"/>Or like this, when it is not.',
    '<emotion value="content"/>Your booking code is <spell>K7Q2</spell>. <speed ratio="0.8"/>'
    'Once more: <spell>K7Q2</spell>.',
)

# Words, runs of punctuation, and whitespace-led words, the way BPE tokenizers cut English.
_TOKEN = re.compile(r"\s*[\w']+|\s*[^\w\s]+|\s+")
# BPE splits long words into pieces; this is about the length of a common piece.
_PIECE = 6


@dataclass(frozen=True)
class TokenPace:
    """How fast the stand-in writes: a delay before the first token, then a steady rate
    (typical hosted LLMs answer in a few hundred milliseconds at 30 to 100 tokens/s)."""

    first_token_s: float = 0.35
    tokens_per_second: float = 40.0


def tokenize(text: str) -> list[str]:
    """Cut text into LLM-like tokens; joined, they are the text again."""
    tokens: list[str] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        word = token.lstrip()
        lead = token[: len(token) - len(word)]
        if len(word) <= _PIECE + 2 or not word.isalpha():
            tokens.append(token)
            continue
        pieces = [word[i : i + _PIECE] for i in range(0, len(word), _PIECE)]
        tokens.append(lead + pieces[0])
        tokens.extend(pieces[1:])
    return tokens


async def stream_tokens(text: str, pace: TokenPace = TokenPace()) -> AsyncIterator[str]:
    """Yield the tokens of `text` at `pace`, on schedule (a slow consumer does not add up
    delays)."""
    loop = asyncio.get_running_loop()
    start = loop.time() + pace.first_token_s
    for index, token in enumerate(tokenize(text)):
        delay = start + index / pace.tokens_per_second - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        yield token


class ScriptedReplies:
    """The replies in order, starting over after the last one."""

    def __init__(self, replies: Iterable[str] = REPLIES):
        replies = tuple(replies)
        if not replies:
            raise ValueError("ScriptedReplies needs at least one reply")
        self._cycle = itertools.cycle(replies)

    def next_reply(self) -> str:
        return next(self._cycle)
