"""The paged KV cache (`engine.runtime.kv_cache`): attention over pages reads exactly what a
contiguous cache holds; on the tiny checkpoint (CPU, float32) sampled streams joining and leaving a
cache too small for all of them at once, so that blocks are recycled and scattered, give the codes
of the reference generator (its own contiguous cache); the Triton kernels over pages pass their
check under Triton's interpreter where Triton is installed."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from text_pieces import random_pieces

from voice_tts.protocol import AudioChunk, Done, Error

from engine.model.generate import generate
from engine.model.sampling import SamplingParams
from engine.model.transformer import CacheRows
from engine.runtime.kv_cache import BLOCK_SIZE, KVPool, kv_bytes_per_row
from engine.runtime.qwen3_engine import Qwen3Engine

ROOT = Path(__file__).resolve().parents[2]


def paged(contiguous: torch.Tensor, table: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """[layers, n, kv_heads, S, hd] -> a block pool holding the same rows in the blocks `table`
    [n, S // block] names (block 0, scratch, and any other full of noise)."""
    layers, n, kv_heads, length, hd = contiguous.shape
    count, block = table.numel(), length // table.shape[1]
    pool = torch.randn(layers, 1 + count, kv_heads, block, hd, generator=generator)
    pool[:, table.flatten()] = contiguous.view(layers, n, kv_heads, length // block, block, hd).transpose(2, 3).reshape(
        layers, count, kv_heads, block, hd
    )
    return pool


@pytest.mark.parametrize("tokens, start", [(1, None), (3, None), (2, 5)])
def test_attention_over_pages_equals_a_contiguous_cache_bit_for_bit(tokens: int, start: int | None):
    g = torch.Generator().manual_seed(tokens)
    layers, n, heads, kv_heads, length, hd, block = 2, 5, 4, 2, 64, 16, 8
    k, v = torch.randn(layers, n, kv_heads, length, hd, generator=g), torch.randn(layers, n, kv_heads, length, hd, generator=g)
    table = (1 + torch.randperm(n * length // block, generator=g)).view(n, length // block)  # shuffled blocks
    k_pool, v_pool = paged(k, table, g), paged(v, table, g)
    positions = torch.full((n,), start) if start is not None else torch.tensor([0, 7, 8, 33, 60])
    kv_len = int(positions.max()) + tokens
    contiguous = CacheRows(k, v, positions, tokens, kv_len, start)
    pages = CacheRows(k_pool, v_pool, positions, tokens, kv_len, start, block_table=table)
    for layer in range(layers):
        q = torch.randn(n * tokens, heads, hd, generator=g)
        new_k, new_v = torch.randn(n * tokens, kv_heads, hd, generator=g), torch.randn(n * tokens, kv_heads, hd, generator=g)
        assert torch.equal(contiguous(layer, q, new_k, new_v), pages(layer, q, new_k, new_v))
    unpaged = k_pool[:, table].transpose(2, 3).reshape(layers, n, kv_heads, length, hd)
    assert torch.equal(unpaged, k)  # the new keys went to the same positions


def test_writes_past_a_rows_blocks_land_in_scratch():
    g = torch.Generator().manual_seed(1)
    k = torch.zeros(1, 3, 1, 4, 16)  # block pool: scratch, then two blocks of 4 rows
    table = torch.tensor([[1, 0], [2, 0]])  # each row owns one block; positions 4.. are not theirs
    rows = CacheRows(k, k.clone(), torch.tensor([4, 2]), 1, 5, block_table=table)
    rows(0, torch.randn(2, 1, 16, generator=g), torch.ones(2, 1, 16), torch.ones(2, 1, 16))
    assert k[0, 0].abs().sum() > 0 and k[0, 1].abs().sum() == 0  # row 0's position 4: scratch
    assert torch.equal(k[0, 2, 0, 2], torch.ones(16))  # row 1's position 2: its own block


def test_blocks_are_reserved_at_admission_taken_as_rows_come_and_all_given_back():
    layers = SimpleNamespace(num_layers=1, num_kv_heads=1, head_dim=16)
    pool = KVPool(layers, slots=4, blocks=14, max_context=256, device=torch.device("cpu"), dtype=torch.float32)
    slots = [pool.allocate() for _ in range(3)]
    assert all(pool.reserve(slot, 10, 100) for slot in slots[:3])  # 4 blocks each: 112 rows
    assert pool.unreserved_blocks == 2 and pool.free_blocks == 14  # set aside, none taken yet
    spare = pool.allocate()
    assert not pool.reserve(spare, 10, 100) and pool.unreserved_blocks == 2  # refused: nothing set aside
    pool.release(spare)
    pool.grow(np.array([0, 2]), np.array([40, 70]))  # the blocks of rows [0, 40) and [0, 70)
    assert (pool.table(0), pool.table(2), pool.free_blocks) == ([1, 2], [3, 4, 5], 9)
    pool.grow(np.array([0, 1, 2]), np.array([70, 1, 70]))
    assert (pool.table(0), pool.table(1), pool.table(2)) == ([1, 2, 6], [7], [3, 4, 5])
    with pytest.raises(RuntimeError, match="reserved"):
        pool.grow(np.array([1]), np.array([200]))  # past its reservation: a bug, said loudly
    pool.limit(0, 20)  # its guard now says 20 frames: 32 rows; it keeps the three blocks it holds
    pool.limit(1, 20)
    assert pool.unreserved_blocks == 2 + 1 + 3
    pool.sync()
    assert pool.cache.block_table[2, :3].tolist() == [3, 4, 5]
    pool.release(2)
    pool.grow(np.array([1]), np.array([32]))
    assert pool.table(1) == [7] and pool.free_blocks == 10
    for slot in (0, 1):
        pool.release(slot)
    pool.sync()
    assert pool.free_blocks == pool.unreserved_blocks == 14 and pool.free_slots == 4
    assert not pool.cache.block_table.any()  # every entry back on the scratch block


async def test_paged_streams_joining_and_leaving_give_the_reference_generators_codes(tiny_checkpoint: Path, golden_cases):
    """Room for about three streams' longest turns among eight: streams are refused while it is
    full and retried, others are cancelled mid-turn, blocks are recycled between streams; every
    finished stream's codes equal the reference generator's, which keeps its own contiguous cache."""
    probe = Qwen3Engine.from_pretrained(tiny_checkpoint, device="cpu", max_streams=1)
    layers = probe.model.config.talker.layers
    per_row = kv_bytes_per_row(layers.num_layers, layers.num_kv_heads, layers.head_dim, probe.model.dtype)
    probe.close()
    max_context = 512
    engine = Qwen3Engine.from_pretrained(
        tiny_checkpoint, device="cpu", max_streams=8, keep_codes=True, eos_after_text_end=False,
        max_context=max_context, memory_budget=3 * max_context * per_row,
    )
    chosen = ["A02_en_ryan_english_stream", "A10_en_uncle_fu_auto_stream", "A04_zh_eric_auto_stream_dialect"]
    try:
        reference = {}
        for i, cid in enumerate(chosen):
            a = golden_cases[cid]["args"]
            reference[cid] = generate(
                engine.model, a["text"], speaker=a["speaker"], language=a["language"], instruct=a.get("instruct"),
                non_streaming_mode=False, max_new_tokens=a["max_new_tokens"], sampling=SamplingParams(seed=100 + i),
            ).codes.tolist()
        scattered = []

        async def one(index: int) -> tuple[str, list | None, bool]:
            rng = random.Random(index)
            cid = chosen[index % len(chosen)]
            a = golden_cases[cid]["args"]
            await asyncio.sleep(rng.uniform(0, 0.5))
            leaves = index % 4 == 3
            while True:  # refused while the cache is full: retried, as a client does
                stream = engine.open_stream(
                    voice=a["speaker"], language=a["language"], instruct=a.get("instruct"),
                    sampling=SamplingParams(seed=100 + index % len(chosen)), max_new_tokens=a["max_new_tokens"],
                )
                for piece in random_pieces(a["text"], rng, 1, 6):
                    stream.push_text(piece)
                    await asyncio.sleep(rng.uniform(0, 0.01))
                stream.end_input()
                events = []
                async for event in stream.events():
                    events.append(event)
                    if isinstance(event, AudioChunk):
                        pool = engine.runner.pool
                        scattered.append(any(pool.table(s) != sorted(pool.table(s)) for s in range(pool.slots)))
                        if leaves:
                            stream.cancel()
                if not (isinstance(events[0], Error) and events[0].code == "capacity"):
                    break
                await asyncio.sleep(0.05)
            assert isinstance(events[-1], Done) and not any(isinstance(e, Error) for e in events)
            return cid, stream.codes, leaves

        results = await asyncio.gather(*(one(i) for i in range(12)))
        for cid, codes, leaves in results:
            if not leaves:
                assert codes == reference[cid], cid
        assert sum(not leaves for _, _, leaves in results) == 9
        assert any(scattered)  # some stream held blocks out of order: recycled ones
        deadline = time.monotonic() + 10
        while engine.active_streams or engine.kv_cache()["held"]:
            assert time.monotonic() < deadline, "blocks were not given back"
            await asyncio.sleep(0.01)
        pool = engine.runner.pool
        assert pool.free_blocks == pool.blocks == pool.unreserved_blocks
        assert pool.blocks == 3 * max_context // BLOCK_SIZE
    finally:
        engine.close()


def test_the_kernels_over_pages_pass_their_check_in_tritons_interpreter():
    pytest.importorskip("triton")
    script = (
        "import torch\n"
        "from engine.runtime import kernels\n"
        "assert kernels.probe(torch.device('cpu'), torch.float32)\n"
        "assert kernels.probe(torch.device('cpu'), torch.bfloat16)\n"
    )
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
