#!/bin/bash
# Everything the runtime needs measured on the GPU machine, in one call (see docs/benchmarks.md):
#   tests   the runtime's GPU tests on the tiny fixture (graphs vs eager, float32 goldens, kernels, batching, paged KV);
#   model   the model's GPU tests (bf16 goldens, full-size random 1.7B: load time, eager per-frame time);
#   engine  a full-size random-weight 1.7B CustomVoice checkpoint (bench/make_random_checkpoint.py) and
#           bench/engine_bench.py on it (ENGINE_ARGS, default "--quick": the sweep of 1-1,024 streams),
#           writing engine_bench.json and engine_bench.png, then our
#           ratios against the peers (PEERS_JSON: a peers.json from stage "peers" of this call, else
#           bench/peers_2026-11-29.json, the figures recorded in docs/benchmarks.md);
#   clone   the cloned-voice GPU tests (tiny Base fixture, `.shared/fixtures/qwen3-tts-tiny-base` carried), a
#           full-size random-weight 1.7B Base checkpoint and bench/clone_bench.py on it (voice creation time,
#           TTFA of a cloned voice's first and later turns, x-vector and ICL);
#   stall   bench/new_shape_stall.py on that checkpoint, twice (STALL_ARGS, e.g. "--max-streams 1024"): the start-up
#           (graph capture) and the first decode of each new codec shape, then the same on a restart that takes
#           the convolution ways the first start remembered;
#   host    bench/engine_bench.py at HOST_LEVELS (default 768) streams under py-spy (its wheel in `.whl_engine`):
#           the step loop's and the event loop's Python stacks in host_stacks.txt, summed per function
#           by bench/stack_summary.py (load and warm-up left out) into host_profile.txt;
#   server  the engine in-process and behind `voice-tts serve`, swept over the same levels (bench/server_sweep.py)
#           on the 1.7B checkpoint (SERVER_CHECKPOINT: another one, e.g. the tiny fixture; SERVER_DEVICE,
#           SERVER_LEVELS, default "1 64 128 256 512 768 1024"; SERVER_CLIENTS_PER_PROCESS, default 128, sets how many
#           `voice-tts bench` client processes), `.whl_server` carried too: h200-server-latest.json
#           and .png, engine_bench.log, server_bench.log, server.log;
#   hang    `voice-tts serve` (256 streams) and `voice-tts bench --turns 3` at 64 clients, then 1, 32 and 128 in one
#           process: each must finish within HANG_LIMIT (default 150) seconds (issue 27's never-finishing runs);
#   sidebyside  bench/engine_bench.py at HOST_LEVELS on an earlier tree (OLD_TREE: its engine, voice_tts and bench,
#           carried) and on this one, one after the other on one machine: host ms per iteration before and after;
#   capacity  issue 34's sweep, one part per call (each well inside a call's 10 minutes) on the 1.7B checkpoint:
#           bench/server_sweep.py --parts ${CAPACITY_PARTS:-engine} at CAPACITY_LEVELS (default 1 256 512 768 1024
#           1536 2048): "engine" engine_bench in-process, "server" `voice-tts serve` with `voice-tts bench` clients
#           spread over processes (128 each) starting within CAPACITY_SPREAD s (default 1; each server process's CPU and the
#           engine's /metrics gauges sampled through the level; CAPACITY_PROFILE=1: the server under py-spy), agent replies of 27-31 words (bench/agent_replies.txt) back to back
#           at --max-frames-per-text-token ${FRAMES_PER_TEXT_TOKEN:-1.9} (about one frame a character with the
#           fixture's tokenizer, as 4 a token is with Qwen's: turns as long as real replies), --max-context ${CAPACITY_MAX_CONTEXT:-320} (a turn reserves it in KV
#           blocks until its text has ended, and the clients start together: 2,048 x 512 rows would not fit the
#           default memory share), "ready" the server's /ready on a first start (empty --cache-dir) and
#           a restart, each with the engine's start-up phases; writes capacity_<parts>_<levels>.json (+ .png, logs); merge the calls' files with
#           `bench/server_sweep.py --merge` into h200-server-latest.json (docs/benchmarks.md gives the calls);
#   contexts  `voice-tts serve` (1.7B, --max-streams 1024) and `voice-tts bench` at CONTEXTS_LEVELS (default 512)
#           clients in 4 processes, once per CONTEXTS_PER_SOCKET value (default "1 16"), the server's CPU
#           measured: sockets, server CPU and TTFA p99 side by side (contexts_per_socket_512.json);
#   ttsbench  Nari Labs' tts_bench (`.whl_tts_bench`, bench/tts_bench_wheels.sh), target vllm-omni, unmodified
#           (TTS_BENCH_DROP_NON_STREAMING=1 removes its `non_streaming_mode` field, for servers older than that
#           field of the vLLM-Omni dialect), against `voice-tts serve` (1.7B, --max-streams 2048, guard 1.9 a token), one run per rate in
#           TTS_BENCH_RATES (default "5 10 20 40 80"), prompts bench/agent_replies.txt: h200-tts-bench.json;
#   firstaudio  bench/first_audio.py --openings on the 1.7B checkpoint (FIRST_AUDIO_TURNS rounds, default 10, at 30
#           tokens/s): first audio of each reply opening with and without normalization, side by side, in-process
#           (issue 44's +3 ms bar): first_audio_openings_gpu.json;
#   floor   the plain-PyTorch floor of one frame step, .peer_bench/step_floor.py ${FLOOR_KV:-128};
#   peers   faster-qwen3-tts and official qwen-tts on the same kind of checkpoint (.peer_bench).
# Run from the repository root with `.shared/fixtures/qwen3-tts-tiny-customvoice` (for "server" alone, the files
# bench/make_random_checkpoint.py copies from it do: vocab.json, merges.txt, tokenizer_config.json,
# preprocessor_config.json, configuration.json, speech_tokenizer/), `.whl_engine` (bench/device_wheels.sh fetches
# it and `.whl_server`), and for "peers" `.whl` and `.peer_bench`, carried. Results land in
# $OUT (or /tmp/out). STAGES (default "tests engine peers") picks what runs, in the order given;
# TESTS_LIMIT / MODEL_LIMIT / ENGINE_LIMIT / FLOOR_LIMIT / SERVER_LIMIT cap stages (seconds).
set -o pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
stages=${STAGES:-"tests engine peers"}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site_engine .whl_engine/*.whl || exit 1
[[ " $stages " == *" server "* || " $stages " == *" capacity "* || " $stages " == *" ttsbench "* || " $stages " == *" firstaudio "* ]] && { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site_engine .whl_server/*.whl || exit 1; }
# py-spy apart: a second install into /tmp/site_engine (--upgrade) replaces its bin/ folder.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site_py_spy .whl_engine/py_spy-*.whl || exit 1
export VOICE_TTS_SHARED=$PWD/.shared PYTHONUNBUFFERED=1
engine_env="PYTHONPATH=$PWD:/tmp/site_engine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" | tee -a "$out/gpu.txt"

# `voice-tts serve` on the 1.7B checkpoint at port 8100 with these flags, its log in $1; returns once
# /ready answers (at most 300 s), the server's pid in $server.
serve_ready() {
  local log=$1; shift
  env $engine_env python3 -m voice_tts.cli serve --model /tmp/ours --device cuda:0 --port 8100 --log-level warning \
    "$@" > "$log" 2>&1 &
  server=$!
  env $engine_env python3 -c "import time, urllib.request
for _ in range(600):
    try:
        urllib.request.urlopen('http://127.0.0.1:8100/ready'); break
    except Exception: time.sleep(0.5)"
}

for stage in $stages; do
  case $stage in
  tests)
    env $engine_env timeout "${TESTS_LIMIT:-300}" python3 -m pytest -m gpu tests/gpu/test_runtime_gpu.py tests/gpu/test_paged_kv_gpu.py -q -s --tb=short -p no:cacheprovider 2>&1 | tee "$out/gpu_tests.log" | tail -25 ;;
  model)
    env $engine_env timeout "${MODEL_LIMIT:-300}" python3 -m pytest -m gpu tests/gpu/test_model_gpu.py -q -s --tb=short -p no:cacheprovider 2>&1 | tee "$out/model_tests.log" | tail -30 ;;
  engine)
    [[ -f /tmp/ours/model.safetensors ]] || env $engine_env python3 bench/make_random_checkpoint.py /tmp/ours --size 1.7b 2>&1 | tail -2
    env $engine_env TQDM_DISABLE=1 timeout "${ENGINE_LIMIT:-600}" python3 -X faulthandler bench/engine_bench.py /tmp/ours \
      ${ENGINE_ARGS:---quick} --out "$out/engine_bench.json" --plot "$out/engine_bench.png" > "$out/engine_bench.log" 2>&1
    grep -v '^ \|^\s*$\|^[{}]$' "$out/engine_bench.log" | cut -c1-1500 | tail -40
    grep -m1 -A25 'Traceback' "$out/engine_bench.log" | cut -c1-300
    peers=${PEERS_JSON:-bench/peers_2026-11-29.json}; [[ -s "$out/peers.json" ]] && peers="$out/peers.json"
    [[ -s "$out/engine_bench.json" ]] && env $engine_env python3 bench/compare_peers.py "$out/engine_bench.json" "$peers" | tee "$out/ratios.txt" ;;
  clone)
    env $engine_env timeout "${TESTS_LIMIT:-300}" python3 -m pytest -m gpu tests/gpu/test_clone_gpu.py -q -s --tb=short -p no:cacheprovider 2>&1 | tee "$out/clone_tests.log" | tail -15
    [[ -f /tmp/ours_base/config.json ]] || env $engine_env python3 bench/make_random_checkpoint.py /tmp/ours_base --size 1.7b --type base 2>&1 | tail -2
    env $engine_env TQDM_DISABLE=1 timeout "${ENGINE_LIMIT:-600}" python3 bench/clone_bench.py /tmp/ours_base --out "$out/clone_bench.json" 2>&1 | tee "$out/clone_bench.log" | tail -8 ;;
  stall)
    [[ -f /tmp/ours/model.safetensors ]] || env $engine_env python3 bench/make_random_checkpoint.py /tmp/ours --size 1.7b 2>&1 | tail -2
    rm -rf /tmp/convolution_cache
    for start in first again; do  # the second start takes the convolution ways the first remembered
      env $engine_env timeout "${ENGINE_LIMIT:-600}" python3 bench/new_shape_stall.py /tmp/ours "$out/new_shape_stall_$start.json" \
        --convolution-cache-dir /tmp/convolution_cache ${STALL_ARGS} 2>&1 | grep -v '^loading' | tail -8
      grep -m3 'seconds' "$out/new_shape_stall_$start.json"
    done ;;
  host)
    [[ -f /tmp/ours/model.safetensors ]] || env $engine_env python3 bench/make_random_checkpoint.py /tmp/ours --size 1.7b 2>&1 | tail -2
    env $engine_env TQDM_DISABLE=1 timeout "${ENGINE_LIMIT:-600}" /tmp/site_py_spy/bin/py-spy record --nonblocking --threads \
      --rate 250 --format raw -o "$out/host_stacks.txt" -- python3 bench/engine_bench.py /tmp/ours \
      --concurrency ${HOST_LEVELS:-768} --batches 1 --profile-codec 0 --quick --out "$out/host_bench.json" > "$out/host_bench.log" 2>&1
    grep '"concurrency"' "$out/host_bench.log" | cut -c1-600
    env $engine_env python3 bench/stack_summary.py "$out/host_stacks.txt" --thread step-loop --thread MainThread \
      --without warm_up --without "phase (" --without _find_and_load --without from_pretrained --top 30 | tee "$out/host_profile.txt" ;;
  server)
    checkpoint=${SERVER_CHECKPOINT:-/tmp/ours}
    [[ -n "$SERVER_CHECKPOINT" || -f /tmp/ours/model.safetensors ]] || env $engine_env python3 bench/make_random_checkpoint.py /tmp/ours --size 1.7b 2>&1 | tail -2
    env $engine_env TQDM_DISABLE=1 timeout "${SERVER_LIMIT:-540}" python3 bench/server_sweep.py "$checkpoint" --out-dir "$out" \
      --device "${SERVER_DEVICE:-cuda:0}" --levels ${SERVER_LEVELS:-1 64 128 256 512 768 1024} \
      --clients-per-process "${SERVER_CLIENTS_PER_PROCESS:-128}" 2>&1 | tee "$out/server_sweep.log" | tail -30 ;;
  hang)
    [[ -f /tmp/ours/model.safetensors ]] || env $engine_env python3 bench/make_random_checkpoint.py /tmp/ours --size 1.7b 2>&1 | tail -2
    serve_ready "$out/hang_server.log" --max-streams 256 --max-context 512
    for levels in "64" "1 32 128"; do
      name=hang_$(echo $levels | tr ' ' _)
      env $engine_env TQDM_DISABLE=1 timeout "${HANG_LIMIT:-150}" python3 -m voice_tts.cli bench --url ws://127.0.0.1:8100/v1/ws \
        --voice ryan --language english --turns 3 --concurrency $levels --out "$out/$name.json" --plot "$out/$name.png" \
        > "$out/$name.log" 2>&1
      echo "bench --turns 3 --concurrency $levels: exit $? (124: it did not finish within ${HANG_LIMIT:-150} s)"
      grep -E '^ *[0-9]+ ' "$out/$name.log" | tail -4
    done
    kill -TERM $server; wait $server; echo "server exit $?" ;;
  sidebyside)
    [[ -f /tmp/ours/model.safetensors ]] || env $engine_env python3 bench/make_random_checkpoint.py /tmp/ours --size 1.7b 2>&1 | tail -2
    for tree in "$OLD_TREE" "$PWD"; do
      name=sidebyside_$( [[ $tree == "$PWD" ]] && echo new || echo old )
      env PYTHONPATH=$tree:/tmp/site_engine TQDM_DISABLE=1 timeout "${ENGINE_LIMIT:-600}" python3 $tree/bench/engine_bench.py /tmp/ours \
        --concurrency ${HOST_LEVELS:-768} --batches 1 --profile-codec 0 --quick --out "$out/$name.json" > "$out/$name.log" 2>&1
      env $engine_env python3 -c "import json, sys
for level in json.load(open(sys.argv[1]))['concurrency']:
    if 'concurrency' in level: print(sys.argv[2], {k: level.get(k) for k in ('concurrency', 'ttfa_ms_p99', 'streams_with_underruns', 'loop_ms_per_iteration', 'step_wait_ms_per_iteration', 'host_ms_per_iteration')})" "$out/$name.json" $name
    done ;;
  capacity)
    [[ -f /tmp/ours/model.safetensors ]] || env $engine_env python3 bench/make_random_checkpoint.py /tmp/ours --size 1.7b 2>&1 | tail -2
    levels=${CAPACITY_LEVELS:-1 256 512 768 1024 1536 2048}
    name=capacity_$(echo ${CAPACITY_PARTS:-engine} $levels | tr ' ' _)
    env $engine_env PATH="/tmp/site_py_spy/bin:$PATH" TQDM_DISABLE=1 timeout "${SERVER_LIMIT:-560}" python3 bench/server_sweep.py /tmp/ours --out-dir "$out" \
      --name "$name" --parts ${CAPACITY_PARTS:-engine} --levels $levels --text-file bench/agent_replies.txt \
      --max-frames-per-text-token "${FRAMES_PER_TEXT_TOKEN:-1.9}" --max-context "${CAPACITY_MAX_CONTEXT:-320}" --clients-per-process 128 \
      --spread "${CAPACITY_SPREAD:-1}" ${CAPACITY_PROFILE:+--profile "$out/${name}_stacks.txt"} \
      --engine-limit 500 --work-dir /tmp/capacity_work \
      --engine-args "--quick --batches 1 --profile-codec 0" 2>&1 | tee "$out/$name.log" | grep --line-buffered -v '^ ' ;;
  firstaudio)
    [[ -f /tmp/ours/model.safetensors ]] || env $engine_env python3 bench/make_random_checkpoint.py /tmp/ours --size 1.7b 2>&1 | tail -2
    env $engine_env TQDM_DISABLE=1 timeout "${ENGINE_LIMIT:-600}" python3 bench/first_audio.py --openings --model /tmp/ours \
      --device cuda --turns "${FIRST_AUDIO_TURNS:-10}" --rates 30 --out "$out/first_audio_openings_gpu.json" 2>&1 | tail -30 ;;
  contexts)
    [[ -f /tmp/ours/model.safetensors ]] || env $engine_env python3 bench/make_random_checkpoint.py /tmp/ours --size 1.7b 2>&1 | tail -2
    serve_ready "$out/contexts_server.log" --max-streams 1024 --max-context 320 --max-frames-per-text-token "${FRAMES_PER_TEXT_TOKEN:-1.9}" \
      --cache-dir /tmp/voice-tts-cache
    env $engine_env timeout "${CONTEXTS_LIMIT:-400}" python3 -m voice_tts.cli bench --url ws://127.0.0.1:8100/v1/ws --voice ryan \
      --language english --concurrency ${CONTEXTS_LEVELS:-512} --turns 2 --text-file bench/agent_replies.txt --processes 4 \
      --contexts-per-socket ${CONTEXTS_PER_SOCKET:-1 16} --server-pid $server --out "$out/contexts_per_socket_512.json" 2>&1 | tail -25
    kill -TERM $server; wait $server ;;
  ttsbench)
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site_tts_bench .whl_tts_bench/*.whl || exit 1
    [[ ${TTS_BENCH_DROP_NON_STREAMING:-0} == 1 ]] && sed -i '/"non_streaming_mode": False,/d' /tmp/site_tts_bench/tts_bench/targets.py
    [[ -f /tmp/ours/model.safetensors ]] || env $engine_env python3 bench/make_random_checkpoint.py /tmp/ours --size 1.7b 2>&1 | tail -2
    python3 -c "import json; [print(json.dumps({'id': f'agent-{i:02d}', 'text': t.strip()})) for i, t in enumerate(open('bench/agent_replies.txt').read().split(chr(10) * 2)) if t.strip()]" > "$out/tts_bench_prompts.jsonl"
    serve_ready "$out/tts_bench_server.log" --max-streams 2048 --max-context 320 --max-frames-per-text-token "${FRAMES_PER_TEXT_TOKEN:-1.9}" \
      --cache-dir /tmp/voice-tts-cache
    for rate in ${TTS_BENCH_RATES:-5 10 20 40 80}; do
      env PYTHONPATH=/tmp/site_tts_bench:/tmp/site_engine timeout "${TTS_BENCH_LIMIT:-100}" python3 -m tts_bench run --target vllm-omni \
        --base-url http://127.0.0.1:8100 --voice ryan --language English --dataset "$out/tts_bench_prompts.jsonl" \
        --rps "$rate" --warmup 10s --duration 30s --seed 0 --output "$out/tts_bench/rps-$rate" > "$out/tts_bench_rps-$rate.log" 2>&1
      echo "tts_bench --rps $rate: exit $?"; tail -15 "$out/tts_bench_rps-$rate.log"
    done
    kill -TERM $server; wait $server
    python3 -c "import json, pathlib, sys
runs = sorted(pathlib.Path(sys.argv[1], 'tts_bench').glob('rps-*/summary.json'), key=lambda p: float(p.parent.name[4:]))
json.dump({'commit': open('.whl_tts_bench/COMMIT').read().strip(), 'non_streaming_mode_dropped': sys.argv[2] == '1',
           'prompts': 'bench/agent_replies.txt', 'rates': [{'rate': float(p.parent.name[4:]), 'summary': json.loads(p.read_text())} for p in runs]},
          open(pathlib.Path(sys.argv[1], 'h200-tts-bench.json'), 'w'), indent=1)" "$out" "${TTS_BENCH_DROP_NON_STREAMING:-0}" ;;
  floor)
    timeout "${FLOOR_LIMIT:-120}" python3 .peer_bench/step_floor.py "${FLOOR_KV:-128}" 2>&1 | tee "$out/step_floor.log" ;;
  peers)
    bash .peer_bench/run_on_device.sh 2>&1 | tee "$out/peers.log"
    grep '^{' "$out/peers.log" | tail -1 > "$out/peers.json"
    [[ -s "$out/engine_bench.json" ]] && env $engine_env python3 bench/compare_peers.py "$out/engine_bench.json" "$out/peers.json" | tee "$out/ratios.txt" ;;
  esac
done
