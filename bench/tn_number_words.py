"""Number words from CLDR: unicode-rbnf (pure Python) against ICU's RuleBasedNumberFormat
(pyicu-wheels, icu4py): speed per number and install size, for the choice in voice_tts/tn/cldr.py.

Each engine spells the same 2,000 numbers (0-999,999,999, drawn with a fixed seed) as cardinals
in de, fr, es, it, pt and ru, once cold (every number new) and once more; the figure is the
median time per number of the cold pass. Run it in each environment that has the engine:

    PYTHONPATH=$PWD .venv/bin/python bench/tn_number_words.py [--json bench/results/tn_number_words.json]
    /path/to/icu-venv/bin/python bench/tn_number_words.py --engine icu4py

An engine that is not installed is reported as such.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import random
import statistics
import time
from pathlib import Path

LANGUAGES = ("de", "fr", "es", "it", "pt", "ru")


def _numbers(seed: int = 0, count: int = 2000) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(10 ** rng.randint(1, 9)) for _ in range(count)]


def _speller(engine: str, lang: str):
    if engine == "unicode-rbnf":
        from unicode_rbnf import RbnfEngine

        rbnf = RbnfEngine.for_language(lang)
        return lambda n: rbnf.format_number(n, ruleset_names=["spellout-numbering"]).text
    if engine == "pyicu-wheels":
        import icu

        fmt = icu.RuleBasedNumberFormat(icu.URBNFRuleSetTag.SPELLOUT, icu.Locale(lang))
        return fmt.format
    if engine == "icu4py":
        from icu4py.locale import Locale
        from icu4py.messageformat import MessageFormat

        fmt = MessageFormat("{0, spellout}", Locale(lang))
        return lambda n: fmt.format({"0": n})
    raise ValueError(engine)


def _install_size(distribution: str) -> int:
    """Bytes of the distribution's files, its bundled shared libraries (`<name>.libs`) included."""
    dist = importlib.metadata.distribution(distribution)
    root = Path(dist.locate_file(""))
    paths = {(root / f).resolve() for f in dist.files or ()}
    for libs in root.glob(f"{distribution.replace('-', '_')}.libs"):
        paths |= {p.resolve() for p in libs.rglob("*")}
    return sum(p.stat().st_size for p in paths if p.is_file())


def measure(engine: str, distribution: str) -> dict:
    try:
        size = _install_size(distribution)
    except importlib.metadata.PackageNotFoundError:
        return {"engine": engine, "installed": False}
    per_number = []
    sample = {}
    start = time.perf_counter()
    spellers = {lang: _speller(engine, lang) for lang in LANGUAGES}
    load_s = time.perf_counter() - start
    for lang, spell in spellers.items():
        for n in _numbers():
            t = time.perf_counter()
            spell(n)
            per_number.append(time.perf_counter() - t)
        sample[lang] = spell(1989)
    return {
        "engine": engine, "installed": True, "install_mb": round(size / 2**20, 1),
        "load_6_languages_ms": round(load_s * 1000, 1),
        "median_us_per_number": round(statistics.median(per_number) * 1e6, 1),
        "p99_us_per_number": round(sorted(per_number)[int(len(per_number) * 0.99)] * 1e6, 1),
        "sample_1989": sample,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", nargs="+", default=["unicode-rbnf", "pyicu-wheels", "icu4py"])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    results = [measure(engine, engine) for engine in args.engine]
    for r in results:
        print(json.dumps(r, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
