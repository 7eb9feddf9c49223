"""When a stalled stream gives up waiting (spec §3.9): limits, time-outs and where to cut."""

from __future__ import annotations

from dataclasses import dataclass

from voice_tts.tn.chars import JOIN_ANY, JOIN_DIGITS, JOIN_LETTERS, is_digit, is_letter


@dataclass(frozen=True, slots=True)
class StallPolicy:
    word_stall_s: float = 0.35  # level 1 when downstream is starving
    word_idle_s: float = 0.8  # level 1 regardless
    span_stall_s: float = 2.0  # level 2
    max_tail_en: int = 96
    max_tail_zh: int = 64

    def level(self, idle_s: float, starving: bool) -> int:
        idle_s += 1e-9  # clocks in seconds as floats: 100.35 - 100.0 must count as 350 ms
        if idle_s >= self.span_stall_s:
            return 2
        return 1 if idle_s >= self.word_idle_s or (starving and idle_s >= self.word_stall_s) else 0


def ends_in_plain_word(tail: str) -> bool:
    """Level 1 only closes a plain word: the last whitespace-separated piece is letters only."""
    piece = tail.rsplit(None, 1)[-1] if tail.strip() else ""
    return bool(piece) and tail[-1] == piece[-1] and all(is_letter(c) for c in piece)


def cut_position(text: str, pos: int, limit: int) -> int:
    """Where to force a span that would outgrow the tail bound: after its last inner joiner."""
    for i in range(limit - 1, pos, -1):
        c = text[i]
        if c.isspace() or c in JOIN_ANY or c in JOIN_LETTERS or c in JOIN_DIGITS:
            return i + 1
    return limit


def digit_run_reaches(text: str, pos: int, limit: int) -> bool:
    return all(is_digit(text[i]) for i in range(pos, min(limit, len(text))))
