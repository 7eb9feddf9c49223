"""The README's Pipecat and LiveKit snippets run as printed, on the default engine (the
embedded voice), each as its own program."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def first_python_block(section: str) -> str:
    text = README.read_text()
    start = text.index(f"\n## {section}\n")
    match = re.compile(r"```python\n(.*?)```", re.S).search(text, start)
    assert match, f"no python block in {section!r}"
    return match.group(1)


@pytest.mark.parametrize(
    "section, printed", [("Pipecat", ""), ("LiveKit Agents", " s of speech")]
)
def test_readme_snippet_runs_as_printed(section, printed, tmp_path):
    snippet = tmp_path / "snippet.py"
    snippet.write_text(first_python_block(section))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VOICE_TTS_", "LIVEKIT_"))}
    done = subprocess.run(
        [sys.executable, str(snippet)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert printed in done.stdout
    assert "Traceback" not in done.stderr and "not verified" not in done.stderr
    assert "| ERROR" not in done.stderr
