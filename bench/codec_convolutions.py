"""Every convolution of the codec decoder (the published 12 Hz config), in both layouts and every
way, timed alone (docs/benchmarks.md, "The codec channels last").

    python bench/codec_convolutions.py OUT.json      (CUDA; bench/results/codec_convolutions_h200.json)

Per decode shape (streams x frames) and convolution, ms per call (a CUDA graph of REPS calls
replayed three times, bf16, random weights and inputs, each input with its left context):
  channels first [B, C, T]:  ncf_cudnn (F.conv1d / conv_transpose1d), ncf_gemm (im2col batched GEMM);
  channels last [B, T, C]:   nhwc_heur / nhwc_bench (F.conv2d on a channels-last view, cuDNN's
                             heuristics / its benchmark mode), cl_gemm (im2col GEMM), cl_taps (one
                             GEMM per tap, accumulated), cl_2gemm (a transposed convolution as two
                             GEMMs), cl_linear (the ConvNeXt's pointwise layers).
Totals: the decoder's convolutions, each the fastest way of its layout.
"""
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

dev = torch.device('cuda:0')
dt = torch.bfloat16
REPS = 10


def gtime(fn):
    """ms per call of fn, as a graph of REPS calls (after an eager warm-up, which does cuDNN's find)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        for _ in range(REPS):
            fn()
    g.replay()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(3):
        g.replay()
    e1.record()
    e1.synchronize()
    return e0.elapsed_time(e1) / (3 * REPS)


def convs(frames):
    """(label, kind, Cin, Cout, k, dilation/stride, n_out) of every convolution per frame count."""
    out = [('pre_conv', 'plain', 512, 1024, 3, 1, frames)]
    n = frames
    for i in range(2):
        out.append((f'up{i}.t', 'trans', 1024, 1024, 2, 2, n * 2))
        n *= 2
        out.append((f'up{i}.dw', 'dw', 1024, 1024, 7, 1, n))
        out.append((f'up{i}.pw1', 'linear', 1024, 3072, 1, 1, n))
        out.append((f'up{i}.pw2', 'linear', 3072, 1024, 1, 1, n))
    out.append(('first', 'plain', 1024, 1536, 7, 1, n))
    cin = 1536
    for b, r in enumerate((8, 5, 4, 3), 1):
        cout = cin // 2
        out.append((f'b{b}.t', 'trans', cin, cout, 2 * r, r, n * r))
        n *= r
        for d in (1, 3, 9):
            out.append((f'b{b}.c1d{d}', 'plain', cout, cout, 7, d, n))
            out.append((f'b{b}.c2d{d}', 'point', cout, cout, 1, 1, n))
        cin = cout
    return out


def context(kind, k, d):
    if kind == 'trans':
        return (k - 1) // d
    return (k - 1) * d


results = {'conditions': {'device': torch.cuda.get_device_name(dev), 'torch': torch.__version__, 'dtype': 'bfloat16', 'timing': f'CUDA graph of {REPS} calls, replayed 3 times, ms per call'}, 'shapes': {}}
for B, frames in [(128, 1), (256, 1), (128, 4), (256, 4), (512, 4)]:
    rows = {}
    for label, kind, cin, cout, k, d, n in convs(frames):
        if kind == 'linear':
            x = torch.randn(B * n, cin, device=dev, dtype=dt)
            w = torch.randn(cout, cin, device=dev, dtype=dt) * 0.02
            rows[label] = {'cl_linear': gtime(lambda: F.linear(x, w))}
            continue
        ctx = context(kind, k, d)
        n_in = n // d if kind == 'trans' else n
        L = ctx + n_in
        t = {}
        if kind == 'trans':
            w = torch.randn(cin, cout, k, device=dev, dtype=dt) * 0.02
            xn = torch.randn(B, cin, L, device=dev, dtype=dt)
            t['ncf_cudnn'] = gtime(lambda: F.conv_transpose1d(xn, w, stride=d))
            x4 = xn.unsqueeze(2).contiguous(memory_format=torch.channels_last)
            w4 = w.unsqueeze(2).contiguous(memory_format=torch.channels_last)
            t['nhwc_heur'] = gtime(lambda: F.conv_transpose2d(x4, w4, stride=(1, d)))
            torch.backends.cudnn.benchmark = True
            t['nhwc_bench'] = gtime(lambda: F.conv_transpose2d(x4, w4, stride=(1, d)))
            torch.backends.cudnn.benchmark = False
            # channels-last GEMM: rows t-1, t of the buffer -> r output rows
            taps = -(-k // d)
            xc = torch.randn(B, L, cin, device=dev, dtype=dt)
            wg = torch.randn(cout * d, taps * cin, device=dev, dtype=dt) * 0.02
            def gemm_cl():
                cols = xc.unfold(1, taps, 1).transpose(2, 3).reshape(B * n_in, taps * cin) if taps > 1 else xc.reshape(-1, cin)
                return F.linear(cols, wg)
            t['cl_gemm'] = gtime(gemm_cl)
            if taps == 2:
                wa, wb = wg[:, :cin].contiguous(), wg[:, cin:].contiguous()
                def two_gemm():
                    y = torch.matmul(xc[:, :-1], wa.T)
                    return y.baddbmm_(xc[:, 1:], wb.T.expand(B, cin, cout * d))
                t['cl_2gemm'] = gtime(two_gemm)
        else:
            groups = cin if kind == 'dw' else 1
            w = torch.randn(cout, cin // groups, k, device=dev, dtype=dt) * 0.02
            xn = torch.randn(B, cin, L, device=dev, dtype=dt)
            t['ncf_cudnn'] = gtime(lambda: F.conv1d(xn, w, dilation=d, groups=groups))
            if kind != 'dw':
                wm = w.reshape(cout, -1)
                def gemm_ncf():
                    if k == 1:
                        cols = xn
                    else:
                        win = xn.unfold(2, (k - 1) * d + 1, 1)[..., ::d]
                        cols = win.transpose(2, 3).reshape(B, cin * k, n)
                    return torch.bmm(wm.expand(B, *wm.shape), cols)
                t['ncf_gemm'] = gtime(gemm_ncf)
            x4 = xn.unsqueeze(2).contiguous(memory_format=torch.channels_last)
            w4 = w.unsqueeze(2).contiguous(memory_format=torch.channels_last)
            t['nhwc_heur'] = gtime(lambda: F.conv2d(x4, w4, dilation=(1, d), groups=groups))
            torch.backends.cudnn.benchmark = True
            t['nhwc_bench'] = gtime(lambda: F.conv2d(x4, w4, dilation=(1, d), groups=groups))
            torch.backends.cudnn.benchmark = False
            if kind != 'dw':
                xc = torch.randn(B, L, cin, device=dev, dtype=dt)
                wg = torch.randn(cout, k * cin, device=dev, dtype=dt) * 0.02
                def gemm_cl():
                    if k == 1:
                        return F.linear(xc, wg)
                    cols = xc.unfold(1, (k - 1) * d + 1, 1)[..., ::d].transpose(2, 3).reshape(B * n, k * cin)
                    return F.linear(cols, wg)
                t['cl_gemm'] = gtime(gemm_cl)
                if k > 1:
                    wt = [wg[:, j * cin:(j + 1) * cin].T.contiguous().expand(B, cin, cout) for j in range(k)]
                    def taps_cl():
                        y = torch.matmul(xc[:, :n], wt[0])
                        for j in range(1, k):
                            y.baddbmm_(xc[:, j * d: j * d + n], wt[j])
                        return y
                    t['cl_taps'] = gtime(taps_cl)
        rows[label] = t
    first = sum(min(v for kk, v in t.items() if kk.startswith('ncf') or kk == 'cl_linear') for t in rows.values())
    last = sum(min(v for kk, v in t.items() if not kk.startswith('ncf')) for t in rows.values())
    key = f'{B}x{frames}'
    results['shapes'][key] = {'convolutions_ms': rows, 'best_channels_first_ms': round(first, 3), 'best_channels_last_ms': round(last, 3)}
    print(f'== {key}: the convolutions, each the fastest way: channels first {first:.2f} ms, channels last {last:.2f} ms', flush=True)
    for label, t in rows.items():
        print(f'   {label:10s} ' + ' '.join(f'{kk}={v:.3f}' for kk, v in t.items()), flush=True)
Path(sys.argv[1]).write_text(json.dumps(results, indent=1))
