"""Reference (single-stream, non-batched) generation, built from the per-step functions in `steps`
(the model's one forward, which the serving runtime runs batched).

`StreamingGenerator` is one stream's whole generation loop with token-level text input; `generate`
feeds it the whole text at once, which is what the official `generate_custom_voice` computes, and
is what the parity goldens are checked against. A batching runtime follows the same state machine
per stream (see `steps`):

    waiting for the tail's text (x_0; an ICL clone: transcript + first target tokens, or the
    end of the text) -> prefill the tail -> sample code 0 of frame 0
    loop:  predict frame t (emit it)
           text row for step t known?  no  -> pause (keep the frame embedding; never feed pad)
                                       yes -> talker step -> sample code 0 of frame t+1
           EOS or max_new_tokens -> done

Feeding the text ids one by one, in bursts or all at once, with `next_frame()` called whenever
convenient, yields exactly the same frames: pauses only change when the work happens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Literal

import torch
from torch import Tensor

from engine.model import prompt
from engine.model.prompt import Voice
from engine.model.sampling import SamplerRows, SamplingParams, apply_talker_processors, choose, suppressed_ids
from engine.model.steps import predict_codes, prefill, talker_logits, talker_step
from engine.model.talker import KVCache
from engine.model.tts_model import Qwen3TTS
from engine.model.voice_clone import ClonePrompt

Layout = Literal["streaming", "non_streaming"]
StopReason = Literal["eos", "max_new_tokens", "empty_text"]


class _Phase(Enum):
    AWAIT_FIRST = "await_first"  # prefix prefilled, the tail row needs text
    HAVE_CODE0 = "have_code0"  # code 0 of the next frame is sampled
    AWAIT_TEXT_ROW = "await_text_row"  # frame emitted, the next talker step needs its text row
    DONE = "done"


@dataclass
class Generation:
    codes: Tensor  # [T, G] int64 on the CPU
    text_ids: list[int]
    instruct_ids: list[int] | None
    codec_prefix_ids: list[int]
    prefill_len: int
    stop_reason: StopReason
    talker_hidden: Tensor  # [T, hidden] the state each frame's code 0 was sampled from
    talker_margins: list[float]  # top1 - top2 of the processed talker logits at every sample
    text_track: list[str]  # per frame step: "text", "eos" or "pad"
    talker_logits: list[Tensor] = field(default_factory=list)  # raw [vocab] per sample, if recorded
    predictor_logits: list[Tensor] = field(default_factory=list)  # raw [G-1, vocab] per frame, if recorded


class StreamingGenerator:
    """One stream: voice and sampling fixed up front, text ids pushed as they become final.

    The voice-dependent prefix is prefilled on construction. `layout="streaming"` starts as soon as
    the first text id arrives; `"non_streaming"` (whole text in the prompt) starts at `end_text()`.
    `max_new_tokens` counts sampled code-0 ids (frames = max_new_tokens - 1 when it is hit).
    `forced_codes` [T, G] makes the stream follow given codes (teacher forcing, then EOS) and
    `record_logits` keeps the raw talker and predictor logits of every step, for numerical checks.
    `clone` speaks a cloned voice (Base checkpoints) instead of a preset speaker.
    """

    def __init__(
        self,
        model: Qwen3TTS,
        *,
        speaker: str | None = None,
        language: str | None = "auto",
        instruct: str | None = None,
        layout: Layout = "streaming",
        sampling: SamplingParams | None = None,
        max_new_tokens: int | None = None,
        instruct_ids: list[int] | None = None,
        forced_codes: Tensor | None = None,
        record_logits: bool = False,
        clone: ClonePrompt | None = None,
    ) -> None:
        self.model = model
        cfg = model.config
        self.voice = Voice.resolve(cfg, speaker, language, instruct, clone)
        self.layout = layout
        self.sampling = (sampling or SamplingParams.from_generation_config(model.generation_config)).with_seed()
        self.max_new_tokens = int(model.generation_config["max_new_tokens"]) if max_new_tokens is None else max_new_tokens
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {self.max_new_tokens}")
        self.instruct_ids = instruct_ids if instruct_ids is not None else (
            model.tokenizer.instruct_ids(self.voice.instruct) if self.voice.instruct else None
        )
        self.codec_prefix_ids = self.voice.codec_prefix_ids(cfg)
        self.forced = forced_codes.to(model.device) if forced_codes is not None else None
        self.record_logits = record_logits

        device, groups = model.device, model.num_code_groups
        self._talker_rows = SamplerRows.build([self.sampling], device, predictor=False)
        self._predictor_rows = SamplerRows.build([self.sampling], device, predictor=True)
        self._penalty = torch.tensor([self.sampling.repetition_penalty], device=device)
        self._suppress = suppressed_ids(cfg.talker.vocab_size, cfg.talker.codec_eos_id, device)
        self._seen = torch.zeros(1, cfg.talker.vocab_size, dtype=torch.bool, device=device)
        self._groups = groups

        self.text_ids: list[int] = []
        # The text track is the voice's transcript (ICL clones) followed by the text; the tail
        # takes its first K rows (K = codec rows), decoding the rest.
        self._reference_ids = list(self.voice.reference_ids)
        self._codec_rows = prompt.codec_rows(model, self.voice)
        self._text_rows: list[Tensor] = []  # track rows K, K+1, ... (streaming layout)
        self.text_ended = False
        self._count = 0  # sampled codebook-0 ids (excluding a final EOS)
        self._phase = _Phase.AWAIT_FIRST
        self._c0: Tensor | None = None
        self._hidden: Tensor | None = None
        self._frame_embed: Tensor | None = None
        self.stop_reason: StopReason | None = None
        self.frames: list[Tensor] = []
        self.hidden_per_frame: list[Tensor] = []
        self.margins: list[float] = []
        self.text_track: list[str] = []
        self.talker_logits: list[Tensor] = []
        self.predictor_logits: list[Tensor] = []

        rows = prompt.voice_prefix_rows(model, self.voice, self.instruct_ids)
        self._cache = KVCache.allocate(cfg.talker.layers, 1, rows.shape[0] + 64, device, model.dtype)
        self._length = 0
        self._prefill(rows)
        self._prefill_len = self._length

    @property
    def finished(self) -> bool:
        return self._phase is _Phase.DONE

    @property
    def prefill_len(self) -> int:
        """Rows written before the first frame step (valid once frame 0's code 0 is sampled)."""
        return self._prefill_len

    @property
    def _track(self) -> list[int]:
        return self._reference_ids + self.text_ids

    def push_text(self, ids: Sequence[int]) -> None:
        if self.text_ended:
            raise RuntimeError("text already ended")
        start = len(self._reference_ids) + len(self.text_ids)
        self.text_ids.extend(int(i) for i in ids)
        if self.layout == "streaming":
            # Track rows after the tail are projected per push, in one call: pushing the whole
            # text at once groups them as the official code does for a preset (x_0 alone, the
            # rest together), which keeps reduced-precision GEMMs rounding alike.
            trailing = self._track[max(start, self._codec_rows.shape[0]) :]
            if trailing:
                self._text_rows.extend(prompt.text_rows(self.model, trailing).unbind(0))

    def end_text(self) -> None:
        self.text_ended = True

    def next_frame(self) -> Tensor | None:
        """The next frame's codes [G] (on the model device), or None when the stream has to wait
        for text or is finished (`finished`)."""
        while True:
            if self._phase is _Phase.DONE:
                return None
            if self._phase is _Phase.AWAIT_FIRST:
                if not self._start():
                    return None
            elif self._phase is _Phase.HAVE_CODE0:
                return self._emit_frame()
            elif not self._advance():
                return None

    def run(self) -> Generation:
        """Drain the stream; the text must have ended."""
        if not self.text_ended:
            raise RuntimeError("run() needs end_text() first")
        while self.next_frame() is not None:
            pass
        groups, hidden = self._groups, self.model.config.talker.layers.hidden_size
        return Generation(
            codes=torch.stack(self.frames).cpu() if self.frames else torch.zeros(0, groups, dtype=torch.int64),
            text_ids=list(self.text_ids),
            instruct_ids=self.instruct_ids,
            codec_prefix_ids=self.codec_prefix_ids,
            prefill_len=self._prefill_len,
            stop_reason=self.stop_reason,
            talker_hidden=torch.stack(self.hidden_per_frame).float().cpu() if self.frames else torch.zeros(0, hidden),
            talker_margins=self.margins,
            text_track=self.text_track,
            talker_logits=self.talker_logits,
            predictor_logits=self.predictor_logits,
        )

    # internals

    def _prefill(self, rows: Tensor) -> Tensor:
        self._reserve(self._length + rows.shape[0])
        hidden = prefill(self.model, rows, self._cache, 0, self._length)
        self._length += rows.shape[0]
        return hidden

    def _reserve(self, length: int) -> None:
        if length <= self._cache.max_len:
            return
        grown = KVCache.allocate(
            self.model.config.talker.layers, 1, max(length, 2 * self._cache.max_len), self.model.device, self.model.dtype
        )
        grown.k[:, :, :, : self._length] = self._cache.k[:, :, :, : self._length]
        grown.v[:, :, :, : self._length] = self._cache.v[:, :, :, : self._length]
        self._cache = grown

    def _start(self) -> bool:
        if self.text_ended and not self.text_ids:
            self._finish("empty_text")
            return True
        if self.layout == "streaming":
            if len(self._track) < self._codec_rows.shape[0] and not self.text_ended:
                return False
            tail = prompt.streaming_head(self.model, self._track, self._codec_rows, self.text_ended)
        else:
            if not self.text_ended:
                return False
            tail = prompt.non_streaming_rows(self.model, self._track, self._codec_rows)
        self._hidden = self._prefill(tail)
        self._prefill_len = self._length
        self._sample_code0()
        return True

    def _sample_code0(self) -> None:
        cfg = self.model.config.talker
        raw = talker_logits(self.model, self._hidden[None])
        logits = apply_talker_processors(
            raw, self._seen, torch.tensor([self._count], device=raw.device), self._penalty,
            eos_id=cfg.codec_eos_id, suppress=self._suppress,
        )
        top2 = logits[0].topk(2).values
        self.margins.append(float(top2[0] - top2[1]))
        if self.record_logits:
            self.talker_logits.append(raw[0].cpu())
        if self.forced is not None:
            frame = len(self.frames)
            if frame < len(self.forced):
                c0 = self.forced[frame, :1]
            else:
                c0 = torch.tensor([cfg.codec_eos_id], device=raw.device)
        else:
            draw = torch.tensor([self._count * self._groups], device=raw.device)
            c0 = choose(logits, self._talker_rows, draw)
        if int(c0) == cfg.codec_eos_id:
            self._finish("eos")
            return
        self._count += 1
        self._seen[0, c0] = True
        if self._count >= self.max_new_tokens:
            self._finish("max_new_tokens")
            return
        self._c0 = c0
        self._phase = _Phase.HAVE_CODE0

    def _emit_frame(self) -> Tensor:
        frame_index = len(self.frames)
        draw = torch.tensor([frame_index * self._groups], device=self.model.device)
        recorded: list[Tensor] = []

        def pick(logits: Tensor, j: int) -> Tensor:
            if self.record_logits:
                recorded.append(logits[0].cpu())
            if self.forced is not None:
                return self.forced[frame_index, j + 1][None]
            return choose(logits, self._predictor_rows, draw + j + 1)

        codes, self._frame_embed = predict_codes(self.model, self._hidden[None], self._c0, pick)
        if self.record_logits:
            self.predictor_logits.append(torch.stack(recorded))
        self.frames.append(codes[0])
        self.hidden_per_frame.append(self._hidden)
        self._phase = _Phase.AWAIT_TEXT_ROW
        return codes[0]

    def _text_row(self) -> tuple[str, Tensor] | None:
        """The text-track row of frame step t = frames emitted - 1, or None if not known yet."""
        if self.layout == "non_streaming":
            return "pad", self.model.tts_pad_embed
        t = len(self.frames) - 1
        index, length = self._codec_rows.shape[0] + t, len(self._reference_ids) + len(self.text_ids)
        if index < length:
            return "text", self._text_rows[t]
        if not self.text_ended:
            return None
        if index == length:
            return "eos", self.model.tts_eos_embed
        return "pad", self.model.tts_pad_embed

    def _advance(self) -> bool:
        row = self._text_row()
        if row is None:
            return False
        kind, text_track = row
        self.text_track.append(kind)
        inputs = self._frame_embed + text_track
        self._reserve(self._length + 1)
        positions = torch.tensor([self._length], device=self.model.device)
        self._hidden = talker_step(self.model, inputs, self._cache, positions, kv_len=self._length + 1)[0]
        self._length += 1
        self._sample_code0()
        return True

    def _finish(self, reason: StopReason) -> None:
        self.stop_reason = reason
        self._phase = _Phase.DONE


def generate(
    model: Qwen3TTS,
    text: str,
    *,
    speaker: str | None = None,
    language: str | None = "auto",
    instruct: str | None = None,
    non_streaming_mode: bool = True,
    max_new_tokens: int | None = None,
    sampling: SamplingParams | None = None,
    text_ids: list[int] | None = None,
    instruct_ids: list[int] | None = None,
    record_logits: bool = False,
    clone: ClonePrompt | None = None,
) -> Generation:
    """What the official `generate_custom_voice` / `generate_voice_design` / `generate_voice_clone`
    compute for one text (codes only; see `synthesize` for audio). `non_streaming_mode=False`
    selects the streaming layout. text_ids / instruct_ids override tokenization (to separate model
    parity from tokenizer parity)."""
    with torch.inference_mode():
        stream = StreamingGenerator(
            model,
            speaker=speaker,
            language=language,
            instruct=instruct,
            layout="non_streaming" if non_streaming_mode else "streaming",
            sampling=sampling,
            max_new_tokens=max_new_tokens,
            instruct_ids=instruct_ids,
            record_logits=record_logits,
            clone=clone,
        )
        stream.push_text(text_ids if text_ids is not None else model.tokenizer.text_ids(text))
        stream.end_text()
        return stream.run()


def synthesize(model: Qwen3TTS, text: str, **kwargs) -> tuple[Generation, Tensor]:
    """`generate` plus a whole-sequence codec decode: (generation, float32 samples on the CPU).

    An ICL clone's reference frames are the decoder's left context: the official wrapper decodes
    them followed by the new frames and cuts `int(F / (F + T) * samples)` samples, which is
    F * samples_per_frame up to float rounding (replicated for exact lengths)."""
    result = generate(model, text, **kwargs)
    clone: ClonePrompt | None = kwargs.get("clone")
    if not len(result.codes):
        return result, torch.zeros(0)
    codes = result.codes
    if clone is not None and clone.icl:
        codes = torch.cat((clone.ref_codes, codes), dim=0)
    with torch.inference_mode():
        wav = model.codec.decode(codes.to(model.device)).cpu()
    if clone is not None and clone.icl:
        wav = wav[int(len(clone.ref_codes) / len(codes) * wav.shape[0]) :]
    return result, wav
