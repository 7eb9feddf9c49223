"""Generated inputs for `tn_differential.py`: sentences in each language with one number of a given
class in them (cardinals across magnitudes, decimals, money, dates, times, measures, ordinals,
fractions, telephone numbers), written the way that language writes them.

Everything is drawn from one `random.Random(seed)`, so a seed gives the same inputs every run.
A case is `Case(lang, cls, frame, written)`: `frame` is the sentence with `{}` where the number
goes, so disagreements can be grouped by frame and by the shape of the number.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

CLASSES = ("cardinal", "decimal", "money", "date", "time", "measure", "ordinal", "fraction", "telephone")


@dataclass(frozen=True)
class Case:
    lang: str
    cls: str
    frame: str
    written: str

    @property
    def text(self) -> str:
        return self.frame.format(self.written)


def magnitude(rng: random.Random, top: int = 9) -> int:
    """An integer whose number of digits is uniform in 1..top (so millions are as common as units)."""
    digits = rng.randint(1, top)
    return rng.randint(10 ** (digits - 1) if digits > 1 else 0, 10**digits - 1)


def grouped(n: int, sep: str) -> str:
    """1234567 with `sep` between thousands ('1.234.567'); four digits stay ungrouped where the
    language writes them so ('2025', '4711')."""
    text = f"{n:,}".replace(",", "\x00")
    if n < 10_000 and sep in (" ", "\u00a0"):
        return str(n)
    return text.replace("\x00", sep)


@dataclass(frozen=True)
class Language:
    """How a language writes numbers, and the sentences they are put in, per class."""

    code: str
    thousands: str
    decimal: str
    frames: dict[str, tuple[str, ...]]
    money: Callable[[random.Random, "Language"], str]
    date: Callable[[random.Random], str]
    time: Callable[[random.Random], str]
    units: tuple[str, ...]
    ordinal: Callable[[random.Random], str]
    phone: Callable[[random.Random], str]
    # Whether a number fits its frame grammatically (class, frame, number); a draw that does not
    # is drawn again: Russian '5 книги' or 'к 82-е числу' are no sentences anyone writes.
    fits: Callable[[str, str, str], bool] = lambda cls, frame, written: True

    def cardinal(self, rng: random.Random) -> str:
        return grouped(magnitude(rng), self.thousands)

    def decimal_number(self, rng: random.Random, top: int = 6) -> str:
        whole = grouped(magnitude(rng, top), self.thousands)
        return f"{whole}{self.decimal}{rng.randint(0, 10 ** rng.randint(1, 3) - 1):0{rng.randint(1, 3)}d}"

    def amount(self, rng: random.Random) -> str:
        """A price: whole or with two decimals."""
        whole = grouped(magnitude(rng, 7), self.thousands)
        return whole if rng.random() < 0.5 else f"{whole}{self.decimal}{rng.randint(0, 99):02d}"

    def measure(self, rng: random.Random) -> str:
        unit = rng.choice(self.units)
        number = self.decimal_number(rng, 3) if rng.random() < 0.3 else grouped(magnitude(rng, 4), self.thousands)
        return f"{number}{'' if unit in ('%', '°C') and self.code in ('ja', 'ko') else ' '}{unit}"

    def fraction(self, rng: random.Random) -> str:
        den = rng.randint(2, 12)
        frac = f"{rng.randint(1, den - 1)}/{den}"
        return f"{rng.randint(1, 9)} {frac}" if rng.random() < 0.25 else frac


def _dmy(sep: str, pad: bool = True) -> Callable[[random.Random], str]:
    def draw(rng: random.Random) -> str:
        d, m, y = rng.randint(1, 28), rng.randint(1, 12), rng.randint(1950, 2035)
        return f"{d:02d}{sep}{m:02d}{sep}{y}" if pad else f"{d}{sep}{m}{sep}{y}"
    return draw


def _word_date(months: tuple[str, ...], pattern: str) -> Callable[[random.Random], str]:
    def draw(rng: random.Random) -> str:
        return pattern.format(d=rng.randint(1, 28), m=rng.choice(months), y=rng.randint(1950, 2035))
    return draw


def _either(*draws: Callable[[random.Random], str]) -> Callable[[random.Random], str]:
    return lambda rng: rng.choice(draws)(rng)


def _hm(sep: str = ":", suffix: str = "") -> Callable[[random.Random], str]:
    return lambda rng: f"{rng.randint(0, 23)}{sep}{rng.choice((0, 5, 15, 30, 45, rng.randint(1, 59))):02d}{suffix}"


def _digits(rng: random.Random, n: int) -> str:
    return "".join(str(rng.randint(0, 9)) for _ in range(n))


def _european_money(symbol_after: tuple[str, ...], symbol_before: tuple[str, ...]):
    def draw(rng: random.Random, lang: Language) -> str:
        if rng.random() < 0.3:
            english = str.maketrans({lang.decimal: ".", lang.thousands: ","})  # '$1,234.50'
            return f"{rng.choice(symbol_before)}{lang.amount(rng).translate(english)}"
        return f"{lang.amount(rng)} {rng.choice(symbol_after)}"
    return draw


_MONEY_AFTER = ("€", "EUR", "USD", "$", "RUB", "JPY", "KRW")
_UNITS = ("kg", "g", "km", "m", "cm", "mm", "l", "ml", "%", "°C", "km/h", "GB", "MB", "h", "min")

# Each language's sentence frames per class, "{}" where the number goes: data, in its own file.
FRAMES: dict[str, dict[str, tuple[str, ...]]] = {
    code: {cls: tuple(frames) for cls, frames in classes.items()}
    for code, classes in json.loads((Path(__file__).parent / "tn_frames.json").read_text(encoding="utf-8")).items()
}

LANGUAGES: dict[str, Language] = {}

LANGUAGES["de"] = Language(
    "de", ".", ",",
    frames=FRAMES["de"],
    money=_european_money(_MONEY_AFTER, ("€", "$")),
    date=_either(_dmy("."), _word_date(("Januar", "März", "Mai", "Juli", "Oktober", "Dezember"), "{d}. {m} {y}")),
    time=_hm(),
    units=_UNITS,
    ordinal=lambda rng: f"{rng.randint(1, 99)}.",
    phone=lambda rng: rng.choice((f"+49 {rng.randint(30, 89)} {_digits(rng, 7)}", f"0{rng.randint(30, 89)} {_digits(rng, 7)}")),
)

LANGUAGES["fr"] = Language(
    "fr", " ", ",",
    frames=FRAMES["fr"],
    money=_european_money(_MONEY_AFTER, ("€", "$")),
    date=_either(_dmy("/"), _word_date(("janvier", "mars", "mai", "juillet", "octobre", "décembre"), "{d} {m} {y}")),
    time=_either(_hm(), _hm("h")),
    units=_UNITS,
    ordinal=lambda rng: rng.choice(("1er", f"{rng.randint(2, 99)}e", f"{rng.randint(2, 99)}ème")),
    phone=lambda rng: "0" + str(rng.randint(1, 9)) + "".join(f" {rng.randint(0, 99):02d}" for _ in range(4)),
)

LANGUAGES["es"] = Language(
    "es", ".", ",",
    frames=FRAMES["es"],
    money=_european_money(_MONEY_AFTER, ("€", "$")),
    date=_either(_dmy("/"), _word_date(("enero", "marzo", "mayo", "julio", "octubre", "diciembre"), "{d} de {m} de {y}")),
    time=_hm(),
    units=_UNITS,
    ordinal=lambda rng: str(rng.randint(1, 99)),
    phone=lambda rng: rng.choice((f"+34 9{_digits(rng, 2)} {_digits(rng, 3)} {_digits(rng, 3)}", f"6{_digits(rng, 2)} {_digits(rng, 3)} {_digits(rng, 3)}")),
)

LANGUAGES["it"] = Language(
    "it", ".", ",",
    frames=FRAMES["it"],
    money=_european_money(_MONEY_AFTER, ("€", "$")),
    date=_either(_dmy("/"), _word_date(("gennaio", "marzo", "maggio", "luglio", "ottobre", "dicembre"), "{d} {m} {y}")),
    time=_hm(),
    units=_UNITS,
    ordinal=lambda rng: str(rng.randint(1, 99)),
    phone=lambda rng: rng.choice((f"+39 06 {_digits(rng, 4)} {_digits(rng, 4)}", f"3{_digits(rng, 2)} {_digits(rng, 3)} {_digits(rng, 4)}")),
)

LANGUAGES["pt"] = Language(
    "pt", ".", ",",
    frames=FRAMES["pt"],
    money=lambda rng, lang: f"R$ {lang.amount(rng)}" if rng.random() < 0.3 else _european_money(_MONEY_AFTER, ("€", "$"))(rng, lang),
    date=_either(_dmy("/"), _word_date(("janeiro", "março", "maio", "julho", "outubro", "dezembro"), "{d} de {m} de {y}")),
    time=_either(_hm(), _hm("h")),
    units=_UNITS,
    ordinal=lambda rng: str(rng.randint(1, 99)),
    phone=lambda rng: f"+55 {rng.randint(11, 99)} 9{_digits(rng, 4)}-{_digits(rng, 4)}",
)

def _ru_agreement(n: int) -> int:
    """0: one (1, 21), 1: a few (2-4, 22-24), 2: many (5-20, 25-30...)."""
    if n % 10 == 1 and n % 100 != 11:
        return 0
    return 1 if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else 2


# The noun of a Russian frame and the numbers it follows: 'книги' after 2-4 only, a genitive
# plural after 5-20 and the like, an oblique plural ('о 3 книгах') after any but those ending in one.
_RU_COUNTED = {"клиентов": {2}, "человек": {2}, "рублей": {2}, "штук": {2}, "минут": {2}, "дней": {2},
               "книги": {1}, "участниками": {1, 2}, "книгах": {1, 2}, "часам": {1, 2}, "домах": {1, 2}}
# The written endings an ordinal takes before each frame's noun ('занял 2-е место', 'к 5-му числу');
# a bare number fits them all.
_RU_ORDINAL_ENDINGS = {"место": {"е"}, "попытка": {"я"}, "этаже": {"м"}, "классе": {"м"}, "числу": {"му"},
                       "веке": {"м"}, "ряду": {"м"}}


def _ru_roubles(amount: str) -> str:
    """An amount with 'рубль' in the form the amount takes: '21 рубль', '52,51 рубля', '5 рублей'."""
    if "," in amount:
        return f"{amount} рубля"
    return f"{amount} {('рубль', 'рубля', 'рублей')[_ru_agreement(int(amount.replace(' ', '')))]}"


def _ru_fits(cls: str, frame: str, written: str) -> bool:
    after = frame.split("{}")[1].split()
    noun = after[0].strip(".") if after else ""
    ending = written.partition("-")[2]
    digits = written.replace(" ", "")
    if cls == "cardinal" and noun in _RU_COUNTED:
        return digits.isdecimal() and _ru_agreement(int(digits)) in _RU_COUNTED[noun]
    if cls == "ordinal" and ending:
        return ending in _RU_ORDINAL_ENDINGS.get(noun, set())
    # A year alone is genitive: 'до 1995 года', never 'к 1995 года'.
    if cls == "date" and written.endswith(" года"):
        return frame.split("{}")[0].strip() in ("до", "с")
    return True


# Russian frames carry the prepositions that decide case (в, на, до, от, с, по, о/об, к) and nouns
# whose number and gender the number agrees with.
LANGUAGES["ru"] = Language(
    "ru", " ", ",",
    frames=FRAMES["ru"],
    money=lambda rng, lang: rng.choice((
        _ru_roubles(lang.amount(rng)),
        f"{lang.amount(rng)} {rng.choice(('руб.', '₽', 'USD', '$', '€', 'EUR', 'JPY', 'KRW'))}",
        f"{grouped(magnitude(rng, 6), ' ')} руб. {rng.randint(1, 99)} коп.",
        f"${lang.amount(rng).replace(',', '.').replace(' ', ',')}",
    )),
    date=_either(_dmy("."), _word_date(("января", "марта", "мая", "июля", "октября", "декабря"), "{d} {m} {y} года"),
                 lambda rng: f"{rng.randint(1, 28)} {rng.choice(('января', 'мая', 'сентября'))}",
                 lambda rng: f"{rng.randint(1800, 2035)} года"),
    time=_hm(),
    units=("кг", "г", "км", "м", "см", "л", "мл", "%", "°C", "км/ч", "ГБ", "т", "градусов"),
    ordinal=lambda rng: rng.choice((str(rng.randint(1, 99)), f"{rng.randint(1, 99)}-{rng.choice(('е', 'я', 'м', 'му'))}")),
    phone=lambda rng: f"+7 {rng.randint(900, 999)} {_digits(rng, 3)}-{_digits(rng, 2)}-{_digits(rng, 2)}",
    fits=_ru_fits,
)

LANGUAGES["ja"] = Language(
    "ja", ",", ".",
    frames=FRAMES["ja"],
    money=lambda rng, lang: rng.choice((f"{grouped(magnitude(rng, 7), ',')}円", f"¥{grouped(magnitude(rng, 7), ',')}",
                                        f"${lang.amount(rng)}", f"{grouped(magnitude(rng, 6), ',')}ドル")),
    date=lambda rng: f"{rng.randint(1950, 2035)}年{rng.randint(1, 12)}月{rng.randint(1, 28)}日",
    time=lambda rng: rng.choice((f"{rng.randint(0, 23)}時{rng.randint(0, 59)}分", f"{rng.randint(0, 23)}:{rng.randint(0, 59):02d}")),
    units=("kg", "km", "m", "cm", "%", "°C", "g", "ml"),
    ordinal=lambda rng: f"第{rng.randint(1, 999)}",
    phone=lambda rng: f"0{rng.randint(3, 90)}-{_digits(rng, 4)}-{_digits(rng, 4)}",
)

LANGUAGES["ko"] = Language(
    "ko", ",", ".",
    frames=FRAMES["ko"],
    money=lambda rng, lang: rng.choice((f"{grouped(magnitude(rng, 7), ',')}원", f"₩{grouped(magnitude(rng, 7), ',')}",
                                        f"${lang.amount(rng)}", f"{grouped(magnitude(rng, 6), ',')}달러")),
    date=lambda rng: f"{rng.randint(1950, 2035)}년 {rng.randint(1, 12)}월 {rng.randint(1, 28)}일",
    time=lambda rng: rng.choice((f"{rng.randint(1, 12)}시 {rng.randint(1, 59)}분", f"{rng.randint(0, 23)}:{rng.randint(0, 59):02d}")),
    units=("kg", "km", "m", "cm", "%", "°C", "g", "ml"),
    ordinal=lambda rng: str(rng.randint(1, 999)),
    phone=lambda rng: f"010-{_digits(rng, 4)}-{_digits(rng, 4)}",
)


def draw_number(lang: Language, cls: str, rng: random.Random) -> str:
    return {
        "cardinal": lambda: lang.cardinal(rng),
        "decimal": lambda: lang.decimal_number(rng),
        "money": lambda: lang.money(rng, lang),
        "date": lambda: lang.date(rng),
        "time": lambda: lang.time(rng),
        "measure": lambda: lang.measure(rng),
        "ordinal": lambda: lang.ordinal(rng),
        "fraction": lambda: lang.fraction(rng),
        "telephone": lambda: lang.phone(rng),
    }[cls]()


def generate(code: str, per_class: int, seed: int) -> list[Case]:
    """`per_class` distinct sentences of each class in language `code`."""
    lang = LANGUAGES[code]
    rng = random.Random(f"{seed}:{code}")
    cases: list[Case] = []
    for cls in CLASSES:
        seen: set[str] = set()
        for _ in range(per_class * 20):
            if len(seen) == per_class:
                break
            case = Case(code, cls, rng.choice(lang.frames[cls]), draw_number(lang, cls, rng))
            if case.text not in seen and lang.fits(cls, case.frame, case.written):
                seen.add(case.text)
                cases.append(case)
    return cases
