"""bench/tn_code_size.py counts what a joined line or a longer comment cannot hide."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import tn_code_size  # noqa: E402

SPLIT = "if a:\n    return b\nreturn c  # why\n"
JOINED = "return b if a else c  # why, at greater length" + "." * 80 + "\n"


def test_a_joined_statement_keeps_its_tokens_and_shows_its_length() -> None:
    split, joined = tn_code_size.measure([SPLIT]), tn_code_size.measure([JOINED])
    assert (split["lines"], joined["lines"]) == (3, 1)
    # 'if a : return b return c', 'return b if a else c': joining saves a token where it saves two lines
    assert (split["code_tokens"], joined["code_tokens"]) == (7, 6)
    assert joined["comment_chars"] > split["comment_chars"] == len("# why")
    assert (split["lines_over_120"], joined["lines_over_120"]) == (0, 1)


def test_the_package_at_head_is_measured_from_git() -> None:
    size = tn_code_size.measure(tn_code_size.sources_at("HEAD"))
    assert size["lines"] > 1000 and size["code_tokens"] > size["lines"]
