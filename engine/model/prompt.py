"""The talker's input rows ("dual track": text-track vector + codec-track vector per row).

    [P(instruct ids)]                                  optional, text only
    P(<|im_start|>), P(assistant), P(\\n)               role, text only
    tts_pad + C(think|nothink), tts_pad + C(think_bos), [tts_pad + C(language)], tts_pad + C(think_eos),
    [tts_pad + C(speaker)], tts_bos + C(codec_pad)     codec prefix (language / speaker optional)
    then one of two tails:
      streaming layout      P(x_0) + C(codec_bos)                           (1 row)
      non-streaming layout  P(x_i) + C(codec_pad) for every text token,
                            tts_eos + C(codec_pad), tts_pad + C(codec_bos)  (N + 2 rows)

Everything before the tail depends only on the voice (speaker, language, instruct), so a runtime
can prefill it - or reuse its KV from a per-voice cache - before any text arrives.

During decoding, step t adds one text-track vector to the frame's codec sum:
streaming layout: P(x_{t+1}) while text tokens remain, then tts_eos once, then tts_pad;
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

from engine.model.config import ModelConfig
from engine.model.tts_model import Qwen3TTS


@dataclass(frozen=True)
class Voice:
    """A request's conditioning, validated against a checkpoint. `speaker=None` leaves out the
    speaker row (as the official code does for an empty speaker)."""

    speaker: str | None
    language: str
    instruct: str | None

    @classmethod
    def resolve(cls, config: ModelConfig, speaker: str | None, language: str | None, instruct: str | None) -> Voice:
        t = config.talker
        spk = speaker.lower() if speaker else None
        if spk is not None and spk not in t.speaker_ids:
            raise ValueError(f"unknown speaker {speaker!r}; this checkpoint has: {', '.join(sorted(t.speaker_ids)) or 'none'}")
        lang = (language or "auto").lower()
        if lang not in config.languages:
            raise ValueError(f"unsupported language {language!r}; supported: {', '.join(config.languages)}")
        if instruct and not config.supports_instruct:
            raise ValueError(f"this checkpoint ({config.tts_model_type} {config.tts_model_size}) does not accept an instruct")
        if config.tts_model_type == "voice_design" and not instruct:
            raise ValueError("a voice-design checkpoint needs an instruct describing the voice")
        return cls(speaker=spk, language=lang, instruct=instruct or None)

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


def prefix_rows(model: Qwen3TTS, codec_prefix_ids: list[int], instruct_ids: list[int] | None) -> Tensor:
    """The text-independent rows [P, hidden]: instruct, role, codec prefix (all but its final bos)."""
    codec = model.talker.embed_codec(_ids(model, codec_prefix_ids))
    text_track = torch.cat(
        (model.tts_pad_embed.expand(len(codec_prefix_ids) - 2, -1), model.tts_bos_embed[None]), dim=0
    )
    parts = []
    if instruct_ids:
        parts.append(model.talker.project_text(_ids(model, instruct_ids)))
    parts.append(model.talker.project_text(_ids(model, model.tokenizer.role_ids)))
    parts.append(text_track + codec[:-1])
    return torch.cat(parts, dim=0)


def streaming_tail(model: Qwen3TTS, first_text_id: int) -> Tensor:
    """The last prefill row of the streaming layout [1, hidden]: P(x_0) + C(codec_bos)."""
    bos = _ids(model, [model.config.talker.codec_bos_id])
    return model.talker.project_text(_ids(model, [first_text_id])) + model.talker.embed_codec(bos)


def non_streaming_tail(model: Qwen3TTS, text_ids: list[int]) -> Tensor:
    """The last prefill rows of the non-streaming layout [N + 2, hidden]."""
    t = model.config.talker
    text = torch.cat((model.talker.project_text(_ids(model, text_ids)), model.tts_eos_embed[None]), dim=0)
    rows = text + model.talker.embed_codec(_ids(model, [t.codec_pad_id] * (len(text_ids) + 1)))
    last = model.tts_pad_embed[None] + model.talker.embed_codec(_ids(model, [t.codec_bos_id]))
    return torch.cat((rows, last), dim=0)


def text_rows(model: Qwen3TTS, text_ids: list[int]) -> Tensor:
    """P(ids) [n, hidden] for text tokens fed during decoding (streaming layout)."""
    return model.talker.project_text(_ids(model, text_ids))
