"""Where cloned voices live: one folder per voice under a voices directory, made once, reused.

    <voices dir>/<id>/voice.json         id, name, mode, transcript, creation time, the consent it
                                         was given with (if any), the checkpoint kind it was made
                                         with, the reference's rate and length
    <voices dir>/<id>/prompt.safetensors x_vector [hidden] float32, ref_codes [frames, groups] int64

A voice is written into a hidden `.tmp-*` folder (files and folder fsynced) and renamed into
place in one step, so a crash while saving leaves no half-written voice: the next start finds
either the whole voice or nothing (and removes the leftover temporary folder). Removal renames
the folder out of the way first, for the same reason.

Voices made with another kind of checkpoint (another talker width or codebook count) are kept
on disk but not offered; asking for one says why.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import platformdirs
import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from engine.model.tts_model import Qwen3TTS
from engine.model.voice_clone import ClonePrompt, CloneMode

log = logging.getLogger(__name__)

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_META, _PROMPT = "voice.json", "prompt.safetensors"


def default_voices_dir() -> Path:
    """The user's data directory for voice-tts (e.g. ~/.local/share/voice-tts/voices)."""
    return Path(platformdirs.user_data_dir("voice-tts")) / "voices"


def voice_id(name: str) -> str:
    """A voice's id: its name, lower-cased, after checking it is a usable name."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ValueError(
            f"voice name {name!r} must be 1-64 characters of letters, digits, '_', '-' or '.', starting with a letter or digit"
        )
    return name.lower()


@dataclass(frozen=True)
class StoredVoice:
    id: str
    name: str
    mode: CloneMode
    created_at: int
    prompt: ClonePrompt
    consent: str | None = None  # the consent recording's id the upload named, if any

    def summary(self) -> dict:
        return {"id": self.id, "name": self.name, "mode": self.mode, "created_at": self.created_at}


class VoiceStore:
    """The cloned voices of one voices directory that one checkpoint can speak."""

    def __init__(self, root: Path, model: Qwen3TTS, reserved: set[str] = frozenset()) -> None:
        self.root = Path(root)
        self._model = model
        self._kind = _checkpoint_kind(model)
        self._reserved = {name.lower() for name in reserved}
        self._voices: dict[str, StoredVoice] = {}
        self._foreign: dict[str, str] = {}  # id -> why this checkpoint cannot speak it
        self._load()

    # ---- reading -----------------------------------------------------------------------------

    def __contains__(self, voice: str) -> bool:
        return voice.lower() in self._voices

    def get(self, voice: str) -> StoredVoice:
        key = voice.lower()
        if key in self._voices:
            return self._voices[key]
        if key in self._foreign:
            raise ValueError(f"voice {voice!r} cannot be spoken by this checkpoint: {self._foreign[key]}")
        raise KeyError(voice)

    @property
    def unavailable(self) -> dict[str, str]:
        """Stored voices this checkpoint cannot speak: id -> why."""
        return dict(self._foreign)

    def list(self) -> list[StoredVoice]:
        return sorted(self._voices.values(), key=lambda v: (v.created_at, v.id))

    def _load(self) -> None:
        if not self.root.is_dir():
            return
        for folder in sorted(self.root.iterdir()):
            if folder.name.startswith("."):
                if folder.name.startswith((".tmp-", ".trash-")):
                    shutil.rmtree(folder, ignore_errors=True)  # an interrupted save or removal
                continue
            try:
                self._load_one(folder)
            except (OSError, ValueError, KeyError, TypeError, SafetensorError) as e:
                log.warning("skipping voice folder %s: %s", folder, e)

    def _load_one(self, folder: Path) -> None:
        meta = json.loads((folder / _META).read_text(encoding="utf-8"))
        if meta["id"] != folder.name:
            raise ValueError(f"voice.json names id {meta['id']!r}")
        if meta["checkpoint"] != self._kind:
            self._foreign[meta["id"]] = f"it was made with a {_describe(meta['checkpoint'])} checkpoint, this is {_describe(self._kind)}"
            return
        tensors = load_file(folder / _PROMPT)
        mode = meta["mode"]
        ref_text = meta.get("ref_text")
        prompt = ClonePrompt(
            x_vector=tensors["x_vector"].to(self._model.dtype),
            ref_codes=tensors["ref_codes"].to(torch.int64),
            mode=mode,
            ref_text=ref_text,
            ref_ids=tuple(self._model.tokenizer.reference_ids(ref_text)) if mode == "icl" else (),
        )
        self._voices[meta["id"]] = StoredVoice(
            meta["id"], meta["name"], mode, int(meta["created_at"]), prompt, meta.get("consent")
        )

    # ---- changing ----------------------------------------------------------------------------

    def check_new(self, name: str) -> str:
        """The id a new voice of this name would get; raises ValueError if it cannot be added."""
        key = voice_id(name)
        if key in self._reserved:
            raise ValueError(f"{name!r} is the name of a preset voice")
        if key in self._voices or key in self._foreign or (self.root / key).exists():
            raise ValueError(f"a voice named {name!r} already exists")
        return key

    def add(self, name: str, prompt: ClonePrompt, reference: dict, consent: str | None = None) -> StoredVoice:
        """Save a new voice atomically (`consent`: the consent recording's id its upload named).
        Raises ValueError (bad or duplicate name) or OSError (the voices directory cannot be written)."""
        key = self.check_new(name)
        voice = StoredVoice(key, name, prompt.mode, int(time.time()), prompt, consent)
        meta = {
            **voice.summary(), "ref_text": prompt.ref_text, "consent": consent, "checkpoint": self._kind,
            "reference": reference,
        }
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            temporary = self.root / f".tmp-{key}-{uuid.uuid4().hex[:8]}"
            temporary.mkdir()
        except OSError as e:
            raise OSError(f"voices directory {self.root} is not writable ({e.strerror or e})") from e
        try:
            tensors = {"x_vector": prompt.x_vector.float().contiguous(), "ref_codes": prompt.ref_codes.contiguous()}
            save_file(tensors, str(temporary / _PROMPT))
            (temporary / _META).write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")
            for file in (temporary / _PROMPT, temporary / _META, temporary):
                _fsync(file)
            os.rename(temporary, self.root / key)
            _fsync(self.root)
        except BaseException as e:
            shutil.rmtree(temporary, ignore_errors=True)
            if isinstance(e, OSError):
                raise OSError(f"could not save voice {name!r} in {self.root} ({e.strerror or e})") from e
            raise
        self._voices[key] = voice
        return voice

    def remove(self, voice: str) -> StoredVoice | None:
        """Delete a cloned voice; None when there is no such voice."""
        key = voice.lower()
        stored = self._voices.get(key)
        if stored is None and key not in self._foreign:
            return None
        trash = self.root / f".trash-{key}-{uuid.uuid4().hex[:8]}"
        try:
            os.rename(self.root / key, trash)
        except OSError as e:
            raise OSError(f"could not delete voice {voice!r} from {self.root} ({e.strerror or e})") from e
        shutil.rmtree(trash, ignore_errors=True)
        self._voices.pop(key, None)
        self._foreign.pop(key, None)
        return stored


def _checkpoint_kind(model: Qwen3TTS) -> dict:
    c = model.config
    return {
        "tts_model_type": c.tts_model_type,
        "hidden_size": c.talker.layers.hidden_size,
        "num_code_groups": c.talker.num_code_groups,
    }


def _describe(kind: dict) -> str:
    return f"{kind.get('tts_model_type')} (hidden {kind.get('hidden_size')})"


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
