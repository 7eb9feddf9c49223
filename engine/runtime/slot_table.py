"""The step loop's per-stream state as arrays indexed by KV slot (vLLM v1's persistent input
batch, `gpu_input_batch.py`): what the loop reads and writes for every stream in every iteration
lives in one row per slot and is updated in place, so that building a step's inputs, counting its
frames and checking who must stop are array operations over the stepped slots, not a Python loop
over streams.

A `StreamState` keeps its own values until the loop binds it to its slot at admission
(`bind`), from then on the row is its state (`SlotField` reads and writes it there), and it gets
its values back when its slot is released (`unbind`), so a stream reads the same before, during
and after. The row of a free slot is never read: every mask starts from the stepped or the `bound` slots.

The text track (an ICL clone's transcript ids, then the stream's text ids) is copied into the row
as it arrives, up to `track_capacity` ids: the loop stops a stream at its context limit before it
would feed a row past that (`track_offset + steps < max_context`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

if TYPE_CHECKING:
    from engine.runtime.stream import StreamState


class SlotField:
    """A `StreamState` field that lives in its slot's row of the loop's `SlotTable` while the
    stream is bound, and on the stream itself otherwise. `None` is kept as NaN (a float field)."""

    def __init__(self, default: Any) -> None:
        self.default = default

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.own = "_own_" + name

    def __get__(self, stream: Any, owner: type | None = None) -> Any:
        if stream is None:
            return self.default  # the dataclass's default
        table = stream.__dict__.get("_table")
        if table is None:
            return stream.__dict__.get(self.own, self.default)
        value = getattr(table, self.name)[stream.__dict__["slot"]].item()
        return None if value != value else value  # NaN: None

    def __set__(self, stream: Any, value: Any) -> None:
        table = stream.__dict__.get("_table")
        if table is None:
            stream.__dict__[self.own] = value
        else:
            getattr(table, self.name)[stream.__dict__["slot"]] = math.nan if value is None else value


class SlotTable:
    # The `SlotField`s of `StreamState`, and their arrays' types.
    FIELDS = {
        "steps": np.int64,  # talker steps run
        "frames_produced": np.int64,
        "frames_vocoded": np.int64,
        "chunks_emitted": np.int64,
        "last_served": np.int64,  # loop step it last ran in
        "prefix_rows": np.int64,
        "track_offset": np.int64,
        "max_frames": np.int64,
        "text_ended": np.bool_,
        "first_audio_at": np.float64,  # NaN: no audio posted yet
    }

    def __init__(self, slots: int, track_capacity: int) -> None:
        for name, dtype in self.FIELDS.items():
            setattr(self, name, np.zeros(slots, dtype=dtype))
        self.track_capacity = track_capacity
        self.track = np.zeros((slots, track_capacity), dtype=np.int64)  # the ids fed, row by row
        self.track_length = np.zeros(slots, dtype=np.int64)  # ids in the track so far (may pass the capacity)
        # Frames after which a stream whose text has ended stops (runaway guard); inf until it ends.
        self.frame_cap = np.full(slots, np.inf)
        self.bound = np.zeros(slots, dtype=bool)
        self.streams: list[StreamState | None] = [None] * slots

    def bind(self, stream: StreamState, slot: int) -> None:
        """The stream's state moves into row `slot` (its KV slot)."""
        own = {name: getattr(stream, name) for name in self.FIELDS}
        stream.slot = slot
        for name, value in own.items():
            getattr(self, name)[slot] = math.nan if value is None else value
        self.frame_cap[slot] = np.inf
        self.track_length[slot] = 0
        self.bound[slot] = True
        self.streams[slot] = stream
        stream.__dict__["_table"] = self
        self.append_track(stream, stream.reference_ids)
        self.append_track(stream, stream.text_ids)

    def unbind(self, stream: StreamState) -> None:
        """The stream takes its state back; its row is free."""
        values = {name: getattr(stream, name) for name in self.FIELDS}
        self.streams[stream.slot] = None
        self.bound[stream.slot] = False
        del stream.__dict__["_table"]
        for name, value in values.items():
            setattr(stream, name, value)

    def append_track(self, stream: StreamState, ids: Sequence[int]) -> None:
        slot, length = stream.slot, int(self.track_length[stream.slot])
        fits = ids[: max(0, self.track_capacity - length)]
        self.track[slot, length : length + len(fits)] = fits
        self.track_length[slot] = length + len(ids)

    def next_text_known(self, slots: np.ndarray) -> np.ndarray:
        """Per slot: whether its next step's text row is known (`StreamState.next_text_id_known`)."""
        return (self.steps[slots] + self.track_offset[slots] < self.track_length[slots]) | self.text_ended[slots]
