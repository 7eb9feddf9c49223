"""A Hugging Face Hub cache laid out by hand, as `huggingface_hub` leaves it after a download:
`models--{owner}--{name}/snapshots/{commit}/` holding the checkpoint's files (links, as the real
cache links them to its blobs) and `refs/{branch or tag}` holding the commit. With
`HF_HUB_CACHE` pointing at it and `HF_HUB_OFFLINE=1`, a Hub id resolves without a network."""

from __future__ import annotations

from pathlib import Path

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def lay_out_hub_cache(cache: Path, repo_id: str, checkpoint: Path, refs: tuple[str, ...] = ("main",)) -> Path:
    """Put `checkpoint` (golden/ left out) in `cache` as `repo_id` at COMMIT, named by `refs`;
    returns the snapshot folder."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    snapshot = repo / "snapshots" / COMMIT
    for path in checkpoint.rglob("*"):
        rel = path.relative_to(checkpoint)
        if rel.parts[0] == "golden" or path.is_dir():
            continue
        (snapshot / rel).parent.mkdir(parents=True, exist_ok=True)
        (snapshot / rel).symlink_to(path)
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    for ref in refs:
        (repo / "refs" / ref).write_text(COMMIT)
    return snapshot
