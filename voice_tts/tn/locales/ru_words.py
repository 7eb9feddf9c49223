"""Russian: the words around numbers — units with their agreeing forms, currencies and their minor
units, months, the year noun, abbreviations, and the names of Latin letters and address words."""

from __future__ import annotations

import json
from pathlib import Path

from voice_tts.tn import cldr

# unit → (one, a few, many, gender); after a fraction the 'a few' form is read: 'три целых две десятых литра'
UNITS = {
    unit: tuple(forms)
    for unit, forms in json.loads((Path(__file__).parent / "ru_units.json").read_text(encoding="utf-8")).items()
}
# Squares and cubes typed with a plain digit ('м2') read as their superscript spelling ('м²').
UNITS |= {unit.translate(str.maketrans("²³", "23")): UNITS[unit] for unit in UNITS if unit[-1] in "²³"}
# A currency's minor unit, read when an amount has two decimals: '2 499,90 руб.'
_KOPECKS, _CENTS = ("копейка", "копейки", "копеек"), ("цент", "цента", "центов")
MINOR = dict.fromkeys(("руб", "рубль", "рубля", "рублей", "р", "₽"), _KOPECKS) | dict.fromkeys(
    ("usd", "$", "долл", "eur", "€", "евро"), _CENTS)
# The locative after a 'per': 'км/ч' → 'километра в час', '1/кг' → 'один в килограме'.
PER = {"ч": "в час", "с": "в секунду", "сек": "в секунду", "мин": "в минуту", "кг": "в килограме",
        "м": "в метре", "л": "в литре", "км": "на километр", "м²": "на квадратный метр", "м2": "на квадратный метр"}
SPELLED_AFTER = {"сша": "сэ ш а"}
MONTHS_GENITIVE = cldr.month_names("ru")  # "января": CLDR's months as a date writes them
MONTH_INDEX = {m[:3]: i for i, m in enumerate(MONTHS_GENITIVE, 1)} | {
    m: i for i, m in enumerate(MONTHS_GENITIVE, 1)} | {"сент": 9, "май": 5}
YEAR_WORDS = {"год": "nominative", "года": "genitive", "году": "prepositional", "годом": "instrumental", "годе": "prepositional",
               "г": "genitive"}
YEAR_NOUNS = {"nominative": "год", "genitive": "года", "dative": "году", "accusative": "год",
               "instrumental": "годом", "prepositional": "году"}
ABBREVIATIONS = {
    "м²": "квадратный метр", "т.е.": "то есть", "т. е.": "то есть", "т.д.": "так далее", "т. д.": "так далее",
    "т.п.": "тому подобное", "т. п.": "тому подобное", "т.к.": "так как", "ул.": "улица", "г-н": "господин",
    "г-жа": "госпожа", "др.": "другие", "см.": "смотри", "напр.": "например", "руб.": "рублей",
    # the Russian NeMo whitelist
    "гг.": "годы", "§": "параграф", "комн.": "комнатная", "эт.": "этажный", "кв.": "квартира", "р-н": "район",
    "до н. э.": "до нашей эры", "до н.э.": "до нашей эры", "н. э.": "нашей эры", "н.э.": "нашей эры",
    "см. также": "смотри также", "с.ш.": "северной широты", "ю.ш.": "южной широты",
    "в.д.": "восточной долготы", "з.д.": "западной долготы", "и т. д.": "и так далее", "и т.д.": "и так далее",
    "и т. п.": "и тому подобное", "и т.п.": "и тому подобное", "б/у": "бывший в употреблении",
    "экз.": "экземпляр", "и др.": "и другие", "и пр.": "и прочие", "тел.": "телефон", "д.": "дом",
    "пр-т": "проспект", "пер.": "переулок", "обл.": "область", "стр.": "страница", "рис.": "рисунок",
    "табл.": "таблица", "проф.": "профессор", "акад.": "академик", "им.": "имени", "ок.": "около",
    "млн.": "миллионов", "млрд.": "миллиардов", "тыс.": "тысяч",
}
LATIN_NAMES = {
    "a": "эй", "b": "би", "c": "си", "d": "ди", "e": "и", "f": "эф", "g": "джи", "h": "эйч", "i": "ай", "j": "джей",
    "k": "кей", "l": "эл", "m": "эм", "n": "эн", "o": "оу", "p": "пи", "q": "кью", "r": "ар", "s": "эс", "t": "ти",
    "u": "ю", "v": "ви", "w": "дабл ю", "x": "икс", "y": "уай", "z": "зед",
}
ADDRESS_WORDS = {"com": "ком", "ru": "ру", "org": "орг", "net": "нет", "рф": "рф", "www": "дабл ю дабл ю дабл ю",
                  "gmail": "джи мейл", "outlook": "аутлук", "hotmail": "хот мейл", "yahoo": "яху", "live": "лайв",
                  "yandex": "яндекс", "nvidia": "эн видия", "orange": "орандж", "web": "веб",
                  "comcast": "комкаст", "wanadoo": "ванаду"}
