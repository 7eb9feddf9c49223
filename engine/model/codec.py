"""The 12 Hz codec decoder: codes [frames, 16] -> 24 kHz waveform, whole or streamed.

    codes -> RVQ dequantize -> causal conv (k3) -> sliding-window transformer (LayerScale)
          -> 2 x (transposed conv + ConvNeXt) -> causal conv (k7)
          -> 4 x DecoderBlock (Snake, transposed conv, 3 dilated residual units) -> Snake -> conv -> clamp

Every stage is causal, so decoding can be streamed exactly: `CodecState` carries, per stream, the
input tail of every causal convolution (zeros at the start, which is what the official left
padding feeds), a ring of every transformer layer's keys/values (the last `sliding_window - 1`
frames and room for the next pass's) with their frame positions, and the next frame's position.
`decode_chunk` consumes any number of frames (one frame = 80 ms is fine) and returns exactly their
samples; chunked decoding matches a whole-sequence decode up to float rounding (tests measure
<= 1e-5 in float32).

Positions keep counting from the start of the stream (a whole decode uses 0..T-1), so for
utterances up to 300 frames this is the official decode; beyond that the official decoder re-starts
positions in 300-frame chunks with 25 frames of left context, an approximation this decoder does
not copy. Batched streams: a state holds rows for many streams (the runtime keeps one per slot)
and a decode names the rows it advances, which it reads and updates in place: no state is
gathered into a batch and scattered back. Each row keeps its own positions.

Activations are [B, T, C], channels last: the layout cuDNN's tensor-core convolutions take natively
(in [B, C, T] cuDNN transposed every input and output, 5.6 ms of a 27.6 ms decode at 256 streams x
4 frames on an H200), the one a GEMM over time rows takes, and the transformer's and ConvNeXt's own.
A causal convolution's input is one buffer: the stream's left context, then the new samples,
written there directly by the Snake before it (on CUDA one Triton pass,
`engine.model.codec_kernels`, which also adds the residual of the unit before), so neither a
concatenation nor a separate residual add runs; the context of the next chunk is the buffer's
tail. The convolutions inside the decoder blocks leave out their bias, which the Snake reading
their output adds in the same pass. The last convolution (one output channel) and its clamp are
one Triton pass as well. A transposed convolution (stride r) runs as the plain convolution whose
r x C_out output channels are its r outputs per input frame, side by side, so the upsampled
output is a view of the plain one.

A convolution runs one of three ways: the library's convolution (cuDNN on CUDA), one GEMM over
its input's windows gathered into rows (im2col), or one GEMM per kernel tap accumulated into the
output ("taps", reading shifted views of the buffer, nothing gathered). Pointwise ones are one GEMM
either way. Which is fastest depends on the shape, and cuDNN's heuristics pick a pathological
kernel for some (on an H200 the 384-channel dilation-9 convolution took 687 ms at 256 streams x 4
frames, the tap GEMMs 0.76 ms), so on CUDA each is timed all ways for each decode shape
(`choose_convolutions`, before that shape's graph is captured) and runs the fastest.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from engine.model import codec_kernels
from engine.model.config import CodecConfig
from engine.model.transformer import DecoderStack, Rotary
from engine.model.weight_layout import codec_decoder_channels


# Timing a decode shape's convolutions (`choose_convolutions`): a way is not timed further once
# one call, the first included, takes more than GIVE_UP times the fastest way so far and more
# than GIVE_UP_MS. cuDNN's heuristics pick kernels a thousand times slow for some shapes (seconds
# per call at hundreds of streams), and which shapes changes with the batch, so each shape pays
# one such call at most. Below the floor a call costs nothing worth saving, and a way's one-time
# setup on its first call must not rule it out.
GIVE_UP = 4.0
GIVE_UP_MS = 10.0

# New frames the transformer takes per pass: its key ring holds the window's last frames plus
# this many (each pass writes its keys first, then attends), so a longer chunk runs in passes.
FRAMES_PER_PASS = 8


@dataclass
class CodecState:
    """Streams' decoder states, read and updated in place. Every tensor has one row per stream of
    a pool; `rows` [B] names the decoded streams' rows, in batch order (a pool of many streams
    decodes any of them without gathering or scattering whole states)."""

    conv: dict[str, Tensor]  # name -> [S, context, channels] input tail of a causal convolution
    keys: list[Tensor]  # per layer [S, kv_heads, ring, head_dim]: frame p's key at p % ring
    values: list[Tensor]
    key_pos: Tensor  # [S, ring] frame position of each ring entry, -1 = empty
    next_pos: Tensor  # [S] position of the next frame
    rows: Tensor  # [B] int64

    @property
    def batch_size(self) -> int:
        return self.rows.shape[0]

    @staticmethod
    def cat(states: list[CodecState]) -> CodecState:
        """One state holding the decoded rows of `states`, in order (copies)."""
        take = lambda pick: torch.cat([pick(s).index_select(0, s.rows) for s in states])  # noqa: E731
        conv = {name: take(lambda s: s.conv[name]) for name in states[0].conv}
        layers = range(len(states[0].keys))
        next_pos = take(lambda s: s.next_pos)
        return CodecState(
            conv=conv,
            keys=[take(lambda s: s.keys[i]) for i in layers],
            values=[take(lambda s: s.values[i]) for i in layers],
            key_pos=take(lambda s: s.key_pos), next_pos=next_pos,
            rows=torch.arange(next_pos.shape[0], device=next_pos.device),
        )

    def split(self) -> list[CodecState]:
        """One state per decoded row, each a view of this one's row."""
        return [
            CodecState(
                conv={name: t[i : i + 1] for name, t in self.conv.items()},
                keys=[k[i : i + 1] for k in self.keys],
                values=[v[i : i + 1] for v in self.values],
                key_pos=self.key_pos[i : i + 1],
                next_pos=self.next_pos[i : i + 1],
                rows=torch.zeros(1, dtype=torch.int64, device=self.rows.device),
            )
            for i in self.rows.tolist()
        ]


@dataclass
class _Snake:
    alpha: Tensor  # exp(alpha) [C]
    inv_beta: Tensor  # 1 / (exp(beta) + 1e-9) [C]
    # The bias of the convolution whose output this Snake reads (that convolution runs without
    # it: cuDNN adds a bias in a pass of its own over the whole output, here it is free).
    bias: Tensor | None = None

    @classmethod
    def from_weights(cls, w: Mapping[str, Tensor], prefix: str, bias: Tensor | None = None) -> _Snake:
        alpha, beta = w[prefix + "alpha"], w[prefix + "beta"]
        return cls(torch.exp(alpha), 1.0 / (torch.exp(beta) + 1e-9), bias)

    def __call__(
        self, x: Tensor, residual: Tensor | None = None, keep_sum: bool = False,
        context: tuple[Tensor, Tensor] | None = None,
    ) -> tuple[Tensor | None, Tensor]:
        """Snake of x + residual + bias over [B, T, C] -> (the sum when `keep_sum`, its Snake). With
        `context` (tail [S, K, C], rows [B]) the Snake follows tail[rows], the streams' left
        context: a causal convolution's input buffer [B, K + T, C]."""
        adds = residual is not None or self.bias is not None
        if codec_kernels.available(x):
            b, t, c = x.shape
            width = context[0].shape[1] if context is not None else 0
            snake = torch.empty(b, width + t, c, device=x.device, dtype=x.dtype)
            total = torch.empty_like(x) if keep_sum and adds else x
            codec_kernels.snake(
                x, self.alpha, self.inv_beta, snake[:, width:], residual, self.bias, total if total is not x else None, context
            )
            return (total if keep_sum else None), snake
        total = x if residual is None else x + residual
        if self.bias is not None:
            total = total + self.bias
        snake = total + self.inv_beta * torch.sin(total * self.alpha).pow(2)
        return (total if keep_sum else None), (snake if context is None else _after_context(snake, context))


def _after_context(x: Tensor, context: tuple[Tensor, Tensor]) -> Tensor:
    """[tail[rows], x] along time: a causal convolution's input buffer (the PyTorch path)."""
    tail, rows = context
    return torch.cat((tail.index_select(0, rows), x), dim=1)


class CodecDecoder:
    def __init__(self, cfg: CodecConfig, w: Mapping[str, Tensor], device: torch.device, dtype: torch.dtype) -> None:
        self.cfg, self.device, self.dtype = cfg, device, dtype
        self._tails: dict[str, tuple[int, int]] = {}  # conv name -> (input channels, context)
        self._convs: list[_CausalConv] = []
        # (batch, frames) of a decode -> how each convolution with a choice runs (`choose_convolutions`)
        self.convolution_methods: dict[tuple[int, int], dict[str, str]] = {}
        q = "decoder.quantizer."

        def codebook(group: str, k: int) -> Tensor:
            """Codebook k of `group` through its group's output projection: [codebook_size, codebook_dim]."""
            book = f"{q}{group}.vq.layers.{k}._codebook."
            usage = w[book + "cluster_usage"].float().clamp(min=1e-5)
            return (w[book + "embedding_sum"].float() / usage[:, None]) @ w[f"{q}{group}.output_proj.weight"][:, :, 0].float().T

        n_rest = cfg.num_quantizers - cfg.num_semantic_quantizers
        # The output projections are linear, so the projected codebooks summed are the official
        # projection of the summed codebooks: dequantizing is then one gather-and-sum.
        books = [codebook("rvq_first", k) for k in range(cfg.num_semantic_quantizers)]
        books += [codebook("rvq_rest", k) for k in range(n_rest)]
        self.codebooks = torch.cat(books).to(dtype)  # [num_quantizers * codebook_size, codebook_dim]
        self._code_offsets = torch.arange(cfg.num_quantizers, device=device) * cfg.codebook_size

        self.pre_conv = self._conv(w, "decoder.pre_conv.conv.")
        tr = cfg.transformer
        self.in_proj = (w["decoder.pre_transformer.input_proj.weight"], w["decoder.pre_transformer.input_proj.bias"])
        self.out_proj = (w["decoder.pre_transformer.output_proj.weight"], w["decoder.pre_transformer.output_proj.bias"])
        self.stack = DecoderStack(
            tr, w, "decoder.pre_transformer.layers.", "decoder.pre_transformer.norm.weight", layer_scale=True
        )
        self.rotary = Rotary(tr.head_dim, tr.rope_theta, device)

        self.upsample = []
        for i, factor in enumerate(cfg.upsampling_ratios):
            p = f"decoder.upsample.{i}."
            self.upsample.append(
                (
                    self._conv(w, p + "0.conv.", transposed=True, stride=factor),
                    self._conv(w, p + "1.dwconv.conv.", groups=cfg.latent_dim),
                    {k: w[p + "1." + k] for k in ("norm.weight", "norm.bias", "pwconv1.weight", "pwconv1.bias",
                                                  "pwconv2.weight", "pwconv2.bias", "gamma")},
                )
            )
        self.first_conv = self._conv(w, "decoder.decoder.0.conv.")
        # Every convolution inside the decoder blocks feeds a Snake, which adds its bias.
        self.blocks = []
        folded = None  # the bias of the last convolution so far, added by the next Snake
        for b, (_, _, rate) in enumerate(codec_decoder_channels(cfg), start=1):
            p = f"decoder.decoder.{b}.block."
            block_snake = _Snake.from_weights(w, p + "0.", folded)
            transposed = self._conv(w, p + "1.conv.", transposed=True, stride=rate, fold_bias=True)
            folded = transposed.bias
            units = []
            for u, dilation in ((2, 1), (3, 3), (4, 9)):
                act1 = _Snake.from_weights(w, f"{p}{u}.act1.", folded)
                conv1 = self._conv(w, f"{p}{u}.conv1.conv.", dilation=dilation, fold_bias=True)
                act2 = _Snake.from_weights(w, f"{p}{u}.act2.", conv1.bias)
                conv2 = self._conv(w, f"{p}{u}.conv2.conv.", fold_bias=True)
                units.append((act1, conv1, act2, conv2))
                folded = conv2.bias
            self.blocks.append((block_snake, transposed, units))
        last = len(self.blocks) + 1
        self.final_snake = _Snake.from_weights(w, f"decoder.decoder.{last}.", folded)
        self.final_conv = self._conv(w, f"decoder.decoder.{last + 1}.conv.")

    def _conv(
        self, w: Mapping[str, Tensor], prefix: str, *, transposed: bool = False, stride: int = 1,
        dilation: int = 1, groups: int = 1, fold_bias: bool = False,
    ) -> _CausalConv:
        weight, bias = w[prefix + "weight"], w[prefix + "bias"]
        in_channels = weight.shape[0] if transposed else weight.shape[1] * groups
        if transposed:
            weight = _transposed_as_plain(weight, stride)
        conv = _CausalConv(prefix, weight, bias, stride if transposed else 1, dilation, groups, fold_bias)
        self._convs.append(conv)
        if conv.context:
            self._tails[prefix] = (in_channels, conv.context)
        return conv

    def new_state(self, batch: int = 1) -> CodecState:
        tr, ring = self.cfg.transformer, self.cfg.sliding_window - 1 + FRAMES_PER_PASS
        conv = {
            name: torch.zeros(batch, context, channels, device=self.device, dtype=self.dtype)
            for name, (channels, context) in self._tails.items()
        }
        kv = (batch, tr.num_kv_heads, ring, tr.head_dim)
        return CodecState(
            conv=conv,
            keys=[torch.zeros(kv, device=self.device, dtype=self.dtype) for _ in self.stack.layers],
            values=[torch.zeros(kv, device=self.device, dtype=self.dtype) for _ in self.stack.layers],
            key_pos=torch.full((batch, ring), -1, dtype=torch.int64, device=self.device),
            next_pos=torch.zeros(batch, dtype=torch.int64, device=self.device),
            rows=torch.arange(batch, device=self.device),
        )

    def choose_convolutions(self, batch: int, frames: int, repeats: int = 3) -> dict[str, str]:
        """How each convolution with more than one way (`_CausalConv.methods`) runs in a decode of
        `batch` streams x `frames` frames: each is timed every way on its input of such a decode,
        with the Snake that feeds it, and runs the fastest from now on (CUDA only). cuDNN's
        heuristics pick a slow kernel for some shapes and not for others, so the choice is per
        decode shape (the vocoder makes it before it captures each shape's graph) and kept per
        shape. Returns convolution name -> method."""
        if self.device.type != "cuda":
            return {}
        chosen = self.convolution_methods.get((batch, frames))
        if chosen is None:
            chosen = self.convolution_methods[(batch, frames)] = self._time_convolutions(batch, frames, repeats)
        for conv in self._convs:
            conv.method = chosen.get(conv.name, conv.methods[0])
        return chosen

    def adopt_convolution_methods(self, choices: Mapping[tuple[int, int], Mapping[str, str]]) -> int:
        """Take choices made before (`choose_convolutions`'s, e.g. remembered from an earlier start)
        for the shapes not chosen yet. A shape whose choice names other convolutions than this
        decoder's, or a way one of them lacks, is left to be chosen again. Returns the shapes taken."""
        ways = {conv.name: conv.methods for conv in self._convs if len(conv.methods) > 1}
        taken = 0
        for shape, methods in choices.items():
            if shape in self.convolution_methods or methods.keys() != ways.keys():
                continue
            if all(method in ways[name] for name, method in methods.items()):
                self.convolution_methods[shape] = dict(methods)
                taken += 1
        return taken

    def _time_convolutions(self, batch: int, frames: int, repeats: int) -> dict[str, str]:
        candidates = [c for c in self._convs if len(c.methods) > 1]
        inputs: dict[str, tuple[tuple[int, ...], _Snake | None]] = {}
        for conv in candidates:
            # The decode that records the inputs runs the GEMM way, never a pathological kernel.
            conv.method, conv.seen = "taps", inputs
        codes = torch.zeros(batch, frames, self.cfg.num_quantizers, dtype=torch.int64, device=self.device)
        chosen = {}
        with torch.inference_mode():
            state = self.new_state(batch)
            self.decode_chunk(codes, state)
            for conv in candidates:
                conv.seen = None
                shape, snake = inputs[conv.name]
                x = torch.randn(shape, device=self.device, dtype=self.dtype)
                best = math.inf
                for method in sorted(conv.methods, key=lambda m: m == "convolution"):  # cuDNN's way last
                    conv.method = method
                    ms = _device_ms(lambda: conv(x, state, snake), repeats, give_up_above=max(GIVE_UP * best, GIVE_UP_MS))
                    if ms < best:
                        best, chosen[conv.name] = ms, method
        return chosen

    def decode(self, codes: Tensor) -> Tensor:
        """Whole-sequence decode: codes [T, G] -> float32 samples [T * samples_per_frame]."""
        return self.decode_chunk(codes[None], self.new_state(1))[0]

    def decode_chunk(self, codes: Tensor, state: CodecState) -> Tensor:
        """Decode the next n frames of B streams: codes [B, n, G] -> float32 [B, n * samples_per_frame].
        Updates `state` in place."""
        if codes.shape[0] != state.batch_size:
            raise ValueError(f"codes for {codes.shape[0]} streams but state for {state.batch_size}")
        x = self._dequantize(codes.to(self.device))
        _, x = self.pre_conv(x, state)
        x = self._transformer(x, state)
        for transposed, dwconv, p in self.upsample:
            _, x = transposed(x, state)
            residual = x
            _, x = dwconv(x, state)
            x = F.layer_norm(x, (x.shape[-1],), p["norm.weight"], p["norm.bias"], eps=1e-6)
            x = F.linear(F.gelu(F.linear(x, p["pwconv1.weight"], p["pwconv1.bias"])), p["pwconv2.weight"], p["pwconv2.bias"])
            x = residual + p["gamma"] * x
        _, x = self.first_conv(x, state)
        # A residual unit's output is added where the next Snake reads it (one pass for both).
        pending = None
        for snake, transposed, units in self.blocks:
            _, x = transposed(x, state, snake, pending)
            pending = None
            for act1, conv1, act2, conv2 in units:
                x, h = conv1(x, state, act1, pending, keep_sum=True)
                _, pending = conv2(h, state, act2)
        _, wav = self.final_conv(x, state, self.final_snake, pending)
        return wav

    def _dequantize(self, codes: Tensor) -> Tensor:
        """codes [B, n, G] -> [B, n, codebook_dim]: every group's projected codebook entry, summed."""
        b, n, groups = codes.shape
        rows = (codes + self._code_offsets).reshape(b * n, groups)
        return F.embedding_bag(rows, self.codebooks, mode="sum").view(b, n, -1)

    def _transformer(self, x: Tensor, state: CodecState) -> Tensor:
        """x [B, n, latent] -> [B, n, latent] with sliding-window attention over cached frames,
        in passes of at most FRAMES_PER_PASS frames."""
        h = F.linear(x, *self.in_proj)
        passes = [self._attend_pass(h[:, i : i + FRAMES_PER_PASS], state) for i in range(0, x.shape[1], FRAMES_PER_PASS)]
        return F.linear(passes[0] if len(passes) == 1 else torch.cat(passes, dim=1), *self.out_proj)

    def _attend_pass(self, x: Tensor, state: CodecState) -> Tensor:
        """The stack over n <= FRAMES_PER_PASS new frames [B, n, hidden]. Their keys go into the
        ring first, at position % ring, over entries at least a window old, so the ring then
        holds every key these frames may see; the mask picks them by position (the order of
        keys does not matter to attention)."""
        b, n, _ = x.shape
        rows, ring = state.rows, state.key_pos.shape[1]
        positions = state.next_pos.index_select(0, rows)[:, None] + torch.arange(n, device=x.device)  # [B, n]
        at = positions % ring
        state.key_pos[rows[:, None], at] = positions
        key = state.key_pos.index_select(0, rows)[:, None, :]  # [B, 1, ring]
        query = positions[:, :, None]
        mask = ((key >= 0) & (key <= query) & (key > query - self.cfg.sliding_window))[:, None]
        cos, sin = self.rotary.cos_sin(positions.reshape(-1, 1), x.dtype)  # [B * n, 1, head_dim]
        bias = torch.zeros(mask.shape, device=x.device, dtype=torch.float32).masked_fill_(~mask, float("-inf"))
        groups = self.cfg.transformer.num_heads // self.cfg.transformer.num_kv_heads

        def attend(index: int, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
            """Token rows [B * n, heads, hd] -> the window's attention [B * n, heads * hd]. A few
            queries over a short ring: two small batched GEMMs and a softmax, in float32 (cuDNN's
            fused attention with this mask took 0.22 ms per layer at 256 streams x 4 frames on an
            H200, for 80 MB of keys and values)."""
            keys, values = state.keys[index], state.values[index]
            keys[rows[:, None], :, at] = k.view(b, n, *k.shape[1:])
            values[rows[:, None], :, at] = v.view(b, n, *v.shape[1:])
            keys, values = keys.index_select(0, rows), values.index_select(0, rows)  # [B, kv_heads, ring, hd]
            if groups > 1:
                keys, values = keys.repeat_interleave(groups, 1), values.repeat_interleave(groups, 1)
            q = q.view(b, n, *q.shape[1:]).transpose(1, 2).float()  # [B, heads, n, hd]
            scores = torch.matmul(q * q.shape[-1] ** -0.5, keys.float().transpose(2, 3)) + bias
            out = torch.matmul(scores.softmax(-1), values.float())
            return out.to(v.dtype).transpose(1, 2).reshape(b * n, -1)

        h = self.stack.forward(x.reshape(b * n, -1), cos, sin, attend).view(b, n, -1)
        state.next_pos.index_copy_(0, rows, positions[:, -1] + 1)
        return h


class _CausalConv:
    """A causal 1-D convolution over [B, T, C] whose left context comes from the stream state. With
    `upsample` r it is a transposed convolution in plain form (`_transposed_as_plain`): its
    r x C_out output channels are reshaped into r times as many frames. With `fold_bias` its output
    leaves out the bias (the Snake that reads it adds it)."""

    def __init__(
        self, name: str, weight: Tensor, bias: Tensor, upsample: int, dilation: int, groups: int, fold_bias: bool = False,
    ):
        self.name, self.weight, self.bias = name, weight, bias  # weight [C_out', C_in / groups, K]; bias [C_out]
        self.output_bias = None if fold_bias else bias.repeat(upsample)
        self.upsample, self.dilation, self.groups = upsample, dilation, groups
        self.kernel = weight.shape[-1]
        self.context = (self.kernel - 1) * dilation
        self.mono = weight.shape[0] == 1 and groups == 1 and dilation == 1
        if self.mono:
            self.mono_weight = weight[0].contiguous()  # [C, K] for `codec_kernels.to_mono`
        if groups > 1 or self.mono:  # the mono one runs as `codec_kernels.to_mono` on CUDA
            self.methods: tuple[str, ...] = ("convolution",)
        elif self.kernel == 1:
            self.methods = ("im2col",)  # a pointwise convolution is one GEMM
        else:
            self.methods = ("convolution", "im2col", "taps")
        # Each way's form of the weight, only for the ways this convolution has (the first two are copies).
        if "convolution" in self.methods and not self.mono:
            # The library's convolution reads [B, C, 1, T] in channels-last memory: the buffer as it is.
            self.weight_2d = weight.unsqueeze(2).contiguous(memory_format=torch.channels_last)
        if "im2col" in self.methods:
            self.im2col_weight = weight.permute(0, 2, 1).reshape(weight.shape[0], -1)  # [C_out', K * C_in], tap-major
        if "taps" in self.methods:
            self.tap_weights = [weight[:, :, j].T for j in range(self.kernel)]  # [C_in, C_out'] each
        self.method = self.methods[0]
        # Records each call's input shape and Snake (choose_convolutions).
        self.seen: dict[str, tuple[tuple[int, ...], _Snake | None]] | None = None

    def __call__(
        self, x: Tensor, state: CodecState, snake: _Snake | None = None, residual: Tensor | None = None,
        keep_sum: bool = False,
    ) -> tuple[Tensor | None, Tensor]:
        """x [B, n, C_in] (+ residual, then Snake when given) -> (x + residual [+ the Snake's bias]
        when `keep_sum` or without a Snake, output [B, n * upsample, C_out]); the mono output
        convolution returns float32 [B, n'] clamped to [-1, 1]."""
        n = x.shape[1]
        if self.seen is not None:
            self.seen[self.name] = (tuple(x.shape), snake)
        context = (state.conv[self.name], state.rows) if self.context else None
        if snake is not None:
            total, y = snake(x, residual, keep_sum=keep_sum, context=context)
        else:
            total = y = x if residual is None else x + residual
            if context is not None:
                y = _after_context(y, context)
        if context is not None:
            context[0].index_copy_(0, state.rows, y[:, n:])
        return total, self._apply(y, n)

    def _apply(self, x: Tensor, n: int) -> Tensor:
        """The convolution of the input buffer x [B, context + n, C_in] -> [B, n * upsample, C_out]."""
        if self.mono:
            if codec_kernels.available(x):
                return codec_kernels.to_mono(x, self.mono_weight, self.bias, n)
            return F.conv1d(x.transpose(1, 2), self.weight, self.bias).clamp(-1, 1)[:, 0].float()
        b, d = x.shape[0], self.dilation
        if self.method == "convolution":
            y = F.conv2d(x.transpose(1, 2)[:, :, None], self.weight_2d, self.output_bias, dilation=(1, d), groups=self.groups)
            y = y[:, :, 0].transpose(1, 2)
        elif self.method == "im2col":
            columns = x if self.kernel == 1 else x.unfold(1, self.context + 1, 1)[..., ::d].transpose(2, 3).reshape(b, n, -1)
            y = F.linear(columns, self.im2col_weight, self.output_bias)
        else:  # taps: one GEMM per kernel tap on a shifted view of the buffer, accumulated
            y = torch.bmm(x[:, :n], self.tap_weights[0].expand(b, *self.tap_weights[0].shape))
            for j in range(1, self.kernel):
                y.baddbmm_(x[:, j * d : j * d + n], self.tap_weights[j].expand(b, *self.tap_weights[j].shape))
            if self.output_bias is not None:
                y.add_(self.output_bias)
        return y if self.upsample == 1 else y.reshape(b, n * self.upsample, -1)


def _transposed_as_plain(weight: Tensor, stride: int) -> Tensor:
    """A transposed convolution's weight [C_in, C_out, K] (stride r) as the plain convolution over
    the same input, weight [r * C_out, C_in, taps]: transposed output frame r * t + i is plain output
    channels i * C_out .. (i + 1) * C_out at frame t, which input frames t - taps + 1 .. t reach
    (taps = (K - 1) // r + 1; the one j frames back through kernel index j * r + i)."""
    c_in, c_out, k = weight.shape
    taps = (k - 1) // stride + 1
    by_tap = F.pad(weight, (0, taps * stride - k)).view(c_in, c_out, taps, stride).flip(2)  # [C_in, C_out, tap, i]
    return by_tap.permute(3, 1, 0, 2).reshape(stride * c_out, c_in, taps)


def _device_ms(run, repeats: int, give_up_above: float = math.inf, calls: list[float] | None = None) -> float:
    """Mean device time of `run` on the current CUDA stream over `repeats` calls after one warm-up
    call; as soon as one call, the warm-up included, takes longer than `give_up_above` ms, that
    call's time. `calls`, when given, receives every call's device ms, the warm-up's first."""
    times = [] if calls is None else calls
    for _ in range(repeats + 1):
        times.append(_call_ms(run))
        if times[-1] > give_up_above:
            return times[-1]
    return sum(times[-repeats:]) / repeats


def _call_ms(run) -> float:
    """Device time of one call of `run` on the current CUDA stream (waits for it to finish)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    run()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)
