"""The codec's encoder: a 24 kHz reference waveform -> reference codes [frames, 16].

It is the speech tokenizer's Mimi encoder (what the official `speech_tokenizer.encode` runs),
used once per cloned voice, never on the latency path:

    SEANet   causal conv -> per ratio: residual units (ELU, conv k3 dilated, ELU, conv k1) + ELU +
             strided conv (kernel 2r) -> ELU -> conv           (waveform -> latent at 25 Hz)
    transformer  LayerNorm / RoPE attention / LayerScale, LayerNorm / GELU MLP / LayerScale,
             plain causal attention (as Mimi's eager and SDPA paths run it; the config's sliding
             window is not applied there)
    downsample   causal conv, stride 2, replicate padding    (25 Hz -> 12.5 Hz)
    split RVQ    1 semantic + acoustic codebooks, nearest centroid by `torch.cdist`, residual
             subtracted after each; only the first `valid_quantizers` codes are kept

Every convolution pads causally: `(kernel - 1) * dilation + 1 - stride` on the left and, on the
right, just enough to complete the last stride window. The codes are trimmed to
ceil(samples / samples_per_frame) frames.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import torch
import torch.nn.functional as F
from torch import Tensor

from engine.model.config import CodecEncoderConfig
from engine.model.transformer import Rotary, apply_rotary, sdpa
from engine.model.weight_layout import codec_encoder_layers


def _causal_conv(
    x: Tensor, weight: Tensor, bias: Tensor | None, stride: int = 1, dilation: int = 1, pad_mode: str = "constant"
) -> Tensor:
    kernel = (weight.shape[-1] - 1) * dilation + 1
    padding = kernel - stride
    length = x.shape[-1]
    frames = -(-(length - kernel + padding) // stride)  # ceil((length - kernel + padding) / stride + 1) - 1
    extra = frames * stride + kernel - padding - length
    x = F.pad(x, (padding, extra), mode=pad_mode)
    return F.conv1d(x, weight, bias, stride=stride, dilation=dilation)


class CodecEncoder:
    def __init__(self, cfg: CodecEncoderConfig, w: Mapping[str, Tensor], device: torch.device) -> None:
        self.cfg = cfg
        self.w = {k: v for k, v in w.items() if k.startswith("encoder.")}
        self.convs = codec_encoder_layers(cfg)
        self.rotary = Rotary(cfg.transformer.head_dim, cfg.transformer.rope_theta, device)
        q = "encoder.quantizer."
        self.quantizers: list[tuple[Tensor, list[Tensor]]] = []
        acoustic = cfg.valid_quantizers - cfg.num_semantic_quantizers
        for group, count in (("semantic", cfg.num_semantic_quantizers), ("acoustic", acoustic)):
            prefix = f"{q}{group}_residual_vector_quantizer."
            books = []
            for k in range(count):
                book = f"{prefix}layers.{k}.codebook."
                books.append(self.w[book + "embed_sum"] / self.w[book + "cluster_usage"].clamp(min=1e-5)[:, None])
            self.quantizers.append((self.w[prefix + "input_proj.weight"], books))

    def encode(self, audio: Tensor) -> Tensor:
        """audio [samples] at the codec's sample rate -> codes [frames, valid_quantizers] int64 (CPU)."""
        cfg, w = self.cfg, self.w
        first = w["encoder.encoder.layers.0.conv.weight"]
        x = audio.to(first.device, first.dtype)[None, None]
        residual = None
        for index, (name, _, _, _, stride, dilation) in enumerate(self.convs):
            unit_start = name.endswith("block.1.")
            if unit_start:
                residual = x
            # ELU before every convolution but the first one.
            if index:
                x = F.elu(x)
            x = _causal_conv(x, w[name + "conv.weight"], w[name + "conv.bias"], stride, dilation, cfg.pad_mode)
            if name.endswith("block.3."):
                x = residual + x
        h = self._transformer(x.transpose(1, 2)).transpose(1, 2)
        h = _causal_conv(h, w["encoder.downsample.conv.weight"], None, cfg.frame_stride, 1, "replicate")
        codes = []
        for proj, books in self.quantizers:
            residual = F.conv1d(h, proj)[0].T  # [frames, quantizer_dim]
            for embed in books:
                index = torch.cdist(residual[None].float(), embed[None].float(), p=2)[0].argmin(dim=-1)
                residual = residual - F.embedding(index, embed)
                codes.append(index)
        frames = math.ceil(audio.shape[-1] / cfg.samples_per_frame)
        return torch.stack(codes, dim=1)[:frames].cpu()

    def _transformer(self, x: Tensor) -> Tensor:
        c, w = self.cfg.transformer, self.w
        b, t, _ = x.shape
        positions = torch.arange(t, device=x.device)[None]
        cos, sin = self.rotary.cos_sin(positions, x.dtype)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()

        def linear(h: Tensor, name: str) -> Tensor:
            return F.linear(h, w[name + ".weight"], w.get(name + ".bias"))

        for i in range(c.num_layers):
            p = f"encoder.encoder_transformer.layers.{i}."
            h = F.layer_norm(x, (c.hidden_size,), w[p + "input_layernorm.weight"], w[p + "input_layernorm.bias"], c.rms_norm_eps)
            q = linear(h, p + "self_attn.q_proj").view(b, t, c.num_heads, c.head_dim).transpose(1, 2)
            k = linear(h, p + "self_attn.k_proj").view(b, t, c.num_kv_heads, c.head_dim).transpose(1, 2)
            v = linear(h, p + "self_attn.v_proj").view(b, t, c.num_kv_heads, c.head_dim).transpose(1, 2)
            o = sdpa(apply_rotary(q, cos, sin), apply_rotary(k, cos, sin), v, causal)
            o = linear(o.transpose(1, 2).reshape(b, t, -1), p + "self_attn.o_proj")
            x = x + w[p + "self_attn_layer_scale.scale"] * o
            h = F.layer_norm(x, (c.hidden_size,), w[p + "post_attention_layernorm.weight"], w[p + "post_attention_layernorm.bias"], c.rms_norm_eps)
            h = F.linear(F.gelu(F.linear(h, w[p + "mlp.fc1.weight"])), w[p + "mlp.fc2.weight"])
            x = x + w[p + "mlp_layer_scale.scale"] * h
        return x
