"""The Qwen3-TTS engine: admission, `open_stream`, and the public description of what it serves.

`Qwen3Engine` implements `voice_tts.protocol.StreamingEngine` over one loaded checkpoint. It owns
one `StepLoop` (the background thread that drives the device) and never runs model work in the
caller's thread: `open_stream` validates and admits, the stream handle tokenizes text, and
everything else is a command to the loop. Admission is counted here, under a lock, so a caller
beyond capacity gets `Error(capacity)` + `Done` at once instead of waiting.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import itertools
import logging
import os
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from voice_tts.languages import qwen3_language
from voice_tts.protocol import Error, ErrorCode, VoiceCloning, VoiceInfo
from voice_tts.request import StreamRequest

from engine.gil import SWITCH_INTERVAL_S, lower_switch_interval
from engine.model.loader import load_model
from engine.model.prompt import Voice
from engine.model.sampling import SamplingParams
from engine.model.tts_model import Qwen3TTS
from engine.model.voice_clone import MAX_REFERENCE_SECONDS, make_clone_prompt, min_reference_seconds
from engine.runtime.convolution_cache import ConvolutionChoices, default_cache_dir
from engine.runtime.kv_cache import BLOCK_SIZE, blocks_for_budget, kv_bytes_per_row
from engine.runtime.loop import DeviceCall, LoopSettings, OpenCommand, StepLoop
from engine.runtime.runner import ModelRunner
from engine.runtime.stream import StreamChannel, Qwen3Stream, StreamEnd, StreamState, sample_rate_error
from engine.runtime.text_feed import TextFeed
from engine.voice_store import StoredVoice, VoiceStore, default_voices_dir

log = logging.getLogger(__name__)

BACKEND = "qwen3"
SAMPLE_RATES = (8000, 16000, 22050, 24000, 44100, 48000)
FEATURES = ("streaming_text_input", "word_progress", "cancel", "instruct", "continuous_batching")
# Share of the free device memory (after the weights) the KV cache may take by default; the rest
# is for activations, CUDA graphs and the codec.
DEFAULT_MEMORY_FRACTION = 0.6
# With `freeze_gc`: younger-generation collections between two full ones (the interpreter's
# default is 10).
FULL_COLLECTION_AFTER = 100

# The published preset speakers (spec §1.1); speakers a checkpoint adds are listed by name only.
_SPEAKERS = {
    "vivian": ("female", "bright, slightly edgy young female voice", "chinese"),
    "serena": ("female", "warm, gentle young female voice", "chinese"),
    "uncle_fu": ("male", "seasoned male voice with a low, mellow timbre", "chinese"),
    "dylan": ("male", "youthful Beijing male voice", "chinese"),
    "eric": ("male", "lively Chengdu male voice, slightly husky", "chinese"),
    "ryan": ("male", "dynamic male voice with a strong rhythmic drive", "english"),
    "aiden": ("male", "sunny American male voice, clear midrange", "english"),
    "ono_anna": ("female", "playful Japanese female voice", "japanese"),
    "sohee": ("female", "warm Korean female voice, rich in emotion", "korean"),
}


@dataclass(frozen=True)
class EngineSettings:
    max_streams: int = 64
    max_context: int = 2048  # talker rows per stream (prompt + frames): 2048 ≈ 2.6 min of audio
    # Bytes for the paged KV cache (`engine.runtime.kv_cache`); None: `memory_fraction` of the free
    # device memory on CUDA, elsewhere room for every stream at `max_context`. A stream is admitted
    # only where the blocks of its longest turn can be reserved; others get `capacity`.
    memory_budget: int | None = None
    memory_fraction: float = DEFAULT_MEMORY_FRACTION
    use_graphs: bool | None = None  # None: CUDA graphs on CUDA, eager elsewhere
    fused_kernels: bool | None = None  # None: the Triton frame-step kernels where they work (bf16 on CUDA)
    voices_dir: Path | None = None  # cloned voices; None: `default_voices_dir()`
    # Refuse a new stream (`capacity`) when the measured real-time headroom says one more would
    # make the loop too slow (`engine.runtime.headroom`). None: on CUDA, where timings mean something.
    admit_by_headroom: bool | None = None
    # The interpreter's GIL switch interval while the engine runs (`engine.gil`;
    # process-wide, only ever lowered; None: leave it). The step loop releases the GIL at every
    # device wait, several times per iteration, and must get it back at once.
    gil_switch_interval_s: float | None = SWITCH_INTERVAL_S
    # Move every object alive once the model is loaded out of the garbage collector's reach
    # (`gc.freeze()`, process-wide). A full collection otherwise walks the model's and the
    # libraries' objects each time (~0.1 s with torch loaded), stopping every thread, the step
    # loop too: seen as 140-190 ms iterations, and late audio, at 512 streams. Full collections
    # also come ten times less often (`FULL_COLLECTION_AFTER`): the streams' own objects still
    # took 14-24 ms per collection, every ~1.7 s, at 512 streams. None: on CUDA.
    freeze_gc: bool | None = None
    # Capture the CUDA graphs of every rows bucket up to this many streams before the loop starts
    # (None: up to the capacity; 0: none). A shape captured on first use stops the loop, and every
    # stream on the GPU, for its capture and for timing its convolutions: seconds, once per shape.
    warm_up_rows: int | None = None
    # What a restart reuses, in one folder: the codec's convolution ways chosen at warm-up
    # (`engine.runtime.convolution_cache`, in the folder itself) and the compiled Triton kernels
    # (`triton/`, unless TRITON_CACHE_DIR says otherwise). None: voice-tts in the user's cache
    # folder for the ways, Triton's own default for its kernels.
    cache_dir: Path | None = None
    # The ways' folder alone (None: `cache_dir`).
    convolution_cache_dir: Path | None = None
    loop: LoopSettings = LoopSettings()


class Qwen3Engine:
    backend = BACKEND

    def __init__(self, model: Qwen3TTS, settings: EngineSettings = EngineSettings()) -> None:
        if settings.max_streams < 1:
            raise ValueError("max_streams must be at least 1")
        if not 0 < settings.memory_fraction <= 1:
            raise ValueError(f"memory_fraction must be in (0, 1], got {settings.memory_fraction}")
        self.model = model
        self.settings = settings
        talker = model.config.talker
        max_context = min(settings.max_context, talker.max_position_embeddings)
        per_row = kv_bytes_per_row(talker.layers.num_layers, talker.layers.num_kv_heads, talker.layers.head_dim, model.dtype)
        budget = self._memory_budget(settings, per_row * max_context)
        kv_blocks = blocks_for_budget(budget, per_row, settings.max_streams, max_context)
        self._capacity = settings.max_streams
        self._default_sampling = SamplingParams.from_generation_config(model.generation_config)
        self._max_new_tokens = int(model.generation_config.get("max_new_tokens", 8192))
        speakers = list(talker.speaker_ids)
        self._default_speaker = "ryan" if "ryan" in speakers else (speakers[0] if speakers else None)
        self._lock = threading.Lock()
        self._active = 0
        self._closed = False
        self._ids = itertools.count(1)
        self._voices_lock = threading.Lock()  # one change of the voice store at a time
        self.voice_store = VoiceStore(settings.voices_dir or default_voices_dir(), model, reserved=set(speakers))
        if settings.cache_dir is not None:
            # Read when Triton compiles (the runner probes its kernels): a restart loads them.
            os.environ.setdefault("TRITON_CACHE_DIR", str(Path(settings.cache_dir) / "triton"))
        # Seconds of each start-up phase, for the log and `capabilities` (first start vs restart).
        self.startup_seconds: dict[str, float] = {}
        began = time.perf_counter()
        self.runner = ModelRunner(model, self._capacity, max_context, settings.use_graphs, settings.fused_kernels, kv_blocks)
        log.info(
            "KV cache: %d blocks of %d rows (%.2f GiB), %d streams at --max-context %d fit at once",
            kv_blocks, BLOCK_SIZE, kv_blocks * BLOCK_SIZE * per_row / 2**30, kv_blocks // -(-max_context // BLOCK_SIZE), max_context,
        )
        self.startup_seconds["kv_cache_and_kernels"] = time.perf_counter() - began
        self.loop = StepLoop(self.runner, settings.loop, self._released)
        if settings.gil_switch_interval_s is not None:
            lower_switch_interval(settings.gil_switch_interval_s)
        self._admit_by_headroom = (
            model.device.type == "cuda" if settings.admit_by_headroom is None else settings.admit_by_headroom
        )
        if model.device.type == "cuda" if settings.freeze_gc is None else settings.freeze_gc:
            gc.collect()
            gc.freeze()
            young, middle, _ = gc.get_threshold()
            gc.set_threshold(young, middle, FULL_COLLECTION_AFTER)
        self.warm_up_seconds = self._warm_up(self._capacity if settings.warm_up_rows is None else settings.warm_up_rows)
        self.startup_seconds |= self.runner.warm_up_seconds | self.runner.vocoder.warm_up_seconds
        self.loop.start()

    @classmethod
    def from_pretrained(
        cls,
        path: str | Path,
        device: str | torch.device = "cuda:0",
        dtype: torch.dtype | None = None,
        max_streams: int = 64,
        memory_budget: int | None = None,
        revision: str | None = None,
        **options: Any,
    ) -> Qwen3Engine:
        """Load a checkpoint folder, or a Hugging Face Hub id at `revision` (see `engine.model.hub`),
        and start the engine. `options` are `EngineSettings` fields (`max_context`, `use_graphs`,
        `fused_kernels`, ...) or `LoopSettings` fields (`chunks`, ...)."""
        loop_fields = set(LoopSettings.__dataclass_fields__)
        loop = replace(LoopSettings(), **{k: v for k, v in options.items() if k in loop_fields})
        engine_options = {k: v for k, v in options.items() if k not in loop_fields}
        settings = EngineSettings(max_streams=max_streams, memory_budget=memory_budget, loop=loop, **engine_options)
        began = time.perf_counter()
        model = load_model(path, device, dtype, revision=revision)
        loaded = time.perf_counter() - began
        engine = cls(model, settings)
        engine.startup_seconds = {"load_model": loaded} | engine.startup_seconds
        log.info(
            "engine started in %.1f s: %s", sum(engine.startup_seconds.values()),
            ", ".join(f"{phase} {seconds:.1f} s" for phase, seconds in engine.startup_seconds.items()),
        )
        return engine

    def _warm_up(self, rows: int) -> float:
        """Capture the graphs of up to `rows` streams (nothing without CUDA graphs); -> seconds taken."""
        if not rows or not self.runner.use_graphs:
            return 0.0
        rows = min(rows, self._capacity)
        began = time.perf_counter()
        codec = self.model.codec
        folder = self.settings.convolution_cache_dir or self.settings.cache_dir or default_cache_dir()
        remembered = ConvolutionChoices.for_codec(codec, Path(folder))
        taken = codec.adopt_convolution_methods(remembered.load())
        with torch.inference_mode():
            captured = self.runner.warm_up(max_rows=rows)
        if len(codec.convolution_methods) > taken:
            remembered.save(codec.convolution_methods)
        seconds = time.perf_counter() - began
        log.info(
            "captured %d CUDA graphs for up to %d streams in %.1f s (%d decode shapes' convolution ways remembered, %d chosen)",
            captured, rows, seconds, taken, len(codec.convolution_methods) - taken,
        )
        return seconds

    @staticmethod
    def _memory_budget(settings: EngineSettings, per_stream: int) -> int:
        if settings.memory_budget is not None:
            return settings.memory_budget
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            free, _ = torch.cuda.mem_get_info()
            return int(free * settings.memory_fraction)
        return per_stream * settings.max_streams

    # ---- description ------------------------------------------------------------------------

    @property
    def model_name(self) -> str:
        c = self.model.config
        size = {"1b7": "1.7B", "0b6": "0.6B"}.get(c.tts_model_size, c.tts_model_size)
        kind = "".join(part.capitalize() for part in c.tts_model_type.split("_"))
        return f"Qwen3-TTS-12Hz-{size}-{kind}"

    @property
    def failure(self) -> str | None:
        """Why the step loop died (None while it runs): the engine no longer speaks."""
        return self.loop.failure

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def active_streams(self) -> int:
        with self._lock:
            return self._active

    @property
    def voices(self) -> tuple[VoiceInfo, ...]:
        """The checkpoint's preset speakers, then the cloned voices it can speak (by id)."""
        out = []
        for name in self.model.config.talker.speaker_ids:
            gender, description, language = _SPEAKERS.get(name, (None, "", None))
            out.append(VoiceInfo(name=name, description=description, gender=gender, language=language))
        for voice in self.voice_store.list():
            out.append(
                VoiceInfo(
                    name=voice.id,
                    description=_clone_description(voice),
                    mode=voice.mode,
                    created_at=voice.created_at,
                    consent=voice.consent,
                    ref_text=voice.prompt.ref_text,
                )
            )
        return tuple(out)

    @property
    def unavailable_voices(self) -> tuple[str, ...]:
        """Cloned voices in the voices directory this checkpoint cannot speak (made with another
        kind of checkpoint); asking for one gets an error that says why."""
        return tuple(self.voice_store.unavailable)

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(self.model.config.languages)

    @property
    def features(self) -> tuple[str, ...]:
        """FEATURES this checkpoint has: "instruct" only where the checkpoint takes one (not the
        0.6B CustomVoice, not Base), "voice_cloning" on Base checkpoints."""
        features = [f for f in FEATURES if f != "instruct" or self.model.config.supports_instruct]
        if self.model.config.supports_cloning:
            features.append("voice_cloning")
        return tuple(features)

    @property
    def voice_cloning(self) -> VoiceCloning | None:
        if not self.model.config.supports_cloning:
            return None
        return VoiceCloning(
            modes=["x_vector", "icl"],
            min_reference_seconds=min_reference_seconds(self.model),
            max_reference_seconds=MAX_REFERENCE_SECONDS,
        )

    def capabilities(self) -> dict[str, Any]:
        return {
            "backend": BACKEND,
            "model": self.model_name,
            "voices": [v.model_dump() for v in self.voices],
            "languages": list(self.languages),
            "sample_rates": list(SAMPLE_RATES),
            "formats": ["pcm_s16le"],
            "features": list(self.features),
            "capacity": self._capacity,
            "kv_cache": self.kv_cache(),
            "voice_cloning": self.voice_cloning.model_dump() if self.voice_cloning else None,
            "headroom": self.headroom(),
            "startup_seconds": {phase: round(seconds, 2) for phase, seconds in self.startup_seconds.items()},
        }

    def kv_cache(self) -> dict[str, int]:
        """The paged KV cache's blocks: all, held by streams, and not reserved (what admission can
        still give). Read without the loop's lock: a moment's view."""
        pool = self.runner.pool
        return {
            "block_rows": BLOCK_SIZE, "blocks": pool.blocks, "held": pool.blocks - pool.free_blocks,
            "unreserved": pool.unreserved_blocks,
        }

    def headroom(self) -> dict[str, Any]:
        """The measured real-time headroom (`engine.runtime.headroom`); nulls before any step ran."""
        report = self.loop.headroom.report()
        return {
            "admission": "headroom" if self._admit_by_headroom else "slots",
            "iteration_ms": None if report is None else round(report.iteration_seconds * 1e3, 3),
            "streams_per_iteration": None if report is None else round(report.streams, 2),
            "realtime_headroom": None if report is None else round(report.headroom, 4),
            "max_streams_estimate": None if report is None else min(report.max_streams, self._capacity),
        }

    # ---- streams ----------------------------------------------------------------------------

    def open_stream(self, request: StreamRequest | None = None, /, **settings: Any) -> Qwen3Stream:
        """Open a turn (`StreamRequest.of(request, **settings)`). Never raises for settings the
        engine cannot serve: the stream reports an `Error`, then `Done`. `sampling` defaults to
        the checkpoint's generation_config; `max_new_tokens` (official semantics: at most
        max_new_tokens - 1 frames) to its `max_new_tokens`. A lower `priority` fills its voice
        prefix first (`engine.runtime.scheduler`)."""
        request = StreamRequest.of(request, **settings)
        sample_rate = request.sample_rate
        error = sample_rate_error(sample_rate)
        if error is not None:
            return self._failed(error, 24000)
        channel = StreamChannel(self.loop.mailbox)
        admitted = self.admit(channel, request)
        if isinstance(admitted, Error):
            return self._failed(admitted, sample_rate)
        feed = TextFeed(self.model.tokenizer.encode, self.model.tokenizer.split_pattern)
        return Qwen3Stream(admitted, feed, self.loop.inbox.put, sample_rate, channel)

    def admit(self, channel: Any, request: StreamRequest, stream_limit: int | None = None) -> int | Error:
        """Admit a stream whose events go to `channel` (a `StreamChannel`, or the engine core's
        channel to an API worker): its id, whose text and cancel commands go to `loop.inbox`,
        or why it was refused. The one place admission is decided. `stream_limit`: streams at
        once below the engine's capacity (the engine core's, for the server's `--capacity`)."""
        try:
            resolved = self._resolve(request.voice, qwen3_language(request.language), request.instruct)
        except ValueError as e:
            return Error(ErrorCode.INVALID_VOICE, str(e))
        sampling, max_new_tokens = request.sampling, request.max_new_tokens
        if sampling is None:
            sampling = self._default_sampling
        if not isinstance(sampling, SamplingParams):
            return Error(ErrorCode.INVALID_SAMPLING, f"sampling must be SamplingParams, got {type(sampling).__name__}")
        limit = self._max_new_tokens if max_new_tokens is None else max_new_tokens
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 2:
            return Error(ErrorCode.INVALID_SAMPLING, f"max_new_tokens must be an integer >= 2, got {limit!r}")
        with self._lock:
            if self._closed:
                return Error(ErrorCode.ENGINE_CLOSED, "the engine is closed")
            streams = self._capacity if stream_limit is None else min(stream_limit, self._capacity)
            if self._active >= streams:
                return Error(ErrorCode.CAPACITY, f"all {streams} streams are busy", retryable=True)
            if self._admit_by_headroom and not self.loop.headroom.admits(self._active):
                return Error(
                    ErrorCode.CAPACITY, f"no real-time headroom for another stream beside {self._active}", retryable=True
                )
            self._active += 1
            stream_id = next(self._ids)
            state = StreamState(
                id=stream_id, prompt=resolved, sampling=sampling.with_seed(), channel=channel, max_frames=limit - 1,
                priority=request.priority, first_chunk_frames=request.first_chunk_frames,
                reference_ids=list(resolved.reference_ids),
                track_offset=len(resolved.clone.ref_codes) if resolved.clone is not None and resolved.clone.icl else 0,
            )
            # Posted under the lock: `aclose` cannot slip its stop command in before it.
            if not self.loop.post(OpenCommand(state)):  # the loop is ending (it failed)
                self._active -= 1
                return Error(ErrorCode.ENGINE_CLOSED, "the engine is closed")
        return stream_id

    def _resolve(self, voice: str | None, language: str | None, instruct: str | None) -> Voice:
        """A preset speaker, or a cloned voice of the voice store (by id). Without a voice: the
        default preset, or on a Base checkpoint its oldest cloned voice."""
        clone = None
        stored = self.voice_store.list()
        if voice is None and self.model.config.supports_cloning and stored:
            voice = stored[0].id
        if voice and voice.lower() not in self.model.config.talker.speaker_ids:
            try:
                clone = self.voice_store.get(voice).prompt
            except KeyError:
                if self.model.config.supports_cloning:
                    known = ", ".join(v.id for v in stored) or "none yet"
                    raise ValueError(f"unknown voice {voice!r}; cloned voices: {known}") from None
            else:
                voice = None
        return Voice.resolve(self.model.config, voice or (None if clone else self._default_speaker), language, instruct, clone)

    # ---- cloned voices ------------------------------------------------------------------------

    def create_voice(
        self, name: str, audio: np.ndarray, sample_rate: int, text: str | None = None, consent: str | None = None
    ) -> dict[str, Any]:
        """Clone a voice from a reference recording (from `voice_cloning.min_reference_seconds`, as
        the official code, to 30 s; mono or mixed down) and save it in the
        voice store: ICL when its transcript `text` is given, x-vector only otherwise; `consent`
        (the consent recording's id an upload named) is kept with it. Returns
        {"id", "name", "mode", "created_at"}. Raises ValueError for bad input (nothing is saved)
        and OSError when the voices directory cannot be written. The encoders run on the engine's
        device thread, between two frame steps."""
        config = self.model.config
        if not config.supports_cloning:
            raise ValueError(f"this checkpoint ({config.tts_model_type} {config.tts_model_size}) cannot clone voices; load a Base checkpoint")
        self.voice_store.check_new(name)
        done: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            call = DeviceCall(lambda: make_clone_prompt(self.model, audio, sample_rate, text), done)
            if self._closed or not self.loop.post(call):
                raise RuntimeError("the engine is closed")
        prompt = done.result()
        seconds = len(audio) / sample_rate
        with self._voices_lock:
            stored = self.voice_store.add(
                name, prompt, {"sample_rate": int(sample_rate), "seconds": round(seconds, 3)}, consent
            )
        return stored.summary()

    def delete_voice(self, voice: str) -> bool:
        """Delete a cloned voice; False when there is none of that id. Preset voices cannot be
        deleted (ValueError). Streams already speaking the voice finish with it."""
        if voice.lower() in self.model.config.talker.speaker_ids:
            raise ValueError(f"{voice!r} is a preset voice; only cloned voices can be deleted")
        with self._voices_lock:
            return self.voice_store.remove(voice) is not None

    def _failed(self, error: Error, sample_rate: int) -> Qwen3Stream:
        channel = StreamChannel()
        channel.put(StreamEnd(cancelled=False, reason=error.code, error=error))
        return Qwen3Stream(0, None, lambda command: None, sample_rate, channel)

    def _released(self) -> None:
        with self._lock:
            self._active -= 1

    async def aclose(self) -> None:
        """End every open stream (cancelled) and stop the loop; later `open_stream` calls report
        `engine_closed`."""
        await asyncio.to_thread(self.close)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self.loop.stop()


def _clone_description(voice: StoredVoice) -> str:
    if voice.mode == "icl":
        return f"cloned voice (in-context, transcript: {voice.prompt.ref_text[:60]!r})"
    return "cloned voice (x-vector)"
