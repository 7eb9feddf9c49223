"""`voice_tts` must import on a machine without torch, pipecat or livekit: agent processes that
talk to a co-located server never load the engine, and each framework adapter loads only its own
framework."""

import subprocess
import sys

import pytest

CORE_MODULES = [
    "voice_tts",
    "voice_tts.protocol",
    "voice_tts.tn",
    "voice_tts.progress",
    "voice_tts.turn_text",
    "voice_tts.request",
    "voice_tts.stream_output",
    "voice_tts.markup",
    "voice_tts.segmented_stream",
    "voice_tts.audio",
    "voice_tts.session",
    "voice_tts.client",
    "voice_tts.engines",
    "voice_tts.cli",
    "engine",
]


def _loaded_after_import(module: str) -> set[str]:
    code = (
        "import importlib, sys; importlib.import_module(sys.argv[1]); "
        "print(' '.join(sorted({name.split('.')[0] for name in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code, module], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_imports_no_engine_or_framework(module):
    loaded = _loaded_after_import(module)
    assert not loaded & {"torch", "pipecat", "livekit"}, f"{module} pulls in {sorted(loaded & {'torch', 'pipecat', 'livekit'})}"


def test_each_adapter_loads_only_its_own_framework():
    assert "livekit" not in _loaded_after_import("voice_tts.pipecat")
    assert "pipecat" not in _loaded_after_import("voice_tts.livekit")


# What `engine/` may import of `voice_tts` (ARCHITECTURE.md): the wire protocol and the pure
# text/audio modules. The server serves engine streams directly and never runs a `TTSSession`.
# `languages`: the one mapping of language names, which the text side needs to pick its rules.
# `speed`: the speaking-rate stage, an audio module beside `audio` that the server's streams pass through.
# `request` and `stream_output`: a stream's settings and its output pipeline, one value and one
# pipeline for every door (docs/architecture.md); `turn_text`: the pipeline's text side, with
# `markup` (expressive tags) in it and `segmented_stream` (a tagged turn's chain of streams).
ENGINE_MAY_IMPORT = {
    "voice_tts",
    "voice_tts.protocol",
    "voice_tts.progress",
    "voice_tts.turn_text",
    "voice_tts.request",
    "voice_tts.stream_output",
    "voice_tts.audio",
    "voice_tts.languages",
    "voice_tts.speed",
    "voice_tts.markup",
    "voice_tts.segmented_stream",
}


def test_engine_imports_only_the_core_modules_of_voice_tts():
    code = (
        "import importlib, sys; importlib.import_module('engine.server.app'); "
        "importlib.import_module('engine.server.serve'); "
        "print(' '.join(sorted(name for name in sys.modules if name.startswith('voice_tts'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = {name for name in out.stdout.split() if not name.startswith("voice_tts.tn")}
    assert loaded <= ENGINE_MAY_IMPORT, f"engine pulls in {sorted(loaded - ENGINE_MAY_IMPORT)}"


@pytest.mark.parametrize("module", ["voice_tts.cli", "voice_tts.client", "engine.server.app"])
def test_only_engine_deploy_loads_ray(module):
    assert "ray" not in _loaded_after_import(module)
