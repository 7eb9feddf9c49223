"""The x-vector of a reference recording: 128-bin log-mel -> ECAPA-TDNN speaker encoder.

The x-vector goes unprojected into the speaker row of a voice-cloning prompt, so it has to be
what the official `extract_speaker_embedding` computes:

    log-mel    reflect pad (n_fft - hop) / 2 each side, STFT (n_fft 1024, hop 256, Hann 1024,
               center=False), magnitude sqrt(re^2 + im^2 + 1e-9), librosa's slaney mel filterbank
               (fmin 0, fmax 12 kHz), log(clamp(x, 1e-5)); always float32 on the CPU
    encoder    TDNN -> SE-Res2Net blocks -> multi-layer aggregation (TDNN over the blocks' concat)
               -> attentive statistics pooling -> 1x1 conv to enc_dim
               (every convolution pads "same" by reflection)

The filterbank is built here rather than with librosa (not a dependency): the same float64
formulas, rounded to float32 where librosa rounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from engine.model.config import SpeakerEncoderConfig

N_FFT, HOP, WINDOW, MEL_FMAX = 1024, 256, 1024, 12000.0


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    """Slaney's mel scale: linear below 1 kHz, logarithmic above (librosa, htk=False)."""
    hz = np.asanyarray(hz, dtype=np.float64)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, np.log(6.4) / 27.0
    mels = hz / f_sp
    log_region = hz >= min_log_hz
    mels[log_region] = min_log_mel + np.log(hz[log_region] / min_log_hz) / logstep
    return mels


def _mel_to_hz(mels: np.ndarray) -> np.ndarray:
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, np.log(6.4) / 27.0
    hz = f_sp * mels
    log_region = mels >= min_log_mel
    hz[log_region] = min_log_hz * np.exp(logstep * (mels[log_region] - min_log_mel))
    return hz


@lru_cache(maxsize=4)
def mel_filterbank(sample_rate: int, n_fft: int, n_mels: int, fmin: float, fmax: float) -> Tensor:
    """librosa.filters.mel(sr, n_fft, n_mels, fmin, fmax) with slaney scale and norm, float32."""
    fft_freqs = np.fft.rfftfreq(n=n_fft, d=1.0 / sample_rate)
    mel_f = _mel_to_hz(np.linspace(_hz_to_mel(np.array([fmin]))[0], _hz_to_mel(np.array([fmax]))[0], n_mels + 2))
    fdiff = np.diff(mel_f)
    ramps = np.subtract.outer(mel_f, fft_freqs)
    weights = np.zeros((n_mels, 1 + n_fft // 2), dtype=np.float32)
    for i in range(n_mels):
        lower = -ramps[i] / fdiff[i]
        upper = ramps[i + 2] / fdiff[i + 1]
        weights[i] = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_f[2 : n_mels + 2] - mel_f[:n_mels]))[:, np.newaxis]
    return torch.from_numpy(weights)


def log_mel(audio: Tensor, sample_rate: int, n_mels: int) -> Tensor:
    """audio [samples] float32 at `sample_rate` -> log-mel [frames, n_mels] float32 (CPU)."""
    y = audio.detach().to("cpu", torch.float32)[None]
    pad = (N_FFT - HOP) // 2
    y = F.pad(y[:, None], (pad, pad), mode="reflect")[:, 0]
    spec = torch.stft(
        y, N_FFT, hop_length=HOP, win_length=WINDOW, window=torch.hann_window(WINDOW), center=False,
        pad_mode="reflect", normalized=False, onesided=True, return_complex=True,
    )
    magnitude = torch.sqrt(torch.view_as_real(spec).pow(2).sum(-1) + 1e-9)
    mel = torch.matmul(mel_filterbank(sample_rate, N_FFT, n_mels, 0.0, MEL_FMAX), magnitude)
    return torch.log(torch.clamp(mel, min=1e-5))[0].T


def _same_conv(x: Tensor, w: Mapping[str, Tensor], prefix: str, dilation: int = 1) -> Tensor:
    """nn.Conv1d(padding="same", padding_mode="reflect")."""
    weight = w[prefix + "weight"]
    total = dilation * (weight.shape[-1] - 1)
    if total:
        x = F.pad(x, (total // 2, total - total // 2), mode="reflect")
    return F.conv1d(x, weight, w[prefix + "bias"], dilation=dilation)


def _tdnn(x: Tensor, w: Mapping[str, Tensor], prefix: str, dilation: int = 1) -> Tensor:
    return F.relu(_same_conv(x, w, prefix + "conv.", dilation))


def _statistics(x: Tensor, weights: Tensor, eps: float = 1e-12) -> tuple[Tensor, Tensor]:
    mean = (weights * x).sum(2)
    std = torch.sqrt((weights * (x - mean.unsqueeze(2)).pow(2)).sum(2).clamp(eps))
    return mean, std


class SpeakerEncoder:
    def __init__(self, cfg: SpeakerEncoderConfig, w: Mapping[str, Tensor]) -> None:
        self.cfg = cfg
        self.w = {k: v for k, v in w.items() if k.startswith("speaker_encoder.")}

    @property
    def min_samples(self) -> int:
        """The shortest recording (at `sample_rate`) the official computation is defined on:
        every reflection pad, the STFT's and each dilated convolution's, must be shorter than what
        it pads (53 ms at 24 kHz for the published kernels and dilations)."""
        cfg, pad = self.cfg, (N_FFT - HOP) // 2
        frames = 1 + max(-(-dilation * (kernel - 1) // 2) for kernel, dilation in zip(cfg.kernel_sizes, cfg.dilations))
        return max(pad + 1, (frames - 1) * HOP + N_FFT - 2 * pad)

    def mel(self, audio: Tensor) -> Tensor:
        """The encoder's input [frames, mel_dim] for audio at the encoder's sample rate."""
        return log_mel(audio, self.cfg.sample_rate, self.cfg.mel_dim)

    def __call__(self, mel: Tensor) -> Tensor:
        """mel [frames, mel_dim] -> x-vector [enc_dim] (in the weights' dtype and device)."""
        cfg, w, p = self.cfg, self.w, "speaker_encoder."
        first = w[p + "blocks.0.conv.weight"]
        x = mel.to(first.device, first.dtype).T[None]  # [1, mel_dim, frames]
        x = _tdnn(x, w, p + "blocks.0.", cfg.dilations[0])
        outputs = []
        for i in range(1, len(cfg.channels) - 1):
            x = self._se_res2net(x, f"{p}blocks.{i}.", cfg.dilations[i])
            outputs.append(x)
        x = _tdnn(torch.cat(outputs, dim=1), w, p + "mfa.", cfg.dilations[-1])
        x = self._pool(x)
        return _same_conv(x, w, p + "fc.")[0, :, 0]

    def _se_res2net(self, x: Tensor, prefix: str, dilation: int) -> Tensor:
        w, scale = self.w, self.cfg.res2net_scale
        h = _tdnn(x, w, prefix + "tdnn1.")
        parts = []
        for i, part in enumerate(torch.chunk(h, scale, dim=1)):
            if i == 1:
                part = _tdnn(part, w, f"{prefix}res2net_block.blocks.0.", dilation)
            elif i > 1:
                part = _tdnn(part + parts[-1], w, f"{prefix}res2net_block.blocks.{i - 1}.", dilation)
            parts.append(part)
        h = _tdnn(torch.cat(parts, dim=1), w, prefix + "tdnn2.")
        gate = F.relu(_same_conv(h.mean(dim=2, keepdim=True), w, prefix + "se_block.conv1."))
        gate = torch.sigmoid(_same_conv(gate, w, prefix + "se_block.conv2."))
        return h * gate + x

    def _pool(self, x: Tensor) -> Tensor:
        """Attentive statistics pooling [1, C, T] -> [1, 2C, 1]."""
        w, p = self.w, "speaker_encoder.asp."
        length = x.shape[-1]
        mask = torch.ones(1, 1, length, dtype=x.dtype, device=x.device)
        mean, std = _statistics(x, mask / mask.sum(dim=2, keepdim=True))
        context = torch.cat((x, mean.unsqueeze(2).repeat(1, 1, length), std.unsqueeze(2).repeat(1, 1, length)), dim=1)
        attention = _same_conv(torch.tanh(_tdnn(context, w, p + "tdnn.")), w, p + "conv.")
        mean, std = _statistics(x, F.softmax(attention, dim=2))
        return torch.cat((mean, std), dim=1).unsqueeze(2)
