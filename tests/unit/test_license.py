"""The repository carries the Apache-2.0 text it declares, and a NOTICE that names every file
taken from elsewhere and every data set the tests and measurements read, with its license."""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# MD5 of https://www.apache.org/licenses/LICENSE-2.0.txt, the canonical text.
APACHE_2_0_MD5 = "3b83ef96387f14655fc854ddc3c6bd57"


def test_license_is_the_canonical_apache_2_0_text():
    assert hashlib.md5((REPO / "LICENSE").read_bytes()).hexdigest() == APACHE_2_0_MD5


def test_the_package_declares_its_license_and_ships_both_files():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE", "NOTICE"]


def notice() -> str:
    return (REPO / "NOTICE").read_text()


@pytest.mark.parametrize("path", sorted(str(p.relative_to(REPO)) for p in (REPO / "tests" / "data").iterdir()))
def test_every_data_file_in_the_repository_is_in_the_notice(path):
    assert f"\n{path}\n" in notice()


@pytest.mark.parametrize(
    "source, license_",
    [
        ("shared/tn/googletn_dev.jsonl", "Creative Commons Attribution 4.0 International"),
        ("shared/tn/multilingual/dev.jsonl", "NVIDIA CORPORATION & AFFILIATES. Apache License 2.0"),
        ("english-words 2.0.2", "MIT License"),
        ("lemminflect 0.2.3", "MIT License"),
        ("wetext 0.1.8", "Apache License 2.0"),
        ("espeakng-loader 0.2.4", "GNU General Public License, version 3"),
        ("Qwen3-TTS (github.com/QwenLM/Qwen3-TTS", "Apache License 2.0"),
    ],
)
def test_each_source_is_named_with_its_license(source, license_):
    text = notice()
    entry = text[text.index(source) :].split("\n\n")[0]
    assert license_ in " ".join(entry.split())


def test_every_pinned_dependency_that_brings_data_is_in_the_notice():
    """The pinned packages whose files voice-tts reads at run time (word lists, grammars,
    eSpeak NG) are each in the NOTICE with their version."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pins = [d.split(";")[0].strip() for d in project["dependencies"] + project["optional-dependencies"]["server"]]
    versions = dict(pin.partition("==")[::2] for pin in pins)
    for name in ("english-words", "lemminflect", "wetext", "espeakng-loader"):
        assert f"{name} {versions[name]}" in notice(), name
