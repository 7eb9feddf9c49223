"""NeMo-text-processing as a reference for `tn_differential.py`: reads a JSON batch on stdin, writes
NeMo's readings as JSON on stdout.

It runs in a virtual environment of its own (`nemo_text_processing` and `pynini` there), never in
the project's: the project neither imports nor installs NeMo. The batch is `{"lang": "de",
"texts": [...], "cache_dir": "..."}`; the answer is one entry per text: a list with NeMo's one
reading where its grammar is deterministic, or the readings its non-deterministic grammar gives
(Russian has only that one) with its best first: the verbalization of its lowest-weight tagging
(NeMo returns its options as an unordered set; the differential compares ours with the first), or
`{"error": "..."}` where NeMo raised. Compiled grammars (FAR files)
are cached in `cache_dir`, since compiling one language takes minutes.

    /work/nemo-venv/bin/python bench/tn_nemo_oracle.py < batch.json > readings.json
"""

from __future__ import annotations

import json
import sys

# Languages whose NeMo TN grammar has no deterministic mode: every reading is returned.
NON_DETERMINISTIC = frozenset({"ru"})
# How many tagged options of a non-deterministic grammar to expand per text.
N_TAGGED = 200


def main() -> int:
    batch = json.load(sys.stdin)
    lang, cache_dir = batch["lang"], batch.get("cache_dir")
    if lang in NON_DETERMINISTIC:
        import pynini
        from nemo_text_processing.text_normalization.data_loader_utils import pre_process
        from nemo_text_processing.text_normalization.normalize_with_audio import NormalizerWithAudio

        normalizer = NormalizerWithAudio(input_case="cased", lang=lang, cache_dir=cache_dir)

        def best(text: str) -> str | None:
            """What `normalize_non_deterministic` puts first before it makes a set of its list."""
            tagged = normalizer._get_tagged_text(pynini.escape(pre_process(text).strip()), 1)
            verbalized: list[str] = []
            for option in tagged:
                normalizer._verbalize(option, verbalized, 1)
            return verbalized[0] if verbalized else None

        def readings(text: str) -> list[str]:
            options = sorted(normalizer.normalize(text, n_tagged=N_TAGGED, punct_post_process=False))
            first = best(text)
            return ([first] if first else []) + [o for o in options if o != first]
    else:
        from nemo_text_processing.text_normalization.normalize import Normalizer

        normalizer = Normalizer(input_case="cased", lang=lang, cache_dir=cache_dir)

        def readings(text: str) -> list[str]:
            return [normalizer.normalize(text, punct_post_process=False)]

    out = []
    for text in batch["texts"]:
        try:
            out.append(readings(text))
        except Exception as exc:  # noqa: BLE001  (reported per text, the batch goes on)
            out.append({"error": f"{type(exc).__name__}: {str(exc)[:200]}"})
    json.dump(out, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
