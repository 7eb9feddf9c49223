"""Which engine a server runs, loaded from the operator's options: shared by `voice-tts serve`
(engine/server/serve.py) and the Ray Serve deployment (engine/deploy/ray_serve.py)."""

from __future__ import annotations


class ServeError(Exception):
    """A failure the operator can act on (an unloadable model, an unreadable key file),
    said in one line."""


def load_engine(
    model: str | None,
    device: str | None,
    voices_dir: str | None = None,
    max_streams: int | None = None,
    max_context: int | None = None,
    revision: str | None = None,
    **engine_options,
):
    """The engine a server runs: the Qwen3-TTS checkpoint `model` (a folder or a Hub id at
    `revision`), else the embedded voice. `max_streams`: streams served at once (None: the
    engine's default); `max_context`: a Qwen3 stream's talker rows (None: the engine's default);
    `engine_options`: further `Engine.from_pretrained` options of a --model
    (`ServerSettings.engine_options`)."""
    from engine import Engine

    check_context_option(model, max_context)
    if model is None and engine_options:
        raise ServeError(f"{', '.join(engine_options)} set a Qwen3-TTS model's engine: it needs --model")
    if model is None:
        if revision is not None:
            raise ServeError("--revision names a revision of a Hub --model: it needs --model")
        return Engine.embedded() if max_streams is None else Engine.embedded(capacity=max_streams)
    given = {"voices_dir": voices_dir, "max_streams": max_streams, "max_context": max_context, "revision": revision}
    options = {name: value for name, value in given.items() if value is not None} | engine_options
    try:
        return Engine.from_pretrained(model, device=device, **options)
    except Exception as exc:
        raise ServeError(f"cannot load the model from {model}: {exc}") from exc


def check_context_option(model: str | None, max_context: int | None) -> None:
    if model is None and max_context is not None:
        raise ServeError("--max-context sets a Qwen3-TTS model's rows per stream: it needs --model")
