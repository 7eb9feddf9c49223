"""Generated inputs for `tn_differential.py`: sentences in each language with one number of a given
class in them (cardinals across magnitudes, decimals, money, dates, times, measures, ordinals,
fractions, telephone numbers), written the way that language writes them.

Everything is drawn from one `random.Random(seed)`, so a seed gives the same inputs every run.
A case is `Case(lang, cls, frame, written)`: `frame` is the sentence with `{}` where the number
goes, so disagreements can be grouped by frame and by the shape of the number.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
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

LANGUAGES: dict[str, Language] = {}

LANGUAGES["de"] = Language(
    "de", ".", ",",
    frames={
        "cardinal": ("Wir haben {} Kunden.", "Es waren {} Besucher da.", "Die Nummer ist {}.", "Insgesamt {} Stück."),
        "decimal": ("Der Wert liegt bei {}.", "Es sind {} Punkte.", "Das Ergebnis ist {}."),
        "money": ("Das kostet {}.", "Sie zahlen {} pro Monat.", "Der Preis beträgt {}."),
        "date": ("Der Termin ist am {}.", "Wir kommen am {}.", "Geliefert wird bis {}."),
        "time": ("Wir treffen uns um {} Uhr.", "Der Zug fährt um {}.", "Geöffnet ab {} Uhr."),
        "measure": ("Das Paket wiegt {}.", "Die Strecke ist {} lang.", "Es sind {}."),
        "ordinal": ("Er wurde {} Sieger.", "Das ist der {} Versuch.", "Am {} Tag kam er."),
        "fraction": ("Nehmen Sie {} der Menge.", "Es fehlt {}.", "Das ist {}."),
        "telephone": ("Rufen Sie {} an.", "Unsere Nummer: {}.", "Tel. {}"),
    },
    money=_european_money(_MONEY_AFTER, ("€", "$")),
    date=_either(_dmy("."), _word_date(("Januar", "März", "Mai", "Juli", "Oktober", "Dezember"), "{d}. {m} {y}")),
    time=_hm(),
    units=_UNITS,
    ordinal=lambda rng: f"{rng.randint(1, 99)}.",
    phone=lambda rng: rng.choice((f"+49 {rng.randint(30, 89)} {_digits(rng, 7)}", f"0{rng.randint(30, 89)} {_digits(rng, 7)}")),
)

LANGUAGES["fr"] = Language(
    "fr", " ", ",",
    frames={
        "cardinal": ("Nous avons {} clients.", "Il y avait {} visiteurs.", "Le numéro est {}.", "Au total {} pièces."),
        "decimal": ("La valeur est de {}.", "Il a obtenu {} points.", "Le résultat est {}."),
        "money": ("Cela coûte {}.", "Vous payez {} par mois.", "Le prix est de {}."),
        "date": ("Le rendez-vous est le {}.", "Nous arrivons le {}.", "Livraison avant le {}."),
        "time": ("On se retrouve à {}.", "Le train part à {}.", "Ouvert dès {}."),
        "measure": ("Le colis pèse {}.", "La distance est de {}.", "Il reste {}."),
        "ordinal": ("Il est arrivé {}.", "C'est la {} fois.", "Au {} étage.", "Le {} siècle."),
        "fraction": ("Prenez {} de la quantité.", "Il manque {}.", "C'est {}."),
        "telephone": ("Appelez le {}.", "Notre numéro : {}.", "Tél. {}"),
    },
    money=_european_money(_MONEY_AFTER, ("€", "$")),
    date=_either(_dmy("/"), _word_date(("janvier", "mars", "mai", "juillet", "octobre", "décembre"), "{d} {m} {y}")),
    time=_either(_hm(), _hm("h")),
    units=_UNITS,
    ordinal=lambda rng: rng.choice(("1er", f"{rng.randint(2, 99)}e", f"{rng.randint(2, 99)}ème")),
    phone=lambda rng: "0" + str(rng.randint(1, 9)) + "".join(f" {rng.randint(0, 99):02d}" for _ in range(4)),
)

LANGUAGES["es"] = Language(
    "es", ".", ",",
    frames={
        "cardinal": ("Tenemos {} clientes.", "Había {} personas.", "El número es {}.", "En total {} unidades."),
        "decimal": ("El valor es {}.", "Obtuvo {} puntos.", "El resultado es {}."),
        "money": ("Cuesta {}.", "Usted paga {} al mes.", "El precio es de {}."),
        "date": ("La cita es el {}.", "Llegamos el {}.", "Entrega antes del {}."),
        "time": ("Nos vemos a las {}.", "El tren sale a las {}.", "Abierto desde las {}."),
        "measure": ("El paquete pesa {}.", "La distancia es de {}.", "Quedan {}."),
        "ordinal": ("Llegó en {}.º lugar.", "Es la {}.ª vez.", "En el {}.º piso.", "Vive en el {}º piso."),
        "fraction": ("Tome {} de la cantidad.", "Falta {}.", "Es {}."),
        "telephone": ("Llame al {}.", "Nuestro número: {}.", "Tel. {}"),
    },
    money=_european_money(_MONEY_AFTER, ("€", "$")),
    date=_either(_dmy("/"), _word_date(("enero", "marzo", "mayo", "julio", "octubre", "diciembre"), "{d} de {m} de {y}")),
    time=_hm(),
    units=_UNITS,
    ordinal=lambda rng: str(rng.randint(1, 99)),
    phone=lambda rng: rng.choice((f"+34 9{_digits(rng, 2)} {_digits(rng, 3)} {_digits(rng, 3)}", f"6{_digits(rng, 2)} {_digits(rng, 3)} {_digits(rng, 3)}")),
)

LANGUAGES["it"] = Language(
    "it", ".", ",",
    frames={
        "cardinal": ("Abbiamo {} clienti.", "C'erano {} persone.", "Il numero è {}.", "In totale {} pezzi."),
        "decimal": ("Il valore è {}.", "Ha ottenuto {} punti.", "Il risultato è {}."),
        "money": ("Costa {}.", "Lei paga {} al mese.", "Il prezzo è di {}."),
        "date": ("L'appuntamento è il {}.", "Arriviamo il {}.", "Consegna entro il {}."),
        "time": ("Ci vediamo alle {}.", "Il treno parte alle {}.", "Aperto dalle {}."),
        "measure": ("Il pacco pesa {}.", "La distanza è di {}.", "Restano {}."),
        "ordinal": ("È arrivato {}°.", "È la {}ª volta.", "Al {}° piano.", "Il {}º classificato."),
        "fraction": ("Prenda {} della quantità.", "Manca {}.", "È {}."),
        "telephone": ("Chiami il {}.", "Il nostro numero: {}.", "Tel. {}"),
    },
    money=_european_money(_MONEY_AFTER, ("€", "$")),
    date=_either(_dmy("/"), _word_date(("gennaio", "marzo", "maggio", "luglio", "ottobre", "dicembre"), "{d} {m} {y}")),
    time=_hm(),
    units=_UNITS,
    ordinal=lambda rng: str(rng.randint(1, 99)),
    phone=lambda rng: rng.choice((f"+39 06 {_digits(rng, 4)} {_digits(rng, 4)}", f"3{_digits(rng, 2)} {_digits(rng, 3)} {_digits(rng, 4)}")),
)

LANGUAGES["pt"] = Language(
    "pt", ".", ",",
    frames={
        "cardinal": ("Temos {} clientes.", "Havia {} pessoas.", "O número é {}.", "No total {} unidades."),
        "decimal": ("O valor é {}.", "Obteve {} pontos.", "O resultado é {}."),
        "money": ("Custa {}.", "Você paga {} por mês.", "O preço é de {}."),
        "date": ("A consulta é em {}.", "Chegamos no dia {}.", "Entrega até {}."),
        "time": ("Nos vemos às {}.", "O trem sai às {}.", "Aberto a partir das {}."),
        "measure": ("O pacote pesa {}.", "A distância é de {}.", "Restam {}."),
        "ordinal": ("Chegou em {}º lugar.", "É a {}ª vez.", "No {}.º andar.", "Pela {}.ª vez."),
        "fraction": ("Use {} da quantidade.", "Falta {}.", "É {}."),
        "telephone": ("Ligue para {}.", "Nosso número: {}.", "Tel. {}"),
    },
    money=lambda rng, lang: f"R$ {lang.amount(rng)}" if rng.random() < 0.3 else _european_money(_MONEY_AFTER, ("€", "$"))(rng, lang),
    date=_either(_dmy("/"), _word_date(("janeiro", "março", "maio", "julho", "outubro", "dezembro"), "{d} de {m} de {y}")),
    time=_either(_hm(), _hm("h")),
    units=_UNITS,
    ordinal=lambda rng: str(rng.randint(1, 99)),
    phone=lambda rng: f"+55 {rng.randint(11, 99)} 9{_digits(rng, 4)}-{_digits(rng, 4)}",
)

# Russian frames carry the prepositions that decide case (в, на, до, от, с, по, о/об, к) and nouns
# whose number and gender the number agrees with.
LANGUAGES["ru"] = Language(
    "ru", " ", ",",
    frames={
        "cardinal": ("У нас {} клиентов.", "Было {} человек.", "Номер {}.", "до {} человек", "от {} рублей",
                     "с {} участниками", "о {} книгах", "к {} часам", "в {} домах", "по {} штук", "около {} минут",
                     "Купил {} книги.", "Прошло {} дней."),
        "decimal": ("Значение {}.", "Рост на {}.", "до {} пунктов", "Результат {}."),
        "money": ("Это стоит {}.", "Вы платите {} в месяц.", "Цена от {}.", "до {}", "с {} на счёте"),
        "date": ("Встреча {}.", "Мы приедем {}.", "до {}", "с {}", "к {}", "Родился {}."),
        "time": ("Встречаемся в {}.", "Поезд отходит в {}.", "Открыто с {}.", "до {}", "к {}"),
        "measure": ("Посылка весит {}.", "Расстояние {}.", "до {}", "от {}", "на {}", "Осталось {}."),
        "ordinal": ("Он занял {} место.", "Это {} попытка.", "на {} этаже", "в {} классе", "к {} числу",
                    "в {} веке", "в {} ряду"),
        "fraction": ("Возьмите {} части.", "Не хватает {}.", "Это {}."),
        "telephone": ("Звоните {}.", "Наш номер: {}.", "Тел. {}"),
    },
    money=lambda rng, lang: rng.choice((
        f"{lang.amount(rng)} {rng.choice(('руб.', '₽', 'рублей', 'USD', '$', '€', 'EUR', 'JPY', 'KRW'))}",
        f"{grouped(magnitude(rng, 6), ' ')} руб. {rng.randint(1, 99)} коп.",
        f"${lang.amount(rng).replace(',', '.').replace(' ', ',')}",
    )),
    date=_either(_dmy("."), _word_date(("января", "марта", "мая", "июля", "октября", "декабря"), "{d} {m} {y} года"),
                 lambda rng: f"{rng.randint(1, 28)} {rng.choice(('января', 'мая', 'сентября'))}",
                 lambda rng: f"{rng.randint(1800, 2035)} года"),
    time=_hm(),
    units=("кг", "г", "км", "м", "см", "л", "мл", "%", "°C", "км/ч", "ГБ", "т", "градусов"),
    ordinal=lambda rng: rng.choice((str(rng.randint(1, 99)), f"{rng.randint(1, 99)}-{rng.choice(('й', 'я', 'е', 'го', 'м', 'х'))}")),
    phone=lambda rng: f"+7 {rng.randint(900, 999)} {_digits(rng, 3)}-{_digits(rng, 2)}-{_digits(rng, 2)}",
)

LANGUAGES["ja"] = Language(
    "ja", ",", ".",
    frames={
        "cardinal": ("お客様は{}人です。", "全部で{}個あります。", "番号は{}です。"),
        "decimal": ("値は{}です。", "結果は{}でした。"),
        "money": ("価格は{}です。", "{}をお支払いください。"),
        "date": ("予約は{}です。", "{}に届きます。"),
        "time": ("{}に会いましょう。", "電車は{}に出ます。"),
        "measure": ("重さは{}です。", "距離は{}です。"),
        "ordinal": ("{}回目です。", "{}位でした。"),
        "fraction": ("{}を使います。", "残りは{}です。"),
        "telephone": ("電話番号は{}です。", "{}までお電話ください。"),
    },
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
    frames={
        "cardinal": ("고객은 {}명입니다.", "모두 {}개 있습니다.", "번호는 {}입니다."),
        "decimal": ("값은 {}입니다.", "결과는 {}였습니다."),
        "money": ("가격은 {}입니다.", "{}을 내세요."),
        "date": ("예약은 {}입니다.", "{}에 도착합니다."),
        "time": ("{}에 만나요.", "기차는 {}에 출발합니다."),
        "measure": ("무게는 {}입니다.", "거리는 {}입니다."),
        "ordinal": ("{} 번째입니다.", "{}위입니다."),
        "fraction": ("{}을 사용하세요.", "남은 것은 {}입니다."),
        "telephone": ("전화번호는 {}입니다.", "{}로 전화하세요."),
    },
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
            if case.text not in seen:
                seen.add(case.text)
                cases.append(case)
    return cases
