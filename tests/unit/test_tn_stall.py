"""Time-outs, forced commits, flush and barge-in reset (spec §3.9), with an injected clock."""

from __future__ import annotations

from voice_tts.tn import Commit, StreamingNormalizer, normalize


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def spoken(commits: list[Commit]) -> str:
    return "".join(c.spoken for c in commits)


def test_poll_without_a_tail_or_before_a_timeout_commits_nothing() -> None:
    clock = Clock()
    n = StreamingNormalizer(clock=clock)
    assert n.poll(10.0) == []
    n.push("Hello wor")
    clock.now = 0.3
    assert n.poll(starving=True) == []
    clock.now = 0.79
    assert n.poll() == []
    assert n.pending == "wor"


def test_level_1_closes_a_plain_word_and_what_waited_on_it() -> None:
    clock = Clock()
    n = StreamingNormalizer(clock=clock)
    before = n.push("The price is $12.50 per")
    assert spoken(before) == "The price is"
    forced = n.poll(0.35, starving=True)
    assert spoken(forced) == " twelve dollars and fifty cents per"
    assert all(c.forced for c in forced)
    after = n.push("kg.") + n.flush()
    assert spoken(after) == " kilogram."
    assert not any(c.forced for c in after)


def test_level_1_never_closes_digits_or_markup() -> None:
    for tail in ("今天是202", "Pay $1", "See **", "Visit https://exa", "v0."):
        clock = Clock()
        n = StreamingNormalizer(clock=clock)
        n.push(tail)
        held = n.pending
        assert n.poll(0.9, starving=True) == [], tail
        assert n.pending == held


def test_level_2_equals_batch_of_prefix_plus_batch_of_rest() -> None:
    pairs = [
        ("The price is $1", "2.5 now."), ("今天是202", "6年。"), ("Meet at 10:", "30 am."), ("See [the do", "cs](x) ok")
    ]
    for prefix, rest in pairs:
        clock = Clock()
        n = StreamingNormalizer(clock=clock)
        commits = n.push(prefix)
        forced = n.poll(2.0)
        assert forced and all(c.forced for c in forced)
        commits += forced
        commits += n.push(rest) + n.flush()
        assert not any(c.forced for c in commits if c not in forced)
        # After a forced commit the next word gets a separator (none between Han characters).
        head, tail = normalize(prefix), normalize(rest)
        joined = head + (" " if tail[:1].isascii() and tail[:1].isalnum() else "") + tail
        assert spoken(commits) == joined, (prefix, spoken(commits))


def test_the_stall_timer_restarts_with_every_delta() -> None:
    clock = Clock()
    n = StreamingNormalizer(clock=clock)
    n.push("Total $1")
    clock.now = 1.9
    n.push("2")
    assert n.poll(3.0) == []  # only 1.1 s since the last delta
    assert spoken(n.poll(3.9)) == " twelve dollars"


def test_reset_drops_the_tail_and_keeps_offsets() -> None:
    n = StreamingNormalizer()
    commits = n.push("The price is $1") + n.push("2.5") + n.push("0 per")
    n.reset()
    assert spoken(commits) == "The price is"
    assert n.raw_committed_end == 13
    assert n.pending == ""
    assert n.flush() == []
    more = n.push("Sorry, go on.") + n.flush()
    assert more[0].raw_start == 13 and more[0].spoken_start == len("The price is")
    assert spoken(more) == " Sorry, go on."


def test_flush_ends_a_turn_and_the_next_turn_continues_the_streams() -> None:
    n = StreamingNormalizer()
    first = n.push("- item one") + n.flush()
    assert spoken(first) == "item one."
    second = n.push("Then 5") + n.flush()
    assert second[0].raw_start == len("- item one")
    assert spoken(second) == " Then five"


def test_a_tail_bound_shorter_than_what_a_rule_reads_ahead_cuts_inside_the_text() -> None:
    # A sign before letters makes the reader look further ahead than a 6-character bound and
    # than the text itself: the forced cut stays inside the text, every character said once.
    from voice_tts.tn import StallPolicy

    for language in ("pt", "es", "en", "ru"):
        for deltas in (["-inXX"], ["-inXX", " y más"]):
            normalizer = StreamingNormalizer(language, policy=StallPolicy(max_tail_en=6, max_tail_zh=6))
            commits = [c for delta in deltas for c in normalizer.push(delta)] + normalizer.flush()
            assert "".join(c.raw for c in commits) == "".join(deltas), language
            assert all(c.raw_start < c.raw_end for c in commits)
