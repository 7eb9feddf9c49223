"""Numbers agree with the words around them in Spanish, Portuguese and German, amounts written the
English way after a currency symbol, telephone numbers in spaced groups, and the readings the
differential test against NeMo-text-processing led to. Each is also checked streamed."""

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
    ("es", "La cita es el 01/01/1957.", "La cita es el primero de enero de mil novecientos cincuenta y siete."),
    ("es", "Es la 11.ª vez en el 12.º piso.", "Es la undécima vez en el duodécimo piso."),
    ("es", "Cuesta €1,345,402.96.",
     "Cuesta un millón trescientos cuarenta y cinco mil cuatrocientos dos euros con noventa y seis céntimos."),
    ("es", "Cuesta $7.07.", "Cuesta siete dólares con siete centavos."),
    ("pt", "Havia 2 pessoas e 200 casas.", "Havia duas pessoas e duzentas casas."),
    ("pt", "São 2 dias.", "São dois dias."),
    ("pt", "Custa €75,965.72.", "Custa setenta e cinco mil novecentos e sessenta e cinco euros e setenta e dois centavos."),
    ("de", "Er hat 1 Haus und 1 Katze.", "Er hat ein Haus und eine Katze."),
    ("de", "Seite 1 ist leer.", "Seite eins ist leer."),
    ("de", "Das kostet $2,20.", "Das kostet zwei Dollar zwanzig Cent."),
    ("de", "Es sind 350 992 4687.", "Es sind drei fünf null neun neun zwei vier sechs acht sieben."),
    ("it", "Il nostro numero: 350 992 4687.", "Il nostro numero: tre cinque zero nove nove due quattro sei otto sette."),
    ("it", "Sono 350 persone.", "Sono trecentocinquanta persone."),
    ("it", "Il prezzo è di $829,522.80.",
     "Il prezzo è di ottocentoventinovemilacinquecentoventidue dollari e ottanta centesimi."),
    ("it", "Alle 11:01.", "Alle undici e un minuto."),
    ("fr", "Au total 822 344 pièces.", "Au total huit cent vingt-deux mille trois cent quarante-quatre pièces."),
    ("ru", "до $2342.65", "до двух тысяч трёхсот сорока двух долларов шестидесяти пяти центов"),
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
