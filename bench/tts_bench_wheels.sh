#!/bin/bash
# Stages Nari Labs' tts_bench (github.com/nari-labs/benchmarks, folder tts_bench, Apache-2.0) for the
# GPU machine, which has no network: its own wheel, built unmodified from a checkout of that
# repository (TTS_BENCH_REPO, a folder holding tts_bench/; TTS_BENCH_COMMIT records which), and the
# wheels of what it imports beyond .whl_engine and the machine's own packages (bench/device_wheels.sh
# says which those are), all for the machine's Python 3.12, in .whl_tts_bench (git-ignored; carry it
# with .whl_engine and .whl_server for stage "ttsbench" of bench/run_on_device.sh).
set -euo pipefail
repo=${TTS_BENCH_REPO:?a checkout of nari-labs/benchmarks}
rm -rf .whl_tts_bench; mkdir -p .whl_tts_bench
python3 -m pip wheel -q --no-deps --ignore-requires-python -w .whl_tts_bench "$repo/tts_bench"
python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d .whl_tts_bench "aiohttp>=3.12" "jiwer>=3.0" "whisper-normalizer>=0.0.10"
# Already on the machine or in .whl_engine: the same packages twice would only take carry space.
rm -f .whl_tts_bench/{numpy,click,regex,pydantic,pydantic_core,annotated_types,typing_extensions,typing_inspection}-*.whl
echo "${TTS_BENCH_COMMIT:-unknown}" > .whl_tts_bench/COMMIT
du -sh .whl_tts_bench; ls .whl_tts_bench
