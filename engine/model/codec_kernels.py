"""Triton kernels for the codec decoder on CUDA (activations [B, T, C], any strides).

The decoder's elementwise work is Snake, `x + sin²(αx)/β` with per-channel α and β, mostly on the
residual sum that feeds it. In PyTorch that is five launches over the whole activation (multiply,
sin, pow, multiply, add) plus the residual add and the bias add of the convolution before; here it
is one pass that reads the two addends and the bias, writes the sum (the next residual) when asked
and writes Snake of it straight into the causal convolution's input buffer (after the stream's
left context), so no concatenation copy follows either.
`to_mono` is the last convolution (C -> 1 channel, kernel K) with the clamp, one pass over its
input instead of cuDNN's slow path for a single output channel.

Math in float32, results rounded once to the activation dtype (PyTorch rounds after every op, so
bf16 results differ from the PyTorch expression by a few ulps, float32 by rounding only).
"""

from __future__ import annotations

import torch
from torch import Tensor

try:  # Triton ships with CUDA builds of PyTorch; CPU installs use the PyTorch expressions.
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover - depends on the install
    triton = None


def available(x: Tensor) -> bool:
    return triton is not None and x.is_cuda


if triton is not None:

    @triton.jit
    def _snake_kernel(
        x_ptr, r_ptr, bias_ptr, z_ptr, s_ptr, alpha_ptr, inv_beta_ptr, tail_ptr, rows_ptr, T, C, width, body_programs,
        sxb, sxt, sxc, srb, srt, src, szb, szt, szc, ssb, sst, ssc, stb, stt, stc,
        HAS_RESIDUAL: tl.constexpr, HAS_BIAS: tl.constexpr, STORE_SUM: tl.constexpr, HAS_CONTEXT: tl.constexpr,
        BLOCK: tl.constexpr,
    ):
        # Each program takes BLOCK consecutive (time, channel) elements of one stream, channel
        # fastest, so a channels-last tensor is read in whole contiguous runs whatever C is.
        b = tl.program_id(1).to(tl.int64)
        p = tl.program_id(0)
        if p < body_programs:
            i = (p * BLOCK + tl.arange(0, BLOCK)).to(tl.int64)
            t, c = i // C, i % C
            inside = i < T * C
            x = tl.load(x_ptr + b * sxb + t * sxt + c * sxc, mask=inside, other=0.0).to(tl.float32)
            if HAS_RESIDUAL:
                x += tl.load(r_ptr + b * srb + t * srt + c * src, mask=inside, other=0.0).to(tl.float32)
            if HAS_BIAS:
                x += tl.load(bias_ptr + c, mask=inside, other=0.0).to(tl.float32)
            if HAS_RESIDUAL or HAS_BIAS:
                x = x.to(s_ptr.dtype.element_ty).to(tl.float32)  # the sum in the activation dtype, as stored
            if STORE_SUM:
                tl.store(z_ptr + b * szb + t * szt + c * szc, x.to(z_ptr.dtype.element_ty), mask=inside)
            alpha = tl.load(alpha_ptr + c, mask=inside, other=0.0).to(tl.float32)
            inv_beta = tl.load(inv_beta_ptr + c, mask=inside, other=0.0).to(tl.float32)
            s = tl.sin(x * alpha)
            y = x + inv_beta * s * s
            tl.store(s_ptr + b * ssb + t * sst + c * ssc, y.to(s_ptr.dtype.element_ty), mask=inside)
        elif HAS_CONTEXT:
            # The programs past the body copy the stream's left context (its state row) into the
            # `width` rows before the output: the start of the convolution's input buffer.
            i = ((p - body_programs) * BLOCK + tl.arange(0, BLOCK)).to(tl.int64)
            j, c = i // C, i % C
            keep = i < width * C
            row = tl.load(rows_ptr + b)
            tail = tl.load(tail_ptr + row * stb + j * stt + c * stc, mask=keep, other=0.0)
            tl.store(s_ptr + b * ssb + (j - width) * sst + c * ssc, tail, mask=keep)

    @triton.jit
    def _to_mono_kernel(
        x_ptr, w_ptr, bias_ptr, o_ptr, T, C, sxb, sxt, sxc, sob,
        K: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_T: tl.constexpr,
    ):
        b = tl.program_id(1).to(tl.int64)
        t = (tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)).to(tl.int64)
        inside_t = t < T
        acc = tl.zeros([BLOCK_T], dtype=tl.float32)
        for c0 in range(0, C, BLOCK_C):
            c = c0 + tl.arange(0, BLOCK_C)
            inside_c = c < C
            for k in tl.static_range(K):
                x = tl.load(
                    x_ptr + b * sxb + (t + k)[:, None] * sxt + c[None, :].to(tl.int64) * sxc,
                    mask=inside_t[:, None] & inside_c[None, :], other=0.0,
                ).to(tl.float32)
                w = tl.load(w_ptr + c * K + k, mask=inside_c, other=0.0).to(tl.float32)
                acc += tl.sum(x * w[None, :], axis=1)
        y = acc + tl.load(bias_ptr).to(tl.float32)
        y = tl.minimum(tl.maximum(y, -1.0), 1.0)
        tl.store(o_ptr + b * sob + t, y, mask=inside_t)


SNAKE_BLOCK = 1024


def snake(
    x: Tensor, alpha: Tensor, inv_beta: Tensor, out: Tensor, residual: Tensor | None = None,
    bias: Tensor | None = None, sum_out: Tensor | None = None, context: tuple[Tensor, Tensor] | None = None,
) -> None:
    """out = Snake(x [+ residual] [+ bias]); sum_out = that sum when given. Tensors [B, T, C] of one
    shape with any strides; alpha, inv_beta, bias [C]. `context` (tail [S, K, C], rows [B]): `out`
    is the body of a buffer [B, K + T, C], whose first K rows get tail[rows] in the same pass."""
    b, t, c = x.shape
    for tensor in (out, residual, sum_out):
        if tensor is not None and tensor.shape != x.shape:
            raise ValueError("snake needs [B, T, C] tensors of one shape")
    r = residual if residual is not None else x
    z = sum_out if sum_out is not None else out
    tail, rows = context if context is not None else (x, x)
    width = tail.shape[1] if context is not None else 0
    body = triton.cdiv(t * c, SNAKE_BLOCK)
    _snake_kernel[(body + triton.cdiv(width * c, SNAKE_BLOCK), b)](
        x, r, bias if bias is not None else alpha, z, out, alpha, inv_beta, tail, rows, t, c, width, body,
        *x.stride(), *r.stride(), *z.stride(), *out.stride(), *tail.stride(),
        HAS_RESIDUAL=residual is not None, HAS_BIAS=bias is not None, STORE_SUM=sum_out is not None,
        HAS_CONTEXT=context is not None, BLOCK=SNAKE_BLOCK,
    )


def to_mono(x: Tensor, weight: Tensor, bias: Tensor, frames_out: int) -> Tensor:
    """clamp(conv1d(x, weight, bias), -1, 1) for one output channel: x [B, frames_out + K - 1, C]
    (any strides), weight [C, K] contiguous, bias [1] -> float32 [B, frames_out]."""
    b, _, c = x.shape
    k = weight.shape[1]
    out = torch.empty(b, frames_out, device=x.device, dtype=torch.float32)
    block_c = min(128, triton.next_power_of_2(c))
    block_t = max(16, 4096 // block_c)
    _to_mono_kernel[(triton.cdiv(frames_out, block_t), b)](
        x, weight, bias, out, frames_out, c, *x.stride(), out.stride(0), K=k, BLOCK_C=block_c, BLOCK_T=block_t,
    )
    return out
