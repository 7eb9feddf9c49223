"""Rebuild the held-out half of NeMo-text-processing's text-normalization test cases for de, fr,
es, it, pt, ru, ja, ko, zh and en: every case of the source's test files that is not in the development half
(`shared/tn/multilingual/dev.jsonl`), in the same format, so `score.py --data` scores it.

The source is a git clone of github.com/NVIDIA/NeMo-text-processing (bare or not) at commit
1f1263579fe57ba7ed783cad3dddee710fcc5064, the commit the development half was taken from. As
there, German and Russian files store `spoken~written` and are swapped; a line `written~spoken~spoken`
lists several accepted readings; lines of one file with the same input are merged
(their readings in `spoken_all`); `normalize_with_audio` files (Russian's
`cardinal_normalize_with_audio` too) give the input after a `~` and its
readings on the lines below.

Run: PYTHONPATH=$PWD .venv/bin/python bench/tn_nemo_heldout.py --repo PATH --out heldout.jsonl
     PYTHONPATH=$PWD .venv/bin/python ../shared/tn/multilingual/score.py --data heldout.jsonl \
         --lang de fr es it pt ru ja ko zh en
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
from pathlib import Path

COMMIT = "1f1263579fe57ba7ed783cad3dddee710fcc5064"
# shared/ beside the repository, or VOICE_TTS_SHARED (as tests/conftest.py finds it)
SHARED = Path(os.environ.get("VOICE_TTS_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
DEV = SHARED / "tn" / "multilingual" / "dev.jsonl"
LANGS = ("de", "fr", "es", "it", "pt", "ru", "ja", "ko", "zh", "en")
SPOKEN_FIRST = ("de", "ru")  # languages whose files store spoken~written


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def pairs(lang: str, cls: str, text: str) -> list[tuple[str, str]]:
    """(written, spoken) pairs of one test file."""
    if cls.endswith("normalize_with_audio"):
        found, written = [], None
        for line in text.splitlines():
            if line.startswith("~"):
                written = line[1:]
            elif written is not None and line:
                found.append((written, line))
        return found
    found = []
    for line in text.splitlines():
        if "~" in line:  # written~spoken[~another accepted reading...]
            written, *spoken = line.split("~")
            found += [(spoken[0], written)] if lang in SPOKEN_FIRST else [(written, s) for s in spoken]
    return found


def held_out(repo: Path, dev: Path) -> list[dict]:
    in_dev = {(c["lang"], c["written"]) for c in map(json.loads, dev.read_text(encoding="utf-8").splitlines())}
    # one case per file and input, as in the development half (the same input in two files is two cases)
    cases: dict[tuple[str, str, str], dict] = {}
    for path in git(repo, "ls-tree", "-r", "--name-only", COMMIT).split():
        for lang in LANGS:
            prefix = f"tests/nemo_text_processing/{lang}/data_text_normalization/test_cases_"
            if not path.startswith(prefix):
                continue
            cls = path[len(prefix):].removesuffix(".txt")
            for written, spoken in pairs(lang, cls, git(repo, "show", f"{COMMIT}:{path}")):
                if (lang, written) in in_dev:
                    continue
                case = cases.setdefault((lang, cls, written), {"lang": lang, "written": written, "spoken": spoken,
                                                               "spoken_all": [], "class": cls})
                if spoken not in case["spoken_all"]:
                    case["spoken_all"].append(spoken)
    return list(cases.values())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, required=True, help="a clone of NVIDIA/NeMo-text-processing")
    ap.add_argument("--dev", type=Path, default=DEV)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    cases = held_out(args.repo, args.dev)
    args.out.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
    print({lang: sum(c["lang"] == lang for c in cases) for lang in LANGS})


if __name__ == "__main__":
    main()
