"""Triton kernels for the codec decoder on CUDA (activations [B, C, T], any strides).

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
        x_ptr, r_ptr, bias_ptr, z_ptr, s_ptr, alpha_ptr, inv_beta_ptr, tail_ptr, rows_ptr, C, T,
        sxb, sxc, sxt, srb, src, srt, szb, szc, szt, ssb, ssc, sst, stb, stc, stt,
        HAS_RESIDUAL: tl.constexpr, HAS_BIAS: tl.constexpr, STORE_SUM: tl.constexpr,
        CONTEXT: tl.constexpr, BLOCK_CONTEXT: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_T: tl.constexpr,
    ):
        b = tl.program_id(2).to(tl.int64)
        c = (tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)).to(tl.int64)
        t = (tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)).to(tl.int64)
        inside_c = c < C
        if CONTEXT > 0:
            # The first time block also puts the stream's left context (its state row) before
            # the output, which is the body of the convolution's input buffer.
            if tl.program_id(0) == 0:
                row = tl.load(rows_ptr + b)
                j = tl.arange(0, BLOCK_CONTEXT)
                keep = inside_c[:, None] & (j[None, :] < CONTEXT)
                tail = tl.load(tail_ptr + row * stb + c[:, None] * stc + j[None, :] * stt, mask=keep, other=0.0)
                tl.store(s_ptr + b * ssb + c[:, None] * ssc + (j - CONTEXT)[None, :] * sst, tail, mask=keep)
        inside = inside_c[:, None] & (t[None, :] < T)
        x = tl.load(x_ptr + b * sxb + c[:, None] * sxc + t[None, :] * sxt, mask=inside, other=0.0).to(tl.float32)
        if HAS_RESIDUAL:
            x += tl.load(r_ptr + b * srb + c[:, None] * src + t[None, :] * srt, mask=inside, other=0.0).to(tl.float32)
        if HAS_BIAS:
            x += tl.load(bias_ptr + c, mask=inside_c, other=0.0).to(tl.float32)[:, None]
        if HAS_RESIDUAL or HAS_BIAS:
            x = x.to(s_ptr.dtype.element_ty).to(tl.float32)  # the sum in the activation dtype, as stored
        if STORE_SUM:
            tl.store(z_ptr + b * szb + c[:, None] * szc + t[None, :] * szt, x.to(z_ptr.dtype.element_ty), mask=inside)
        alpha = tl.load(alpha_ptr + c, mask=inside_c, other=0.0).to(tl.float32)
        inv_beta = tl.load(inv_beta_ptr + c, mask=inside_c, other=0.0).to(tl.float32)
        s = tl.sin(x * alpha[:, None])
        y = x + inv_beta[:, None] * s * s
        tl.store(s_ptr + b * ssb + c[:, None] * ssc + t[None, :] * sst, y.to(s_ptr.dtype.element_ty), mask=inside)

    @triton.jit
    def _to_mono_kernel(
        x_ptr, w_ptr, bias_ptr, o_ptr, T, sxb, sxc, sxt, sob,
        C: tl.constexpr, K: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_T: tl.constexpr,
    ):
        b = tl.program_id(1).to(tl.int64)
        t = (tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)).to(tl.int64)
        inside_t = t < T
        acc = tl.zeros([BLOCK_T], dtype=tl.float32)
        for c0 in tl.static_range(0, C, BLOCK_C):
            c = c0 + tl.arange(0, BLOCK_C)
            inside_c = c < C
            for k in tl.static_range(K):
                x = tl.load(
                    x_ptr + b * sxb + c[:, None].to(tl.int64) * sxc + (t + k)[None, :] * sxt,
                    mask=inside_c[:, None] & inside_t[None, :], other=0.0,
                ).to(tl.float32)
                w = tl.load(w_ptr + c * K + k, mask=inside_c, other=0.0).to(tl.float32)
                acc += tl.sum(x * w[:, None], axis=0)
        y = acc + tl.load(bias_ptr).to(tl.float32)
        y = tl.minimum(tl.maximum(y, -1.0), 1.0)
        tl.store(o_ptr + b * sob + t, y, mask=inside_t)


def _blocks(time_contiguous: bool) -> tuple[int, int]:
    """(BLOCK_C, BLOCK_T): long runs along the contiguous dimension."""
    return (8, 256) if time_contiguous else (64, 64)


def snake(
    x: Tensor, alpha: Tensor, inv_beta: Tensor, out: Tensor, residual: Tensor | None = None,
    bias: Tensor | None = None, sum_out: Tensor | None = None, context: tuple[Tensor, Tensor] | None = None,
) -> None:
    """out = Snake(x [+ residual] [+ bias]); sum_out = that sum when given. Tensors [B, C, T] of one
    shape with any strides; alpha, inv_beta, bias [C]. `context` (tail [S, C, K], rows [B]): `out`
    is the body of a buffer [B, C, K + T], whose first K columns get tail[rows] in the same pass."""
    b, c, t = x.shape
    for tensor in (out, residual, sum_out):
        if tensor is not None and tensor.shape != x.shape:
            raise ValueError("snake needs [B, C, T] tensors of one shape")
    r = residual if residual is not None else x
    z = sum_out if sum_out is not None else out
    tail, rows = context if context is not None else (x, x)
    width = tail.shape[2] if context is not None else 0
    block_c, block_t = _blocks(x.stride(2) == 1)
    grid = (triton.cdiv(t, block_t), triton.cdiv(c, block_c), b)
    _snake_kernel[grid](
        x, r, bias if bias is not None else alpha, z, out, alpha, inv_beta, tail, rows, c, t,
        *x.stride(), *r.stride(), *z.stride(), *out.stride(), *tail.stride(),
        HAS_RESIDUAL=residual is not None, HAS_BIAS=bias is not None, STORE_SUM=sum_out is not None,
        CONTEXT=width, BLOCK_CONTEXT=triton.next_power_of_2(max(width, 1)), BLOCK_C=block_c, BLOCK_T=block_t,
    )


def to_mono(x: Tensor, weight: Tensor, bias: Tensor, frames_out: int) -> Tensor:
    """clamp(conv1d(x, weight, bias), -1, 1) for one output channel: x [B, C, frames_out + K - 1]
    (any strides), weight [C, K] contiguous, bias [1] -> float32 [B, frames_out]."""
    b, c, _ = x.shape
    k = weight.shape[1]
    out = torch.empty(b, frames_out, device=x.device, dtype=torch.float32)
    block_c, block_t = _blocks(x.stride(2) == 1)
    _to_mono_kernel[(triton.cdiv(frames_out, block_t), b)](
        x, weight, bias, out, frames_out, *x.stride(), out.stride(0), C=c, K=k, BLOCK_C=block_c, BLOCK_T=block_t,
    )
    return out
