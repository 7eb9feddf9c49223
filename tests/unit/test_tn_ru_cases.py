"""Russian numbers agree with the words around them: the case a preposition gives a count, the
gender its noun gives it, ordinals before a noun in a case no count takes, measures and money in
the genitive after 'до', 'от', 'с', 'около', years in the case of their preposition and noun.
Each reading is also checked streamed in random pieces."""

from __future__ import annotations

import random

import pytest

from tests.unit.test_tn_es_pt_ru import _stream
from voice_tts.tn import normalize

READINGS = [
    # case from the preposition
    ("До 5 человек.", "До пяти человек."),
    ("около 10 минут", "около десяти минут"),
    ("у 2 студентов", "у двух студентов"),
    ("от 3 до 5 кг", "от трёх до пяти килограм"),
    ("по 5 рублей", "по пять рублей"),
    ("через 21 день", "через двадцать один день"),
    # case from the noun's ending
    ("о 3 книгах", "о трёх книгах"),
    ("к 2 часам", "к двум часам"),
    ("в 3 домах", "в трёх домах"),
    ("с 5 участниками", "с пятью участниками"),
    ("в 1 доме", "в одном доме"),
    # gender from the noun
    ("купил 2 книги", "купил две книги"),
    ("купил 1 книгу", "купил одну книгу"),
    ("на 1 неделю", "на одну неделю"),
    ("1 окно", "одно окно"),
    ("Прошло 22 года.", "Прошло двадцать два года."),
    ("2 или 3 дня", "два или три дня"),
    ("до 1 недели", "до одной недели"),
    ("для 21 дня", "для двадцати одного дня"),
    ("около 101 минуты", "около ста одной минуты"),
    ("У вас 1 сообщение", "У вас одно сообщение"),
    # ordinals before a singular noun a count would not take
    ("Во 2 классе.", "Во втором классе."),
    ("на 3 этаже", "на третьем этаже"),
    ("в 21 веке", "в двадцать первом веке"),
    ("к 5 числу", "к пятому числу"),
    ("Он занял 2 место.", "Он занял второе место."),
    ("на 3 неделю", "на третью неделю"),
    # Roman numerals: a ruler's name gives its gender and case, a noun after one its own
    ("в XX веке", "в двадцатом веке"),
    ("Екатерина II", "Екатерина Вторая"),
    ("при Петре I", "при Петре Первом"),
    ("к концу XIX века", "к концу девятнадцатого века"),
    # the accusative after 'на', 'за' and a transitive verb; a thousand alone is 'тысяча'
    ("стоит 1 250 руб.", "стоит тысячу двести пятьдесят рублей."),
    ("на 1,38", "на одну целую тридцать восемь сотых"),
    ("заплатил 1000 рублей", "заплатил тысячу рублей"),
    ("осталось 1000 рублей", "осталось тысяча рублей"),
    ("Телефон: 89123456789.", "Телефон: восемь девятьсот двенадцать триста сорок пять шестьдесят семь восемьдесят девять."),
    # measures and money with their agreement, in the genitive after a preposition that takes it
    ("Вес 3 кг.", "Вес три килограма."),
    ("На улице 21 градус.", "На улице двадцать один градус."),
    ("Вес 1,5-2 кг.", "Вес от одной целой пяти десятых до двух килограм."),
    ("с 2 кг", "с двух килограм"),
    ("до 2,5 кг", "до двух целых пяти десятых килограма"),
    ("Стоит 1 рубль, 2 рубля или 5 рублей.", "Стоит один рубль, два рубля или пять рублей."),
    ("Цена 21,50 руб.", "Цена двадцать один рубль пятьдесят копеек."),
    ("до 21,50 руб.", "до двадцати одного рубля пятидесяти копеек."),
    ("до 100 рублей", "до ста рублей"),
    # years in the case of their preposition and noun
    ("к 2020 году", "к две тысячи двадцатому году"),
    ("о 2020 годе", "о две тысячи двадцатом году"),
    ("в 1990 г.", "в тысяча девятьсот девяностом году."),
    ("в 47 году", "в сорок седьмом году"),
    ("с 1990 по 2000 год", "с тысяча девятьсот девяностого по двухтысячный год"),
    ("Я родился 5 мая 1990 года.", "Я родился пятого мая тысяча девятьсот девяностого года."),
    ("в 2000 домах", "в двух тысячах домах"),
    ("500 г муки", "пятьсот граммов муки"),
]


@pytest.mark.parametrize(("written", "spoken"), READINGS)
def test_reading_agrees(written: str, spoken: str) -> None:
    assert normalize(written, language="ru") == spoken


@pytest.mark.parametrize(("written", "spoken"), READINGS[::3])
def test_streamed_reading_agrees(written: str, spoken: str) -> None:
    rng = random.Random(written)
    for _ in range(10):
        assert "".join(c.spoken for c in _stream(written, "ru", rng)) == spoken
