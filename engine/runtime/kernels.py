"""Triton kernels that fold the frame step's chains of small ops into single launches (bf16 on CUDA).

At batch 1 a frame step is a chain of dependent kernels, so its time is about the number of
launches. Per layer pass these replace (see `engine.model.transformer.DecoderLayer.forward`,
whose `forward_kernels` calls them; the model gets this module as its kernel set):

- `attend`: per-head q/k RMSNorm, RoPE, the KV-cache write of the new token and single-query
  attention over the row's own live length (no mask, no KV bucket) — about ten launches, one here;
  over a contiguous cache (the code predictor's) or a paged one (the talker's: each row's keys
  are read block by block through its block table, a static graph input updated in place);
- `rms_norm`: one launch whatever the PyTorch build does for `F.rms_norm`;
- `silu_mul`: SiLU(gate) * up of the fused gate-up output;

and per draw `pick` replaces the sampler's tail (temperature, top-k mask, Gumbel noise of the
candidates, argmax, greedy fallback) and, for the code predictor, the embedding gather of the code.

Rounding follows the PyTorch expressions they replace (fp32 math, bf16 results where PyTorch
rounds), so outputs stay close to the unfused path; they are not bit-identical to it, and the
unfused path stays the one for float32 (the parity goldens). `probe()` compiles every kernel and
checks it against PyTorch once per process; the runner uses them only if it passes.
"""

from __future__ import annotations

import logging
import math

import torch
import torch.nn.functional as F
from torch import Tensor

from engine.model.sampling import SamplerRows, choose

log = logging.getLogger(__name__)

# Warps per (row, KV head) program of the attention kernel: one keeps the most programs in
# flight (on an H100 at 768 rows, 1.8x faster over the talker's pages and 2.8x over the code
# predictor's 16 rows than four warps; bench/attend_bench.py).
ATTEND_WARPS = 1
# Key rows one iteration of the attention kernel reads from a contiguous cache (a paged one's is
# a block), or the whole cache where it is shorter (the code predictor's 16 rows): the same
# tiles as 32-row blocks, hence bit-identical answers over pages and over a contiguous cache.
CONTIGUOUS_KEY_BLOCK = 32
# Sampling considers at most this many candidates per draw; rows with a larger (or no) top-k
# use the reference sampler over the whole vocabulary.
MAX_CANDIDATES = 64

try:  # Triton ships with CUDA builds of PyTorch; CPU-only installs run the unfused path.
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover - depends on the install
    triton = None

_probed: dict[tuple, bool] = {}


def _next_pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


if triton is not None:

    @triton.jit
    def _rms_norm_kernel(x_ptr, w_ptr, o_ptr, x_stride, o_stride, N, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        off = tl.arange(0, BLOCK)
        inside = off < N
        x = tl.load(x_ptr + row * x_stride + off, mask=inside, other=0.0).to(tl.float32)
        rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
        y = (x * rstd).to(o_ptr.dtype.element_ty).to(tl.float32)
        w = tl.load(w_ptr + off, mask=inside, other=0.0).to(tl.float32)
        tl.store(o_ptr + row * o_stride + off, (y * w).to(o_ptr.dtype.element_ty), mask=inside)

    @triton.jit
    def _silu_mul_kernel(gu_ptr, o_ptr, gu_stride, o_stride, I, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        col = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
        inside = col < I
        g = tl.load(gu_ptr + row * gu_stride + col, mask=inside, other=0.0).to(tl.float32)
        u = tl.load(gu_ptr + row * gu_stride + I + col, mask=inside, other=0.0).to(tl.float32)
        s = (g / (1.0 + tl.exp(-g))).to(o_ptr.dtype.element_ty).to(tl.float32)
        tl.store(o_ptr + row * o_stride + col, (s * u).to(o_ptr.dtype.element_ty), mask=inside)

    @triton.jit
    def _norm_rope(raw, w, raw_rot, w_rot, sign, cos, sin, eps, D: tl.constexpr, dtype: tl.constexpr):
        """[R, D] head vectors -> RMSNorm(x) * w, then x*cos + rotate_half(x)*sin, rounded as
        PyTorch rounds in `dtype`; returned as float32 holding `dtype` values."""
        x = tl.load(raw).to(tl.float32)
        x_rot = tl.load(raw_rot).to(tl.float32)
        rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / D + eps)
        n = (x * rstd[:, None]).to(dtype).to(tl.float32)
        n = (n * tl.load(w).to(tl.float32)).to(dtype).to(tl.float32)
        n_rot = (x_rot * rstd[:, None]).to(dtype).to(tl.float32)
        n_rot = (n_rot * tl.load(w_rot).to(tl.float32)).to(dtype).to(tl.float32)
        return ((n * cos).to(dtype).to(tl.float32) + sign * n_rot * sin).to(dtype).to(tl.float32)

    @triton.jit
    def _attend_kernel(
        qkv_ptr, qkv_stride, norm_ptr,
        cos_ptr, sin_ptr, cs_row, cs_token,
        k_ptr, v_ptr, c_row, c_head, c_pos,
        table_ptr, t_row,
        pos_ptr, out_ptr, out_stride,
        eps, scale, max_pos,
        H: tl.constexpr, KV: tl.constexpr, D: tl.constexpr, T: tl.constexpr, BLOCK_S: tl.constexpr,
        PAGED: tl.constexpr,
    ):
        """Contiguous: c_row is a cache row's stride. PAGED: c_row is a block's stride, BLOCK_S
        the block size, and row b's position p lives in block table[b, p // BLOCK_S]."""
        b = tl.program_id(0)
        kvh = tl.program_id(1)
        G: tl.constexpr = H // KV
        dtype = k_ptr.dtype.element_ty
        d = tl.arange(0, D)
        d_rot = (d + D // 2) % D
        sign = tl.where(d < D // 2, -1.0, 1.0)[None, :]
        heads = kvh * G + tl.arange(0, G)  # the query heads this KV head serves
        one = tl.arange(0, 1)
        k_cache = k_ptr + b * c_row + kvh * c_head
        v_cache = v_ptr + b * c_row + kvh * c_head
        table = table_ptr + b * t_row
        first = tl.load(pos_ptr + b)
        for t in tl.static_range(T):
            row = b * T + t
            p = tl.minimum(first + t, max_pos)
            cos = tl.load(cos_ptr + b * cs_row + t * cs_token + d).to(tl.float32)[None, :]
            sin = tl.load(sin_ptr + b * cs_row + t * cs_token + d).to(tl.float32)[None, :]
            base = qkv_ptr + row * qkv_stride
            k_head = (H + kvh + one)[:, None] * D
            k = _norm_rope(
                base + k_head + d[None, :], norm_ptr + k_head + d[None, :],
                base + k_head + d_rot[None, :], norm_ptr + k_head + d_rot[None, :],
                sign, cos, sin, eps, D, dtype,
            )
            v = tl.load(base + (H + KV + kvh + one)[:, None] * D + d[None, :])
            if PAGED:
                at = tl.load(table + p // BLOCK_S) * c_row + kvh * c_head + (p % BLOCK_S) * c_pos
                k_at = k_ptr + at
                v_at = v_ptr + at
            else:
                k_at = k_cache + p * c_pos
                v_at = v_cache + p * c_pos
            tl.store(k_at + one[:, None] * 0 + d[None, :], k.to(dtype))
            tl.store(v_at + one[:, None] * 0 + d[None, :], v)
            tl.debug_barrier()  # this token's key and value are read back below
            q_head = heads[:, None] * D
            q = _norm_rope(
                base + q_head + d[None, :], norm_ptr + q_head + d[None, :],
                base + q_head + d_rot[None, :], norm_ptr + q_head + d_rot[None, :],
                sign, cos, sin, eps, D, dtype,
            )
            best = tl.full([G], float("-inf"), tl.float32)
            total = tl.zeros([G], tl.float32)
            acc = tl.zeros([G, D], tl.float32)
            length = p + 1
            start = 0
            while start < length:
                s = start + tl.arange(0, BLOCK_S)
                live = s < length
                if PAGED:  # one block: rows 0 .. BLOCK_S - 1 of block table[b, start // BLOCK_S]
                    tile = tl.load(table + start // BLOCK_S) * c_row + kvh * c_head + tl.arange(0, BLOCK_S)[:, None] * c_pos
                    k_tile = k_ptr + tile
                    v_tile = v_ptr + tile
                else:
                    k_tile = k_cache + s[:, None] * c_pos
                    v_tile = v_cache + s[:, None] * c_pos
                keys = tl.load(k_tile + d[None, :], mask=live[:, None], other=0.0).to(tl.float32)
                scores = tl.sum(q[:, None, :] * keys[None, :, :], axis=2) * scale
                scores = tl.where(live[None, :], scores, float("-inf"))
                new_best = tl.maximum(best, tl.max(scores, axis=1))
                decay = tl.exp(best - new_best)
                weights = tl.exp(scores - new_best[:, None])
                total = total * decay + tl.sum(weights, axis=1)
                values = tl.load(v_tile + d[None, :], mask=live[:, None], other=0.0).to(tl.float32)
                acc = acc * decay[:, None] + tl.sum(weights[:, :, None] * values[None, :, :], axis=1)
                best = new_best
                start += BLOCK_S
            out = acc / total[:, None]
            tl.store(out_ptr + row * out_stride + q_head + d[None, :], out.to(out_ptr.dtype.element_ty))

    @triton.jit
    def _hash32(x):
        """`sampling._hash32` on int64 values in [0, 2**32)."""
        x = x ^ (x >> 16)
        x = x * 73244475
        x = x - ((x >> 32) << 32)
        x = x ^ (x >> 16)
        x = x * 73244475
        x = x - ((x >> 32) << 32)
        return x ^ (x >> 16)

    @triton.jit
    def _pick_kernel(
        logits_ptr, logits_stride, V,
        cand_val_ptr, cand_id_ptr, cand_stride,
        temperature_ptr, top_k_ptr, do_sample_ptr, seed_ptr, draw_ptr, draw_offset,
        code_ptr, code_stride,
        table_ptr, table_stride, embed_ptr, embed_stride, E,
        BLOCK_V: tl.constexpr, C: tl.constexpr, BLOCK_E: tl.constexpr, SAMPLE: tl.constexpr, EMBED: tl.constexpr,
    ):
        row = tl.program_id(0)
        v = tl.arange(0, BLOCK_V)
        logits = tl.load(logits_ptr + row * logits_stride + v, mask=v < V, other=float("-inf")).to(tl.float32)
        code = tl.argmax(logits, axis=0).to(tl.int64)
        if SAMPLE:
            rank = tl.arange(0, C)
            values = tl.load(cand_val_ptr + row * cand_stride + rank).to(tl.float32) / tl.load(temperature_ptr + row)
            values = tl.where(rank < tl.load(top_k_ptr + row), values, float("-inf"))
            ids = tl.load(cand_id_ptr + row * cand_stride + rank)
            seed = tl.load(seed_ptr + row)
            draw = tl.load(draw_ptr + row) + draw_offset
            mixed = _hash32(_hash32(seed - ((seed >> 32) << 32)) ^ (draw - ((draw >> 32) << 32)))
            bits = _hash32(_hash32(mixed ^ ids) ^ (mixed >> 7))
            uniform = (bits.to(tl.float64) + 0.5) / 4294967296.0
            score = values.to(tl.float64) - tl.log(-tl.log(uniform))
            sampled = tl.sum(tl.where(rank == tl.argmax(score, axis=0), ids, 0), axis=0)
            code = tl.where(tl.load(do_sample_ptr + row) != 0, sampled, code)
        tl.store(code_ptr + row * code_stride, code)
        if EMBED:
            e = tl.arange(0, BLOCK_E)
            inside = e < E
            vector = tl.load(table_ptr + code * table_stride + e, mask=inside)
            tl.store(embed_ptr + row * embed_stride + e, vector, mask=inside)


def rms_norm(x: Tensor, weight: Tensor, eps: float) -> Tensor:
    """x [N, hidden] (last dim contiguous) -> [N, hidden]."""
    n, hidden = x.shape
    out = torch.empty((n, hidden), device=x.device, dtype=x.dtype)
    _rms_norm_kernel[(n,)](x, weight, out, x.stride(0), out.stride(0), hidden, eps, BLOCK=_next_pow2(hidden), num_warps=4)
    return out


def silu_mul(gate_up: Tensor) -> Tensor:
    """gate_up [N, 2I] -> SiLU(gate) * up [N, I]."""
    n, width = gate_up.shape
    inter = width // 2
    out = torch.empty((n, inter), device=gate_up.device, dtype=gate_up.dtype)
    block = min(1024, _next_pow2(inter))
    _silu_mul_kernel[(n, triton.cdiv(inter, block))](gate_up, out, gate_up.stride(0), out.stride(0), inter, BLOCK=block, num_warps=4)
    return out


def attend(
    qkv: Tensor, qk_norm: Tensor, cos: Tensor, sin: Tensor, k_cache: Tensor, v_cache: Tensor,
    positions: Tensor, heads: int, kv_heads: int, tokens: int, eps: float, block_table: Tensor | None = None,
) -> Tensor:
    """Attention of `tokens` new tokens per row, which follow each other from `positions[b]`.

    qkv [n * tokens, (heads + 2 kv_heads) * hd] raw projections (row b * tokens + t);
    qk_norm [heads + kv_heads, hd]; cos/sin broadcastable to [n, tokens, hd]; k_cache/v_cache
    [n, kv_heads, S, hd], or with `block_table` [n, S // block_size] (int64) the block pool
    [blocks, kv_heads, block_size, hd] (`transformer.CacheRows`' layouts): token t of row b is
    written at min(positions[b] + t, S - 1) and sees positions 0 .. its own. Returns
    [n * tokens, heads * hd].
    """
    rows, _ = qkv.shape
    hd = k_cache.shape[-1]
    n = rows // tokens
    paged = block_table is not None
    if paged:
        block = k_cache.shape[2]
        length, table, table_stride = block_table.shape[1] * block, block_table, block_table.stride(0)
    else:
        block, length, table, table_stride = min(CONTIGUOUS_KEY_BLOCK, _next_pow2(k_cache.shape[2])), k_cache.shape[2], positions, 0
    out = torch.empty((rows, heads * hd), device=qkv.device, dtype=qkv.dtype)
    cos, sin = cos.expand(n, tokens, hd), sin.expand(n, tokens, hd)
    if cos.stride() != sin.stride():
        raise ValueError("cos and sin must have the same layout")
    _attend_kernel[(n, kv_heads)](
        qkv, qkv.stride(0), qk_norm,
        cos, sin, cos.stride(0), cos.stride(1),
        k_cache, v_cache, k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        table, table_stride,
        positions, out, out.stride(0),
        eps, 1.0 / math.sqrt(hd), length - 1,
        H=heads, KV=kv_heads, D=hd, T=tokens, BLOCK_S=block, PAGED=paged, num_warps=ATTEND_WARPS,
    )
    return out


def pick(
    logits: Tensor, codes: Tensor, rows: SamplerRows | None = None, draw: Tensor | None = None, draw_offset: int = 0,
    table: Tensor | None = None, embed: Tensor | None = None,
) -> None:
    """One code per row of logits [n, vocab] into `codes` [n] (a column view is fine). Without
    `rows` (an all-greedy batch) every row takes the argmax. With `rows`, sampled rows take the
    Gumbel-max of logits / T over their top-k ids (top_k <= MAX_CANDIDATES) with the reference
    noise of draw `draw + draw_offset`, the others the argmax. With `table`, also writes
    `table[code]` into `embed` [n, E]."""
    n, vocab = logits.shape
    sample = rows is not None
    if sample:
        values, ids = logits.topk(MAX_CANDIDATES, dim=-1)
        settings = (rows.temperature, rows.top_k, rows.do_sample, rows.seed, draw)
    else:
        values = ids = logits
        settings = (logits,) * 5
    with_embed = table is not None
    table_ = table if with_embed else logits
    embed_ = embed if with_embed else logits
    width = table.shape[1] if with_embed else 1
    _pick_kernel[(n,)](
        logits, logits.stride(0), vocab,
        values, ids, values.stride(0),
        *settings, draw_offset,
        codes, codes.stride(0),
        table_, table_.stride(0), embed_, embed_.stride(0), width,
        BLOCK_V=_next_pow2(vocab), C=MAX_CANDIDATES, BLOCK_E=_next_pow2(width), SAMPLE=sample, EMBED=with_embed,
        num_warps=4,
    )


# ---- the one-time check --------------------------------------------------------------------


def _reference_attend(qkv, qk_norm, cos, sin, k_cache, v_cache, positions, heads, kv_heads, tokens, eps):
    """The PyTorch path's math (`transformer.DecoderLayer.forward` with `CacheRows`), token by token."""
    hd = k_cache.shape[-1]
    n = qkv.shape[0] // tokens
    group = heads // kv_heads
    out = torch.empty(qkv.shape[0], heads * hd, device=qkv.device, dtype=qkv.dtype)
    half = hd // 2
    for b in range(n):
        for t in range(tokens):
            row = b * tokens + t
            p = min(int(positions[b]) + t, k_cache.shape[2] - 1)
            c, s = cos.expand(n, tokens, hd)[b, t], sin.expand(n, tokens, hd)[b, t]
            x = qkv[row].view(heads + 2 * kv_heads, hd)
            qk = F.rms_norm(x[: heads + kv_heads], (hd,), None, eps) * qk_norm
            rotated = torch.cat((-qk[:, half:], qk[:, :half]), dim=-1)
            qk = torch.addcmul(qk * c, rotated, s)
            k_cache[b, :, p] = qk[heads:]
            v_cache[b, :, p] = x[heads + kv_heads :]
            q = qk[:heads].view(kv_heads, group, hd)
            o = F.scaled_dot_product_attention(q, k_cache[b, :, : p + 1], v_cache[b, :, : p + 1])
            out[row] = o.reshape(-1)
    return out


def fits(head_dims: tuple[int, ...]) -> bool:
    """Whether the attention kernel takes these head sizes: powers of two (Triton's block
    ranges) of at least 16 (its dot products); logged when not (the step then runs unfused)."""
    ok = all(d >= 16 and d & (d - 1) == 0 for d in head_dims)
    if not ok:
        log.info("head sizes %s do not fit the fused kernels: the frame step runs unfused", head_dims)
    return ok


def probe(device: torch.device, dtype: torch.dtype) -> bool:
    """Compile every kernel for `dtype` on `device` and compare it with PyTorch on small inputs;
    False (logged) if Triton is missing or anything fails or disagrees."""
    key = (str(device), dtype)
    if key in _probed:
        return _probed[key]
    ok = False
    if triton is None:
        log.info("Triton is not installed: the frame step runs unfused")
    else:
        try:
            _check(device, dtype)
            ok = True
        except Exception:
            log.exception("fused kernels failed their check: the frame step runs unfused")
    _probed[key] = ok
    return ok


def _check(device: torch.device, dtype: torch.dtype) -> None:
    g = torch.Generator(device="cpu").manual_seed(0)

    def rand(*shape: int, scale: float = 1.0) -> Tensor:
        return (torch.randn(*shape, generator=g) * scale).to(device=device, dtype=dtype)

    def close(a: Tensor, b: Tensor, what: str, tol: float) -> None:
        # relative to each value's size (a few bf16 ulps)
        err = ((a.float() - b.float()).abs() / (1 + b.float().abs())).max().item()
        if not err <= tol:
            raise AssertionError(f"{what}: max relative error {err:.3g} > {tol}")

    with torch.inference_mode():
        x, w = rand(3, 96), rand(96)
        close(rms_norm(x, w, 1e-6), F.rms_norm(x, (96,), None, 1e-6) * w, "rms_norm", 0.02)
        gu = rand(3, 80)
        close(silu_mul(gu), F.silu(gu[:, :40]) * gu[:, 40:], "silu_mul", 0.02)

        heads, kv_heads, hd, length = 4, 2, 32, 40
        for n, tokens in ((3, 1), (2, 2)):
            qkv = rand(n * tokens, (heads + 2 * kv_heads) * hd)
            qk_norm = rand(heads + kv_heads, hd, scale=0.3) + 1
            angle = torch.rand(max(n, tokens), hd // 2, generator=g) * 6
            cos_all = torch.cat((angle.cos(), angle.cos()), -1).to(device=device, dtype=dtype)
            sin_all = torch.cat((angle.sin(), angle.sin()), -1).to(device=device, dtype=dtype)
            if tokens == 1:  # each row its own position
                cos, sin = cos_all[:, None], sin_all[:, None]
            else:  # positions 0, 1 of every row
                cos, sin = cos_all[None, :tokens], sin_all[None, :tokens]
            positions = torch.tensor([5, 39, 17][:n], device=device) if tokens == 1 else torch.zeros(n, dtype=torch.int64, device=device)
            k_cache, v_cache = rand(n, kv_heads, length, hd), rand(n, kv_heads, length, hd)
            k_ref, v_ref = k_cache.clone(), v_cache.clone()
            pages = (k_cache.clone(), v_cache.clone())  # as before the write, for the paged run
            got = attend(qkv, qk_norm, cos, sin, k_cache, v_cache, positions, heads, kv_heads, tokens, 1e-6)
            want = _reference_attend(qkv, qk_norm, cos, sin, k_ref, v_ref, positions, heads, kv_heads, tokens, 1e-6)
            close(k_cache, k_ref, "attend: key cache", 0.02)
            close(v_cache, v_ref, "attend: value cache", 0.0)
            close(got, want, "attend", 0.03)
            # The same rows in a paged cache of 8-row blocks, shuffled; block 0 is scratch.
            table = (1 + torch.randperm(n * length // 8, generator=g)).view(n, length // 8).to(device)
            k_pool, v_pool = (torch.zeros(1 + n * length // 8, kv_heads, 8, hd, device=device, dtype=dtype) for _ in pages)
            for pool, rows in zip((k_pool, v_pool), pages):
                pool[table.flatten()] = rows.view(n, kv_heads, length // 8, 8, hd).transpose(1, 2).reshape(-1, kv_heads, 8, hd)
            got = attend(qkv, qk_norm, cos, sin, k_pool, v_pool, positions, heads, kv_heads, tokens, 1e-6, table)
            for pool, rows, what in ((k_pool, k_cache, "key"), (v_pool, v_cache, "value")):
                unpaged = pool[table].transpose(1, 2).reshape(n, kv_heads, length, hd)
                close(unpaged, rows, f"attend, paged: {what} cache", 0.0)
            close(got, want, "attend, paged", 0.03)

        vocab, n = 300, 4
        logits = torch.randn(n, vocab, generator=g).to(device)
        rows = SamplerRows(
            do_sample=torch.tensor([True, True, True, False], device=device),
            temperature=torch.full((n,), 0.9, device=device),
            top_k=torch.tensor([50, 5, 1, 50], device=device),
            top_p=torch.ones(n, device=device),
            seed=torch.tensor([1, 2, 3, 4], device=device),
            all_greedy=False,
        )
        draw = torch.tensor([0, 16, 32, 48], device=device)
        codes = torch.zeros(n, 2, dtype=torch.int64, device=device)
        table = rand(vocab, 24)
        embed = torch.zeros(n, 24, device=device, dtype=dtype)
        pick(logits, codes[:, 1], rows, draw, 3, table, embed)
        want = choose(logits, rows, draw + 3)
        if not torch.equal(codes[:, 1], want):
            raise AssertionError(f"pick: {codes[:, 1].tolist()} != reference {want.tolist()}")
        close(embed, table[want], "pick: embedding", 0.0)
        pick(logits.to(dtype), codes[:, 0])
        if not torch.equal(codes[:, 0], logits.to(dtype).argmax(dim=-1)):
            raise AssertionError("pick: greedy codes differ from the argmax")
