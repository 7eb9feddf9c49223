"""Where a checkpoint lives: a local folder, or a Hugging Face Hub repository id.

`Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice` is how everyone who runs Qwen3-TTS elsewhere (the official
package, faster-qwen3-tts, vLLM-Omni) names a model, so `load_model`, `Engine.from_pretrained` and
`voice-tts serve --model` take it too. An id is resolved by `huggingface_hub.snapshot_download`,
with everything that implies: its cache (`HF_HUB_CACHE`, `HF_HOME`), `HF_TOKEN` for gated or
private repositories, `HF_HUB_OFFLINE=1` to use the cache alone, and its progress bars while
files download. Only the files the loader reads are fetched.
"""

from __future__ import annotations

import re
from pathlib import Path

from engine.model.errors import CheckpointError

# owner/name, as the Hub spells repository ids; a path that exists locally always wins.
HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
# The configs, tokenizer files and weights (the codec's under speech_tokenizer/ too); a
# repository's README, images and other extras stay on the Hub.
CHECKPOINT_FILES = ["*.json", "*.txt", "*.safetensors"]


def checkpoint_folder(model: str | Path, revision: str | None = None) -> Path:
    """The local folder of `model`: itself when it is a folder, else the Hub snapshot of the
    repository id it names at `revision` (a branch, tag or commit; None: main), downloaded into
    the Hub cache unless it is there. Raises CheckpointError naming the model."""
    path = Path(model).expanduser()
    if path.is_dir():
        if revision is not None:
            raise CheckpointError(f"{model}: a revision ({revision}) names a Hub revision, but this is a local folder")
        return path
    if isinstance(model, Path) or not HUB_ID.fullmatch(model):
        raise CheckpointError(f"{model}: checkpoint folder does not exist (nor is it a Hub id like Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice)")
    return Path(_download(model, revision))


def _download(repo_id: str, revision: str | None) -> str:
    try:
        from huggingface_hub import constants, snapshot_download
        from huggingface_hub.errors import (
            GatedRepoError,
            HfHubHTTPError,
            LocalEntryNotFoundError,
            RepositoryNotFoundError,
            RevisionNotFoundError,
        )
    except ImportError as e:
        raise CheckpointError(
            f"{repo_id}: not a local folder, and loading a Hub id needs huggingface_hub (pip install 'voice-tts[engine]')"
        ) from e
    named = repo_id if revision is None else f"{repo_id} (revision {revision})"
    try:
        return snapshot_download(repo_id, revision=revision, allow_patterns=CHECKPOINT_FILES)
    except LocalEntryNotFoundError as e:
        why = "HF_HUB_OFFLINE is set" if constants.HF_HUB_OFFLINE else "the Hub could not be reached"
        raise CheckpointError(
            f"{named}: not in the Hugging Face cache ({constants.HF_HUB_CACHE}) and {why}, nor a local folder; "
            f"download it once online (hf download {repo_id}) or give a local checkpoint folder"
        ) from e
    except GatedRepoError as e:
        raise CheckpointError(f"{named}: a gated repository; accept its terms on huggingface.co and set HF_TOKEN") from e
    except RevisionNotFoundError as e:
        raise CheckpointError(f"{named}: the repository has no such revision") from e
    except RepositoryNotFoundError as e:
        raise CheckpointError(
            f"{named}: no such repository on the Hugging Face Hub (a private one needs HF_TOKEN), nor a local folder"
        ) from e
    except (HfHubHTTPError, OSError) as e:
        raise CheckpointError(f"{named}: download from the Hugging Face Hub failed: {e}") from e
