"""`TurnText` normalizes received text just ahead of the engine's voice (a server turn): only
while little spoken text waits ahead of the engine's progress, more as progress comes, and a
slice anyway when the engine makes no progress for a while (it may hold text back until more
comes). A fake clock: no timing."""

from __future__ import annotations

import pytest

from voice_tts.turn_text import ENGINE_HOLD_SECONDS, NORMALIZE_SLICE_CHARS, SPOKEN_AHEAD_CHARS, TurnText

SENTENCE = "The 3 pilots met at 10 am, and they flew on. "
TEXT = SENTENCE * 200  # far more than is normalized ahead


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def fed(text: TurnText) -> str:
    """Everything `take_ahead` gives now."""
    spoken = ""
    while more := text.take_ahead():
        spoken += more
    return spoken


@pytest.mark.parametrize("normalize", [True, False])
def test_text_is_normalized_only_ahead_of_progress_then_as_progress_comes(normalize: bool) -> None:
    text = TurnText(normalize=normalize, clock=Clock())
    text.receive(TEXT)
    spoken = fed(text)
    assert SPOKEN_AHEAD_CHARS <= len(spoken) < SPOKEN_AHEAD_CHARS + 2 * NORMALIZE_SLICE_CHARS
    assert text.unnormalized > len(TEXT) - SPOKEN_AHEAD_CHARS - 2 * NORMALIZE_SLICE_CHARS
    assert text.take_ahead() == "" and not text.needs_normalizing
    # The engine voices what it has: the rest follows, progress by progress.
    while text.unnormalized:
        text.on_progress(len(spoken), 0.0)
        more = fed(text)
        assert more, "progress up to everything pushed always lets more text through"
        spoken += more
    spoken += text.flush()
    reference = TurnText(normalize=normalize)
    assert spoken == reference.push(TEXT) + reference.flush()
    assert text.usage.characters_received == len(TEXT)


def test_an_engine_without_progress_gets_a_slice_at_poll_once_it_held_its_text_long_enough() -> None:
    clock = Clock()
    text = TurnText(clock=clock)
    text.receive(TEXT)
    fed(text)
    left = text.unnormalized
    clock.now += ENGINE_HOLD_SECONDS / 2
    assert text.holds_text and text.poll() == ""  # the engine may just be busy elsewhere
    clock.now += ENGINE_HOLD_SECONDS
    assert text.poll()
    assert text.unnormalized == left - NORMALIZE_SLICE_CHARS
    assert text.poll() == ""  # the hold is counted again from the slice just given


def test_a_cancel_drops_the_unnormalized_text_but_usage_counts_it_received() -> None:
    text = TurnText(clock=Clock())
    text.receive(TEXT)
    fed(text)
    text.cancel()
    assert text.unnormalized == 0 and not text.holds_text and text.take_ahead() == ""
    assert text.usage.characters_received == len(TEXT)
    assert text.usage.characters_spoken == len(text.heard) == 0


def test_push_still_normalizes_everything_at_once() -> None:
    text = TurnText(clock=Clock())
    assert text.push(SENTENCE * 30)
    assert text.unnormalized == 0
