"""Which way each codec convolution runs, remembered across starts.

Choosing (`CodecDecoder.choose_convolutions`) times every convolution every way for every decode
shape before its graph is captured: most of a GPU engine's start-up (on an H200 at 1,024
streams, a first start captures in 92 s, a restart that takes the remembered ways in 20 s). The
answer depends only on the GPU, the libraries and the codec's shapes, so it is kept in a file
named by those, in the cache folder, and the next start with the same key takes it instead of
timing. A missing, unreadable or foreign file means choosing again; a file
that cannot be written is only logged. Every way gives the same audio: a stale choice can cost
speed, never correctness.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import os
from pathlib import Path

import platformdirs
import torch

log = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("voice-tts"))


class ConvolutionChoices:
    """The file of one (GPU, libraries, codec) key: decode shape (batch, frames) -> convolution -> way."""

    def __init__(self, folder: Path, key: str) -> None:
        self.key = key
        self.path = folder / f"codec-convolutions-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"

    @classmethod
    def for_codec(cls, codec, folder: Path) -> ConvolutionChoices:
        key = {
            "device": torch.cuda.get_device_name(codec.device) if codec.device.type == "cuda" else str(codec.device),
            "torch": torch.__version__,
            "cudnn": torch.backends.cudnn.version(),
            "dtype": str(codec.dtype),
            "codec": dataclasses.asdict(codec.cfg),
        }
        return cls(folder, json.dumps(key, sort_keys=True))

    def load(self) -> dict[tuple[int, int], dict[str, str]]:
        try:
            data = json.loads(self.path.read_text())
            if data["key"] != self.key:
                return {}
            return {
                (int(batch), int(frames)): dict(methods)
                for shape, methods in data["shapes"].items()
                for batch, frames in [shape.split("x")]
            }
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("ignoring the codec's remembered convolution ways in %s: %s", self.path, exc)
            return {}

    def save(self, choices: dict[tuple[int, int], dict[str, str]]) -> None:
        data = {"key": self.key, "shapes": {f"{b}x{f}": methods for (b, f), methods in sorted(choices.items())}}
        temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(data, indent=1))
            temporary.replace(self.path)  # whole or not at all, even with engines starting side by side
        except OSError as exc:
            log.warning("cannot remember the codec's convolution ways in %s: %s", self.path, exc)
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
