#!/usr/bin/env bash
# Usage: bench/core_profile.sh PORT SECONDS OUT_FILE [PY_SPY]
# Waits (at most 10 min) until `voice-tts serve` on PORT answers /ready, finds its engine core (the
# process spawned under it that loaded the CUDA driver), and records py-spy's raw stacks of every thread
# of that process for SECONDS: where the core's CPU goes under a load started beside this script.
port=$1 seconds=$2 out=$3 py_spy=${4:-py-spy}
python3 -c "import sys, time, urllib.request
for _ in range(1200):
    try:
        urllib.request.urlopen(f'http://127.0.0.1:{sys.argv[1]}/ready'); break
    except Exception: time.sleep(0.5)" "$port"
core=""  # the spawned process that loaded the driver (not a benchmark that did too)
for pid in $(grep -l libcuda /proc/[0-9]*/maps 2>/dev/null | cut -d/ -f3); do
  tr '\0' ' ' < /proc/$pid/cmdline 2>/dev/null | grep -q multiprocessing && { core=$pid; break; }
done
[[ -n $core ]] || { echo "core_profile: no process has loaded the CUDA driver" >&2; exit 1; }
echo "core_profile: recording pid $core for $seconds s" >&2
"$py_spy" record --pid "$core" --duration "$seconds" --rate 100 --nonblocking --threads --format raw -o "$out" > /dev/null 2>&1
