"""`StreamRequest`: a stream's settings checked once, where they enter, and carried unchanged
to the engine, the engine core's command and back onto the wire."""

from __future__ import annotations

import pickle

import pytest
from pydantic import ValidationError

from engine import Engine
from engine.core.channel import OpenStream, decode_commands, encode_commands
from voice_tts.protocol import SpeedMessage, StartMessage
from voice_tts.request import MAX_FIRST_CHUNK_FRAMES, MAX_SPEED, MIN_SPEED, TURN_SETTINGS, StreamRequest, checked_setting
from voice_tts.tn import Lexicon, LexiconError

RULES = [{"match": "SQL", "say": "sequel"}]


def test_settings_are_checked_where_the_value_is_built():
    with pytest.raises(ValueError, match="speed must be from 0.5 to 2.0"):
        StreamRequest(speed=3.0)
    with pytest.raises(TypeError, match="priority must be an int"):
        StreamRequest(priority="high")
    with pytest.raises(ValueError, match="format must be one of"):
        StreamRequest(format="mp3")
    with pytest.raises(LexiconError, match="needs normalize=true"):
        StreamRequest(lexicon=RULES)
    with pytest.raises(LexiconError, match="^lexicon: rule 0"):
        StreamRequest(normalize=True, lexicon=[{"match": "", "say": "x"}])
    for frames in (0, MAX_FIRST_CHUNK_FRAMES + 1, 2.0, True, "4"):
        with pytest.raises(ValueError, match=f"first chunk must be an integer from 1 to {MAX_FIRST_CHUNK_FRAMES}"):
            StreamRequest(first_chunk_frames=frames)
    assert StreamRequest(first_chunk_frames=MAX_FIRST_CHUNK_FRAMES).first_chunk_frames == MAX_FIRST_CHUNK_FRAMES
    with pytest.raises(ValueError, match="voice is a string or None, not 7"):
        StreamRequest(voice=7)
    assert StreamRequest(normalize=True, lexicon=RULES).lexicon == Lexicon(RULES)
    assert StreamRequest(speed=1).speed == 1.0 and isinstance(StreamRequest(speed=1).speed, float)


def test_the_wire_takes_the_speed_range_of_the_value():
    for speed in (MIN_SPEED, MAX_SPEED):
        assert StartMessage(speed=speed).stream_request().speed == speed
        assert SpeedMessage(speed=speed).speed == speed
    for speed in (MIN_SPEED - 0.01, MAX_SPEED + 0.01):
        with pytest.raises(ValidationError):
            StartMessage(speed=speed)
        with pytest.raises(ValidationError):
            SpeedMessage(speed=speed)


def test_a_start_message_and_its_request_are_the_same_settings():
    request = StreamRequest(
        voice="ryan",
        language="de",
        instruct="Whisper.",
        sample_rate=16000,
        format="mulaw",
        speed=1.25,
        priority=-1,
        normalize=True,
        lexicon=RULES,
        spell_acronyms=False,
        resumable=True,
    )
    assert StartMessage.of(request).stream_request(priority=-1) == request


def test_of_changes_only_what_is_named():
    base = StreamRequest(voice="ryan", speed=1.5)
    assert StreamRequest.of(base) is base
    assert StreamRequest.of(base, language="en") == StreamRequest(voice="ryan", speed=1.5, language="en")
    assert StreamRequest.of(None, voice="ryan") == StreamRequest(voice="ryan")
    with pytest.raises(TypeError):
        StreamRequest.of(base, colour="blue")


def test_the_core_command_carries_the_request_unchanged():
    request = StreamRequest(voice="ryan", normalize=True, lexicon=RULES, priority=-1, max_new_tokens=9, first_chunk_frames=4)
    [command] = decode_commands(encode_commands([OpenStream(7, request)]))
    assert command == OpenStream(7, request)
    assert pickle.loads(pickle.dumps(request)) == request


async def test_an_engine_serves_the_value_or_its_keywords_alike():
    engine = Engine.embedded()
    try:
        audio = []
        for stream in (
            engine.open_stream(StreamRequest(sample_rate=16000)),
            engine.open_stream(sample_rate=16000),
            engine.open_stream(sample_rate=16000, first_chunk_frames=4),  # no codec frames: no effect
        ):
            stream.push_text("Hello there.")
            stream.end_input()
            audio.append(b"".join([e.pcm async for e in stream.events() if hasattr(e, "pcm")]))
        assert audio[0] and audio[0] == audio[1] == audio[2]
    finally:
        await engine.aclose()


def test_an_adapter_setting_is_checked_as_the_request_checks_it():
    """Pipecat's and LiveKit's turn settings are a request's fields: one check for both."""
    assert set(TURN_SETTINGS) <= {f for f in StreamRequest.__dataclass_fields__}
    assert checked_setting("speed", 2) == 2.0 and isinstance(checked_setting("speed", 2), float)
    assert checked_setting("lexicon", RULES) == Lexicon.of(RULES)
    assert checked_setting("voice", None) is None
    with pytest.raises(ValueError, match="'stability' is not an option"):
        checked_setting("stability", 0.4)
    with pytest.raises(ValueError, match="speed must be"):
        checked_setting("speed", 3.0)
    with pytest.raises(ValueError, match="language is a string or None"):
        checked_setting("language", 5)
