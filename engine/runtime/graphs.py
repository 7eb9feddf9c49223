"""How the runtime captures a CUDA graph (the frame step's and the codec's)."""

from __future__ import annotations

from typing import Callable

import torch


def capture(body: Callable[[], None], stream: torch.cuda.Stream, pool) -> torch.cuda.CUDAGraph:
    """Capture `body` (which must only touch persistent tensors) as a CUDA graph on `stream`,
    after one eager run there (kernel selection, cuDNN timing, Triton compilation)."""
    device = stream.device
    stream.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(stream):
        body()
    torch.cuda.current_stream(device).wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, pool=pool, stream=stream):
        body()
    return graph
