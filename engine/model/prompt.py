"""The talker's input rows ("dual track": text-track vector + codec-track vector per row).

    [P(instruct ids)]                                  optional, text only
    P(<|im_start|>), P(assistant), P(\\n)               role, text only
    tts_pad + C(think|nothink), tts_pad + C(think_bos), [tts_pad + C(language)], tts_pad + C(think_eos),
    [tts_pad + speaker row], tts_bos + C(codec_pad)    codec prefix (language / speaker optional)
    then the tail, built from the text track s = [P(r_0..r_{R-1}), P(x_0..x_{N-1}), tts_eos] and
    the codec rows c = [C(codec_bos)] + [framesum(ref frame f) for f < F]  (len(c) = K):
      streaming layout      s[:K] + c (s padded with tts_pad when shorter)     (K rows)
      non-streaming layout  s_i + C(codec_pad) for every row of s, then c + tts_pad  (R+N+1+K rows)

The speaker row is C(speaker id) for a preset and the x-vector for a cloned voice. Only an ICL
clone has a transcript r (R > 0) and reference frames (F > 0); for every other voice K = 1 and
the tail is the official P(x_0) + C(codec_bos) (streaming) or text + tts_eos over C(codec_pad),
then tts_pad + C(codec_bos) (non-streaming).

Everything before the tail depends only on the voice (speaker, language, instruct), so a runtime
can prefill it - or reuse its KV from a per-voice cache - before any text arrives. The streaming
tail needs s[:K]: x_0 for a preset, but for an ICL clone the first K - R target tokens, or the
whole text when it is shorter than that (then its tts_eos is already in the prefill).

During decoding, step t adds one text-track vector to the frame's codec sum:
streaming layout: s[K + t] while text tokens remain, then tts_eos once, then tts_pad;
non-streaming layout: always tts_pad.

Voice resolution follows the official wrapper: speaker and language are matched
case-insensitively; `auto` means no language row (nothink); a speaker with a dialect in the
config (e.g. eric -> sichuan_dialect) replaces the language id when the language is `chinese` or
`auto`.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

import logging

from engine.model.config import ModelConfig
from engine.model.steps import frame_embedding
from engine.model.tts_model import Qwen3TTS
from engine.model.voice_clone import ClonePrompt

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Voice:
    """A request's conditioning, validated against a checkpoint. `speaker=None` leaves out the
    speaker row (as the official code does for an empty speaker); `clone` puts a cloned voice's
    x-vector there instead."""

    speaker: str | None
    language: str
    instruct: str | None
    clone: ClonePrompt | None = None

    @classmethod
    def resolve(
        cls, config: ModelConfig, speaker: str | None, language: str | None, instruct: str | None,
        clone: ClonePrompt | None = None,
    ) -> Voice:
        t = config.talker
        spk = speaker.lower() if speaker else None
        if clone is not None:
            if not config.supports_cloning:
                raise ValueError(
                    f"a cloned voice needs a Base checkpoint; this one is {config.tts_model_type} {config.tts_model_size}"
                )
            if spk is not None:
                raise ValueError("give either a preset speaker or a cloned voice, not both")
            if clone.x_vector.shape != (t.layers.hidden_size,):
                raise ValueError(f"the cloned voice was made with another checkpoint (x-vector {tuple(clone.x_vector.shape)})")
        elif config.supports_cloning:
            raise ValueError("this Base checkpoint speaks only cloned voices; create one from a reference recording")
        if spk is not None and spk not in t.speaker_ids:
            raise ValueError(f"unknown speaker {speaker!r}; this checkpoint has: {', '.join(sorted(t.speaker_ids)) or 'none'}")
        lang = (language or "auto").lower()
        if lang not in config.languages:
            raise ValueError(f"unsupported language {language!r}; supported: {', '.join(config.languages)}")
        if instruct and not config.supports_instruct:
            # What the official wrapper does for the 0.6B CustomVoice model (and voice cloning
            # takes no instruct): the instruct is dropped, the turn goes on.
            log.warning("ignoring the instruct: %s %s takes none", config.tts_model_type, config.tts_model_size)
            instruct = None
        if config.tts_model_type == "voice_design" and not instruct:
            raise ValueError("a voice-design checkpoint needs an instruct describing the voice")
        return cls(speaker=spk, language=lang, instruct=instruct or None, clone=clone)

    @property
    def reference_ids(self) -> tuple[int, ...]:
        """Transcript tokens that open the text track (ICL clones), else none."""
        return self.clone.ref_ids if self.clone is not None and self.clone.icl else ()

    def codec_prefix_ids(self, config: ModelConfig) -> list[int]:
        """The codec track of the prefix, ending with [codec_pad, codec_bos]."""
        t = config.talker
        language_id = None if self.language == "auto" else t.language_ids[self.language]
        dialect = t.speaker_dialects.get(self.speaker) if self.speaker else None
        if dialect and self.language in ("chinese", "auto"):
            language_id = t.language_ids[dialect]
        if language_id is None:
            ids = [t.codec_nothink_id, t.codec_think_bos_id, t.codec_think_eos_id]
        else:
            ids = [t.codec_think_id, t.codec_think_bos_id, language_id, t.codec_think_eos_id]
        if self.speaker:
            ids.append(t.speaker_ids[self.speaker])
        return ids + [t.codec_pad_id, t.codec_bos_id]


def _ids(model: Qwen3TTS, ids: list[int]) -> Tensor:
    return torch.tensor(ids, dtype=torch.int64, device=model.device)


def prefix_rows(
    model: Qwen3TTS, codec_prefix_ids: list[int], instruct_ids: list[int] | None, speaker_row: Tensor | None = None
) -> Tensor:
    """The text-independent rows [P, hidden]: instruct, role, codec prefix (all but its final bos).
    `speaker_row` [hidden] (a cloned voice's x-vector) goes in before [codec_pad, codec_bos]."""
    codec = model.talker.embed_codec(_ids(model, codec_prefix_ids))
    if speaker_row is not None:
        row = speaker_row.to(model.device, model.dtype)[None]
        codec = torch.cat((codec[:-2], row, codec[-2:]), dim=0)
    text_track = torch.cat((model.tts_pad_embed.expand(codec.shape[0] - 2, -1), model.tts_bos_embed[None]), dim=0)
    parts = []
    if instruct_ids:
        parts.append(model.talker.project_text(_ids(model, instruct_ids)))
    parts.append(model.talker.project_text(_ids(model, model.tokenizer.role_ids)))
    parts.append(text_track + codec[:-1])
    return torch.cat(parts, dim=0)


def voice_prefix_rows(model: Qwen3TTS, voice: Voice, instruct_ids: list[int] | None) -> Tensor:
    """`prefix_rows` of a resolved voice (preset, voice design or clone)."""
    speaker_row = voice.clone.x_vector if voice.clone is not None else None
    return prefix_rows(model, voice.codec_prefix_ids(model.config), instruct_ids, speaker_row)


def codec_rows(model: Qwen3TTS, voice: Voice) -> Tensor:
    """The codec rows c of the tail [K, hidden]: C(codec_bos), then for an ICL clone the
    codebook-embedding sum of every reference frame."""
    bos = model.talker.embed_codec(_ids(model, [model.config.talker.codec_bos_id]))
    if voice.clone is None or not voice.clone.icl:
        return bos
    return torch.cat((bos, frame_embedding(model, voice.clone.ref_codes.to(model.device))), dim=0)


def streaming_head(model: Qwen3TTS, track_ids: list[int], codec: Tensor, text_ended: bool) -> Tensor:
    """The streaming tail s[:K] + c [K, hidden] from the text-track ids (transcript + text) known
    so far; with fewer than K ids the text must have ended: tts_eos, then tts_pad, fill the rest."""
    k = codec.shape[0]
    rows = model.talker.project_text(_ids(model, track_ids[:k]))
    if len(track_ids) < k:
        if not text_ended:
            raise ValueError("the streaming tail needs K text-track rows or the end of the text")
        fill = [model.tts_eos_embed[None], model.tts_pad_embed.expand(k - len(track_ids) - 1, -1)]
        rows = torch.cat((rows, *fill), dim=0)
    return rows + codec


def non_streaming_rows(model: Qwen3TTS, track_ids: list[int], codec: Tensor) -> Tensor:
    """The non-streaming tail [len(track_ids) + 1 + K, hidden]: every text-track row and tts_eos
    over C(codec_pad), then the codec rows over tts_pad."""
    t = model.config.talker
    text = torch.cat((model.talker.project_text(_ids(model, track_ids)), model.tts_eos_embed[None]), dim=0)
    text = text + model.talker.embed_codec(_ids(model, [t.codec_pad_id] * (len(track_ids) + 1)))
    return torch.cat((text, codec + model.tts_pad_embed), dim=0)


def text_rows(model: Qwen3TTS, text_ids: list[int]) -> Tensor:
    """P(ids) [n, hidden] for text tokens fed during the frame steps (streaming layout)."""
    return model.talker.project_text(_ids(model, text_ids))
