#!/bin/bash
# The wheels bench/run_on_device.sh installs on the GPU machine, which has Python 3.12, torch, numpy,
# matplotlib, tqdm, regex, prometheus-client, anyio, click, h11 and pytest, and no package index:
#   .whl_engine  pydantic (and its parts), pytest-asyncio, py-spy, platformdirs, soxr (the model
#                package resamples reference audio): every stage;
#   .whl_server  what `voice-tts serve` and `voice-tts bench` import beyond that (the server, its
#                text normalization and the CLDR, libphonenumber and morphology data it reads, the
#                bench's client; httpx for bench/first_audio.py): stages "server" and "firstaudio", with .whl_engine. Not PyAV
#                (36 MB): only the speech endpoint's compressed formats load it.
# The versions are the ones the tests here run with. Run from the repository root, where both
# folders are git-ignored; carry them (64 MiB in all with the rest of the call). WHEEL_PYTHON (default
# 3.12, the GPU machine's) fetches them for another Python, e.g. to run a stage on a CPU machine.
set -euo pipefail
download() {
  local target=$1; shift
  rm -rf "$target"; mkdir -p "$target"
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version "${WHEEL_PYTHON:-3.12}" --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d "$target" "$@"
}
download .whl_engine pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 typing-inspection==0.4.5 \
  pytest-asyncio==1.5.0 py-spy==0.4.3 platformdirs==4.14.9 soxr==1.0.0
download .whl_server websockets==17.4 uvicorn==0.55.0 starlette==1.10.0 \
  wetext==0.1.8 kaldifst==1.8.3 contractions==0.1.73 textsearch==0.0.24 anyascii==0.3.3 pyahocorasick==2.3.1 \
  english-words==2.0.2 lemminflect==0.2.3 soundfile==0.13.1 cffi==2.1.1 pycparser==3.12 \
  unicode-rbnf==2.4.1 babel==2.18.0 phonenumbers==9.0.43 pymorphy3==2.0.6 pymorphy3-dicts-ru==2.4.417150.4580142 \
  num2words==0.5.14 dawg2-python==0.9.0 setuptools==80.9.0 httpx==0.29.0 httpcore==1.0.9 certifi==2026.10.19.post1 idna==3.21 sniffio==1.3.1
du -sh .whl_engine .whl_server
