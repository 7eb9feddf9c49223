"""Who owns which KV slot and which KV blocks, and which voice prefixes are cached.

The talker's KV cache is paged (`engine.model.talker.PagedKVCache`, as vLLM's PagedAttention and
nano-vllm's block manager): a pool of fixed-size blocks of `BLOCK_SIZE` rows, and a block table
per slot, a static device tensor that both attention paths read (the PyTorch one through
`CacheRows`, the Triton kernel inside the CUDA graphs: the graphs see the table's storage, which
is updated in place). A stream holds one slot from admission until it finishes; its blocks are
taken as it grows and all go back with its slot, in the same loop iteration, so they are free by
the next step. Slots are handed out lowest-first, which keeps the busy rows at the front of the
pool: a step only has to cover rows `[0, highest busy slot]`. Block 0 is scratch: every table
entry a slot does not own points there, so the writes of rows that sit out a step, or stand past
their blocks, land where nothing live is read.

Admission by reservation (no preemption): a stream is admitted only if the blocks for the most
rows it can ever write (`--max-context`, or fewer where its `max_new_tokens` ends it sooner) can
be set aside beside every other stream's reservation; otherwise it is refused with `capacity` at
once. Blocks are then taken lazily, as its rows reach them, from the set-aside count, so an
admitted turn always finds its next block: it never fails mid-turn. Once its text has ended, the
runaway guard bounds its frames, and its reservation shrinks to that bound (`limit`): an agent's
reply, a few hundred rows, holds a few hundred rows' blocks for most of its life, not
`--max-context`.

`PrefixCache` keeps the KV of the text-independent prompt rows of recent voices (speaker,
language, instruct), so a repeat turn copies them instead of recomputing them.
"""

from __future__ import annotations

import collections
import heapq
from dataclasses import dataclass

import numpy as np
import torch

from engine.model.config import TransformerConfig
from engine.model.prompt import Voice
from engine.model.talker import PagedKVCache

# Rows per block: the attention kernel's key tile (a power of two of at least 16), and at most
# 31 rows left unused at the end of a stream.
BLOCK_SIZE = 32
# Reserved beyond the rows a stream's frames can write: its first frame step's row, and one spare.
_SPARE_ROWS = 2


def kv_bytes_per_row(layers: int, kv_heads: int, head_dim: int, dtype: torch.dtype) -> int:
    """Keys and values of one position in every layer."""
    element = torch.empty((), dtype=dtype).element_size()
    return 2 * layers * kv_heads * head_dim * element


def blocks_for(rows: int) -> int:
    return -(-rows // BLOCK_SIZE)


def blocks_for_budget(memory_budget: int, bytes_per_row: int, slots: int, max_context: int) -> int:
    """Usable blocks in `memory_budget` bytes (the scratch block comes on top): at least one
    stream's worth at `max_context`, at most every slot's."""
    if bytes_per_row <= 0:
        raise ValueError("bytes_per_row must be positive")
    per_stream = blocks_for(max_context)
    return max(per_stream, min(slots * per_stream, memory_budget // (bytes_per_row * BLOCK_SIZE)))


class KVPool:
    """The talker's paged KV cache: slots, blocks, each slot's block table and reservation."""

    def __init__(
        self, cfg: TransformerConfig, slots: int, blocks: int, max_context: int, device: torch.device, dtype: torch.dtype
    ) -> None:
        self.cache = PagedKVCache.allocate(cfg, slots, blocks + 1, BLOCK_SIZE, max_context, device, dtype)
        self.slots = slots
        self.max_context = max_context
        self.blocks = blocks  # usable, scratch not counted
        self._free = list(range(slots))
        # The free blocks as a stack, taken from its top (lowest numbers first): [0, _free_top).
        self._free_blocks = np.arange(blocks, 0, -1, dtype=np.int64)
        self._free_top = blocks
        # Host copy of the block table (pinned on CUDA): changed here, copied to the device by `sync`.
        self._table = torch.zeros(self.cache.block_table.shape, dtype=torch.int64, pin_memory=device.type == "cuda")
        self._table_np = self._table.numpy()
        self._owned = np.zeros(slots, dtype=np.int64)  # blocks each slot holds
        self._reserved = np.zeros(slots, dtype=np.int64)  # blocks each slot may hold
        self._base = np.zeros(slots, dtype=np.int64)  # rows before a slot's first frame
        self._reserved_total = 0
        self._dirty_rows = 0  # table rows [0, this) hold changes the device has not seen

    # ---- slots and reservations -----------------------------------------------------------

    @property
    def free_slots(self) -> int:
        return len(self._free)

    @property
    def free_blocks(self) -> int:
        """Blocks no slot holds."""
        return self._free_top

    @property
    def unreserved_blocks(self) -> int:
        """Blocks no admitted stream may still claim: what admission can give a new stream."""
        return self.blocks - self._reserved_total

    def allocate(self) -> int:
        if not self._free:
            raise RuntimeError("no free KV slot")
        return heapq.heappop(self._free)

    def reserve(self, slot: int, prefix_rows: int, max_frames: int) -> bool:
        """Set aside the blocks `slot` needs for its prefix rows (voice prefix and any reference
        tail) and up to `max_frames` frames, capped at `--max-context`; False, nothing set aside,
        where the unreserved blocks are fewer."""
        need = max(int(self._owned[slot]), blocks_for(min(self.max_context, prefix_rows + max_frames + _SPARE_ROWS)))
        if need - self._reserved[slot] > self.unreserved_blocks:
            return False
        self._reserved_total += need - int(self._reserved[slot])
        self._reserved[slot] = need
        self._base[slot] = prefix_rows
        return True

    def limit(self, slot: int, max_frames: int) -> None:
        """The slot's stream will produce at most `max_frames` frames: give back the reservation
        beyond them (never below the blocks it holds)."""
        need = max(int(self._owned[slot]), blocks_for(min(self.max_context, int(self._base[slot]) + max_frames + _SPARE_ROWS)))
        if need < self._reserved[slot]:
            self._reserved_total -= int(self._reserved[slot]) - need
            self._reserved[slot] = need

    def release(self, slot: int) -> None:
        """The slot's stream has ended: its blocks, reservation and slot are free."""
        self.clear(slot)
        heapq.heappush(self._free, slot)

    def clear(self, slot: int) -> None:
        """Give back the slot's blocks and reservation, keeping the slot."""
        owned = int(self._owned[slot])
        if owned:
            self._free_blocks[self._free_top : self._free_top + owned] = self._table_np[slot, owned - 1 :: -1]
            self._free_top += owned
            self._table_np[slot, :owned] = 0
            self._dirty_rows = max(self._dirty_rows, slot + 1)
        self._owned[slot] = 0
        self._reserved_total -= int(self._reserved[slot])
        self._reserved[slot] = 0
        self._base[slot] = 0

    # ---- blocks ----------------------------------------------------------------------------

    def grow(self, slots: np.ndarray, rows: np.ndarray) -> None:
        """Make each slot of `slots` (distinct) hold the blocks of its rows [0, rows): array
        operations, whatever the number of streams. Within its reservation by construction;
        beyond it is a bug, and raises."""
        need = -(-np.minimum(rows, self.max_context) // BLOCK_SIZE)
        short = np.flatnonzero(need > self._owned[slots])
        if not len(short):
            return
        slots, need = slots[short], need[short]
        if (need > self._reserved[slots]).any():
            bad = int(np.flatnonzero(need > self._reserved[slots])[0])
            raise RuntimeError(f"slot {slots[bad]} needs {need[bad]} KV blocks but reserved {self._reserved[slots[bad]]}")
        have = self._owned[slots]
        count = need - have
        total = int(count.sum())
        top = self._free_top - total
        taken = self._free_blocks[top : self._free_top][::-1]  # lowest first
        self._free_top = top
        # Slot i takes columns have[i] .. need[i] - 1 of its table row, in turn.
        starts = np.repeat(np.cumsum(count) - count, count)
        columns = np.arange(total) - starts + np.repeat(have, count)
        self._table_np[np.repeat(slots, count), columns] = taken
        self._owned[slots] = need
        self._dirty_rows = max(self._dirty_rows, int(slots.max()) + 1)

    def grow_one(self, slot: int, rows: int) -> None:
        self.grow(np.array([slot]), np.array([rows]))

    def sync(self) -> None:
        """Copy the changed rows of the host block table to the device (slots are handed out
        lowest first: about the busy rows). Without waiting: the next launches on the device's
        stream see it, and the host takes blocks again only for a later step, after this step's
        codes were read (the loop's sync); a slot released meanwhile only sits out."""
        if self._dirty_rows:
            rows = self._dirty_rows
            self.cache.block_table[:rows].copy_(self._table[:rows], non_blocking=True)
            self._dirty_rows = 0

    def table(self, slot: int) -> list[int]:
        """The blocks `slot` holds, in position order (for tests and diagnostics)."""
        return self._table_np[slot, : int(self._owned[slot])].tolist()

    # ---- voice prefixes --------------------------------------------------------------------

    def save(self, slot: int, length: int) -> CachedPrefix:
        """A copy of the slot's rows [0, length) (it holds their blocks)."""
        blocks = self.cache.block_table[slot, : blocks_for(length)]

        def rows(cache: torch.Tensor) -> torch.Tensor:
            kept = cache[:, blocks].transpose(1, 2)  # [layers, kv_heads, count, block_size, hd]
            return kept.reshape(cache.shape[0], cache.shape[2], -1, cache.shape[4])[:, :, :length].clone()

        return CachedPrefix(keys=rows(self.cache.k), values=rows(self.cache.v), length=length)

    def load(self, slot: int, prefix: CachedPrefix) -> None:
        self.load_many([slot], prefix)

    def load_many(self, slots: list[int], prefix: CachedPrefix) -> None:
        """Copy `prefix` into rows [0, length) of every slot of `slots` (distinct, each with the
        reservation for them): one write each for keys and values."""
        self.grow(np.array(slots, dtype=np.int64), np.full(len(slots), prefix.length))
        self.sync()
        device = self.cache.k.device
        at = torch.arange(prefix.length, device=device)
        index = torch.tensor(slots, dtype=torch.int64).to(device, non_blocking=True)
        blocks = self.cache.block_table[index][:, at // BLOCK_SIZE]  # [slots, length]
        offsets = (at % BLOCK_SIZE).expand_as(blocks)
        # Advanced indices apart: the written dims are [slots, length, layers, kv_heads, hd].
        self.cache.k[:, blocks, :, offsets] = prefix.keys.permute(2, 0, 1, 3)[None]
        self.cache.v[:, blocks, :, offsets] = prefix.values.permute(2, 0, 1, 3)[None]


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
