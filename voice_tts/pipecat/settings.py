"""The settings of `Qwen3StreamingTTS`, and how a settings change from any Pipecat app is read.

An app written for any Pipecat TTS service sends Pipecat's base `TTSSettings`, a dict (the
deprecated `settings={...}`, `voice_id` too) or `set_voice`; one written for this service sends
its `Settings`. The service reads each as a delta of its own settings; `refused_values` takes
out what it cannot take, and `turn_request` is the one place where settings become a turn's
`StreamRequest` (whose checks are the settings' checks).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pipecat.services.settings import TTSSettings
from pipecat.utils.types import NOT_GIVEN, NotGiven

from voice_tts.request import TURN_SETTINGS, StreamRequest, checked_setting
from voice_tts.protocol import StreamingEngine
from voice_tts.tn import Lexicon


@dataclass
class Qwen3StreamingTTSSettings(TTSSettings):
    """Runtime-updatable settings of `Qwen3StreamingTTS`.

    Voice, language and instruct are fixed per engine stream: a change applies from the next
    turn, and a turn in progress goes on in a new stream with the new settings.

    Parameters:
        instruct: A style instruction ("speak softly"), for models that take one.
        lexicon: A pronunciation dictionary: a `voice_tts.tn.Lexicon` or its rules, such as
            `[{"match": "SQL", "say": "sequel"}]`; applied from the next turn. The context keeps
            the raw words ("SQL") even after a barge-in.
        speed: The speaking rate, 0.5 to 2.0, pitch kept (needs the `speed` extra on an
            in-process engine); a change applies from the next chunk, mid-turn too. Word
            timestamps and the context after a barge-in follow the audio as played.
    """

    instruct: str | None | NotGiven = field(default_factory=lambda: NOT_GIVEN)
    lexicon: Lexicon | list[dict] | None | NotGiven = field(default_factory=lambda: NOT_GIVEN)
    speed: float | NotGiven = field(default_factory=lambda: NOT_GIVEN)


def refused_values(
    delta: Qwen3StreamingTTSSettings, current: Qwen3StreamingTTSSettings, engine: StreamingEngine | None
) -> Iterator[str]:
    """Take out of `delta` each value the service cannot take, saying why (the setting keeps
    its `current` value); the values kept are stored the way turns use them."""
    for name, value in delta.given_fields().items():
        declared = name not in delta.extra
        try:
            value = _checked_value(name, value, engine)
        except ValueError as e:
            if declared:
                setattr(delta, name, NOT_GIVEN)
                yield f"{e}; {name} stays {getattr(current, name)!r}"
            else:
                del delta.extra[name]
                yield f"{e}"
            continue
        setattr(delta, name, value)


def turn_request(
    settings: Qwen3StreamingTTSSettings,
    sample_rate: int,
    normalize: bool,
    spell_acronyms: bool,
    markup: str | None = None,
) -> StreamRequest:
    """The `StreamRequest` of a turn spoken with `settings` (its turn settings, which are the
    request's) and the service's fixed options."""
    turn_settings = {name: getattr(settings, name) for name in TURN_SETTINGS}
    return StreamRequest(
        **turn_settings, sample_rate=sample_rate, normalize=normalize, spell_acronyms=spell_acronyms, markup=markup
    )


def _checked_value(name: str, value: Any, engine: StreamingEngine | None) -> Any:
    """A setting's new value as it is stored; ValueError saying what is wrong with it."""
    if name != "model":
        return checked_setting(name, value)
    served = getattr(engine, "model_name", None)
    if not isinstance(value, str) or (served and value != served):
        raise ValueError(f"the engine serves {served or 'one model'}, not {value!r}")
    return value
