"""Who owns which KV slot, and which voice prefixes are cached.

The talker's KV cache is one static tensor `[layers, slots, kv_heads, max_context, head_dim]` for
keys and one for values, so every step works on fixed shapes (CUDA graphs). A stream holds one slot from admission until it
finishes; the slot returns to the pool in the same loop iteration, so it is free by the next step.
Slots are handed out lowest-first, which keeps the busy rows at the front of the pool: a step
only has to cover rows `[0, highest busy slot]`.

`PrefixCache` keeps the KV of the text-independent prompt rows of recent voices (speaker,
language, instruct), so a repeat turn copies them instead of recomputing them.
"""

from __future__ import annotations

import collections
import heapq
from dataclasses import dataclass

import torch

from engine.model.talker import KVCache
from engine.model.prompt import Voice


def kv_bytes_per_slot(layers: int, kv_heads: int, head_dim: int, max_context: int, dtype: torch.dtype) -> int:
    element = torch.empty((), dtype=dtype).element_size()
    return 2 * layers * kv_heads * head_dim * max_context * element


def slots_for_budget(memory_budget: int, bytes_per_slot: int, max_streams: int) -> int:
    """How many slots fit the budget, at most `max_streams`, at least one."""
    if bytes_per_slot <= 0:
        raise ValueError("bytes_per_slot must be positive")
    return max(1, min(max_streams, memory_budget // bytes_per_slot))


class KVPool:
    """The talker's static KV cache and the free list of its slots."""

    def __init__(self, cache: KVCache) -> None:
        self.cache = cache
        self.slots = cache.num_slots
        self.max_context = cache.max_len
        self._free = list(range(self.slots))

    @property
    def free_slots(self) -> int:
        return len(self._free)

    def allocate(self) -> int:
        if not self._free:
            raise RuntimeError("no free KV slot")
        return heapq.heappop(self._free)

    def release(self, slot: int) -> None:
        heapq.heappush(self._free, slot)

    def save(self, slot: int, length: int) -> "CachedPrefix":
        return CachedPrefix(
            keys=self.cache.k[:, slot, :, :length].clone(),
            values=self.cache.v[:, slot, :, :length].clone(),
            length=length,
        )

    def load(self, slot: int, prefix: "CachedPrefix") -> None:
        self.cache.k[:, slot, :, : prefix.length].copy_(prefix.keys)
        self.cache.v[:, slot, :, : prefix.length].copy_(prefix.values)

    def load_many(self, slots: torch.Tensor, prefix: "CachedPrefix") -> None:
        """`load` into every slot of `slots` (a device tensor of distinct slots): one copy each for keys and values."""
        self.cache.k[:, slots, :, : prefix.length] = prefix.keys[:, None]
        self.cache.v[:, slots, :, : prefix.length] = prefix.values[:, None]


@dataclass
class CachedPrefix:
    keys: torch.Tensor  # [layers, kv_heads, length, head_dim]
    values: torch.Tensor
    length: int


class PrefixCache:
    """Least-recently-used cache of voice-prefix KV, keyed by the voice prompt."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: collections.OrderedDict[Voice, CachedPrefix] = collections.OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, prompt: Voice) -> CachedPrefix | None:
        entry = self._entries.get(prompt)
        if entry is None:
            self.misses += 1
            return None
        self.hits += 1
        self._entries.move_to_end(prompt)
        return entry

    def put(self, prompt: Voice, prefix: CachedPrefix) -> None:
        if self.capacity <= 0:
            return
        self._entries[prompt] = prefix
        self._entries.move_to_end(prompt)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)
