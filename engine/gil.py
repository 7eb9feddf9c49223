"""The interpreter's GIL switch interval while an engine runs (process-wide, only ever lowered).

An engine's worker thread (the Qwen3 step loop at every device wait, eSpeak's synthesis thread
at every audio buffer) gives the GIL up thousands of times a second and needs it back at once.
At Python's default 5 ms, a thread waiting for the GIL (the server's event loop, busy with many
streams' text and audio) can miss every release and wait out the full interval, and so can the
worker behind it.
"""

from __future__ import annotations

import sys

SWITCH_INTERVAL_S = 0.0005


def lower_switch_interval(seconds: float = SWITCH_INTERVAL_S) -> None:
    """Set the switch interval to `seconds` unless it is already at most that."""
    if sys.getswitchinterval() > seconds:
        sys.setswitchinterval(seconds)
