"""Executes the batched work of one step on the device: voice-prefix fills and the frame step.
Owns the talker's device tensors (the paged KV pool of `engine.runtime.kv_cache`, per-slot step state) and the `Vocoder` (per-slot codec
state and chunk decoding, `engine.runtime.vocoder`); the loop only hands it slot numbers and text
ids. The frame step writes each frame's codes into the vocoder's code history on the device.

The frame step covers pool rows `[0, n)` (n = highest busy slot + 1, rounded up to a bucket on
the GPU) with static shapes, for every stream in one call:

    x      = frame_sum[slot] + text_row          (text_row: P(x_t), tts_eos, or tts_pad)
    hidden = talker(x)                           KV written at the slot's own position
    c0     = choose(processed codec_head(hidden))           (EOS barred unless allowed)
    codes  = code predictor (15 passes) from (hidden, c0)   -> frame t, complete
    frame_sum[slot] = sum of the frame's 16 codebook embeddings

The math is the model's own (`engine.model.steps`: `prefill`, `talker_step`, `predict_codes`, and
`CodePredictor.predict`), the forward the reference generator runs at batch 1; the runner only
prepares the inputs, chooses the attention backend (its slot pool through PyTorch's attention, or
its kernel set), samples, and keeps the per-slot state.

The frame is complete at the end of the step, so a stream whose next text token is missing just
sits out the following steps (WAIT_TEXT): its frame can be vocoded, and it resumes with the kept
frame sum plus the new text row. A stream's first step is the last prefill row of the streaming
layout, P(x_0) + C(codec_bos): the frame sum starts as C(codec_bos). Rows that do not run this
step (free slots, parked or prefilling streams) are computed and thrown away: their state is only
updated where `active`, and their KV write lands on their own next position, which is rewritten
before it is ever read.

On CUDA each (rows bucket, KV-length bucket, greedy flags) frame step is captured once as a CUDA
graph and replayed; the only host sync per step is reading back the frame codes. In bf16 the
model's forward runs on the Triton kernels of `engine.runtime.kernels`, handed to it as its kernel
set (fused q/k norm + RoPE + cache write + attention over each row's live length, read through
its block table, so one graph serves every KV length and every block layout; sampling and the code's embedding in one launch per draw, in the runner's
`pick`). Voice-prefix fills run the model's PyTorch path. The same code runs eagerly on the CPU
(float32).
"""

from __future__ import annotations

import bisect
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from engine.model.code_predictor import PredictorCache
from engine.model.codec import CodecState
from engine.model import prompt
from engine.model.prompt import Voice
from engine.model.voice_clone import codec_context
from engine.model.sampling import SamplerRows, SamplingParams, apply_talker_processors, choose, suppressed_ids
from engine.model.steps import predict_codes, prefill, talker_logits, talker_step
from engine.model.tts_model import Qwen3TTS
from engine.runtime import kernels
from engine.runtime.kernels import MAX_CANDIDATES
from engine.runtime.candidate_sampling import choose_candidates, step_noise
from engine.runtime.graphs import capture
from engine.runtime.kv_cache import CachedPrefix, KVPool, blocks_for
from engine.runtime.vocoder import HISTORY, Vocoder

log = logging.getLogger(__name__)

ROW_BUCKETS = (1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 160, 192, 256, 320, 384, 448, 512, 640, 768, 896, 1024)
KV_BUCKETS = (64, 128, 256, 512, 1024, 1536, 2048, 3072, 4096, 6144, 8192)


@dataclass(frozen=True)
class StreamStart:
    """A stream about to take its first step: its slot, prefix rows, sampling, voice, and the
    cached voice prefix to load into its KV first (None: already there)."""

    slot: int
    prefix_length: int
    sampling: SamplingParams
    voice: Voice | None = None
    prefix: CachedPrefix | None = None


@dataclass(frozen=True)
class StepRow:
    slot: int
    text_id: int  # a text token, or the config's tts_eos / tts_pad id
    eos_allowed: bool


def _fits_candidates(sampling: SamplingParams) -> bool:
    """Whether every sampled draw of this stream can pick among the top MAX_CANDIDATES ids."""
    talker = not sampling.do_sample or 0 < sampling.top_k <= MAX_CANDIDATES
    predictor = not sampling.subtalker_do_sample or 0 < sampling.subtalker_top_k <= MAX_CANDIDATES
    return talker and predictor


def _uses_top_p(sampling: SamplingParams) -> bool:
    return (sampling.do_sample and sampling.top_p < 1.0) or (sampling.subtalker_do_sample and sampling.subtalker_top_p < 1.0)


def _bucket(value: int, buckets: tuple[int, ...], limit: int) -> int:
    i = bisect.bisect_left(buckets, value)
    return min(buckets[i] if i < len(buckets) else limit, limit)


class ModelRunner:
    def __init__(
        self, model: Qwen3TTS, slots: int, max_context: int, use_graphs: bool | None = None, fused_kernels: bool | None = None,
        kv_blocks: int | None = None,
    ) -> None:
        """`kv_blocks`: usable blocks of the paged KV cache (`engine.runtime.kv_cache`); None:
        enough for every slot at `max_context`."""
        self.model = model
        cfg = model.config
        self.device, self.dtype = model.device, model.dtype
        self.use_graphs = (self.device.type == "cuda") if use_graphs is None else use_graphs
        # Triton kernels for the frame step, on CUDA only and only where they compile and pass
        # their check; by default in bf16/fp16 (float32 keeps the unfused math the goldens pin).
        if fused_kernels is None:
            fused_kernels = self.dtype in (torch.bfloat16, torch.float16)
        head_dims = (cfg.talker.layers.head_dim, cfg.code_predictor.layers.head_dim)
        biased = cfg.talker.layers.attention_bias or cfg.code_predictor.layers.attention_bias  # the kernels take none
        self.fused = (
            fused_kernels and not biased and self.device.type == "cuda" and kernels.fits(head_dims)
            and kernels.probe(self.device, self.dtype)
        )
        # The kernel set the model's forward runs on (None: its PyTorch path).
        self._kernels = kernels if self.fused else None
        # Shapes are rounded up to buckets on CUDA, graphs or not, so that a graph replay and an
        # eager step run the same kernels on the same shapes (and give the same bits).
        self.bucketed = self.device.type == "cuda"
        self.slots = slots
        self.max_context = max_context
        self.groups = cfg.talker.num_code_groups
        self.codec_eos_id = cfg.talker.codec_eos_id
        self.tts_eos_id, self.tts_pad_id = cfg.tts_eos_id, cfg.tts_pad_id
        dev = self.device
        blocks = slots * blocks_for(max_context) if kv_blocks is None else kv_blocks
        self.pool = KVPool(cfg.talker.layers, slots, blocks, max_context, dev, self.dtype)

        hidden, vocab = cfg.talker.layers.hidden_size, cfg.talker.vocab_size
        self._frame_sum = torch.zeros(slots, hidden, device=dev, dtype=self.dtype)
        self._position = torch.zeros(slots, dtype=torch.int64, device=dev)
        self._generated = torch.zeros(slots, dtype=torch.int64, device=dev)
        self._seen = torch.zeros(slots, vocab, dtype=torch.bool, device=dev)
        self._penalty = torch.ones(slots, dtype=torch.float32, device=dev)
        self._talker_rows = SamplerRows.build([SamplingParams.greedy()] * slots, dev, predictor=False)
        self._predictor_rows = SamplerRows.build([SamplingParams.greedy()] * slots, dev, predictor=True)
        # Host mirror per slot: talker greedy, predictor greedy, sampling fits the candidates, top-p.
        self._flags = np.tile(np.array([True, True, True, False]), (slots, 1))
        self._host_position = np.zeros(slots, dtype=np.int64)  # mirror of `_position`: no sync to pick a KV bucket
        # Per-step inputs: active, text id, EOS allowed; one host->device copy per step.
        self._step_input = torch.zeros(3, slots, dtype=torch.int64, device=dev)
        self._step_input_host = torch.zeros(3, slots, dtype=torch.int64, pin_memory=dev.type == "cuda")
        self._codes = torch.zeros(slots, self.groups, dtype=torch.int64, device=dev)
        self._codes_host = torch.zeros(slots, self.groups, dtype=torch.int64, pin_memory=dev.type == "cuda")
        self._predictor_cache = PredictorCache.allocate(cfg.code_predictor, slots, dev, self.dtype)
        self._suppress = suppressed_ids(vocab, self.codec_eos_id, dev)
        self._eos_column = torch.arange(vocab, device=dev) == self.codec_eos_id
        self._bos_embed = model.talker.embed_codec(torch.tensor([cfg.talker.codec_bos_id], device=dev))[0]
        self._rows_index = torch.arange(slots, device=dev)
        self._prefix_rows: dict = {}
        self._references: dict = {}

        self._step_graphs: dict[tuple, torch.cuda.CUDAGraph] = {}
        self.warm_up_seconds: dict[str, float] = {}  # by phase, from the last `warm_up`
        self._step_done = None
        self._step_slots: np.ndarray | None = None
        if self.use_graphs:
            self._step_pool = torch.cuda.graph_pool_handle()
            self._stream = torch.cuda.Stream(device=dev)
        self.vocoder = Vocoder(model, slots, self.use_graphs, self._rows_bucket)
        self._history = self.vocoder.history

    def _rows_bucket(self, rows: int) -> int:
        return _bucket(rows, ROW_BUCKETS, self.slots) if self.bucketed else rows

    # ---- streams ------------------------------------------------------------------------------

    def prefix_length(self, voice: Voice) -> int:
        return self._rows_for(voice).shape[0]

    def _rows_for(self, voice: Voice) -> Tensor:
        rows = self._prefix_rows.get(voice)
        if rows is None:
            tokenizer = self.model.tokenizer
            instruct_ids = tokenizer.instruct_ids(voice.instruct) if voice.instruct else None
            with torch.inference_mode():
                rows = prompt.voice_prefix_rows(self.model, voice, instruct_ids)
            if len(self._prefix_rows) > 64:
                self._prefix_rows.clear()
            self._prefix_rows[voice] = rows
        return rows

    def _reference_for(self, voice: Voice) -> tuple[Tensor, CodecState]:
        """An ICL clone's codec rows (C(codec_bos) + one per reference frame) and the codec state
        after its reference frames, computed once per voice."""
        cached = self._references.get(voice.clone)
        if cached is None:
            with torch.inference_mode():
                cached = (prompt.codec_rows(self.model, voice), codec_context(self.model, voice.clone))
            if self.device.type == "cuda":
                # The codec stream copies this state into a slot later: make it exist by then.
                torch.cuda.current_stream(self.device).synchronize()
            if len(self._references) > 64:
                self._references.clear()
            self._references[voice.clone] = cached
        return cached

    def fill_tail(self, slot: int, voice: Voice, track_ids: list[int], text_ended: bool, start: int) -> None:
        """Write an ICL stream's tail rows but the last at `start` (after its voice prefix); the
        last one is its first frame step, whose frame sum is the last reference frame's."""
        codec, _ = self._reference_for(voice)
        with torch.inference_mode():
            rows = prompt.streaming_head(self.model, track_ids, codec, text_ended)
            self.pool.grow_one(slot, start + rows.shape[0])
            self.pool.sync()
            prefill(self.model, rows[:-1], self.pool.cache, slot, start)
            self._frame_sum[slot] = codec[-1]
            self._position[slot] = start + rows.shape[0] - 1
        self._host_position[slot] = start + rows.shape[0] - 1

    def fill_prefix(self, fills: list[tuple[int, Voice, int, int]]) -> None:
        """Write prefix rows [start, end) of each (slot, voice) into the slot's KV."""
        self.pool.grow(np.array([f[0] for f in fills], dtype=np.int64), np.array([f[3] for f in fills], dtype=np.int64))
        self.pool.sync()
        with torch.inference_mode():
            for slot, voice, start, end in fills:
                prefill(self.model, self._rows_for(voice)[start:end], self.pool.cache, slot, start)

    def start_stream(self, slot: int, prefix_length: int, sampling: SamplingParams, voice: Voice | None = None) -> None:
        """Reset the slot's frame-step and codec state for a new stream whose prefix is in its KV."""
        self.start_streams([StreamStart(slot, prefix_length, sampling, voice)])

    def start_streams(self, starts: Sequence[StreamStart]) -> None:
        """Reset the frame-step and codec state of new streams (distinct slots), loading their
        cached voice prefix into their KV first where given. One write per state tensor for all of
        them: an iteration that starts dozens of streams costs a few launches, not a dozen per
        stream. An ICL clone's codec state starts after its reference frames (decoder left context)."""
        if not starts:
            return
        dev = self.device
        index = torch.from_numpy(np.fromiter((s.slot for s in starts), dtype=np.int64, count=len(starts)))
        lengths = torch.from_numpy(np.fromiter((s.prefix_length for s in starts), dtype=np.int64, count=len(starts)))
        samplings = [s.sampling for s in starts]
        penalties = torch.tensor([s.repetition_penalty for s in samplings], dtype=torch.float32)
        with torch.inference_mode():
            # Host tensors copied without waiting: pageable memory is staged at once, and the
            # copies never wait for the work already on the device.
            index = index.to(dev, non_blocking=True)
            by_prefix: dict[int, tuple[CachedPrefix, list[int]]] = {}
            for start in starts:
                if start.prefix is not None:
                    by_prefix.setdefault(id(start.prefix), (start.prefix, []))[1].append(start.slot)
            for prefix, slots in by_prefix.values():
                self.pool.load_many(slots, prefix)
            self._frame_sum[index] = self._bos_embed
            self._position[index] = lengths.to(dev, non_blocking=True)
            self._generated[index] = 0
            self._seen[index] = False
            self._penalty[index] = penalties.to(dev, non_blocking=True)
            for rows, predictor in ((self._talker_rows, False), (self._predictor_rows, True)):
                new = SamplerRows.build(samplings, "cpu", predictor=predictor)
                for name in ("do_sample", "temperature", "top_k", "top_p", "seed"):
                    getattr(rows, name)[index] = getattr(new, name).to(dev, non_blocking=True)
        for start in starts:
            voice, sampling = start.voice, start.sampling
            icl = voice is not None and voice.clone is not None and voice.clone.icl
            self.vocoder.reset(start.slot, self._reference_for(voice)[1] if icl else None)
            self._host_position[start.slot] = start.prefix_length
            self._flags[start.slot] = (
                not sampling.do_sample, not sampling.subtalker_do_sample, _fits_candidates(sampling), _uses_top_p(sampling)
            )

    def reserve(self, slot: int, prefix_length: int) -> None:
        """Park a slot whose prefix is still being filled: the rows that sit out a frame step
        write their KV at their own position, which must lie past the prefix."""
        with torch.inference_mode():
            self._position[slot] = prefix_length
        self._host_position[slot] = prefix_length

    # ---- the frame step -------------------------------------------------------------------------

    def step(self, rows: list[StepRow]) -> np.ndarray:
        """One frame step for `rows` (at most one per slot); returns each row's frame codes
        [len(rows), groups] (code 0 == codec EOS means the stream ended without this frame)."""
        self.launch_step(
            np.array([r.slot for r in rows], dtype=np.int64),
            np.array([r.text_id for r in rows], dtype=np.int64),
            np.array([r.eos_allowed for r in rows], dtype=np.int64),
        )
        return self.finish_step()

    def launch_step(self, slots: np.ndarray, text_ids: np.ndarray, eos_allowed: np.ndarray) -> None:
        """Start the frame step of the streams in `slots` (each with its text row id and whether
        EOS may end it) on the device; `finish_step` waits for the codes. The host may do other
        work (post audio) in between. Host work here is array operations, not per stream."""
        n_rows = int(slots.max()) + 1
        kv_len = int(self._host_position[slots].max()) + 1
        if self.bucketed:
            n_rows = _bucket(n_rows, ROW_BUCKETS, self.slots)
            kv_len = _bucket(kv_len, KV_BUCKETS, self.max_context)
        flags = self._flags[slots]
        talker_greedy, predictor_greedy, candidates = (bool(v) for v in flags[:, :3].all(axis=0))
        top_p = bool(flags[:, 3].any())

        host = self._step_input_host
        staged = host.numpy()
        staged[:, :n_rows] = 0
        staged[0, slots] = 1
        staged[1, slots] = text_ids
        staged[2, slots] = eos_allowed
        key = self._step_key(n_rows, kv_len, talker_greedy, predictor_greedy, candidates, top_p)
        # The block of each row's new position, taken before the step and seen by its graph
        # through the block table (a static input, updated in place).
        self.pool.grow(slots, self._host_position[slots] + 1)
        with torch.inference_mode():
            self.pool.sync()
            self._step_input[:, :n_rows].copy_(host[:, :n_rows], non_blocking=True)
            if self.use_graphs:
                self._replay_step(key)
            else:
                self._frame_step(*key)
            self._codes_host[:n_rows].copy_(self._codes[:n_rows], non_blocking=True)
            if self.device.type == "cuda":
                self._step_done = torch.cuda.Event()
                self._step_done.record(torch.cuda.current_stream(self.device))
        self._step_slots = slots

    def finish_step(self) -> np.ndarray:
        """Wait for the launched frame step (the only host sync of a step) and return its codes,
        one row per slot of `launch_step`."""
        if self._step_done is not None:
            self._step_done.synchronize()
            self._step_done = None
        slots, self._step_slots = self._step_slots, None
        if slots is None or not len(slots):
            return np.zeros((0, self.groups), dtype=np.int64)
        self._host_position[slots] += 1
        return self._codes_host.numpy()[slots]

    def _step_key(
        self, n_rows: int, kv_len: int, talker_greedy: bool, predictor_greedy: bool, candidates: bool, top_p: bool
    ) -> tuple:
        # The kernels attend over each row's own live length: one graph covers every KV length.
        # Sampling runs in the pick kernel when every sampled draw fits its candidates.
        if self.fused:
            kv_len = self.max_context
        return (n_rows, kv_len, talker_greedy, predictor_greedy, candidates, top_p)

    def _frame_step(
        self, n: int, kv_len: int, talker_greedy: bool, predictor_greedy: bool, candidates: bool, top_p: bool
    ) -> None:
        model = self.model
        active = self._step_input[0, :n].bool()
        text_id = self._step_input[1, :n]
        eos_allowed = self._step_input[2, :n].bool()

        text = model.talker.project_text(text_id)
        text = torch.where((text_id == self.tts_eos_id)[:, None], model.tts_eos_embed, text)
        text = torch.where((text_id == self.tts_pad_id)[:, None], model.tts_pad_embed, text)
        x = self._frame_sum[:n] + text  # a fresh tensor: the kernel path adds into it in place
        hidden = talker_step(model, x, self.pool.cache, self._position[:n], kv_len, self._kernels)

        generated = self._generated[:n]
        logits = apply_talker_processors(
            talker_logits(model, hidden), self._seen[:n], generated, self._penalty[:n],
            eos_id=self.codec_eos_id, suppress=self._suppress,
        )
        logits = logits.masked_fill(~eos_allowed[:, None] & self._eos_column, float("-inf"))
        talker_rows = self._rows_view(self._talker_rows, n, talker_greedy)
        predictor_rows = self._rows_view(self._predictor_rows, n, predictor_greedy)
        draw = generated * self.groups
        if self.fused and candidates and not top_p:
            # Every draw in the pick kernel, which also gathers the code's embedding.
            embeds = torch.empty(n, self.groups, hidden.shape[-1], device=hidden.device, dtype=hidden.dtype)
            kernels.pick(
                logits, self._codes[:n, 0], None if talker_greedy else talker_rows, draw, 0,
                model.talker.codec_embedding, embeds[:, 0],
            )
            c0 = self._codes[:n, 0]
            predictor = model.code_predictor
            sampled = None if predictor_greedy else predictor_rows

            def pick(logits: Tensor, j: int) -> Tensor:
                kernels.pick(logits, self._codes[:n, j + 1], sampled, draw, j + 1, predictor.codec_embeddings[j], embeds[:, j + 1])
                return embeds[:, j + 1]

            predictor.predict(hidden, embeds[:, 0], pick, self._predictor_cache, self._kernels)
            frame_sum = embeds.sum(dim=1)
        else:
            gumbel = None
            if candidates and not (talker_greedy and predictor_greedy):
                gumbel = step_noise(talker_rows, draw, self.groups, logits.shape[-1])
            c0 = self._choose(logits, talker_rows, draw, gumbel, 0, top_p)
            codes, frame_sum = predict_codes(
                model, hidden, c0, lambda logits, j: self._choose(logits, predictor_rows, draw, gumbel, j + 1, top_p),
                self._predictor_cache,
            )
            self._codes[:n] = codes

        # The frame's codes into the slot's history row (read by the codec, never by the host).
        rows_index = self._rows_index[:n]
        at = self._generated[:n] % HISTORY
        kept = self._history[rows_index, at]
        self._history[rows_index, at] = torch.where(active[:, None], self._codes[:n], kept)
        step = active.long()
        self._frame_sum[:n] = torch.where(active[:, None], frame_sum, self._frame_sum[:n])
        self._position[:n] += step
        self._generated[:n] += step
        self._seen[:n] |= (torch.arange(self._seen.shape[1], device=c0.device) == c0[:, None]) & active[:, None]

    @staticmethod
    def _choose(logits: Tensor, rows: SamplerRows, draw: Tensor, gumbel: Tensor | None, group: int, top_p: bool) -> Tensor:
        if rows.all_greedy:
            return logits.argmax(dim=-1)
        if gumbel is not None:
            return choose_candidates(logits, rows, gumbel[:, group, : logits.shape[-1]], MAX_CANDIDATES, top_p)
        return choose(logits, rows, draw + group)

    @staticmethod
    def _rows_view(rows: SamplerRows, n: int, greedy: bool) -> SamplerRows:
        return SamplerRows(rows.do_sample[:n], rows.temperature[:n], rows.top_k[:n], rows.top_p[:n], rows.seed[:n], greedy)

    def _replay_step(self, key: tuple) -> None:
        graph = self._step_graphs.get(key)
        if graph is None:
            graph = self._capture_step(key)
        graph.replay()

    def _capture_step(self, key: tuple) -> torch.cuda.CUDAGraph:
        """Capture the frame step of `key`. Its warm-up run and the capture must not advance any
        stream: `_frame_step` is idempotent with `active` all false."""
        saved = self._step_input.clone()
        self._step_input[0].zero_()
        graph = capture(lambda: self._frame_step(*key), self._stream, self._step_pool)
        self._step_input.copy_(saved)
        self._step_graphs[key] = graph
        return graph

    @property
    def graphs_captured(self) -> int:
        """CUDA graphs captured so far (frame step and codec): an iteration that captured one took
        seconds once, not because of load."""
        return len(self._step_graphs) + self.vocoder.graphs_captured

    def warm_up(self, max_rows: int | None = None, kv_lens: tuple[int, ...] = (), sampled: bool = True) -> int:
        """Capture the graphs a workload will need ahead of time; returns how many were captured."""
        if not self.use_graphs:
            return 0
        top = max_rows or self.slots
        rows = sorted({_bucket(r, ROW_BUCKETS, self.slots) for r in ROW_BUCKETS if r <= top} | {_bucket(top, ROW_BUCKETS, self.slots)})
        lens = kv_lens or (KV_BUCKETS[0],)
        flags = [(False, False, True, False), (True, True, True, False)] if sampled else [(True, True, True, False)]
        captured = 0
        began = time.perf_counter()
        with torch.inference_mode():
            # One voice-prefix fill in slot 0 (free until a stream takes it): the first real fill
            # then loads no kernels (seen: a first turn 1.3 s late on an H200 without this).
            try:
                voice = Voice.resolve(self.model.config, None, None, None)
            except ValueError:  # voice design needs an instruct: the first real fill pays
                voice = None
            if voice is not None:
                length = self.prefix_length(voice)
                self.pool.reserve(0, length, 0)
                self.fill_prefix([(0, voice, 0, length)])
                self.pool.clear(0)
            for n in rows:
                for kv_len in lens:
                    for g in flags:
                        key = self._step_key(n, _bucket(kv_len, KV_BUCKETS, self.max_context), *g)
                        if key not in self._step_graphs:
                            self._capture_step(key)
                            captured += 1
        self.warm_up_seconds = {"frame_step_graphs": time.perf_counter() - began}
        return captured + self.vocoder.warm_up(rows)
