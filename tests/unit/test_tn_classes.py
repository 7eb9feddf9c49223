"""English normalization classes, one table row per reading, each also streamed on every split.

The readings follow the English development data (`shared/tn/`) unless the house style differs
on purpose (docs/protocol.md, "Text normalization")."""

from __future__ import annotations

import random

import pytest
from text_pieces import random_pieces

from voice_tts.tn import StreamingNormalizer, normalize

READINGS = {
    # dates: day first reads "the ... of", month first reads month first, as written
    "Archived on 25 April 2011 .": "Archived on the twenty fifth of april twenty eleven",
    "Retrieved 30 September 2015": "Retrieved the thirtieth of september twenty fifteen",
    "( 01 August 2000 )": "( the first of august two thousand )",
    "On the 21st of October 2006 , she": "On the twenty first of october two thousand six , she",
    "Alonso ( June 12 , 2010 ) .": "Alonso ( june twelfth , twenty ten ) .",
    "Retrieved Jun 5 , 2013 .": "Retrieved june fifth , twenty thirteen .",
    "It opened Nov. 5, 2010 downtown.": "It opened november fifth, twenty ten downtown.",
    "In April 2008 , he": "In april two thousand eight , he",
    "from 27 July through 2 August 1987 .": "from the twenty seventh of july through the second of august nineteen eighty seven .",
    "27 Dec 2015": "the twenty seventh of december twenty fifteen",
    "May I help you? In May we rest.": "May I help you? In May we rest.",
    "I left in Nov. Then I came back.": "I left in Nov. Then I came back.",
}


def loose(text: str) -> str:
    return " ".join("".join(c if c.isalnum() or c == "'" else " " for c in text.lower().replace("-", " ")).split())


@pytest.mark.parametrize("text", list(READINGS))
def test_reading(text: str) -> None:
    assert loose(normalize(text, "en")) == loose(READINGS[text])


def stream(deltas: list[str]) -> str:
    n = StreamingNormalizer("en")
    commits = [c for d in deltas for c in n.push(d)] + n.flush()
    return "".join(c.spoken for c in commits)


@pytest.mark.parametrize("text", list(READINGS))
def test_every_split_equals_one_shot(text: str) -> None:
    """Each cut point, one character at a time, and LLM-like pieces give the one-shot output."""
    batch = normalize(text, "en")
    for cut in range(1, len(text)):
        assert stream([text[:cut], text[cut:]]) == batch, cut
    assert stream(list(text)) == batch
    rng = random.Random(text)
    for _ in range(10):
        pieces = random_pieces(text, rng, 1, 6)
        assert stream(pieces) == batch, pieces
