"""The wire protocol models: what parses, what is refused, what goes out."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from voice_tts.protocol import (
    CLIENT_MESSAGE_TYPES,
    CancelMessage,
    Capabilities,
    DoneMessage,
    ErrorMessage,
    ProgressMessage,
    StartedMessage,
    StartMessage,
    StopMessage,
    TextMessage,
    UsageInfo,
    VoiceInfo,
    WordTiming,
    client_message_adapter,
    frame_audio,
    server_message_adapter,
    unframe_audio,
)


def test_start_defaults():
    start = client_message_adapter.validate_json('{"type": "start"}')
    assert start == StartMessage(
        voice=None, language=None, instruct=None, sample_rate=24000, format="pcm16", normalize=True
    )


@pytest.mark.parametrize(
    "payload,expected",
    [
        ({"type": "text", "text": "Hel"}, TextMessage(text="Hel")),
        ({"type": "stop"}, StopMessage()),
        ({"type": "cancel"}, CancelMessage(played_ms=None)),
        ({"type": "cancel", "played_ms": 1250.5}, CancelMessage(played_ms=1250.5)),
        (
            {
                "type": "start",
                "voice": "female",
                "language": "zh",
                "sample_rate": 8000,
                "format": "mulaw",
                "normalize": False,
                "instruct": "calm",
            },
            StartMessage(
                voice="female",
                language="zh",
                sample_rate=8000,
                format="mulaw",
                normalize=False,
                instruct="calm",
            ),
        ),
    ],
)
def test_client_messages_parse_by_type(payload, expected):
    assert client_message_adapter.validate_python(payload) == expected
    assert client_message_adapter.validate_json(expected.model_dump_json()) == expected


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "start", "format": "mp3"},
        {"type": "start", "pitch": 1.0},  # unknown fields are refused, not ignored
        {"type": "start", "speed": 4.0},
        {"type": "speed", "speed": 0.25},
        {"type": "text"},
        {"type": "text", "text": 5},
        {"type": "cancel", "played_ms": -1},
        {"type": "speak"},
        {},
    ],
)
def test_bad_client_messages_are_refused(payload):
    with pytest.raises(ValidationError):
        client_message_adapter.validate_python(payload)


def test_client_message_types_match_the_union():
    required = {
        "text": {"text": ""},
        "ack": {"samples": 0},
        "reconnect": {"resume_token": "t", "received_samples": 0},
        "speed": {"speed": 1.5},
    }
    for kind in CLIENT_MESSAGE_TYPES:
        minimal = {"type": kind, **required.get(kind, {})}
        assert client_message_adapter.validate_python(minimal).type == kind


def test_server_messages_round_trip():
    messages = [
        StartedMessage(
            stream_id="s1",
            voice=None,
            language="en",
            sample_rate=24000,
            format="pcm16",
            normalize=True,
        ),
        ProgressMessage(
            raw_end=5,
            spoken_end=5,
            audio_ms=120.0,
            words=[WordTiming(text="Hello", start_ms=0.0, raw_start=0, raw_end=5)],
        ),
        DoneMessage(
            stream_id="s1",
            cancelled=True,
            heard_text="Hello",
            usage=UsageInfo(characters_received=12, characters_spoken=12, audio_seconds=1.5),
        ),
        ErrorMessage(code="invalid_json", message="not JSON"),
    ]
    for message in messages:
        wire = message.model_dump_json()
        assert json.loads(wire)["type"] == message.type
        assert server_message_adapter.validate_json(wire) == message


def test_error_without_stream_id_is_a_rejection():
    error = server_message_adapter.validate_json(
        '{"type": "error", "code": "capacity", "message": "busy", "retryable": true}'
    )
    assert error.stream_id is None and error.retryable


def test_capabilities_shape():
    capabilities = Capabilities(
        backend="espeak",
        model="espeak-ng",
        voices=[VoiceInfo(name="default")],
        languages=["en", "zh"],
        sample_rates=[8000, 24000],
        formats=["pcm16", "mulaw"],
        features=["cancel"],
        capacity=8,
        active_streams=0,
    )
    assert Capabilities.model_validate_json(capabilities.model_dump_json()) == capabilities


def test_a_message_without_a_context_is_written_as_before_contexts():
    done = DoneMessage(stream_id="s1", cancelled=False, heard_text="Hi", usage=UsageInfo())
    assert json.loads(done.model_dump_json()) == {
        "type": "done", "stream_id": "s1", "cancelled": False, "heard_text": "Hi",
        "usage": {"characters_received": 0, "characters_spoken": 0, "audio_seconds": 0.0}, "reason": None,
    }
    addressed = json.loads(done.model_copy(update={"context_id": "reply-7"}).model_dump_json())
    assert list(addressed)[-1] == "context_id" and addressed["context_id"] == "reply-7"
    assert server_message_adapter.validate_json(json.dumps(addressed)).context_id == "reply-7"


@pytest.mark.parametrize("context_id", ["a", "reply-7", "agent.1:turn_2", "x" * 64])
def test_context_ids_that_parse(context_id):
    for kind in CLIENT_MESSAGE_TYPES:
        payload = {"type": kind, "context_id": context_id}
        payload |= {"text": {"text": "hi"}, "ack": {"samples": 0}, "speed": {"speed": 1.0},
                    "reconnect": {"resume_token": "t", "received_samples": 0}}.get(kind, {})
        assert client_message_adapter.validate_python(payload).context_id == context_id


@pytest.mark.parametrize("context_id", ["", "x" * 65, "has space", "ünïcode", "a/b", 7])
def test_context_ids_that_are_refused(context_id):
    with pytest.raises(ValidationError, match="context_id"):
        client_message_adapter.validate_python({"type": "start", "context_id": context_id})


@pytest.mark.parametrize("context_id", [None, "a", "x" * 64])
def test_audio_frames_say_their_context(context_id):
    frame = frame_audio(context_id, b"\x01\x02\x03\x04")
    assert frame[0] == len(context_id or "")
    assert unframe_audio(frame) == (context_id, b"\x01\x02\x03\x04")
