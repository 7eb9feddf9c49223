"""The settings contract of the Pipecat service, as any Pipecat app sends settings: every field
(model, voice, language with `Language` enums incl. regional ones, instruct, lexicon, speed)
through each way Pipecat 1.14 accepts (its base `TTSSettings`, our `Settings`, the deprecated
`settings={...}` dict with its `voice_id` alias, the deprecated `set_voice`/`set_model`) on each
engine (the embedded voice, the Qwen3 engine on the tiny checkpoint, a server on 127.0.0.1),
in real pipelines. Every turn after a change speaks every word with the new settings; a value
the service cannot take is an `ErrorFrame` naming the setting, and the next turn speaks.

One pipeline per (engine, way of sending) carries all the changes, turn after turn, which
keeps the matrix to nine pipelines."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from loguru import logger
from pipecat.frames.frames import (
    ErrorFrame,
    MetricsFrame,
    TTSAudioRawFrame,
    TTSStartedFrame,
    TTSTextFrame,
    TTSUpdateSettingsFrame,
)
from pipecat.metrics.metrics import TTFBMetricsData
from pipecat.services.settings import TTSSettings
from pipecat.tests.utils import SleepFrame, run_test
from pipecat.transcriptions.language import Language
from pipecat.utils.errors import ErrorCategory
from pipecat_harness import RecordingEngine, of_type, open_real_engine
from test_pipecat_tts import VOICES, llm_turn, params

from voice_tts.client import RemoteEngine
from voice_tts.engines import UNNAMED_MODEL
from voice_tts.pipecat import Qwen3StreamingTTS
from voice_tts.tn import Lexicon

ENGINES = ["embedded", "qwen3-tiny", "remote"]
SENTENCE = "Say SQL twice, please."
LEXICON = [{"match": "SQL", "say": "sequel"}]
INSTRUCT = "Speak slowly."


@dataclass
class ContractEngine:
    kind: str
    engine: RecordingEngine
    # The voices of the engine doing the work.
    voices: tuple[str, str]

    @property
    def normalizes_here(self) -> bool:
        """Text normalization (and with it the lexicon) runs in this process."""
        return self.kind != "remote"


@pytest.fixture(scope="module")
def contract_server():
    from server_harness import start_server

    server = start_server()
    yield server
    server.stop()


@pytest.fixture(params=ENGINES)
async def contract_engine(request, tiny_checkpoint):
    if request.param == "remote":
        backing = RemoteEngine(request.getfixturevalue("contract_server").ws_url)
        voices = VOICES["embedded"]
    else:
        backing = open_real_engine(request.param, tiny_checkpoint)
        voices = VOICES[request.param]
    yield ContractEngine(request.param, RecordingEngine(backing), voices)
    await backing.aclose()


def update(way: str, **fields) -> TTSUpdateSettingsFrame:
    """A settings change as an app writes it, `way` being one Pipecat accepts."""
    if way == "base":
        # An app written for any Pipecat TTS service: the base class; fields it does not
        # declare (ours) as Pipecat builds them from names.
        declared = {k: fields.pop(k) for k in ("voice", "language", "model") if k in fields}
        delta = TTSSettings.from_mapping(fields) if fields else TTSSettings()
        for name, value in declared.items():
            setattr(delta, name, value)
        return TTSUpdateSettingsFrame(delta=delta)
    if way == "ours":
        return TTSUpdateSettingsFrame(delta=Qwen3StreamingTTS.Settings(**fields))
    # The deprecated dict: tags as strings, Pipecat's `voice_id` alias.
    if "voice" in fields:
        fields["voice_id"] = fields.pop("voice")
    if isinstance(fields.get("language"), Language):
        fields["language"] = fields["language"].value
    return TTSUpdateSettingsFrame(settings=fields)


def turns_of(down: list) -> list[tuple[str, float]]:
    """(words spoken, audio seconds) of each audio context, in order."""
    contexts = [frame.context_id for frame in of_type(down, TTSStartedFrame)]
    return [
        (
            " ".join(w.text for w in of_type(down, TTSTextFrame) if w.context_id == context),
            sum(
                len(f.audio) / 2 / f.sample_rate
                for f in of_type(down, TTSAudioRawFrame)
                if f.context_id == context
            ),
        )
        for context in contexts
    ]


@pytest.mark.parametrize("way", ["base", "ours", "dict"])
async def test_every_setting_changes_between_turns_and_every_turn_speaks(contract_engine, way):
    real = contract_engine
    tts = Qwen3StreamingTTS(engine=real.engine, settings=TTSSettings(voice=real.voices[0]))
    frames = [
        *llm_turn(SENTENCE),
        update(way, voice=real.voices[1], language=Language.EN_GB),
        *llm_turn(SENTENCE),
        update(way, speed=2.0),
        *llm_turn(SENTENCE),
        update(way, lexicon=LEXICON, instruct=INSTRUCT),
        *llm_turn(SENTENCE),
    ]
    warnings: list[str] = []
    sink = logger.add(warnings.append, level="WARNING", format="{message}")
    try:
        down, up = await run_test(tts, frames_to_send=frames, pipeline_params=params())
    finally:
        logger.remove(sink)

    assert not of_type(up, ErrorFrame), [e.error for e in of_type(up, ErrorFrame)]
    assert not warnings  # a regional language, our fields through the base class: no warning
    turns = turns_of(down)
    assert [words for words, _ in turns] == [SENTENCE] * 4  # the context keeps the raw words
    assert all(seconds > 0 for _, seconds in turns)
    plain, regional, fast, styled = real.engine.streams
    assert plain.options["voice"] == real.voices[0] and plain.options["language"] is None
    assert regional.options["voice"] == real.voices[1]
    assert regional.options["language"] == "en-gb"  # the regional voice where there is one
    # Twice the rate: about half the audio the engine made (a server stretches its own).
    if real.normalizes_here:
        assert 0.4 < turns[2][1] / fast.done.usage.audio_seconds < 0.6
    else:
        assert fast.options["speed"] == 2.0 and 0.4 < turns[2][1] / turns[1][1] < 0.75
    assert styled.options["instruct"] == INSTRUCT and styled.options["voice"] == real.voices[1]
    if real.normalizes_here:
        assert "sequel" in styled.text and "sequel" not in fast.text
    else:
        assert styled.options["lexicon"] == Lexicon(LEXICON)


@pytest.mark.parametrize("kind", ["embedded", "remote"])
async def test_a_voice_change_mid_turn_keeps_every_word(kind, tiny_checkpoint, request):
    """The base `TTSSettings` mid-turn: the turn goes on in a new stream with the new voice."""
    if kind == "remote":
        backing = RemoteEngine(request.getfixturevalue("contract_server").ws_url)
    else:
        backing = open_real_engine(kind, tiny_checkpoint)
    engine = RecordingEngine(backing)
    text = "Hello there, my friend. How are you doing today?"
    frames = llm_turn(text)
    try:
        tts = Qwen3StreamingTTS(engine=engine)
        change = TTSUpdateSettingsFrame(delta=TTSSettings(voice="male", language=Language.EN_GB))
        down, up = await run_test(
            tts,
            frames_to_send=[*frames[:9], SleepFrame(0.2), change, *frames[9:]],
            pipeline_params=params(),
        )
    finally:
        await backing.aclose()
    assert not of_type(up, ErrorFrame)
    assert [w.text for w in of_type(down, TTSTextFrame)] == text.split()
    first, second = engine.streams
    assert first.options["voice"] is None and second.options["voice"] == "male"
    assert second.options["language"] == "en-gb" and not first.done.cancelled


# -- values the service or the engine cannot take --------------------------------------------


def categories(up: list) -> list[ErrorCategory]:
    return [e.category for e in of_type(up, ErrorFrame)]


@pytest.mark.parametrize(
    "bad, named",
    [
        (Qwen3StreamingTTS.Settings(speed=3.0), "speed must be"),
        (Qwen3StreamingTTS.Settings(lexicon=[{"match": "SQL"}]), "lexicon: rule 0"),
        (TTSSettings.from_mapping({"stability": 0.4}), "'stability' is not an option"),
        (TTSSettings(voice=7), "voice is a string"),
    ],
    ids=["speed", "lexicon", "unknown-field", "voice-type"],
)
async def test_a_value_the_service_cannot_take_is_an_error_naming_it(bad, named):
    """Refused where it arrives, with the service healthy: the next turn speaks as before."""
    from engine import Engine

    backing = Engine.embedded()
    engine = RecordingEngine(backing)
    try:
        tts = Qwen3StreamingTTS(engine=engine)
        frames = [*llm_turn("Hello."), TTSUpdateSettingsFrame(delta=bad), *llm_turn("Hello again.")]
        down, up = await run_test(tts, frames_to_send=frames, pipeline_params=params())
    finally:
        await backing.aclose()
    [error] = of_type(up, ErrorFrame)  # was AttributeError 'speed' of category UNKNOWN
    assert named in error.error and error.category is ErrorCategory.APPLICATION
    assert [words for words, _ in turns_of(down)] == ["Hello.", "Hello again."]
    assert tts.is_usable


@pytest.mark.parametrize("field", ["voice", "language"])
@pytest.mark.parametrize("way", ["base", "dict"])
async def test_a_voice_or_language_the_engine_lacks_names_it_and_a_good_one_speaks_next(
    contract_engine, way, field
):
    real = contract_engine
    bad, good, named = {
        "voice": ("nobody", real.voices[0], "'nobody'"),
        "language": (Language.SW, Language.EN_GB, "'sw'"),
    }[field]
    tts = Qwen3StreamingTTS(engine=real.engine)
    frames = [
        update(way, **{field: bad}),
        *llm_turn("Hello."),
        SleepFrame(0.3),
        update(way, **{field: good}),
        *llm_turn("Hello again."),
    ]
    down, up = await run_test(tts, frames_to_send=frames, pipeline_params=params())
    errors = of_type(up, ErrorFrame)
    # was AttributeError 'speed' (UNKNOWN) for the base class, and every turn silent
    assert categories(up) == [ErrorCategory.INVALID_REQUEST], [e.error for e in errors]
    assert named in errors[0].error and field in errors[0].error
    assert [words for words, seconds in turns_of(down) if seconds] == ["Hello again."]
    assert tts.is_usable


async def test_deprecated_setters_change_the_voice_and_model_label():
    """`set_voice` and `set_model`, deprecated in Pipecat 1.14 and still accepted."""
    from engine import Engine

    backing = Engine.embedded()
    engine = RecordingEngine(backing)
    try:
        tts = Qwen3StreamingTTS(engine=engine)
        with pytest.warns(DeprecationWarning):
            await tts.set_voice("male")
            await tts.set_model("eSpeak NG")
        down, up = await run_test(tts, frames_to_send=llm_turn("Hello."), pipeline_params=params())
    finally:
        await backing.aclose()
    assert not of_type(up, ErrorFrame) and engine.streams[0].options["voice"] == "male"
    assert tts.settings.model == "eSpeak NG"


class AppEngine:
    """An engine wrapper of an app's own: the stream contract and nothing else."""

    def __init__(self, engine):
        self._engine = engine

    def open_stream(self, request=None, /, **settings):
        return self._engine.open_stream(request, **settings)

    async def aclose(self):
        await self._engine.aclose()


async def test_every_metrics_frame_names_a_model_whatever_the_engine_object():
    """An engine wrapper of the app's own names no model: the metrics name a stand-in
    (dashboards group TTFB by model); was ''."""
    from engine import Engine

    backing = Engine.embedded()
    try:
        tts = Qwen3StreamingTTS(engine=AppEngine(backing))
        down, _ = await run_test(tts, frames_to_send=llm_turn("Hello there."), pipeline_params=params())
    finally:
        await backing.aclose()
    models = [
        data.model
        for frame in of_type(down, MetricsFrame)
        for data in frame.data
        if isinstance(data, TTFBMetricsData) and data.processor == tts.name and data.value
    ]
    assert models and set(models) == {UNNAMED_MODEL}
