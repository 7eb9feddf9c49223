"""The per-step functions the reference generator and the serving runtime share.

Every one of them runs the model's one forward (`Talker.forward`, `CodePredictor.predict`), so the
reference generator at batch 1, the runtime's voice-prefix fills and its batched frame step
(`engine.runtime.runner`, eagerly or as CUDA graphs, with or without its Triton kernels) compute
the same math.

State a runtime keeps per stream (see `generate.StreamingGenerator` for the single-stream logic):
  slot          its slot in a `talker.KVCache` or `talker.PagedKVCache` (either layout: `cache.rows`)
  length        rows written to its slot (= RoPE position of its next row)
  hidden        [hidden] post-norm talker state the next code-0 logits / frame come from
  c0            the sampled codebook-0 id of the frame being built
  seen, count   repetition-penalty history ([vocab] bool) and number of sampled code-0 ids
  text          its text ids and whether the text has ended

(a) Prefill.  `prefill(model, rows, cache, slot, start)` writes rows [T, hidden] at positions
    start..start+T-1 and returns the last row's hidden. Prefix rows (`prompt.prefix_rows`) can be
    prefilled as soon as the voice is known, the last row (`prompt.streaming_tail`, needs x_0) later
    with start = prefix length. Then `talker_logits` -> `sampling.apply_talker_processors` ->
    `sampling.choose` gives frame 0's code 0.

(b) Frame step, for B streams at once (cache rows [0, B)):
      codes, frame_sum = predict_codes(model, hidden, c0, pick)          [B, G]   frame t, no text needed
      inputs = frame_sum + text_track                                     [B, hidden]
      hidden = talker_step(model, inputs, cache, positions)              [B, hidden]
      logits = talker_logits(model, hidden) -> processors -> choose -> c0 of frame t+1 (or EOS)
    The text track for frame step t (streaming layout) is P(x_{t+1}) (`prompt.text_rows`), or
    `model.tts_eos_embed` when the text ended with t+1 tokens, or `model.tts_pad_embed` after
    that; in the non-streaming layout it is always `model.tts_pad_embed`.

    Token-level text input: a stream whose next text token has not arrived yet (and whose text has
    not ended) runs `predict_codes` for frame t - the frame can be vocoded and sent - then pauses:
    it skips `talker_step` (nothing appended, position unchanged) and keeps the frame's embedding sum.
    When x_{t+1} or end-of-text arrives it resumes with that saved sum plus the text row.
    Never feed tts_pad as a filler while text is still open: the resulting inputs would differ from
    the official streaming layout. With this rule the codes equal the official
    `non_streaming_mode=False` run on the final text, whatever the arrival schedule.

    Stop: code 0 == EOS ends the stream (no frame for it); the max_new_tokens-th sampled code 0 also
    ends it without a frame.

(c) Codec. `model.codec.decode_chunk(codes [B, n, G], state)` turns the next n frames of B streams
    into samples; `model.codec.new_state()` / `CodecState.cat` / `.split` manage per-stream states.

Random draws are counter-based (`sampling`): talker sample t uses draw index t * G, the
predictor's code j of frame t uses t * G + j, so results do not depend on the batch.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from engine.model.code_predictor import PredictorCache
from engine.model.talker import KVCache, PagedKVCache
from engine.model.transformer import Kernels
from engine.model.tts_model import Qwen3TTS


def prefill(model: Qwen3TTS, rows: Tensor, cache: KVCache | PagedKVCache, slot: int, start: int = 0) -> Tensor:
    """rows [T, hidden] at positions start..start+T-1 of `slot` -> post-norm hidden of the last row [hidden]."""
    t = rows.shape[0]
    at = cache.rows(slot, 1, torch.full((1,), start, device=rows.device), t, start + t, start)
    return model.talker.forward(rows, at)[0]


def talker_step(
    model: Qwen3TTS, inputs: Tensor, cache: KVCache | PagedKVCache, positions: Tensor, kv_len: int | None = None,
    kernels: Kernels | None = None,
) -> Tensor:
    """One token for each of the cache rows [0, B): inputs [B, hidden], positions [B] -> hidden
    [B, hidden]. kv_len (>= max(positions) + 1; the whole cache when None) bounds the keys read
    without a device sync; a runtime can round it up to a bucket. `kernels`: the runtime's
    Triton path (`inputs` is then updated in place)."""
    b = inputs.shape[0]
    return model.talker.forward(inputs, cache.rows(0, b, positions, 1, kv_len), kernels)


def talker_logits(model: Qwen3TTS, hidden: Tensor) -> Tensor:
    """Codebook-0 logits [B, vocab] float32 from post-norm hidden states [B, hidden]."""
    return model.talker.logits(hidden)


def predict_codes(
    model: Qwen3TTS, hidden: Tensor, c0: Tensor, pick: Callable[[Tensor, int], Tensor], cache: PredictorCache | None = None
) -> tuple[Tensor, Tensor]:
    """The whole frame from hidden [B, hidden] and c0 [B]: its codes [B, G] and the sum of its G
    codebook embeddings [B, hidden] (the next talker input without the text row).
    pick(logits [B, vocab] float32, j) -> code j+1 [B]."""
    predictor = model.code_predictor
    codes, embeds = [c0], [model.talker.embed_codec(c0)]

    def pick_and_embed(logits: Tensor, j: int) -> Tensor:
        codes.append(pick(logits, j))
        embeds.append(predictor.embed_code(codes[-1], j))
        return embeds[-1]

    predictor.predict(hidden, embeds[0], pick_and_embed, cache)
    return torch.stack(codes, dim=1), torch.stack(embeds, dim=1).sum(dim=1)


def frame_embedding(model: Qwen3TTS, codes: Tensor) -> Tensor:
    """Sum of the frames' G codebook embeddings [B, hidden]: talker table for code 0, predictor
    tables for codes 1..G-1; one sum over the G vectors, as the official code does."""
    c0 = model.talker.embed_codec(codes[:, 0])
    return torch.cat((c0[:, None], model.code_predictor.embed(codes[:, 1:])), dim=1).sum(dim=1)
