"""Text cut into the deltas an LLM streams, and streamed at an LLM's pace, for benchmarks.

An LLM sends one token at a time, and its tokenizer decides where a token ends: byte-level BPE
(Qwen's, GPT's, Llama's) first splits text into chunks with a regex (a word with its leading
space, a run of punctuation, a run of spaces, digits up to three at a time) and never merges
across them. With a vocabulary of 150k tokens nearly every common English word is one token, so
`llm_deltas` sends one delta per chunk; Han text has no spaces and its chunk is a whole clause,
which such vocabularies cut into words of one or two characters, so Han runs go two characters
at a time. (The tiny fixture's `vocab.json` holds only the tokens its golden texts need, so it
says nothing about where a real LLM's tokens end.)
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from typing import Callable

import regex

from voice_tts.protocol import EngineStream

# Qwen2's pre-tokenizer split (engine.model.text.QWEN2_SPLIT) with digits grouped one to three
# at a time, as GPT-4's and Llama 3's tokenizers group them.
_LLM_CHUNKS = regex.compile(
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_HAN_RUN = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]{3,}")
_HAN_TOKEN_CHARS = 2

DELTA_KINDS = ("llm", "chars2")


def llm_token_deltas(text: str, seed: int = 0) -> list[str]:
    """`text` cut the way an LLM streams it: each word with its leading whitespace, in pieces
    of 1 to 3 characters. Joined, the pieces are `text` exactly."""
    rng = random.Random(seed)
    deltas = []
    for match in re.finditer(r"\s*\S+|\s+$", text):
        piece = match.group(0)
        while piece:
            size = rng.randint(1, 3)
            deltas.append(piece[:size])
            piece = piece[size:]
    return deltas


def llm_deltas(text: str) -> list[str]:
    """`text` as an LLM streams it (see the module). Joined, the deltas are `text` exactly."""
    deltas: list[str] = []
    for chunk in _LLM_CHUNKS.findall(text):
        start = 0
        for run in _HAN_RUN.finditer(chunk):
            pieces = [chunk[i : min(i + _HAN_TOKEN_CHARS, run.end())] for i in range(run.start(), run.end(), _HAN_TOKEN_CHARS)]
            before = chunk[start : run.start()]
            if before.isspace():  # a leading space is part of the first token (' 확인', as BPE merges it)
                pieces[0] = before + pieces[0]
            elif before:
                deltas.append(before)
            deltas.extend(pieces)
            start = run.end()
        if start < len(chunk):
            deltas.append(chunk[start:])
    return deltas


def deltas_for(kind: str, text: str, seed: int = 0) -> list[str]:
    """The deltas of `kind`: "llm" (`llm_deltas`) or "chars2" (each word with its leading space
    cut into pieces of 1 to 3 characters, `llm_token_deltas`)."""
    if kind == "llm":
        return llm_deltas(text)
    if kind == "chars2":
        return llm_token_deltas(text, seed)
    raise ValueError(f"deltas must be one of {DELTA_KINDS}, got {kind!r}")


async def push_at_pace(
    stream: EngineStream, deltas: list[str], per_second: float, pushed: Callable[[int], None] | None = None
) -> None:
    """Pushes delta i at i / `per_second` seconds after the call, as an LLM streams them (a
    delta pushed late does not shift the ones after it), then ends the input; `pushed(i)` runs
    right after delta i is pushed."""
    began = time.perf_counter()
    for index, delta in enumerate(deltas):
        delay = began + index / per_second - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        stream.push_text(delta)
        if pushed:
            pushed(index)
    stream.end_input()
