#!/bin/bash
# Everything the runtime needs measured on the GPU machine, in one call (see docs/benchmarks.md):
#   1. the runtime's GPU tests on the tiny fixture (graphs vs eager, float32 goldens, batching);
#   2. a full-size random-weight 1.7B CustomVoice checkpoint (bench/make_random_checkpoint.py);
#   3. bench/engine_bench.py on it;
#   4. faster-qwen3-tts and official qwen-tts on the same kind of checkpoint (.peer_bench), and our ratios.
# Run from the repository root with `.shared/fixtures/qwen3-tts-tiny-customvoice`, `.whl_engine`
# (pydantic, pytest-asyncio), `.whl` and `.peer_bench` carried. Results land in $OUT (or /tmp/out).
#   5. (stage "floor") the plain-PyTorch floor of one frame step, .peer_bench/step_floor.py.
# STAGES (default "tests engine peers") picks what runs; TESTS_LIMIT / ENGINE_LIMIT cap stages (seconds).
set -o pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
stages=${STAGES:-"tests engine peers"}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site_engine .whl_engine/*.whl || exit 1
export VOICE_TTS_SHARED=$PWD/.shared PYTHONUNBUFFERED=1
engine_env="PYTHONPATH=$PWD:/tmp/site_engine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"

if [[ $stages == *tests* ]]; then
  env $engine_env timeout "${TESTS_LIMIT:-300}" python3 -m pytest -m gpu tests/gpu/test_runtime_gpu.py -q -p no:cacheprovider 2>&1 | tee "$out/gpu_tests.log"
fi
if [[ $stages == *engine* ]]; then
  env $engine_env python3 bench/make_random_checkpoint.py /tmp/ours --size 1.7b 2>&1 | tail -2
  env $engine_env TQDM_DISABLE=1 timeout "${ENGINE_LIMIT:-600}" python3 -X faulthandler bench/engine_bench.py /tmp/ours --out "$out/engine_bench.json" > "$out/engine_bench.log" 2>&1
  grep -v '^ \|^\s*$' "$out/engine_bench.log" | head -60
fi
if [[ $stages == *floor* ]]; then
  timeout 120 python3 .peer_bench/step_floor.py 128 2>&1 | tee "$out/step_floor.log"
fi
if [[ $stages == *peers* ]]; then
  bash .peer_bench/run_on_device.sh 2>&1 | tee "$out/peers.log"
  grep '^{' "$out/peers.log" | tail -1 > "$out/peers.json"
  env $engine_env python3 bench/compare_peers.py "$out/engine_bench.json" "$out/peers.json" | tee "$out/ratios.txt"
fi
