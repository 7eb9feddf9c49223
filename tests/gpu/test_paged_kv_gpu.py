"""The paged KV cache on CUDA: the Triton attention over pages equals the same kernel over a
contiguous cache bit for bit and the PyTorch path over pages within bfloat16's rounding, inside a
CUDA graph whose block table changes between replays; the engine on pages (graphs, fused kernels)
serves streams joining, leaving and refused for KV room, and every block is free afterwards."""

from __future__ import annotations

import asyncio
import random

import pytest
import torch
from text_pieces import random_pieces

from voice_tts.protocol import AudioChunk, Done, Error

from engine.model.loader import load_model
from engine.model.sampling import SamplingParams
from engine.model.talker import KVCache, PagedKVCache
from engine.runtime import kernels
from engine.runtime.kv_cache import BLOCK_SIZE, kv_bytes_per_row
from engine.runtime.loop import LoopSettings
from engine.runtime.qwen3_engine import EngineSettings, Qwen3Engine

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module", autouse=True)
def cuda():
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_the_talker_step_over_pages_equals_the_contiguous_cache_and_the_pytorch_path(tiny_checkpoint, dtype):
    model = load_model(tiny_checkpoint, "cuda", dtype)
    layers = model.config.talker.layers
    n, max_len, hidden = 48, 256, layers.hidden_size
    g = torch.Generator(device="cpu").manual_seed(0)
    contiguous = KVCache.allocate(layers, n, max_len, "cuda", dtype)
    contiguous.k.normal_()
    contiguous.v.normal_()
    count = n * max_len // BLOCK_SIZE
    pages = PagedKVCache.allocate(layers, n, 1 + count, BLOCK_SIZE, max_len, "cuda", dtype)
    table = (1 + torch.randperm(count, generator=g)).view(n, -1).cuda()  # shuffled blocks
    pages.block_table.copy_(table)
    for mine, theirs in ((pages.k, contiguous.k), (pages.v, contiguous.v)):
        mine[:, table.flatten()] = theirs.view(layers.num_layers, n, layers.num_kv_heads, -1, BLOCK_SIZE, layers.head_dim).transpose(
            2, 3
        ).reshape(layers.num_layers, count, layers.num_kv_heads, BLOCK_SIZE, layers.head_dim)
    positions = torch.randint(0, max_len, (n,), generator=g).cuda()
    x = torch.randn(n, hidden, generator=g).to("cuda", dtype)
    assert kernels.probe(torch.device("cuda"), dtype)
    with torch.inference_mode():
        fused_contiguous = model.talker.forward(x.clone(), contiguous.rows(0, n, positions), kernels)
        fused_pages = model.talker.forward(x.clone(), pages.rows(0, n, positions), kernels)
        unfused_pages = model.talker.forward(x.clone(), pages.rows(0, n, positions))
    assert torch.equal(fused_pages, fused_contiguous)  # one block per key tile, the same tiles
    err = ((fused_pages.float() - unfused_pages.float()).abs() / (1 + unfused_pages.float().abs())).max().item()
    assert err <= (0.1 if dtype == torch.bfloat16 else 1e-4), err  # bfloat16: every layer rounds its own way


def test_a_graph_reads_the_block_table_as_it_is_when_replayed(tiny_checkpoint):
    model = load_model(tiny_checkpoint, "cuda", torch.bfloat16)
    layers = model.config.talker.layers
    n, max_len = 4, 128
    pages = PagedKVCache.allocate(layers, n, 1 + 2 * n * max_len // BLOCK_SIZE, BLOCK_SIZE, max_len, "cuda", torch.bfloat16)
    pages.k.normal_()
    pages.v.normal_()
    positions = torch.tensor([3, 40, 70, 127], device="cuda")
    x = torch.randn(n, layers.hidden_size, device="cuda", dtype=torch.bfloat16)
    scratch = torch.empty_like(x)
    per_row = max_len // BLOCK_SIZE

    def step() -> torch.Tensor:
        scratch.copy_(x)
        return model.talker.forward(scratch, pages.rows(0, n, positions), kernels)

    with torch.inference_mode():
        pages.block_table.copy_(1 + torch.arange(n * per_row, device="cuda").view(n, per_row))
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            step()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = step()
        for first in (0, n * per_row):  # the first half of the blocks, then the second
            pages.block_table.copy_(1 + first + torch.arange(n * per_row, device="cuda").view(n, per_row))
            graph.replay()
            assert torch.equal(out, step())


async def test_the_engine_on_pages_serves_streams_refused_for_room_and_frees_every_block(tiny_checkpoint, golden_cases):
    model = load_model(tiny_checkpoint, "cuda", torch.bfloat16)
    layers = model.config.talker.layers
    per_row = kv_bytes_per_row(layers.num_layers, layers.num_kv_heads, layers.head_dim, model.dtype)
    # Room for four turns' longest runs (no max_new_tokens: --max-context's 512 rows each) among
    # sixteen arriving together; a turn whose text has ended keeps only its guard's rows.
    settings = EngineSettings(
        max_streams=16, max_context=512, memory_budget=4 * 512 * per_row, admit_by_headroom=False,
        loop=LoopSettings(keep_codes=True, max_frames_per_text_token=4),
    )
    engine = Qwen3Engine(model, settings)
    cases = [cid for cid, c in golden_cases.items() if not c["args"]["non_streaming_mode"]]
    refusals = []
    try:
        assert engine.runner.fused and engine.runner.use_graphs

        async def one(index: int) -> None:
            rng = random.Random(index)
            a = golden_cases[cases[index % len(cases)]]["args"]
            await asyncio.sleep(rng.uniform(0, 0.1))
            while True:
                stream = engine.open_stream(
                    voice=a["speaker"], language=a["language"], instruct=a.get("instruct"),
                    sampling=SamplingParams(seed=index),
                )
                await asyncio.sleep(0.5)  # the text comes later (an LLM's first tokens): every turn opens first
                for piece in random_pieces(a["text"], rng, 1, 6):
                    stream.push_text(piece)
                stream.end_input()
                events = []
                async for event in stream.events():
                    events.append(event)
                    if index % 4 == 3 and isinstance(event, AudioChunk):
                        stream.cancel()
                if isinstance(events[0], Error) and events[0].code == "capacity":
                    refusals.append(index)
                    await asyncio.sleep(0.05)
                    continue
                assert isinstance(events[-1], Done) and not any(isinstance(e, Error) for e in events)
                return

        await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(16))), 300)
        assert refusals, "the KV budget (four longest turns) refused some of the sixteen"
        for _ in range(500):
            if not engine.active_streams and not engine.kv_cache()["held"]:
                break
            await asyncio.sleep(0.01)
        pool = engine.runner.pool
        assert pool.free_blocks == pool.blocks == pool.unreserved_blocks
    finally:
        await engine.aclose()
