"""A cloned voice: what a voice-cloning (`base`) checkpoint needs from a reference recording.

`make_clone_prompt` does what the official `create_voice_clone_prompt` does, once per voice:

    reference  mono float32 at its own rate (several channels are averaged, as the official
               loader does); resampled to 24 kHz with soxr "HQ" (librosa's default resampler, and
               bit-exact with it) when the rate differs
    ref codes  codec encoder on the 24 kHz signal - always computed: ICL prompts embed them and
               the decoder needs them as left context; an x-vector-only voice keeps them too, so
               it can be turned into an ICL voice later without the audio
    x-vector   speaker encoder on the log-mel of the same 24 kHz signal
    ref text   ICL only: the transcript, tokenized as `<|im_start|>assistant\\n{text}<|im_end|>\\n`
               of which ids[3:-2] enter the prompt

In the prompt (see `prompt`) the x-vector takes the speaker row in both modes. An ICL voice also
prepends its transcript to the text track and adds one codec row per reference frame after
`codec_bos` (the frame's codebook-embedding sum, as for generated frames).

`check_reference` is where a recording is refused, with a message a user can act on. Its only
lower bound on length is the one the official computation has (`SpeakerEncoder.min_samples`):
a product minimum for uploaded voices is the server's (`ServerSettings.min_voice_reference_s`).
The upper bound keeps an ICL prompt's reference frames (12.5 a second) a small part of the
talker's context.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import soxr
import torch
from torch import Tensor

from engine.model.codec import CodecState
from engine.model.tts_model import Qwen3TTS

CloneMode = Literal["x_vector", "icl"]
MAX_REFERENCE_SECONDS = 30.0
MIN_SAMPLE_RATE, MAX_SAMPLE_RATE = 8000, 192000
# Below this peak (-60 dBFS) a recording carries no voice to clone.
SILENCE_PEAK = 1e-3


@dataclass(frozen=True, eq=False)
class ClonePrompt:
    """A voice made from a reference recording. Compared and hashed by identity: one object per
    voice, so the runtime's prefix cache keys it like a preset."""

    x_vector: Tensor  # [talker hidden] in the model's dtype, on the CPU
    ref_codes: Tensor  # [frames, code groups] int64, on the CPU
    mode: CloneMode
    ref_text: str | None = None  # the transcript (ICL)
    ref_ids: tuple[int, ...] = ()  # transcript tokens as they enter the prompt (ICL)

    @property
    def icl(self) -> bool:
        return self.mode == "icl"


def min_reference_seconds(model: Qwen3TTS) -> float:
    """The shortest reference `model` clones from, as the official code: what its speaker
    encoder's reflection pads need."""
    encoder = model.speaker_encoder
    return encoder.min_samples / encoder.cfg.sample_rate


def check_reference(audio: np.ndarray, sample_rate: int, min_seconds: float) -> np.ndarray:
    """Validate a reference recording of at least `min_seconds` and return it mono float32.
    Raises ValueError."""
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, (int, np.integer)):
        raise ValueError(f"sample rate must be an integer, got {sample_rate!r}")
    if not MIN_SAMPLE_RATE <= sample_rate <= MAX_SAMPLE_RATE:
        raise ValueError(f"sample rate {sample_rate} Hz is outside {MIN_SAMPLE_RATE}..{MAX_SAMPLE_RATE} Hz")
    audio = np.asarray(audio)
    if audio.dtype.kind not in "fiu":
        raise ValueError(f"reference audio must be numeric samples, got dtype {audio.dtype}")
    if audio.ndim == 2:
        # [samples, channels], as soundfile reads; mixed down like the official loader.
        audio = audio.mean(axis=-1)
    elif audio.ndim != 1:
        raise ValueError(f"reference audio must be [samples] or [samples, channels], got shape {audio.shape}")
    audio = audio.astype(np.float32)
    if not np.isfinite(audio).all():
        raise ValueError("reference audio contains NaN or infinite samples")
    seconds = len(audio) / sample_rate
    if seconds < min_seconds:
        raise ValueError(f"reference is {seconds:.3f} s long; the speaker encoder needs at least {min_seconds:.3f} s")
    if seconds > MAX_REFERENCE_SECONDS:
        raise ValueError(f"reference is {seconds:.1f} s long; at most {MAX_REFERENCE_SECONDS:g} s is accepted")
    if float(np.abs(audio).max()) < SILENCE_PEAK:
        raise ValueError("reference is silent (peak below -60 dBFS)")
    return audio


def resample_reference(audio: np.ndarray, sample_rate: int, target_rate: int) -> np.ndarray:
    if sample_rate == target_rate:
        return audio
    return soxr.resample(audio, sample_rate, target_rate, quality="HQ").astype(np.float32)


def make_clone_prompt(
    model: Qwen3TTS, audio: np.ndarray, sample_rate: int, ref_text: str | None = None
) -> ClonePrompt:
    """A voice from a reference recording: ICL when `ref_text` is given, x-vector only otherwise."""
    if model.speaker_encoder is None or model.codec_encoder is None:
        c = model.config
        raise ValueError(f"this checkpoint ({c.tts_model_type} {c.tts_model_size}) cannot clone voices; load a Base checkpoint")
    if ref_text is not None and not ref_text.strip():
        raise ValueError("the reference transcript is empty; leave it out for an x-vector-only voice")
    audio = check_reference(audio, sample_rate, min_reference_seconds(model))
    audio_24k = torch.from_numpy(resample_reference(audio, int(sample_rate), model.config.codec_encoder.sample_rate))
    ref_ids: tuple[int, ...] = ()
    if ref_text is not None:
        ref_ids = tuple(model.tokenizer.reference_ids(ref_text))
    with torch.inference_mode():
        ref_codes = model.codec_encoder.encode(audio_24k.to(model.device))
        x_vector = model.speaker_encoder(model.speaker_encoder.mel(audio_24k)).cpu()
    return ClonePrompt(
        x_vector=x_vector, ref_codes=ref_codes, mode="icl" if ref_text is not None else "x_vector",
        ref_text=ref_text, ref_ids=ref_ids,
    )


def codec_context(model: Qwen3TTS, clone: ClonePrompt | None) -> CodecState:
    """A fresh codec state for one stream of this voice. An ICL clone's reference frames are the
    decoder's left context (the official output is decode(ref + new)[ref part cut]), so its state
    has already consumed them; their audio is dropped."""
    state = model.codec.new_state(1)
    if clone is not None and clone.icl:
        with torch.inference_mode():
            model.codec.decode_chunk(clone.ref_codes.to(model.device)[None], state)
    return state
