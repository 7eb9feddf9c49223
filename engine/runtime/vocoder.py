"""The codec side of the runtime: every slot's streaming codec state, and the batched chunk decode.

The frame step writes each stream's frame codes into `history` ([slots + 1, HISTORY, groups] on
the device, frame k of a slot at row k % HISTORY), so a chunk is named by (slot, first frame,
frames) and its codes never travel through the host. `decode_async` splits chunks into graph
sizes (4, 2, 1 frames), batches equal runs, decodes them on their slots' codec states, which the
decoder reads and advances in place (`CodecDecoder.decode_chunk`), and leaves int16 PCM in pinned
host memory.

On CUDA the decode runs on its own stream beside the frame step, one CUDA graph per (rows
bucket, frames) with its own memory pool and capture stream (hence its own cuBLAS workspace):
graphs that may run at the same time must not share scratch memory. Chunks marked urgent (a
stream's first audio) are decoded first and get their own event, so they can be posted before
the rest of the batch is done. The same code runs eagerly on the CPU (float32).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Sequence

import numpy as np
import torch
from torch import Tensor

from engine.model.codec import CodecState
from engine.model.tts_model import Qwen3TTS
from engine.runtime.graphs import capture

# Frames per decode run (one graph each per rows bucket); longer chunks are several runs. The
# codec's cost per frame and stream barely changes with the run length, so 8-frame runs would
# only add graphs (and capture time at 1,024 rows).
CODEC_FRAME_SIZES = (1, 2, 4)
# Frames of code history kept per slot on the device: more than a stream ever has pending
# (the loop decodes at the latest once a stream holds MAX_PENDING_FRAMES).
HISTORY = 64
MAX_PENDING_FRAMES = HISTORY - 16
# Rows of one decode pass (a rows bucket of the runner's); more chunks of one run are several
# passes. The codec's activations, its graphs' pool and its convolution timing's scratch grow
# with the rows: at --max-streams 2048 a pass of 2,048 rows did not fit beside the KV cache on an
# 80 GB GPU, while 512 rows already keep the GPU busy. It also bounds warm-up's shapes.
MAX_DECODE_ROWS = 512


@dataclass(slots=True)
class Chunk:
    slot: int
    first_frame: int  # the stream's frame index of the chunk's first frame
    frames: int


@dataclass(frozen=True)
class CodecChunks:
    """Chunks as arrays, one entry per chunk: its slot, its first frame, its frames."""

    slots: np.ndarray
    first_frames: np.ndarray
    frames: np.ndarray

    def __len__(self) -> int:
        return len(self.slots)

    def __getitem__(self, index: slice) -> CodecChunks:
        return CodecChunks(self.slots[index], self.first_frames[index], self.frames[index])


@dataclass
class PendingAudio:
    """PCM of a `decode_async` call: the chunks' samples once the codec stream has produced them."""

    count: int
    parts: list[tuple[np.ndarray, Tensor]] = field(default_factory=list)  # (chunk indices, PCM rows)
    done: torch.cuda.Event | None = None

    def wait(self) -> None:
        if self.done is not None:
            self.done.synchronize()
            self.done = None

    def result(self) -> list[bytes]:
        """Each chunk's PCM."""
        return [samples.tobytes() for samples in self.samples()]

    def samples(self) -> Sequence[np.ndarray]:
        """Each chunk's int16 samples (`ChunkSamples`)."""
        self.wait()
        return ChunkSamples(self.count, [(indices, pcm.numpy()) for indices, pcm in self.parts])


class ChunkSamples(Sequence[np.ndarray]):
    """The chunks' int16 samples of a decode, each made when it is read (by whoever takes the
    chunks, not the loop). A chunk of one codec run (every chunk the loop queues but a stream's
    last) is a view of one row of one part (a part per run size and decode pass); a chunk of
    several runs is their join."""

    def __init__(self, count: int, parts: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self._count, self._parts = count, parts
        self._joined: list[np.ndarray] | None = None
        self._in_order = len(parts) == 1 and np.array_equal(parts[0][0], np.arange(count))
        if sum(len(indices) for indices, _ in parts) == count:  # one run each
            self._part, self._row = np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64)
            for part, (indices, _) in enumerate(parts):
                self._part[indices], self._row[indices] = part, np.arange(len(indices))
            return
        pieces: list[list[np.ndarray]] = [[] for _ in range(count)]
        for indices, pcm in parts:
            for index, samples in zip(indices.tolist(), pcm):
                pieces[index].append(samples)
        self._joined = [chunks[0] if len(chunks) == 1 else np.concatenate(chunks) for chunks in pieces]

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int) -> np.ndarray:
        if self._joined is not None:
            return self._joined[index]
        return self._parts[self._part[index]][1][self._row[index]]

    def __iter__(self) -> Iterator[np.ndarray]:
        if self._joined is not None:
            return iter(self._joined)
        if self._in_order:
            return iter(self._parts[0][1])  # every chunk is one row of the one part, in order
        parts = [pcm for _, pcm in self._parts]
        return (parts[part][row] for part, row in zip(self._part.tolist(), self._row.tolist()))


class Vocoder:
    def __init__(
        self, model: Qwen3TTS, slots: int, use_graphs: bool, bucket: Callable[[int], int]
    ) -> None:
        self.model = model
        self.codec = model.codec
        self.device = model.device
        self.slots = slots
        self.use_graphs = use_graphs
        self.warm_up_seconds: dict[str, float] = {}  # by phase, from the last `warm_up`
        self._bucket = bucket
        self.groups = model.config.talker.num_code_groups
        self.samples_per_frame = model.samples_per_frame
        self.history = torch.zeros(slots + 1, HISTORY, self.groups, dtype=torch.int64, device=self.device)
        # Codec state of every slot, plus one scratch row that padded graph rows write into.
        self._states = self.codec.new_state(slots + 1)
        self._fresh = self.codec.new_state(1)
        self._resets: dict[int, CodecState | None] = {}  # slot -> the state it starts from (None: fresh)
        self._graphs: dict[tuple[int, int], tuple[torch.cuda.CUDAGraph, Tensor, Tensor]] = {}
        self._stream = None
        if self.device.type == "cuda":
            self._stream = torch.cuda.Stream(device=self.device)
            self._stream.wait_stream(torch.cuda.current_stream(self.device))
        if use_graphs:
            self._pool = torch.cuda.graph_pool_handle()

    @property
    def graphs_captured(self) -> int:
        return len(self._graphs)

    @property
    def overlaps(self) -> bool:
        """Whether a `decode_async` runs beside the frame steps launched after it (CUDA)."""
        return self._stream is not None

    def reset(self, slot: int, context: CodecState | None = None) -> None:
        """The slot starts a new stream: fresh codec state before its first chunk, or `context`
        (an ICL clone's state after its reference frames: the decoder's left context)."""
        self._resets[slot] = context

    def _on_stream(self):
        return torch.cuda.stream(self._stream) if self._stream is not None else contextlib.nullcontext()

    def decode(self, chunks: list[Chunk]) -> list[bytes]:
        named = CodecChunks(*(np.array([getattr(c, f) for c in chunks], dtype=np.int64) for f in ("slot", "first_frame", "frames")))
        return self.decode_async(named)[0].result()

    def decode_async(
        self, chunks: CodecChunks, urgent: int = 0, behind_current: bool = True
    ) -> tuple[PendingAudio, PendingAudio | None]:
        """Start decoding `chunks` on the codec stream; the frame steps launched meanwhile run
        beside it. The first `urgent` chunks are decoded first, into a handle of their own
        (second element; None when urgent is 0); the first element holds the rest. By default
        the decode follows the work already launched on the current stream, so a chunk may end
        with the frame of a step that is still running; `behind_current=False` when every frame
        of the chunks was made by a step the host has finished (`history` rows of a step still
        running are other rows: a stream never holds HISTORY frames), so the decode runs beside
        the step launched last."""
        if self._stream is not None and behind_current:
            self._stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.inference_mode(), self._on_stream():
            self._reset_states()
            first = self._launch(chunks[:urgent]) if urgent else None
            rest = self._launch(chunks[urgent:])
        return rest, first

    def _launch(self, chunks: CodecChunks) -> PendingAudio:
        n = len(chunks)
        pending = PendingAudio(n)
        slots, first, left = chunks.slots, chunks.first_frames, chunks.frames.copy()
        offset = np.zeros(n, dtype=np.int64)
        # Split every chunk into graph-sized runs (4, 2, 1 frames), then batch equal runs:
        # runs at the same offset of different chunks are independent; later offsets follow.
        # Each run is one row of a (offset, size) batch, rows in chunk order.
        runs: dict[tuple[int, int], np.ndarray] = {}
        for size in sorted(CODEC_FRAME_SIZES, reverse=True):
            while True:
                index = np.flatnonzero(left >= size)
                if not len(index):
                    break
                for at in np.unique(offset[index]).tolist():
                    runs[(at, size)] = index[offset[index] == at]
                offset[index] += size
                left[index] -= size
        for at, size in sorted(runs):
            for lo in range(0, len(runs[(at, size)]), MAX_DECODE_ROWS):
                index = runs[(at, size)][lo : lo + MAX_DECODE_ROWS]
                pcm = self._decode_runs(slots[index], first[index] + at, size)
                pending.parts.append((index, pcm))
        if self._stream is not None:
            pending.done = torch.cuda.Event()
            pending.done.record(self._stream)
        return pending

    def _decode_runs(self, slots: np.ndarray, starts: np.ndarray, frames: int) -> Tensor:
        """Launch the decode of `frames` frames from each (slot, start frame); -> int16 PCM
        [len(slots), samples] on the host (pinned, filled once the codec stream gets there)."""
        batch = self._bucket(len(slots))
        cuda = self.device.type == "cuda"
        inputs = np.empty((2, batch), dtype=np.int64)
        inputs[0] = self.slots  # padding rows use the scratch state
        inputs[1] = 0
        inputs[0, : len(slots)] = slots
        inputs[1, : len(slots)] = starts
        staged = torch.from_numpy(inputs)
        if cuda:
            staged = staged.pin_memory()
        if self.use_graphs:
            graph, inputs_in, pcm_out = self._graph(batch, frames)
            inputs_in.copy_(staged, non_blocking=True)
            graph.replay()
            pcm = pcm_out[: len(slots)]
        else:
            self.codec.choose_convolutions(batch, frames)
            pcm = self._body(staged.to(self.device, non_blocking=True), frames)[: len(slots)]
        if not cuda:
            return pcm
        host = torch.empty(pcm.shape, dtype=pcm.dtype, pin_memory=True)
        host.copy_(pcm, non_blocking=True)
        return host

    def _body(self, inputs: Tensor, frames: int) -> Tensor:
        """Gather the rows' codes, decode them on their slots' codec states (read and advanced in
        place) -> int16 [B, samples]."""
        index, start = inputs[0], inputs[1]
        at = (start[:, None] + torch.arange(frames, device=start.device)) % HISTORY
        codes = self.history[index[:, None], at]
        wav = self.codec.decode_chunk(codes, replace(self._states, rows=index))
        return torch.round(wav * 32767.0).to(torch.int16)

    def apply_resets(self) -> None:
        """Reset the codec states of the slots started since the last call now, ahead of their
        first chunk (the loop calls this once per iteration, so a first chunk's decode does not
        wait behind them); `decode_async` applies any still pending."""
        if self._resets:
            with torch.inference_mode(), self._on_stream():
                self._reset_states()

    def _reset_states(self) -> None:
        """Give the slots started since the last reset a fresh codec state, all at once and on
        the codec stream (after the last chunk of whichever stream had the slot before)."""
        if not self._resets:
            return
        resets, self._resets = self._resets, {}
        states = self._states
        slots = torch.tensor(sorted(resets), device=self.device)
        k = slots.shape[0]
        fresh = self._fresh
        for name, tail in states.conv.items():
            tail.index_copy_(0, slots, fresh.conv[name].expand(k, *tail.shape[1:]))
        for pool, init in zip(states.keys + states.values, fresh.keys + fresh.values):
            pool.index_copy_(0, slots, init.expand(k, *pool.shape[1:]))
        states.key_pos.index_copy_(0, slots, fresh.key_pos.expand(k, *states.key_pos.shape[1:]))
        states.next_pos.index_fill_(0, slots, 0)
        for slot, context in resets.items():
            if context is None:
                continue
            for name, tail in states.conv.items():
                tail[slot].copy_(context.conv[name][0])
            for pool, init in zip(states.keys + states.values, context.keys + context.values):
                pool[slot].copy_(init[0])
            states.key_pos[slot].copy_(context.key_pos[0])
            states.next_pos[slot].copy_(context.next_pos[0])

    def _graph(self, batch: int, frames: int):
        entry = self._graphs.get((batch, frames))
        if entry is not None:
            return entry
        inputs_in = torch.zeros(2, batch, dtype=torch.int64, device=self.device)
        inputs_in[0] = self.slots
        pcm_out = torch.zeros(batch, frames * self.samples_per_frame, dtype=torch.int16, device=self.device)

        def body() -> None:
            pcm_out.copy_(self._body(inputs_in, frames))

        # How each convolution runs at this shape is part of what the graph records.
        self.codec.choose_convolutions(batch, frames)
        # The warm-up run and the capture advance the scratch row only; it is never a stream's state.
        graph = capture(body, self._stream, self._pool)
        entry = (graph, inputs_in, pcm_out)
        self._graphs[(batch, frames)] = entry
        return entry

    def warm_up(self, batches: list[int]) -> int:
        """Capture the decode graphs of these row buckets ahead of time; returns how many.
        Largest first: the graphs share one memory pool, and a smaller graph's capture fits in
        the blocks a larger one freed, while the other way round every graph needs new ones."""
        if not self.use_graphs:
            return 0
        batches = sorted({min(batch, self._bucket(MAX_DECODE_ROWS)) for batch in batches})
        captured = 0
        began = time.perf_counter()
        with torch.inference_mode():
            # Every shape's convolutions are chosen before any capture, so the timing's scratch
            # (im2col columns: gigabytes at 1,024 rows) goes back first and the graphs' pool does
            # not grow around it.
            for batch in batches:
                for frames in CODEC_FRAME_SIZES:
                    self.codec.choose_convolutions(batch, frames)
            if self.device.type == "cuda":
                torch.cuda.empty_cache()
            chosen = time.perf_counter()
            for batch in sorted(batches, reverse=True):
                for frames in sorted(CODEC_FRAME_SIZES, reverse=True):
                    if (batch, frames) not in self._graphs:
                        self._graph(batch, frames)
                        captured += 1
        self.warm_up_seconds = {
            "codec_convolution_ways": chosen - began, "codec_graphs": time.perf_counter() - chosen,
        }
        return captured
