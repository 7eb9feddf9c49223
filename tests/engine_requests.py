"""What a test's engine wrapper records of an `open_stream` call: the stream request's settings
as a dict, and any keyword that is not a setting (a remote engine's `connect_timeout`)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from voice_tts.request import StreamRequest

SETTINGS = tuple(field.name for field in fields(StreamRequest))


def recorded_options(request: StreamRequest | None, keywords: dict[str, Any]) -> dict[str, Any]:
    settings = {key: value for key, value in keywords.items() if key in SETTINGS}
    request = StreamRequest.of(request, **settings)
    others = {key: value for key, value in keywords.items() if key not in SETTINGS}
    return {**{name: getattr(request, name) for name in SETTINGS}, **others}
