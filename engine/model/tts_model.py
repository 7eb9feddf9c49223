"""A loaded Qwen3-TTS checkpoint: config, tokenizer, talker, code predictor, codec decoder and, for
voice-cloning checkpoints, the speaker encoder and codec encoder."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor

from engine.model.code_predictor import CodePredictor
from engine.model.codec import CodecDecoder
from engine.model.codec_encoder import CodecEncoder
from engine.model.config import ModelConfig
from engine.model.speaker_encoder import SpeakerEncoder
from engine.model.talker import Talker
from engine.model.text import TextTokenizer


@dataclass
class Qwen3TTS:
    config: ModelConfig
    generation_config: dict[str, Any]
    tokenizer: TextTokenizer
    talker: Talker
    code_predictor: CodePredictor
    codec: CodecDecoder
    device: torch.device
    dtype: torch.dtype
    speaker_encoder: SpeakerEncoder | None = None  # base checkpoints: reference audio -> x-vector
    codec_encoder: CodecEncoder | None = None  # base checkpoints: reference audio -> reference codes
    # Text-track vectors P(<tts_text_bos>), P(<tts_text_eod>), P(<tts_pad>) [hidden]. Computed
    # through the model's own embedding + MLP in the model dtype, as the official code does:
    # vectors exported at another precision shift near-ties in the code predictor.
    tts_bos_embed: Tensor = field(init=False)
    tts_eos_embed: Tensor = field(init=False)
    tts_pad_embed: Tensor = field(init=False)

    def __post_init__(self) -> None:
        c = self.config
        ids = torch.tensor([[c.tts_bos_id, c.tts_eos_id, c.tts_pad_id]], device=self.device)
        self.tts_bos_embed, self.tts_eos_embed, self.tts_pad_embed = self.talker.project_text(ids)[0]

    @property
    def num_code_groups(self) -> int:
        return self.config.talker.num_code_groups

    @property
    def sample_rate(self) -> int:
        return self.config.codec.sample_rate

    @property
    def samples_per_frame(self) -> int:
        return self.config.codec.samples_per_frame

    @property
    def speakers(self) -> list[str]:
        return list(self.config.talker.speaker_ids)

    @property
    def languages(self) -> list[str]:
        return self.config.languages
