"""What an operator can set on the engine server, and how: every `ServerSettings` field is a
`voice-tts serve` flag (`--ws-idle-timeout-s 300`) and an environment variable
(`VOICE_TTS_WS_IDLE_TIMEOUT_S=300`), both made here from the model's fields, so a new field
is reachable from the command line the moment it exists. A flag wins over the variable, the
variable over the default; each value is checked by the field's own rules."""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

ENV_PREFIX = "VOICE_TTS_"
# The groups of `voice-tts serve --help`, in order.
GROUPS = {
    "server": "server",
    "connections": "connections and HTTP requests",
    "clients": "WebSocket clients",
    "turns": "paused and resumed turns",
    "voices": "cloned voices",
    "benchmarks": "benchmarks (not for serving users)",
}

# ServerSettings fields that are engine options (`Engine.from_pretrained` keywords of a --model,
# `kv_cache_memory` through `kv_cache_option`).
ENGINE_FIELDS = ("cache_dir", "max_frames_per_text_token", "kv_cache_memory")
_BYTE_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "kib": 2**10, "mib": 2**20, "gib": 2**30}


def kv_cache_option(text: str) -> dict[str, Any]:
    """`--kv-cache-memory` as an engine option: "24GiB", "512MiB", "8e9" (bytes) -> memory_budget;
    "0.5" or "50%" (of the device memory free after the weights) -> memory_fraction. ValueError
    for anything else."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*(%|[kmg]i?b|b)?\s*", text.lower())
    if match is None:
        raise ValueError(f"{text!r} is neither a size (24GiB, 512MiB, bytes) nor a share of free memory (0.5, 50%)")
    number, unit = float(match[1]), match[2] or ""
    if unit == "%" or (not unit and number <= 1):
        fraction = number / 100 if unit == "%" else number
        if not 0 < fraction <= 1:
            raise ValueError(f"{text!r}: a share of free memory is in (0, 100%]")
        return {"memory_fraction": fraction}
    size = int(number * _BYTE_UNITS[unit])
    if size < 2**20:
        raise ValueError(f"{text!r}: at least 1 MiB")
    return {"memory_budget": size}


def _setting(default: Any, group: str, description: str, **rules: Any) -> Any:
    """A ServerSettings field with its help text and its group in `voice-tts serve --help`."""
    return Field(default=default, description=description, json_schema_extra={"group": group}, **rules)


class ServerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = _setting("127.0.0.1", "server", "address to listen on (0.0.0.0: every interface)")
    port: int = _setting(8000, "server", "port to listen on (0: any free port)", ge=0, le=65535)
    # None: no authentication (the default bind address is loopback-only).
    api_key: str | None = _setting(
        None, "server", "API key clients must send; every local user can read a command line: prefer --api-key-file"
    )
    # Concurrent streams (WebSocket turns and HTTP requests) before new ones are refused;
    # None takes the engine's own `capacity` when it has one.
    capacity: int | None = _setting(
        None, "server", "concurrent streams before new ones are refused; none: the engine's capacity", ge=1
    )
    # Text spoken once at startup so that /ready only answers 200 on a warm engine.
    warmup_text: str = _setting("Ready.", "server", "text spoken once at startup; /ready answers 200 after it")
    drain_timeout_s: float = _setting(
        30.0, "server", "on SIGTERM/SIGINT, how long running streams may take to finish before they are ended", ge=0
    )
    usage_log: str | None = _setting(None, "server", "append one JSON line per finished stream to this file")
    kv_cache_memory: str | None = _setting(
        None, "server",
        "memory of a --model's KV cache: a size (24GiB, 512MiB) or a share of the device memory free after the "
        "weights (0.6); a stream is admitted only where its longest turn's KV fits (else refused: capacity); "
        "none: 0.6 on a GPU, every stream at --max-context elsewhere",
    )
    phrase_cache_mb: float = _setting(
        0.0,
        "server",
        "MB of finished phrases each API worker keeps: a speech request or /v1/ws turn whose whole text "
        "and settings equal a recent one's is served from memory, without the engine (0: off)",
        ge=0,
    )
    cache_dir: str | None = _setting(
        None, "server",
        "folder for what a --model restart reuses (compiled kernels, the codec's convolution ways), so that it is "
        "ready sooner; none: the user's cache folder",
    )
    log_level: Literal["critical", "error", "warning", "info", "debug", "trace"] = _setting(
        "info", "server", "the server's log level"
    )
    # The OTEL_* variables apply as well (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT instead of this one).
    otlp_traces_endpoint: str | None = _setting(
        None, "server", "send one OpenTelemetry span per stream to this OTLP/HTTP collector (needs the tracing extra)"
    )

    max_connections: int = _setting(
        2048, "connections", "open connections (HTTP and WebSocket together); past it a new one gets 503", ge=1
    )
    header_timeout_s: float = _setting(
        10.0, "connections", "how long a connection may take to send a request's headers (then 408)", gt=0
    )
    body_timeout_s: float = _setting(10.0, "connections", "how long an HTTP request's body may take to arrive (then 408)", gt=0)
    max_request_bytes: int = _setting(
        1024 * 1024, "connections", "largest HTTP request body (a speech request may add a ref_audio recording up to max_voice_upload_bytes); a larger one gets 413 before it is read", ge=1024
    )
    ws_idle_timeout_s: float = _setting(
        120.0, "connections", "how long a WebSocket may stay open without a running turn (then closed with 4408)", gt=0
    )

    # Contexts: several turns on one socket, each addressed by its `context_id`.
    max_contexts_per_socket: int = _setting(
        64, "clients", "contexts one WebSocket may have open at once; past it a start gets too_many_contexts", ge=1
    )
    context_idle_timeout_s: float = _setting(
        30.0, "clients", "a context whose input is open and whose client sent it nothing this long ends (done reason context_idle_timeout)", gt=0
    )

    max_message_bytes: int = _setting(
        64 * 1024, "clients", "largest WebSocket message the server reads; a larger one gets message_too_large", ge=1024
    )
    max_turn_text_chars: int = _setting(
        100_000, "clients", "text characters one turn (or one HTTP speech request) may carry in total", ge=1
    )
    # A client sending faster is read more slowly (nothing is dropped).
    max_messages_per_s: float = _setting(
        200.0, "clients", "messages one WebSocket may send a second on average, per turn it carries (faster ones are read more slowly)", gt=0
    )
    message_burst: int = _setting(500, "clients", "messages one WebSocket may send at once, per turn it carries", ge=1)
    # The slot of a dropped client is freed (close 1008 `slow_consumer`).
    max_client_lag_s: float = _setting(
        5.0, "clients", "a client this far behind real time in taking a turn's audio (or this long without taking a message) is dropped", gt=0
    )
    # With the lag above, it bounds the audio queued for a client that does not read.
    ws_send_buffer_bytes: int = _setting(
        64 * 1024, "clients", "kernel send buffer of a WebSocket, and as much again queued in the server", ge=4096
    )

    pause_timeout_s: float = _setting(
        30.0, "turns", "a paused turn not resumed within this ends itself (reason pause_timeout)", gt=0
    )
    pause_lookahead_s: float = _setting(
        2.0, "turns", "audio a paused turn reads ahead from the engine before the engine stream waits", gt=0
    )
    resume_timeout_s: float = _setting(
        30.0, "turns", "how long a resumable turn whose socket dropped waits for reconnect (then it ends)", gt=0
    )
    # Unacknowledged audio beyond it is forgotten, and a turn without a socket waits once it has
    # this much unsent.
    resume_buffer_s: float = _setting(30.0, "turns", "audio a resumable turn keeps for a reconnect", gt=0)

    max_voice_upload_bytes: int = _setting(
        16 * 1024 * 1024, "voices", "largest voice upload (POST /v1/voices); a larger one gets 413 before it is read", ge=1024
    )
    # The model clones from far less (as the official code: about 0.05 s), but a voice made from
    # under a second of speech rarely sounds like its speaker; 0 takes what the model takes.
    min_voice_reference_s: float = _setting(
        1.0, "voices", "shortest reference recording an upload may carry (400 invalid_audio below it)", ge=0
    )
    # Inline references (vLLM-Omni's `ref_audio`, engine/server/references.py): data URLs always;
    # URLs and local files only where an operator allows them.
    reference_url_hosts: str | None = _setting(
        None, "voices", "hosts (comma-separated) whose http(s) URLs a request's ref_audio may name; none: URLs are refused"
    )
    reference_file_dir: str | None = _setting(
        None, "voices", "folder whose files a request's ref_audio may name as file:// URLs; none: files are refused"
    )
    reference_fetch_timeout_s: float = _setting(
        10.0, "voices", "how long fetching a ref_audio URL may take (then 400)", gt=0
    )
    max_inline_voices: int = _setting(
        32, "voices", "voices made from inline ref_audio kept for reuse; the oldest beyond are deleted", ge=1
    )

    # Random weights never emit EOS: their turns end at this guard, about four times longer than
    # real speech (about 4 frames per text token), so a benchmark sets about 4 to time turns as
    # long as real ones. A real checkpoint's turns end at EOS well before the default.
    max_frames_per_text_token: float = _setting(
        15.0, "benchmarks",
        "runaway guard of a --model turn: once its text has ended it stops after max(50, this x its text tokens) "
        "frames (reason frame_cap); about 4 makes a random-weight checkpoint's turns as long as real speech",
        gt=0,
    )

    # The folder where the API workers of one server (`--workers`) listen for one another's
    # reconnects: a reconnect that lands on a worker other than its turn's is relayed there.
    # None: one process, no relay. Set by engine/server/workers.py, not by an operator.
    resume_relay_dir: str | None = Field(default=None, exclude=True)

    @field_validator("kv_cache_memory")
    @classmethod
    def _kv_cache_memory_is_readable(cls, value: str | None) -> str | None:
        if value is not None:
            kv_cache_option(value)
        return value

    def engine_options(self) -> dict[str, Any]:
        """The engine options set away from their defaults (`ENGINE_FIELDS`), as keywords of
        `Engine.from_pretrained`."""
        options = {name: getattr(self, name) for name in ENGINE_FIELDS if name in self.model_fields_set}
        memory = options.pop("kv_cache_memory", None)
        return options | (kv_cache_option(memory) if memory is not None else {})

    @property
    def hard_frame_limit(self) -> int:
        """Frames above this are refused by the WebSocket layer itself (close 1009) before the
        server can read them; between `max_message_bytes` and this they get an `error` event."""
        return self.max_message_bytes * 16


# Command line and environment --------------------------------------------------------------


@dataclass(frozen=True)
class SettingOption:
    """One ServerSettings field as `voice-tts serve` takes it."""

    field: str
    flag: str
    env: str
    group: str
    help: str
    metavar: str


def _metavar(name: str, annotation: Any) -> str:
    if get_origin(annotation) is Literal:
        return "{" + ",".join(get_args(annotation)) + "}"
    if name.endswith("_bytes"):
        return "BYTES"
    if name.endswith("_per_s"):
        return "PER_SECOND"
    if name.endswith("_s"):
        return "SECONDS"
    return {int: "N", float: "NUMBER"}.get(next(t for t in (*get_args(annotation), annotation) if t is not type(None)), "TEXT")


# Fields the server sets for its own processes, never an operator.
SET_BY_THE_SERVER = frozenset({"resume_relay_dir"})
SETTING_OPTIONS = tuple(
    SettingOption(
        field=name,
        flag="--" + name.replace("_", "-"),
        env=ENV_PREFIX + name.upper(),
        group=info.json_schema_extra["group"],
        help=info.description,
        metavar=_metavar(name, info.annotation),
    )
    for name, info in ServerSettings.model_fields.items()
    if name not in SET_BY_THE_SERVER
)


class SettingError(ValueError):
    """A flag or environment variable with a value its field refuses; the message names both."""


def checked_value(field: str, text: str) -> Any:
    """`text` as the value of `field`, by the field's own rules; ValueError says why not."""
    try:
        return getattr(ServerSettings.model_validate({field: text}), field)
    except ValidationError as e:
        raise ValueError("; ".join(error["msg"] for error in e.errors())) from None


def add_setting_arguments(parser: argparse.ArgumentParser) -> dict[str, argparse._ArgumentGroup]:
    """One flag per ServerSettings field, in GROUPS; returns the argument groups by key so that
    the caller can put its own flags beside them. A flag left out stays None (see
    `settings_from`)."""
    groups = {key: parser.add_argument_group(title) for key, title in GROUPS.items()}
    defaults = ServerSettings()
    for option in SETTING_OPTIONS:

        def parse(text: str, field: str = option.field) -> Any:
            try:
                return checked_value(field, text)
            except ValueError as e:
                raise argparse.ArgumentTypeError(f"{text!r}: {e}") from None

        default = getattr(defaults, option.field)
        groups[option.group].add_argument(
            option.flag,
            dest=option.field,
            type=parse,
            metavar=option.metavar,
            help=f"{option.help} (default {'none' if default is None else default}; ${option.env})",
        )
    return groups


def settings_from(flags: argparse.Namespace, environ: Mapping[str, str]) -> ServerSettings:
    """The settings of `voice-tts serve`: each field from its flag, else its environment
    variable, else its default. Raises SettingError naming a bad variable."""
    values = {}
    for option in SETTING_OPTIONS:
        flagged = getattr(flags, option.field, None)
        if flagged is not None:
            values[option.field] = flagged
        elif option.env in environ:
            try:
                values[option.field] = checked_value(option.field, environ[option.env])
            except ValueError as e:
                raise SettingError(f"{option.env}={environ[option.env]!r}: {e}") from None
    return ServerSettings(**values)
