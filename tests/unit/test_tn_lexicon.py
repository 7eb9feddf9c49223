"""Pronunciation dictionaries inside streaming normalization: readings, token boundaries,
overlaps, offsets back to the raw words, and clear errors for bad dictionaries."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from text_pieces import random_pieces

from voice_tts.tn import Lexicon, LexiconError, OffsetMap, StreamingNormalizer, normalize
from voice_tts.tn import lexicon as lexicon_module

RULES = [
    {"match": "SQL", "say": "sequel"},
    {"match": "New York", "say": "the big apple"},
    {"match": "York", "say": "Yorkie"},
    {"match": "colou?r", "say": "hue", "regex": True},
    {"match": "db", "say": "database", "whole_word": False},
    {"match": r"v(\d+)", "say": r"version \1", "regex": True},
    {"match": "Qwen", "say": "chwen", "case_sensitive": True},
]
LEXICON = Lexicon(RULES)


def stream(deltas: list[str], lexicon=LEXICON) -> tuple[str, list]:
    n = StreamingNormalizer(lexicon=lexicon)
    commits = [c for d in deltas for c in n.push(d)] + n.flush()
    return "".join(c.spoken for c in commits), commits


@pytest.mark.parametrize(
    ("text", "spoken"),
    [
        ("I love SQL.", "I love sequel."),
        ("sql and Sql too", "sequel and sequel too"),  # case-insensitive by default
        ("MySQL stays", "MySQL stays"),  # whole word by default
        ("The SQL's plan (SQL)", "The sequel's plan (sequel)"),
        ("In New York and York.", "In the big apple and Yorkie."),  # the longest match wins
        ("the colour, the color", "the hue, the hue"),
        ("mydbtool", "my database tool"),  # whole_word false matches inside a word
        ("Run v12 now", "Run version 12 now"),
        ("Qwen and qwen", "chwen and qwen"),  # case_sensitive
        ("FBI", "F B I"),
    ],
)
def test_readings(text: str, spoken: str) -> None:
    assert normalize(text, lexicon=RULES) == spoken


def test_chinese_rules_match_between_han_characters() -> None:
    rules = [{"match": "长城", "say": "万里长城"}, {"match": "GPU", "say": "显卡"}]
    assert normalize("我去长城看GPU和3个人。", lexicon=rules) == "我去万里长城看显卡和三个人。"


def test_a_dictionary_word_is_not_spelled_as_an_acronym() -> None:
    assert normalize("Ask the FBI", lexicon=[{"match": "FBI", "say": "the bureau"}]) == "Ask the the bureau"


def test_rules_apply_once_so_they_cannot_loop() -> None:
    rules = [{"match": "a", "say": "a a"}, {"match": "b", "say": "a"}]
    assert normalize("a b", lexicon=rules) == "a a a"


def test_ties_go_to_the_earlier_rule() -> None:
    rules = [{"match": "GPU", "say": "graphics card"}, {"match": "gpu", "say": "G P U"}]
    assert normalize("a GPU", lexicon=rules) == "a graphics card"


@pytest.mark.parametrize("text", ["Use SQL now.", "In New York, SQL's colour is v2 in mydb.", "S Q L SQ LSQL SQL"])
def test_across_token_boundaries_every_split_equals_one_shot(text: str) -> None:
    batch = normalize(text, lexicon=LEXICON)
    for cut in range(1, len(text)):
        assert stream([text[:cut], text[cut:]])[0] == batch, cut
    assert stream(list(text))[0] == batch
    rng = random.Random(text)
    for _ in range(20):
        pieces = random_pieces(text, rng, 1, 5)
        assert stream(pieces)[0] == batch, pieces


def test_s_plus_ql_waits_then_commits_the_raw_word_as_one_span() -> None:
    n = StreamingNormalizer(lexicon=LEXICON)
    assert "".join(c.spoken for c in n.push("Use S")) == "Use"
    assert n.pending == "S"
    assert n.push("QL") == []  # "SQL" could still grow into "SQLite"
    commits = n.push(" now")
    assert [(c.raw, c.spoken) for c in commits if c.spoken] == [("SQL", " sequel")]


def test_offsets_map_spoken_words_back_to_the_raw_text() -> None:
    text = "Use SQL now."
    spoken, commits = stream([text])
    offsets = OffsetMap(commits)
    start = spoken.index("sequel")
    rule = next(c for c in commits if c.kind == "lexicon")
    assert (rule.raw_start, rule.raw_end, rule.raw) == (4, 7, "SQL")
    # inside "sequel" the listener has not heard all of "SQL"; after it, the raw word is heard
    assert offsets.raw_at_spoken(start + len("sequel") - 1) == 4
    assert offsets.raw_at_spoken(start + len("sequel")) >= 7
    assert offsets.spoken_at_raw(4) == start
    assert offsets.raw_at_spoken(spoken.index("now") + 1) == text.index("now") + 1


def test_barge_in_after_the_reading_keeps_the_raw_word() -> None:
    n = StreamingNormalizer(lexicon=LEXICON)
    commits = n.push("Query SQL in New Yo")
    n.reset()
    assert "".join(c.raw for c in commits) == "Query SQL in "
    assert n.raw_committed_end == len("Query SQL in ")


FRAGMENTS = ["SQL", "S", "QL", "New", " York", "York", "colour", "db", "v1", "2", "Qwen", " ", ".", "'s", "(", ")",
             "my", "sql", "New York", "YorkSQL", "$1", "2026", "年", "，"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), pieces=st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=10))
def test_any_split_equals_one_shot_with_a_lexicon(data, pieces: list[str]) -> None:
    text = "".join(pieces)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    deltas = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    spoken, commits = stream(deltas)
    assert spoken == normalize(text, lexicon=LEXICON)
    assert "".join(c.raw for c in commits) == text


# --- bad dictionaries --------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ([{"match": "", "say": "x"}], "rule 0: 'match' is empty"),
        ([{"match": "a", "say": "b"}, {"match": "(", "say": "x", "regex": True}], "rule 1: invalid regex"),
        ([{"match": "a*", "say": "x", "regex": True}], "matches the empty string"),
        ([{"match": "a", "say": r"\2", "regex": True}], "group"),
        ([{"match": "a"}], "'say' must be a string"),
        ([{"match": "a", "say": "b", "whole": True}], "unknown fields ['whole']"),
        ([{"match": "a", "say": "b", "regex": "yes"}], "'regex' must be true or false"),
        ([{"match": "a" * 201, "say": "b"}], "at most 200"),
        (["SQL"], "a rule is an object"),
        ([{"match": "a", "say": "b"}] * (lexicon_module.MAX_RULES + 1), "at most 2000"),
    ],
)
def test_bad_rules_get_a_clear_error(rules, message: str) -> None:
    with pytest.raises(LexiconError, match=message.replace("(", r"\(").replace("[", r"\[").replace("*", r"\*")):
        Lexicon(rules)


def test_files_json_and_csv(tmp_path) -> None:
    path = tmp_path / "words.json"
    path.write_text(json.dumps({"rules": RULES[:2]}))
    assert Lexicon.load(path) == Lexicon(RULES[:2])
    path = tmp_path / "words.csv"
    path.write_text('match,say,case_sensitive\nSQL,sequel,\nQwen,chwen,true\n"New York","the big apple",false\n')
    loaded = Lexicon.load(path)
    assert [r.match for r in loaded.rules] == ["SQL", "Qwen", "New York"]
    assert loaded.rules[1].case_sensitive and not loaded.rules[2].case_sensitive


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.json", '[{"match": "a", "say": "b"},', "invalid JSON at line 1"),
        ("bad.json", '{"match": "a"}', "a lexicon is a list of rules"),
        ("bad.csv", "word,reading\nSQL,sequel\n", "needs a header with 'match' and 'say'"),
        ("bad.csv", "match,say,regex\nSQL,sequel,maybe\n", "line 2: regex must be true or false"),
        ("bad.csv", "match,say,regex\nSQL,sequel,\n(,x,true\n", "rule 1: invalid regex"),
    ],
)
def test_bad_files_get_a_clear_error(tmp_path, name: str, content: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(LexiconError, match=message.replace("(", r"\(")) as info:
        Lexicon.load(path)
    assert str(path) in str(info.value)


def test_huge_and_missing_files_are_refused(tmp_path) -> None:
    path = tmp_path / "huge.csv"
    path.write_text("match,say\n" + "a,b\n" * (lexicon_module.MAX_FILE_BYTES // 4 + 1))
    with pytest.raises(LexiconError, match="bytes; at most"):
        Lexicon.load(path)
    with pytest.raises(LexiconError, match="cannot read lexicon file"):
        Lexicon.load(tmp_path / "missing.json")


def test_regex_rules_agree_with_and_without_their_shared_gate() -> None:
    gated = Lexicon(RULES)
    assert gated._regex_gate is not None
    plain = Lexicon(RULES)
    plain._regex_gate = None
    text = "In v12 the colour of SQL was colo"
    for final in (False, True):
        for pos in range(len(text)):
            assert gated.matches(text, pos, len(text), final, False) == plain.matches(text, pos, len(text), final, False)
    backref = Lexicon([{"match": r"(a)\1", "say": "x", "regex": True}, {"match": "b+", "say": "y", "regex": True}])
    assert backref._regex_gate is None  # group numbers would shift inside one alternation


def test_a_slow_regex_is_skipped_not_hung() -> None:
    lexicon = Lexicon([{"match": r"(\w+\s?)+$!", "say": "x", "regex": True}])
    text = "word " * 15 + "end."
    assert normalize(text, lexicon=lexicon) == normalize(text)
