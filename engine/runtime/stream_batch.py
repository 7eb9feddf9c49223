"""Every stream's step state as arrays indexed by row (the loop's row of a stream is its slot).

After vLLM v1's `InputBatch`: a stream's fields live in persistent columns, written in place
when the stream joins, leaves or changes (text arriving, a chunk queued, a step taken) and never
rebuilt, so that the loop's per-iteration work (scheduling, step inputs, taking frames, stop
checks, chunk choice) is a few array operations over all rows, not Python per stream. The text
track (an ICL clone's reference ids, then the text ids) and each text token's spoken end are
rows of two matrices that widen when a stream's text outgrows them.

A `StreamState` reads and writes its own row through its attributes (events and tests); a
stream not yet admitted has a batch of its own, copied into the loop's batch at admission
(`adopt`); its row is free again once it has left (`release`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

if TYPE_CHECKING:
    from engine.runtime.stream import StreamState

# Status codes, in the order of `engine.runtime.stream.StreamStatus` (`status` holds the index):
# the scheduler takes rows from WAIT_TEXT to READY by one comparison.
PREFIX, WAIT_TEXT, WAIT_READER, READY, FINISHED = range(5)
NO_BOUND = np.iinfo(np.int64).max  # `unread_bound` of a stream whose channel counts no backlog

# column: value of a fresh row. Columns of one kind are the columns of one matrix (`ints`,
# `floats`, `flags`), so that a stream joins by copying three rows, not one value per column.
INT_COLUMNS = {
    "status": PREFIX,
    "priority": 0,
    "first_chunk_frames": 0,  # 0: the loop's size
    "max_frames": 0,
    "prefix_rows": 0,  # rows of the voice prefix already in the slot's KV
    "track_offset": 0,
    "reference_count": 0,
    "text_count": 0,
    "characters_received": 0,
    "steps": 0,
    "frames_produced": 0,
    "frames_vocoded": 0,
    "chunks_emitted": 0,
    "progress_end": 0,
    "last_served": 0,
    # The reader's backlog, without asking the channel every step: samples posted to it, what
    # the channel said its reader had read when last asked, and the bound that parks it. A
    # stream can be behind only once posted - read seen reaches the bound: then the loop asks.
    "samples_posted": 0,
    "samples_read_seen": 0,
    "unread_bound": NO_BOUND,
    "sink": 0,  # where its chunks are posted: an index into the loop's output's sinks
}
FLOAT_COLUMNS = {
    "first_audio_at": np.nan,  # NaN: no chunk posted yet
    "waiting_since": 0.0,  # the scheduler's: arrival, then the last step it ran in
}
# reader_behind: what a reader the loop cannot count said last (`ReaderCommand`).
FLAG_COLUMNS = {"text_ended": False, "tail_pending": False, "reader_behind": False}
MATRICES = {"ints": (np.int64, INT_COLUMNS), "floats": (np.float64, FLOAT_COLUMNS), "flags": (np.bool_, FLAG_COLUMNS)}
TRACK_WIDTH = 64  # track columns to start with; doubled when a stream's text needs more


class StreamBatch:
    def __init__(self, rows: int = 1) -> None:
        self.rows = rows
        self.used = np.zeros(rows, dtype=bool)
        self.streams: list[StreamState | None] = [None] * rows
        self.channels = np.full(rows, None, dtype=object)  # each stream's channel, taken for many rows at once
        for matrix, (dtype, columns) in MATRICES.items():
            setattr(self, matrix, np.tile(np.array(list(columns.values()), dtype=dtype), (rows, 1)))
        self.track = np.zeros((rows, TRACK_WIDTH), dtype=np.int64)
        self.text_ends = np.zeros((rows, TRACK_WIDTH), dtype=np.int64)
        self._bind_columns()

    def _bind_columns(self) -> None:
        for matrix, (_, columns) in MATRICES.items():
            values = getattr(self, matrix)
            for k, name in enumerate(columns):
                setattr(self, name, values[:, k])

    # ---- joining and leaving --------------------------------------------------------------

    def free_row(self) -> int:
        free = np.flatnonzero(~self.used)
        if len(free):
            return int(free[0])
        self._grow_rows(self.rows * 2)
        return self.rows // 2

    def adopt(self, stream: StreamState, row: int | None = None) -> int:
        """Move `stream`'s row from its batch into this one (at `row`, or a free one)."""
        if row is None:
            row = self.free_row()
        elif row >= self.rows:
            self._grow_rows(max(row + 1, self.rows * 2))
        source, at = stream.batch, stream.row
        for matrix in MATRICES:
            getattr(self, matrix)[row] = getattr(source, matrix)[at]
        width = int(source.reference_count[at] + source.text_count[at])
        self._fit_track(width)
        self.track[row, :width] = source.track[at, :width]
        self.text_ends[row, :width] = source.text_ends[at, :width]
        source.used[at], source.streams[at], source.channels[at] = False, None, None
        self.used[row], self.streams[row], self.channels[row] = True, stream, stream.channel
        stream.batch, stream.row = self, row
        return row

    def release(self, stream: StreamState) -> None:
        """The stream has left: its row is free for the next one (the stream reads it no more)."""
        self.used[stream.row], self.streams[stream.row], self.channels[stream.row] = False, None, None

    # ---- text -----------------------------------------------------------------------------

    def set_track(self, row: int, reference_ids: Sequence[int], text_ids: Sequence[int], text_ends: Sequence[int]) -> None:
        r, t = len(reference_ids), len(text_ids)
        self._fit_track(r + t)
        self.track[row, :r] = reference_ids
        self.track[row, r : r + t] = text_ids
        self.text_ends[row, :t] = text_ends[:t] if len(text_ends) >= t else list(text_ends) + [0] * (t - len(text_ends))
        self.reference_count[row], self.text_count[row] = r, t

    def append_text(self, row: int, ids: Sequence[int], ends: Sequence[int]) -> None:
        r, t, n = int(self.reference_count[row]), int(self.text_count[row]), len(ids)
        self._fit_track(r + t + n)
        self.track[row, r + t : r + t + n] = ids
        self.text_ends[row, t : t + n] = ends
        self.text_count[row] = t + n

    def _fit_track(self, width: int) -> None:
        if width <= self.track.shape[1]:
            return
        columns = self.track.shape[1]
        while columns < width:
            columns *= 2
        for name in ("track", "text_ends"):
            old = getattr(self, name)
            new = np.zeros((self.rows, columns), dtype=old.dtype)
            new[:, : old.shape[1]] = old
            setattr(self, name, new)

    def _grow_rows(self, rows: int) -> None:
        extra = rows - self.rows
        self.used = np.concatenate([self.used, np.zeros(extra, dtype=bool)])
        self.streams += [None] * extra
        self.channels = np.concatenate([self.channels, np.full(extra, None, dtype=object)])
        for matrix, (dtype, columns) in MATRICES.items():
            fresh = np.tile(np.array(list(columns.values()), dtype=dtype), (extra, 1))
            setattr(self, matrix, np.concatenate([getattr(self, matrix), fresh]))
        for name in ("track", "text_ends"):
            old = getattr(self, name)
            setattr(self, name, np.concatenate([old, np.zeros((extra, old.shape[1]), dtype=old.dtype)]))
        self.rows = rows
        self._bind_columns()

    # ---- facts of rows (an index array, or one row) ----------------------------------------

    def track_length(self, rows):
        return self.reference_count[rows] + self.text_count[rows]

    def frames_pending(self, rows):
        return self.frames_produced[rows] - self.frames_vocoded[rows]

    def next_text_known(self, rows):
        """Whether each row's next text row is known: its next track token has arrived, or its
        text has ended (then tts_eos, then tts_pad)."""
        return (self.steps[rows] + self.track_offset[rows] < self.track_length(rows)) | self.text_ended[rows]

    def readers_behind(self, rows: np.ndarray) -> np.ndarray:
        """Whether each of `rows`' reader is a whole bound behind (its stream parks in
        WAIT_READER): its channel is asked only where the samples posted since it last said
        what its reader had read reach the bound."""
        behind = self.reader_behind[rows].copy()
        unsure = np.flatnonzero(self.samples_posted[rows] - self.samples_read_seen[rows] >= self.unread_bound[rows])
        for i in unsure.tolist():
            row = int(rows[i])
            channel = self.channels[row]
            self.samples_read_seen[row] = channel.samples_read
            behind[i] = channel.reader_behind(int(self.samples_posted[row]))
        return behind

    def spoken_end_before(self, rows, frames):
        """Characters of spoken text fed to the model before each row's frame `frames` was made."""
        token = frames + self.track_offset[rows] - self.reference_count[rows]
        count = self.text_count[rows]
        last = np.where(self.text_ended[rows], self.characters_received[rows], self.text_ends[rows, np.maximum(count - 1, 0)])
        within = self.text_ends[rows, np.minimum(np.maximum(token, 0), np.maximum(count - 1, 0))]
        return np.where(token < 0, 0, np.where(token < count, within, last))
