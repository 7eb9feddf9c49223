"""URLs and email addresses read aloud (spec §2.2): no scheme, symbols spoken, digits by language."""

from __future__ import annotations

import re

from voice_tts.tn import chinese, english, locales

SCHEMES = ("https://", "http://", "www.")
# A URL longer than this speaks its host only (§3.9).
HOST_ONLY_AFTER = 64
# Top-level domains that make a word an address (more in European text), an address's symbols read (electronic.json).
_DATA = locales.data("electronic.json", "voice_tts.tn")
TLDS, EUROPEAN_TLDS, _SYMBOLS = frozenset(_DATA["tlds"]), frozenset(_DATA["european_tlds"]), _DATA["symbols"]
_SCHEME = re.compile(r"^https?://", re.IGNORECASE | re.ASCII)
_PIECE = re.compile(r"\d+|[^\W\d_]+|.", re.UNICODE | re.DOTALL)
_PATH = r"(?:/[\w.~%+=&?#-]*)*"  # 'example.com/docs/a-1', 'x@y.com/123'
_DOMAIN = re.compile(r"(?P<host>[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)" + _PATH)
_EMAIL = re.compile(r"[\w.+&'-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+" + _PATH)


def is_domain(word: str) -> bool:
    m = _DOMAIN.fullmatch(word)
    return (
        m is not None
        and m.group("host").rsplit(".", 1)[1].lower() in TLDS
        and any(c.isalpha() for c in m.group("host"))
    )


def is_email(word: str) -> bool:
    return _EMAIL.fullmatch(word) is not None


def strip_scheme(url: str) -> str:
    return _SCHEME.sub("", url)


def host(url: str) -> str:
    return re.split(r"[/?#]", strip_scheme(url), maxsplit=1)[0]


def speak(address: str, lang: str) -> str:
    """'example.com/docs?id=3' -> 'example dot com slash docs question mark id equals three'."""
    body = host(address) if len(address) > HOST_ONLY_AFTER else strip_scheme(address).rstrip("/")
    own = lang in locales.MODEL_LANGUAGES  # a language of its own module, not English or Chinese
    reader = locales.rules(lang) if own else chinese if lang == "zh" else english
    symbols = reader.ADDRESS_SYMBOLS if own else _SYMBOLS[lang]
    words = []
    for piece in _PIECE.findall(body):
        if piece.isdecimal():  # every digit, for exactness ('doe12' doe one two); up to two a number in an own module's
            words.append(reader.cardinal(int(piece)) if own and len(piece) <= 2 else reader.digits(piece))
        elif piece.isalnum():
            words.append("w w w" if lang == "en" and piece.lower() == "www" else piece)  # spelled, as said
        elif piece in symbols:
            words.append(symbols[piece])
    return " ".join(words)
