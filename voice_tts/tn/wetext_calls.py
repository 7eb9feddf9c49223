"""The only place that calls wetext: one span at a time, cached, and never raising.

wetext raises on some inputs (`#1`, `## x` give AssertionError) and misreads free text, so it
only ever sees one semiotic span, and every failure turns into None for the caller's fallback.
The FSTs load once per process (about 0.25 s); `warm_up()` does it ahead of the first request.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

_lock = threading.Lock()
_normalizers: dict[str, Any] = {}


def _normalizer(lang: str) -> Any:
    with _lock:  # one load per language, however many threads ask first
        if lang not in _normalizers:
            from wetext import Normalizer

            _normalizers[lang] = Normalizer(lang=lang, operator="tn")
        return _normalizers[lang]


@lru_cache(maxsize=8192)
def normalize_span(text: str, lang: str) -> str | None:
    """wetext's reading of one span, or None when wetext fails or returns nothing."""
    try:
        spoken = _normalizer(lang).normalize(text)
    except Exception:  # noqa: BLE001 - any wetext failure falls back to hand rules (§2.2 safety net)
        return None
    return (
        None
        if not isinstance(spoken, str) or not spoken.strip()
        else (" ".join(spoken.split()) if lang == "en" else spoken.strip())
    )


def warm_up() -> None:
    """Load the FSTs, the word list and the other readers' data (Russian morphology, CLDR units,
    libphonenumber's metadata), and run one call per language, so the first real span pays nothing."""
    from voice_tts.tn import chinese, cldr
    from voice_tts.tn.word_list import known_words, only_noun
    from voice_tts.tn.locales import myriad, ru_morph

    normalize_span("1", "en")
    normalize_span("1", "zh")
    known_words(), only_noun("charger")
    ru_morph.noun("место")
    myriad.unit_words("zh")  # CLDR's units, as Chinese names them
    cldr.phone_groups("0312345678", "JP")
    chinese.count("$1")  # CLDR's currency symbols in Chinese
