"""URLs and email addresses read aloud (spec §2.2): no scheme, symbols spoken, digits by language."""

from __future__ import annotations

import re

from voice_tts.tn import chinese, english, locales

SCHEMES = ("https://", "http://", "www.")
# A URL longer than this speaks its host only (§3.9).
HOST_ONLY_AFTER = 64
TLDS = frozenset((
    "com", "org", "net", "io", "ai", "dev", "app", "edu", "gov", "cn", "uk", "de", "jp", "fr", "co",
    "us", "info", "xyz", "tv", "ly", "sh", "tech", "cloud", "site", "online", "club", "biz", "ca",
    "au", "in", "ru", "eu", "nl", "ch", "hk", "tw", "kr", "sg", "gg",
))
_SYMBOLS = {
    "en": {".": "dot", "/": "slash", "@": "at", "?": "question mark", "=": "equals", "&": "ampersand",
           "-": "dash", "_": "underscore", ":": "colon", "#": "hash", "%": "percent", "~": "tilde",
           "+": "plus"},
    "zh": {".": "点", "/": "斜杠", "@": "艾特", "?": "问号", "=": "等于", "&": "和", "-": "杠",
           "_": "下划线", ":": "冒号", "#": "井号", "%": "百分号", "~": "波浪号", "+": "加"},
}
_PIECE = re.compile(r"\d+|[^\W\d_]+|.", re.UNICODE | re.DOTALL)
_PATH = r"(?:/[\w.~%+=&?#-]*)*"  # 'example.com/docs/a-1', 'x@y.com/123'
_DOMAIN = re.compile(r"(?P<host>[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)" + _PATH)
_EMAIL = re.compile(r"[\w.+&'-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+" + _PATH)


def is_domain(word: str) -> bool:
    m = _DOMAIN.fullmatch(word)
    return m is not None and m.group("host").rsplit(".", 1)[1].lower() in TLDS and any(
        c.isalpha() for c in m.group("host")
    )


def is_email(word: str) -> bool:
    return _EMAIL.fullmatch(word) is not None


def strip_scheme(url: str) -> str:
    lowered = url.lower()
    for scheme in ("https://", "http://"):
        if lowered.startswith(scheme):
            return url[len(scheme):]
    return url


def host(url: str) -> str:
    return re.split(r"[/?#]", strip_scheme(url), maxsplit=1)[0]


def speak(address: str, lang: str) -> str:
    """'example.com/docs?id=3' -> 'example dot com slash docs question mark id equals three'."""
    body = strip_scheme(address).rstrip("/")
    if len(address) > HOST_ONLY_AFTER:
        body = host(address)
    locale = locales.rules(lang) if lang in locales.MODEL_LANGUAGES else None
    symbols = locale.ADDRESS_SYMBOLS if locale is not None else _SYMBOLS[lang]
    words = []
    for piece in _PIECE.findall(body):
        if piece.isdecimal():
            if locale is not None:
                words.append(locale.cardinal(int(piece)) if len(piece) <= 2 else locale.digits(piece))
            elif lang == "zh":
                words.append(chinese.digits(piece))
            else:
                words.append(english.cardinal(int(piece)) if len(piece) <= 2 else english.digits(piece))
        elif piece.isalnum():
            words.append("w w w" if lang == "en" and piece.lower() == "www" else piece)  # spelled, as said
        elif piece in symbols:
            words.append(symbols[piece])
    return " ".join(words)
