"""Stream = one-shot in every language the model speaks: realistic replies (money, dates, times,
decimals, percent, units, ordinals, large numbers) and sentences generated per class by the
differential test's generator (`bench/tn_inputs.py`), cut at random points, read exactly as the
whole text does, and the commits tile the raw text without a gap."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voice_tts.tn import Commit, StreamingNormalizer, normalize

REPLIES = {
    "en": [
        "Your order costs $25.50 and arrives on May 3rd at 2:30 pm.",
        "The 2nd floor has 120 m² for 1,250 people, up 12.5% since 2019.",
    ],
    "zh": ["您的订单共计25.50元，将于5月3日下午2点30分送达。", "气温是-5°C，比2019年增长了12.5%。",
           "60kW快充桩充了32.4kWh电，容量5000mAh，停水2～3天。",
           "请更新到5.3.1版本，我们住了2晚，地址192.168.1.1。",
           "本店周一至周六9:00—20:00营业，全场8.5折，《高等数学II》。"],
    "de": [
        "Ihre Bestellung kostet 25,50 € und kommt am 3. Mai.",
        "Am 14.03.2026 um 14:30 Uhr sind es 10.000 km und 12,5 %.",
    ],
    "fr": [
        "Votre commande coûte 25,50 € et arrive le 3 mai à 14h30.",
        "Le 1er janvier, 10 000 personnes ont payé 12,5 % de plus.",
    ],
    "es": [
        "Su pedido cuesta 25,50 € y llega el 3 de mayo a las 14:30.",
        "El 1.º de enero, 10.000 personas pagaron el 12,5 % más.",
    ],
    "it": [
        "Il suo ordine costa 25,50 € e arriva il 3 maggio alle 14:30.",
        "Il 1° gennaio 10.000 persone hanno percorso 12,5 km.",
    ],
    "pt": [
        "O seu pedido custa R$ 25,50 e chega no dia 3 de maio.",
        "Em 2026, 10.000 pessoas pagaram 12,5% a mais às 14:30.",
    ],
    "ru": [
        "Ваш заказ стоит 25,50 € и придёт 3 мая.",
        "В 2026 году 10 000 человек заплатили 12,5 % за 5 км.",
    ],
    "ja": ["ご注文は2,500円で、5月3日の14時30分に届きます。", "気温は-5°Cで、去年より12.5%増えました。",
           "用紙はB5で、0570-064-081まで。蓄電池は9.8kWh、広さは25㎡です。",
           "バージョン4.2.1とVer.2.10で、金利は0.2%pt上昇しました。"],
    "ko": ["주문 금액은 25,500원이고 5월 3일 오후 2시 30분에 도착합니다.", "기온은 -5°C이고 12.5% 늘었습니다.",
           "라면 3봉지와 B5 노트, 32.4kWh를 충전했고 €15입니다.",
           "버전 5.2.1은 1588-3482로 문의, 피자 2판, 금리 0.5%p 인상."],
}
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from tn_inputs import CLASSES, LANGUAGES, Case, draw_number  # noqa: E402

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def split_at(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def streamed(deltas: list[str], language: str) -> list[Commit]:
    normalizer = StreamingNormalizer(language)
    commits: list[Commit] = []
    for delta in deltas:
        commits += normalizer.push(delta)
    return commits + normalizer.flush()


def reply_and_cuts(language: str):
    """One or both of the language's replies, and up to 12 cut points in it (a cut may fall
    anywhere: inside a number, between a number and its unit, inside a multi-byte script)."""
    text = st.lists(st.sampled_from(REPLIES[language]), min_size=1, max_size=2).map(" ".join)
    return text.flatmap(lambda t: st.tuples(st.just(t), st.lists(st.integers(0, len(t)), max_size=12)))


def check(language: str, text: str, cuts: list[int]) -> None:
    commits = streamed(split_at(text, cuts), language)
    assert "".join(c.spoken for c in commits) == normalize(text, language)
    raw_end = spoken_end = 0
    for commit in commits:
        assert (commit.raw_start, commit.spoken_start) == (raw_end, spoken_end), commit
        raw_end, spoken_end = commit.raw_end, commit.spoken_end
    assert raw_end == len(text)


@pytest.mark.parametrize("language", REPLIES)
@SETTINGS
@given(data=st.data())
def test_any_split_reads_as_the_whole_text(language, data):
    check(language, *data.draw(reply_and_cuts(language)))


def generated(language: str, seed: int) -> str:
    """Three generated sentences of random classes in `language`, one after the other."""
    rng = random.Random(seed)
    lang = LANGUAGES[language]
    cases = []
    for _ in range(3):
        cls = rng.choice(CLASSES)
        cases.append(Case(language, cls, rng.choice(lang.frames[cls]), draw_number(lang, cls, rng)).text)
    return " ".join(cases)


@pytest.mark.parametrize("language", list(LANGUAGES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_split_of_generated_sentences_reads_as_the_whole(language, data):
    text = generated(language, data.draw(st.integers(0, 2**32)))
    check(language, text, data.draw(st.lists(st.integers(0, len(text)), max_size=12)))


@SETTINGS
@given(language=st.sampled_from(["ja", "ko", "zh"]), data=st.data())
def test_auto_detection_reads_like_the_named_language(language, data):
    """`auto` picks Japanese by kana, Korean by Hangul and Chinese by Han: split or whole, the
    text reads as it does with its language named."""
    text, cuts = data.draw(reply_and_cuts(language))
    commits = streamed(split_at(text, cuts), "auto")
    assert "".join(c.spoken for c in commits) == normalize(text, language)


# The last word of a reply, and an abbreviation that reads on past its period and a space ('z. B.',
# 'etc.' that may end the sentence), per language.
LAST_WORDS = {"de": ("gern", "z. B."), "fr": ("aider", "etc."), "it": ("aiutarti", "p. es.")}


@pytest.mark.parametrize("language", LAST_WORDS)
def test_a_plain_word_before_a_period_is_committed_with_the_period(language):
    """The word ends where the period comes, as the raw text's tokenizer closes it (issue 44); only
    an abbreviation reads on past the space after its period, and streams as one-shot reads it."""
    word, abbreviation = LAST_WORDS[language]
    normalizer = StreamingNormalizer(language)
    normalizer.push(f"Ok {word}")
    assert [c.spoken for c in normalizer.push(".")] == [f" {word}"]
    assert normalizer.pending == "."
    text = f"Ok {abbreviation} Ok."
    check(language, text, list(range(len(text) + 1)))


# A word, a period and a domain, where the language reads an address's words otherwise than the
# word alone (Russian spells Latin words; French, German and Italian spell labels of three letters).
ADDRESSES_AFTER_A_WORD = {
    "ru": ("Пишите на ivan.petrov@почта.рф сегодня.", "ай ви эй эн точка пи и ти ар оу ви собака почта точка рф"),
    "fr": ("Allez sur bon.com demain.", "b o n point com"),
    "en": ("Visit okay.com today.", "okay dot com"),
}


@pytest.mark.parametrize("language", ADDRESSES_AFTER_A_WORD)
def test_a_word_that_an_address_reads_otherwise_waits_for_what_follows_its_period(language):
    """'ivan.' is not committed as a word: a domain may follow, and the address reads 'ivan' spelled;
    once read, the word is said once, streamed character by character as in one piece."""
    text, address = ADDRESSES_AFTER_A_WORD[language]
    whole = normalize(text, language)
    assert address in whole and whole.count(address.split()[0]) == 1
    check(language, text, list(range(len(text) + 1)))
