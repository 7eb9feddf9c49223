"""URLs and email addresses read aloud (spec §2.2): no scheme, symbols spoken, digits by language."""

from __future__ import annotations

import re

from voice_tts.tn import chinese, english, locales

SCHEMES = ("https://", "http://", "www.")
# A URL longer than this speaks its host only (§3.9).
HOST_ONLY_AFTER = 64
# Top-level domains that make a word an address (more in European text), an address's symbols read, the endings of a
# domain said as words (Korean 닷컴), files' types, the languages that spell other endings and those that read a number
# with a leading zero digit by digit ('user01' 영일): electronic.json.
_DATA = locales.data("electronic.json", "voice_tts.tn")
TLDS, EUROPEAN_TLDS, _SYMBOLS = frozenset(_DATA["tlds"]), frozenset(_DATA["european_tlds"]), _DATA["symbols"]
ENDING_WORDS, FILE_TYPES = _DATA["ending_words"], frozenset(_DATA["file_types"])
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


def ending(label: str, lang: str) -> str:
    """A domain's ending or a file's type: said as a word where the language has one (Korean 닷컴, English 'www' w w w),
    else spelled where the language spells them ('co.kr' 씨오 닷 케이알, 'pdf'), else as written."""
    spelled = lang in _DATA["spelled_endings"] and (len(label) <= 3 or label.lower() in FILE_TYPES)
    said = ENDING_WORDS.get(lang, {}).get(label.lower())
    return said or (locales.rules(lang).spelled(label) if spelled else label)


def speak(address: str, lang: str) -> str:
    """'example.com/docs?id=3' -> 'example dot com slash docs question mark id equals three': the domain's labels after
    its first (and 'www') read as `ending`s, the rest piece by piece."""
    body = host(address) if len(address) > HOST_ONLY_AFTER else strip_scheme(address).rstrip("/")
    own = lang in locales.MODEL_LANGUAGES  # a language of its own module, not English or Chinese
    reader = locales.rules(lang) if own else chinese if lang == "zh" else english
    symbols = reader.ADDRESS_SYMBOLS if own else _SYMBOLS[lang]
    zero_led_by_digit = lang in _DATA["zero_led_numbers_by_digit"]

    def pieces(text: str) -> str:
        words = []
        for piece in _PIECE.findall(text):
            # every digit, for exactness ('doe12' doe one two); up to two a number in an own module's
            if piece.isdecimal():
                whole = own and len(piece) <= 2 and not (zero_led_by_digit and piece[0] == "0")
                words.append(reader.cardinal(int(piece)) if whole else reader.digits(piece))
            elif piece.isalnum():
                words.append(ending(piece, lang) if piece.lower() == "www" else piece)  # spelled, as said
            elif piece in symbols:
                words.append(symbols[piece])
        return " ".join(words)

    name = host(body)
    local, at, domain = name.rpartition("@")  # an email's local part read piece by piece
    first, *rest = domain.split(".")
    labels = [pieces(first)]
    labels += [ending(label, lang) if label.isascii() and label.isalpha() else pieces(label) for label in rest]
    parts = (pieces(local + at), f" {symbols['.']} ".join(labels), pieces(body[len(name):]))
    return " ".join(part for part in parts if part)
