"""ProgressTracker: engine progress mapped back to raw words and the heard raw prefix."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voice_tts.progress import ProgressTracker, Word, segment_words
from voice_tts.tn import Commit, StreamingNormalizer


def track(deltas: list[str]) -> tuple[ProgressTracker, str]:
    n = StreamingNormalizer()
    tracker = ProgressTracker()
    spoken = []
    for delta in [*deltas, None]:
        if delta is not None:
            tracker.receive(delta)
        commits = n.flush() if delta is None else n.push(delta)
        tracker.add_commits(commits)
        spoken += [c.spoken for c in commits]
    return tracker, "".join(spoken)


def play(tracker: ProgressTracker, spoken: str, step: int = 1) -> dict[str, float]:
    """Advance progress one character at a time; time = characters / 10."""
    starts: dict[str, float] = {}
    for p in range(0, len(spoken) + 1, step):
        for word in tracker.on_progress(p, p / 10):
            assert word.text not in starts
            starts[word.text] = word.start_time
    return starts


def test_english_words_start_at_their_first_spoken_character() -> None:
    tracker, spoken = track(["Hello wor", "ld. How are", " you?"])
    assert spoken == "Hello world. How are you?"
    starts = play(tracker, spoken)
    assert list(starts) == ["Hello", "world.", "How", "are", "you?"]
    # "world" begins at spoken index 6: it has started once progress passes 6, i.e. spoken_end 7.
    assert starts["world."] == pytest.approx(0.7)
    assert starts["Hello"] == pytest.approx(0.1)
    assert [w.text for w in tracker.words] == list(starts)
    word = tracker.words[1]
    assert tracker.raw_text[word.raw_start:word.raw_end] == "world."


def test_heard_text_is_word_granular_with_trailing_punctuation() -> None:
    tracker, spoken = track(["Hello world. How are you?"])
    play(tracker, spoken)
    assert tracker.heard_text(0.0) == ""
    assert tracker.heard_text(0.1) == "Hello"
    assert tracker.heard_text(0.69) == "Hello"
    assert tracker.heard_text(0.7) == "Hello world."
    assert tracker.heard_text(1.2) == "Hello world."
    assert tracker.heard_text(1.4) == "Hello world. How"
    assert tracker.heard_text(99) == "Hello world. How are you?"
    assert tracker.heard_text() == "Hello world. How are you?"


def test_heard_text_never_ahead_of_progress() -> None:
    tracker, spoken = track(["One two three."])
    tracker.on_progress(5, 0.5)  # "One t": "two" has started, "three" has not
    assert tracker.heard_text() == "One two"
    assert [w.text for w in tracker.on_progress(3, 0.6)] == []  # progress never moves back
    assert tracker.heard_text(0.4) == ""


def test_chinese_characters_are_words() -> None:
    assert segment_words("你好，世界。") == [(0, 1), (1, 3), (3, 4), (4, 6)]
    tracker, spoken = track(["你好，", "世界。"])
    starts = play(tracker, spoken)
    assert list(starts) == ["你", "好，", "世", "界。"]
    tracker2, spoken2 = track(["你好，世界。"])
    tracker2.on_progress(4, 1.0)  # "你好，世"
    assert tracker2.heard_text() == "你好，世"


def test_mixed_text_and_replaced_spans() -> None:
    tracker, spoken = track(["我买了3个iPh", "one 15 Pro。"])
    assert spoken == "我买了三个iPhone 十五 Pro。"
    assert [tracker.raw_text[a:b] for a, b in segment_words(tracker.raw_text)] == [
        "我", "买", "了", "3", "个", "iPhone", "15", "Pro。"
    ]
    # "3个" is one replaced span "三个": "3" starts with 三, "个" only once the span is passed.
    assert [w.text for w in tracker.on_progress(4, 0.4)] == ["我", "买", "了", "3"]
    assert tracker.heard_text() == "我买了3"
    assert [w.text for w in tracker.on_progress(5, 0.5)] == ["个"]
    assert [w.text for w in tracker.on_progress(6, 0.6)] == ["iPhone"]


def test_markdown_deleted_spans_map_to_the_next_spoken_character() -> None:
    tracker, spoken = track(["This is **bo", "ld** and [the docs](https://x.io/a) 🎉 done."])
    assert spoken == "This is bold and the docs done."
    starts = play(tracker, spoken)
    assert list(starts) == ["This", "is", "**bold**", "and", "[the", "docs](https://x.io/a)", "🎉", "done."]
    # "**bold**" starts with "b" (spoken index 8), the emoji with "done" (index 26).
    assert starts["**bold**"] == pytest.approx(0.9)
    assert starts["🎉"] == starts["done."]
    assert tracker.heard_text(starts["docs](https://x.io/a)"]) == "This is **bold** and [the docs](https://x.io/a)"


def test_forced_split_word_and_numbers() -> None:
    tracker, spoken = track(["The price is $12.50 per kg."])
    assert spoken == "The price is twelve dollars and fifty cents per kilogram."
    tracker.on_progress(14, 1.0)  # inside "twelve dollars…"
    assert tracker.heard_text() == "The price is $12.50"
    tracker.on_progress(44, 2.0)  # " per": the separator is not the word's first character
    assert tracker.heard_text() == "The price is $12.50"
    tracker.on_progress(45, 2.1)
    assert tracker.heard_text() == "The price is $12.50 per"


def test_words_started_before() -> None:
    tracker, spoken = track(["a bb ccc"])
    play(tracker, spoken)
    assert [w.text for w in tracker.words_started_before(0.35)] == ["a", "bb"]
    assert all(isinstance(w, Word) for w in tracker.words)


def test_rejects_commits_that_do_not_continue_the_stream() -> None:
    tracker = ProgressTracker()
    tracker.receive("hi x")
    tracker.add_commits([Commit(0, 2, "hi", 0, raw="hi")])
    with pytest.raises(ValueError):
        tracker.add_commits([Commit(5, 6, "x", 2, raw="x")])
    with pytest.raises(ValueError):
        tracker.add_commits([Commit(2, 4, "x", 2, raw="")])
    with pytest.raises(ValueError):
        tracker.add_commits([Commit(2, 6, " x y", 2, raw=" x y")])  # past the received text


def test_a_far_word_reported_before_its_punctuation_arrived_is_taken() -> None:
    # A server's tracker reported "friend" while it ended its text; "." came after it.
    far = ProgressTracker()
    far.receive("my friend")
    far.add_commits([Commit(0, 9, "my friend", 0, raw="my friend")])
    early = far.on_progress(9, 0.5)
    assert [(w.raw_start, w.raw_end) for w in early] == [(0, 2), (3, 9)]
    here, _ = track(["my friend", ". Yes"])
    here.add_started(early)
    assert [w.text for w in here.words] == ["my", "friend"]
    with pytest.raises(ValueError):
        here.add_started([Word("es", 0.6, 12, 14)])  # not where its next word starts
    with pytest.raises(ValueError):
        here.add_started([Word("Yesno", 0.6, 11, 16)])  # longer than the word sent


@settings(max_examples=60, deadline=None)
@given(
    text=st.lists(
        st.sampled_from(
            ["Hello", " ", "world.", "**", "你好", "，", "3个", "$12.50", "🎉", "\n", "- ", "iPhone", "2026年"]
        ),
        min_size=1, max_size=12,
    ).map("".join),
    points=st.lists(st.integers(0, 200), max_size=20),
)
def test_every_word_once_in_order_and_never_ahead(text: str, points: list[int]) -> None:
    tracker, spoken = track([text])
    progress = sorted(points) + [len(spoken) + 1]
    seen: list[Word] = []
    for i, p in enumerate(progress):
        new = tracker.on_progress(p, float(i))
        seen += new
        heard = tracker.heard_text()
        assert text.startswith(heard)
        for word in new:
            # Never ahead: the word's first spoken character lies before the progress mark.
            assert tracker._trigger(word.raw_start) < max(progress[: i + 1])
    assert [w.raw_start for w in seen] == sorted(w.raw_start for w in seen)
    assert len({w.raw_start for w in seen}) == len(seen)
    spans = segment_words(text)
    assert [w.raw_start for w in seen] == [a for a, b in spans if tracker._trigger(a) is not None]
