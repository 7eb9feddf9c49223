"""The settings contract of the LiveKit plugin, as a LiveKit agent changes options: every option
of `update_options` (voice, language, instruct, lexicon, speed) between the speeches of a real
`AgentSession`, on the embedded voice in-process, the Qwen3 engine on the tiny checkpoint and a
server on 127.0.0.1. Each speech after a change speaks every word with the new options; a value
that cannot be used is refused where it is given, and one the engine refuses fails that speech
with an error naming it while the next speech, with a good value, speaks."""

from __future__ import annotations

from typing import Any

import pytest
from livekit.agents import llm
from livekit_harness import (  # noqa: F401  (fixtures)
    ObservedEngine,
    RecordingAgent,
    converse,
    engine_server,
    said,
)
from pipecat_harness import open_real_engine

from voice_tts.client import RemoteEngine
from voice_tts.livekit import Qwen3StreamingTTS
from voice_tts.tn import Lexicon

pytestmark = pytest.mark.slow

SENTENCE = "Say SQL twice, please."
LEXICON = [{"match": "SQL", "say": "sequel"}]
INSTRUCT = "Speak slowly."
VOICES = {"in-process": ("female", "male"), "qwen3-tiny": ("ryan", "vivian"), "remote": ("female", "male")}


class SwitchingAgent(RecordingAgent):
    """Changes the TTS options when the user says one of `changes` (as an agent does when asked
    to speak differently), before the reply."""

    def __init__(self, tts: Qwen3StreamingTTS, changes: dict[str, dict[str, Any]]) -> None:
        super().__init__()
        self._tts, self._changes = tts, changes

    async def on_user_turn_completed(self, turn_ctx: llm.ChatContext, new_message: llm.ChatMessage) -> None:
        if (change := self._changes.get(new_message.text_content)) is not None:
            self._tts.update_options(**change)


@pytest.fixture(params=["in-process", "qwen3-tiny", "remote"])
async def options_engine(request, embedded_engine, tiny_checkpoint):
    """(kind, engine handed to the plugin)."""
    if request.param == "in-process":
        yield request.param, ObservedEngine(embedded_engine)
    elif request.param == "qwen3-tiny":
        engine = open_real_engine("qwen3-tiny", tiny_checkpoint)
        yield request.param, ObservedEngine(engine)
        await engine.aclose()
    else:
        remote = RemoteEngine(request.getfixturevalue("engine_server").ws_url)
        yield request.param, ObservedEngine(remote)
        await remote.aclose()


def speeches(*texts: str) -> list:
    """The user says each text in turn, half a second after the reply to the one before has
    played out (however long the voice takes to say it: the tiny checkpoint's random weights
    speak a sentence for up to about 8 s, slower on a loaded machine)."""
    return [said(0.5, 1.5, texts[0])] + [
        said(0.5, 1.5, text, cue=lambda conversation, replies=i: len(conversation.playback) >= replies)
        for i, text in enumerate(texts[1:], start=1)
    ]


async def test_every_option_changes_between_speeches_and_every_speech_speaks(options_engine):
    kind, engine = options_engine
    first, second = VOICES[kind]
    tts = Qwen3StreamingTTS(engine=engine, voice=first)
    agent = SwitchingAgent(
        tts,
        {
            "Talk British.": {"voice": second, "language": "en-GB"},
            "Faster.": {"speed": 2.0},
            "Say it properly.": {"lexicon": LEXICON, "instruct": INSTRUCT},
        },
    )
    user = ["Hello.", "Talk British.", "Faster.", "Say it properly."]
    conversation = await converse(
        tts,
        speeches(*user),
        dict.fromkeys(user, SENTENCE),
        interruption={"enabled": False},
        agent=agent,
        timeout=90,
    )

    assert not conversation.errors, conversation.errors
    assert [m.text_content for m in conversation.assistant_messages()] == [SENTENCE] * 4
    plain, regional, fast, styled = [s for s in engine.streams if s.text.strip()]
    assert plain.options["voice"] == first and plain.options["language"] is None
    assert regional.options["voice"] == second and regional.options["language"] == "en-GB"
    assert styled.options["instruct"] == INSTRUCT and styled.options["voice"] == second
    record = conversation.agent.speeches
    if kind == "remote":
        assert fast.options["speed"] == 2.0
        assert styled.options["lexicon"] == Lexicon(LEXICON)
    else:
        # Twice the rate: about half the audio the engine made.
        assert 0.4 < record[2].audio_seconds / fast.done.usage.audio_seconds < 0.6
        assert "sequel" in styled.text and "sequel" not in fast.text


class SpeakingAgent(RecordingAgent):
    """Says `texts` one after another as soon as it enters (as a greeting and its follow-ups)."""

    def __init__(self, texts: list[str]) -> None:
        super().__init__()
        self._texts = texts

    async def on_enter(self) -> None:
        for text in self._texts:
            self.session.say(text)


class FixedRightBehind(ObservedEngine):
    """The app fixes the option the moment the refused speech's stream opens: before that
    speech's error can come back."""

    def __init__(self, engine, tts_of: dict, bad: dict[str, Any], good: dict[str, Any]) -> None:
        super().__init__(engine)
        self._tts_of, self._bad, self._good = tts_of, bad, good

    def open_stream(self, *args: Any, **kwargs: Any):
        stream = super().open_stream(*args, **kwargs)
        if all(stream.options[name] == value for name, value in self._bad.items()):
            self._tts_of["tts"].update_options(**self._good)
        return stream


@pytest.mark.parametrize(
    "bad, good", [({"voice": "nobody"}, {"voice": "male"}), ({"language": "sw"}, {"language": "en-GB"})], ids=["voice", "language"]
)
@pytest.mark.parametrize("where", ["in-process", "remote"])
async def test_an_option_fixed_before_the_refused_speechs_error_speaks_every_later_speech(
    where, bad, good, embedded_engine, request
):
    engine = RemoteEngine(request.getfixturevalue("engine_server").ws_url) if where == "remote" else embedded_engine
    tts_of: dict = {}
    observed = FixedRightBehind(engine, tts_of, bad, good)
    tts = tts_of["tts"] = Qwen3StreamingTTS(engine=observed, **bad)
    later = ["All good now.", "And this one too.", "Still speaking."]
    try:
        conversation = await converse(tts, [], {}, agent=SpeakingAgent(["Your table is booked.", *later]))
    finally:
        if where == "remote":
            await engine.aclose()
    [error] = conversation.errors  # the refused speech's, and nothing after it
    assert not error.error.recoverable
    assert [m.text_content for m in conversation.assistant_messages() if m.text_content] == later
    assert [s.options[name] for s in observed.streams for name in good] == [*bad.values(), *[*good.values()] * 3]


@pytest.mark.parametrize(
    "bad, good, named",
    [
        ({"voice": "nobody"}, {"voice": "male"}, "'nobody'"),
        ({"language": "sw"}, {"language": "en-GB"}, "'sw'"),
    ],
    ids=["voice", "language"],
)
@pytest.mark.parametrize("where", ["in-process", "remote"])
async def test_an_option_the_engine_refuses_fails_one_speech_naming_it(
    where, bad, good, named, embedded_engine, request
):
    if where == "remote":
        engine = RemoteEngine(request.getfixturevalue("engine_server").ws_url)
    else:
        engine = embedded_engine
    tts = Qwen3StreamingTTS(engine=ObservedEngine(engine))
    agent = SwitchingAgent(tts, {"Change.": bad, "Fix it.": good})
    user = ["Change.", "Fix it."]
    try:
        # The refused speech plays nothing: the fix comes a few seconds after it, on the clock.
        conversation = await converse(
            tts, [said(0.5, 1.5, user[0]), said(4.5, 5.5, user[1])], dict.fromkeys(user, SENTENCE), agent=agent
        )
    finally:
        if where == "remote":
            await engine.aclose()
    [error] = conversation.errors
    assert named in str(error.error.error) and not error.error.recoverable
    spoken = [m.text_content for m in conversation.assistant_messages() if m.text_content]
    assert spoken == [SENTENCE]  # the refused speech says nothing; the fixed one all of it


@pytest.mark.parametrize(
    "option, named",
    [
        ({"speed": 3.0}, "speed must be"),
        ({"lexicon": [{"match": "SQL"}]}, "lexicon: rule 0"),
        ({"language": 7}, "language is a string"),
    ],
)
async def test_an_option_that_cannot_be_used_is_refused_where_it_is_given(
    option, named, embedded_engine
):
    """Refused as a whole: the voice given with the bad value does not change either."""
    engine = ObservedEngine(embedded_engine)
    tts = Qwen3StreamingTTS(engine=engine, voice="female")
    with pytest.raises(ValueError, match=named):
        tts.update_options(voice="male", **option)
    async with tts.synthesize("Hello.") as stream:
        await stream.collect()
    assert engine.streams[-1].options["voice"] == "female"


async def test_a_server_killed_mid_speech_fails_it_and_the_next_speech_speaks_once_back():
    """Killed mid-speech: the session hears of it as a TTS error within the connect timeout
    (LiveKit's retries find nothing listening, then the server again); the next speech of the
    same session speaks."""
    import asyncio
    import time

    from server_harness import ServerProcess

    server = ServerProcess()
    engine = ObservedEngine(RemoteEngine(server.ws_url))
    tts = Qwen3StreamingTTS(engine=engine)
    story = "Once upon a time there was a small robot who loved to paint the sky every evening."
    killed_at: list[float] = []

    async def kill_then_restart() -> None:
        while not any(s.text.strip() for s in engine.streams):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.5)  # into the speech
        killed_at.append(time.time())
        await asyncio.to_thread(server.kill)
        await asyncio.sleep(2.0)
        await asyncio.to_thread(server.start)  # the same port

    chaos = asyncio.create_task(kill_then_restart())
    try:
        conversation = await converse(
            tts,
            [said(0.5, 1.5, "Tell me a story."), said(16.0, 17.0, "Are you back?")],
            {"Tell me a story.": story, "Are you back?": SENTENCE},
            interruption={"enabled": False},
            llm_chars_per_second=20,  # still writing when the server dies
        )
        await chaos
    finally:
        await engine.aclose()
        server.stop()
    [first_error, *_] = conversation.errors
    assert first_error.created_at - killed_at[0] < 5.0  # RemoteEngine's connect timeout
    messages = [m.text_content for m in conversation.assistant_messages()]
    # Killed before its first audio, the story is retried (LiveKit's retries) and told once
    # the server is back; the next speech speaks too.
    assert story.startswith(messages[0]) and messages[-1] == SENTENCE
