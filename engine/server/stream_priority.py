"""Which priority a connection's next stream gets (docs/protocol.md, "Priority").

A turn on a connection that has finished a turn before (its `done` went out, its client kept
up) is opened at `PRIORITY_ESTABLISHED`, ahead of turns on new connections and HTTP requests
(`PRIORITY_NORMAL`). Under a storm of new connections the engine serves the conversations
already under way first; a new connection's first turn waits behind their first audio.
"""

from __future__ import annotations

from voice_tts.request import PRIORITY_NORMAL

PRIORITY_ESTABLISHED = PRIORITY_NORMAL - 1


def stream_priority(established: bool) -> int:
    """The priority of a connection's next stream: ahead once it has finished a turn."""
    return PRIORITY_ESTABLISHED if established else PRIORITY_NORMAL
