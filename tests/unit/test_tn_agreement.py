"""Numbers agree with the words around them in Spanish, Portuguese and German, amounts written the
English way after a currency symbol, telephone numbers in spaced groups, and the readings the
differential test against NeMo-text-processing led to, and an IP address in every language of Europe. Each is also
checked streamed."""

from __future__ import annotations

import random

import pytest

from tests.unit.test_tn_es_pt_ru import _stream
from voice_tts.tn import normalize

READINGS = [
    ("es", "Tenemos 623.122.021 clientes.", "Tenemos seiscientos veintitrés millones ciento veintidós mil veintiún clientes."),
    ("es", "Había 200 personas y 31 problemas.", "Había doscientas personas y treinta y un problemas."),
    ("es", "Hay 21 días.", "Hay veintiún días."),
    ("es", "El número es 81.", "El número es ochenta y uno."),
    ("es", "Son 21 y 22.", "Son veintiuno y veintidós."),
    ("es", "La cita es el 01/01/1957.", "La cita es el uno de enero de mil novecientos cincuenta y siete."),
    ("es", "Es la 11.ª vez en el 12.º piso.", "Es la undécima vez en el duodécimo piso."),
    ("es", "Cuesta €1,345,402.96.",
     "Cuesta un millón trescientos cuarenta y cinco mil cuatrocientos dos euros con noventa y seis céntimos."),
    ("es", "Cuesta $7.07.", "Cuesta siete dólares con siete centavos."),
    ("pt", "Havia 2 pessoas e 200 casas.", "Havia duas pessoas e duzentas casas."),
    ("pt", "São 2 dias.", "São dois dias."),
    ("pt", "Custa €75,965.72.",
     "Custa setenta e cinco mil novecentos e sessenta e cinco euros e setenta e dois cêntimos."),
    ("de", "Er hat 1 Haus und 1 Katze.", "Er hat ein Haus und eine Katze."),
    ("de", "Seite 1 ist leer.", "Seite eins ist leer."),
    ("de", "Das kostet $2,20.", "Das kostet zwei Dollar zwanzig."),
    ("de", "Es sind 350 992 4687.", "Es sind drei fünf null neun neun zwei vier sechs acht sieben."),
    ("it", "Il nostro numero: 350 992 4687.", "Il nostro numero: tre cinque zero nove nove due quattro sei otto sette."),
    ("it", "Sono 350 persone.", "Sono trecentocinquanta persone."),
    ("it", "Il prezzo è di $829,522.80.",
     "Il prezzo è di ottocentoventinovemilacinquecentoventidue dollari e ottanta."),
    ("it", "Alle 11:01.", "Alle undici e un minuto."),
    ("fr", "Au total 822 344 pièces.", "Au total huit cent vingt-deux mille trois cent quarante-quatre pièces."),
    # a counted noun's gender from the gender data or its ending, also a known acronym's ('1 DVD', '1 BD')
    ("fr", "Elle compte 21 monitrices, 1 moniteur et 1 équipe.", "Elle compte vingt-et-une monitrices, un moniteur et une équipe."),
    ("fr", "Vous avez 1 BD et 1 erreur.", "Vous avez une B D et une erreur."),
    ("pt", "Vamos com 2 equipes e 2 árvores.", "Vamos com duas equipes e duas árvores."),
    ("de", "Sie haben 1 DVD ausgeliehen.", "Sie haben eine D V D ausgeliehen."),
    # a code of capitals and digits mixed spelled sign by sign, two capitals before a flight's number spelled, a
    # house number's letter after its slash
    ("de", "Flug LH 2045, Buchungscode X7KP4M.", "Flug L H zwanzig fünfundvierzig, Buchungscode X sieben K P vier M."),
    ("es", "El vuelo IB 3172, localizador X7KP4M.",
     "El vuelo I B tres uno siete dos, localizador X siete K P cuatro M."),
    ("fr", "Le vol AF 1172, référence X7KP4M.", "Le vol A F onze soixante-douze, référence X sept K P quatre M."),
    ("pt", "O voo LA 3172, localizador 4B7Z.", "O voo L A três um sete dois, localizador quatro B sete Z."),
    ("it", "Il magazzino è in viale Monza 115/B.", "Il magazzino è in viale Monza centoquindici barra B."),
    ("ru", "Код X7KP4M.", "Код X семь K P четыре M."),
    # a Roman numeral after a building's noun is its number, a lone C, D, L or M there a letter; a unit
    # per another; a German number and its lower-case ending one word
    ("de", "In Gebäude III, nicht Gebäude C, spülen Sie 3-mal bei 35 l/m².",
     "In Gebäude drei, nicht Gebäude C, spülen Sie dreimal bei fünfunddreißig Liter pro Quadratmeter."),
    ("es", "En el edificio II, no el edificio C, caen 35 l/m².",
     "En el edificio dos, no el edificio C, caen treinta y cinco litros por metro cuadrado."),
    ("fr", "Le bâtiment II, pas le bâtiment C.", "Le bâtiment deux, pas le bâtiment C."),
    ("it", "Il padiglione II, 35 l/m².", "Il padiglione due, trentacinque litri per metro quadrato."),
    # 'C/' a street; a Russian reference over a slash, a unit after a decimal in the genitive singular,
    # a date after a clause's verb in the genitive
    ("es", "En la C/ Mayor, 15.", "En la Calle Mayor, quince."),
    ("ru", "Номер заявки — 58/412, это 3/4.", "Номер заявки — пятьдесят восемь дробь четыреста двенадцать, это три четвёртых."),
    ("ru", "Объём — 38,5 м³.", "Объём — тридцать восемь целых пять десятых кубического метра."),
    ("ru", "Доставят в отель 18.01.2027.", "Доставят в отель восемнадцатого января две тысячи двадцать седьмого года."),
    ("de", "Geben Sie 10 ml auf 1 l Wasser, mit 1 kg Mehl.", "Geben Sie zehn Milliliter auf einen Liter Wasser, mit einem Kilogramm Mehl."),
    ("ru", "до $2342.65", "до двух тысяч трёхсот сорока двух долларов шестидесяти пяти центов"),
    # a house number agrees with no word: not the verb after it, not its street after it
    ("pt", "A loja da Rua Augusta, 1.522 abre cedo e vende 2 camisas.",
     "A loja da Rua Augusta, mil quinhentos e vinte e dois abre cedo e vende duas camisas."),
    ("es", "La tienda de la C/ Mayor, 201 cierra a las 8.", "La tienda de la Calle Mayor, doscientos uno cierra a las ocho."),
    ("fr", "Le cabinet du 21 rue Pasteur ferme au 1 avenue Foch.",
     "Le cabinet du vingt-et-un rue Pasteur ferme au un avenue Foch."),
    # numbers joined by 'or' before one noun all agree with it
    ("pt", "Chega em 1 ou 2 semanas.", "Chega em uma ou duas semanas."),
    ("es", "Llega en 1 o 2 semanas.", "Llega en una o dos semanas."),
    ("it", "Arriva in 1 o 2 settimane.", "Arriva in una o due settimane."),
    ("fr", "Il arrive en 1 ou 2 semaines.", "Il arrive en une ou deux semaines."),
    ("it", "Aggiungi 1 noce di burro e 1 radice di zenzero.", "Aggiungi una noce di burro e una radice di zenzero."),
    # a noun written with a small first letter: its last part's gender, else neuter
    ("de", "Sie bekommen 1 eSIM und 1 iPad.", "Sie bekommen eine eSIM und ein iPad."),
    # an IP address digit by digit, its dots by the address's word, in every language of Europe
    ("de", "Der Router hat 10.0.0.138.", "Der Router hat eins null Punkt null Punkt null Punkt eins drei acht."),
    ("fr", "Le serveur est en 172.16.4.2.", "Le serveur est en un sept deux point un six point quatre point deux."),
    ("it", "Il server è 10.0.0.138.", "Il server è uno zero punto zero punto zero punto uno tre otto."),
    ("es", "El servidor es 10.0.0.138.", "El servidor es uno cero punto cero punto cero punto uno tres ocho."),
]


@pytest.mark.parametrize(("lang", "written", "spoken"), READINGS)
def test_reading(lang: str, written: str, spoken: str) -> None:
    assert normalize(written, language=lang) == spoken


@pytest.mark.parametrize(("lang", "written", "spoken"), READINGS)
def test_streamed_reading(lang: str, written: str, spoken: str) -> None:
    rng = random.Random(written)
    for _ in range(8):
        assert "".join(c.spoken for c in _stream(written, lang, rng)) == spoken


@pytest.mark.parametrize(("lang", "written", "spoken"), [
    ("ko", "가격은 79달러입니다.", "가격은 칠십구달러입니다."),  # money is Sino-Korean; '달' alone is a counter
    ("ko", "3달 있었다.", "세달 있었다."),
    ("ko", "무게는 5 kg입니다.", "무게는 오킬로그램입니다."),
    ("ja", "重さは5 kgです。", "重さは五キログラムです。"),
])
def test_ja_ko_reading(lang: str, written: str, spoken: str) -> None:
    assert normalize(written, language=lang) == spoken
    rng = random.Random(written)
    for _ in range(8):
        assert "".join(c.spoken for c in _stream(written, lang, rng)) == spoken
