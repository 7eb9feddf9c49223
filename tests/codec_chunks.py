"""Streams decoded chunk by chunk, for tests of the runtime's vocoder."""

from __future__ import annotations

import random

from engine.runtime.vocoder import Chunk, Vocoder


def decode_in_random_chunks(
    vocoder: Vocoder, streams: list[int], frames: int, rng: random.Random, sizes: tuple[int, ...] = (1, 1, 2, 3, 5, 8)
) -> dict[int, bytes]:
    """Decode `frames` frames of each stream (slot) from the vocoder's code history in chunks of
    random `sizes`, each call batching the streams that go on at different positions (a stream
    sits out a call at random); each stream's int16 PCM."""
    position = {s: 0 for s in streams}
    pcm: dict[int, list[bytes]] = {s: [] for s in streams}
    while any(p < frames for p in position.values()):
        chunks = []
        for s in streams:
            if position[s] < frames and rng.random() < 0.7:
                size = min(rng.choice(sizes), frames - position[s])
                chunks.append(Chunk(s, position[s], size))
                position[s] += size
        for chunk, audio in zip(chunks, vocoder.decode(chunks)):
            pcm[chunk.slot].append(audio)
    return {s: b"".join(parts) for s, parts in pcm.items()}
