"""The engine stream contract (events, stream shape) and, below it, the wire protocol.

Every engine (the Qwen3 runtime, the embedded eSpeak NG voice, the remote client) yields
exactly these events, so callers never branch on the backend (see ARCHITECTURE.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, AsyncIterator, Literal, Protocol, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator, model_serializer

from voice_tts.request import (
    MAX_SPEED,
    MIN_SPEED,
    PRIORITY_NORMAL,
    AudioFormat,
    StreamRequest,
    checked_first_chunk_frames,
)



@dataclass(frozen=True)
class AudioChunk:
    """Mono s16le PCM; `start_sample` counts this stream's samples before this chunk."""

    pcm: bytes
    sample_rate: int
    start_sample: int

    @property
    def num_samples(self) -> int:
        return len(self.pcm) // 2

    @property
    def duration(self) -> float:
        return self.num_samples / self.sample_rate


@dataclass(frozen=True)
class Progress:
    """Everything before `spoken_end` (characters of the spoken text pushed to this stream)
    starts at or before `audio_time` seconds of this stream's audio.

    Emitted no later than the audio chunk it describes; never moves backwards.
    """

    spoken_end: int
    audio_time: float


@dataclass(frozen=True, slots=True)
class Word:
    """A raw-text word (without surrounding whitespace) and when its audio starts, in seconds."""

    text: str
    start_time: float
    raw_start: int
    raw_end: int


@dataclass(frozen=True)
class Words:
    """Raw-text words that started, from a stream that tracks words itself (a remote engine
    whose server does): words of the text pushed, each once, in order, no later than their
    audio. A stream that sends them is one whose engine has `reports_words = True`."""

    words: tuple[Word, ...]


@dataclass(frozen=True)
class Usage:
    characters_received: int = 0
    characters_spoken: int = 0
    audio_seconds: float = 0.0


@dataclass(frozen=True)
class Done:
    """Always the last event of a stream, also of one that produced no audio."""

    cancelled: bool = False
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class Error:
    """A per-stream failure; a `Done` always follows."""

    code: str
    message: str
    retryable: bool = False


Event = Union[AudioChunk, Progress, Words, Done, Error]


class EngineStream(Protocol):
    """One assistant turn on an engine."""

    def push_text(self, text: str) -> None:
        """Append normalized spoken text; thread-safe, never blocks."""

    def end_input(self) -> None:
        """No more text: the engine drains, then emits `Done`."""

    def cancel(self) -> None:
        """Barge-in: stop within one engine step; no audio follows; `Done(cancelled=True)`."""

    def events(self) -> AsyncIterator[Event]:
        """The stream's events, ending with `Done`."""


def push_spoken(stream: EngineStream, spoken: str, word_end: bool, space_follows: bool = False) -> None:
    """Normalized text to `stream`. `word_end` (`TurnText.word_end`): the text so far ends a
    word, and what follows starts with neither a letter, a mark nor a digit; a stream that holds
    its last word until the next character shows it ended (`mark_word_end`, optional, like
    `pause`) closes that word now instead of one word later. `space_follows`
    (`TurnText.space_follows`): what follows starts with a space and a letter, so punctuation
    that ends the text ("Sure,") is closed too."""
    if spoken:
        stream.push_text(spoken)
    if (word_end or space_follows) and (mark_word_end := getattr(stream, "mark_word_end", None)) is not None:
        mark_word_end(space_follows=space_follows)


class StreamingEngine(Protocol):
    """What adapters and the server need of an engine (in-process, embedded or remote)."""

    def open_stream(self, request: StreamRequest | None = None, /, **settings) -> EngineStream:
        """A stream for `request` (`StreamRequest.of(request, **settings)`: keywords are a
        shorthand for its fields)."""

    async def aclose(self) -> None: ...


# ---------------------------------------------------------------------------------------------
# Wire protocol of the engine server (`/v1/ws` and the HTTP routes), shared by `engine/server`
# and `voice_tts.client`. Documented with examples in docs/protocol.md.
# ---------------------------------------------------------------------------------------------

SUPPORTED_SAMPLE_RATES = (8000, 16000, 22050, 24000, 44100, 48000)


class ErrorCode:
    """Every `error.code` the server sends; clients branch on these strings."""

    UNAUTHORIZED = "unauthorized"  # no API key given
    FORBIDDEN = "forbidden"  # wrong API key
    INVALID_JSON = "invalid_json"
    INVALID_UTF8 = "invalid_utf8"
    UNEXPECTED_BINARY = "unexpected_binary"  # clients send JSON text frames only
    UNKNOWN_MESSAGE = "unknown_message"  # `type` missing or not one of the client messages
    INVALID_MESSAGE = "invalid_message"  # right `type`, wrong fields
    MESSAGE_TOO_LARGE = "message_too_large"
    REQUEST_TOO_LARGE = "request_too_large"  # an HTTP body over the server's limit (413)
    REQUEST_TIMEOUT = "request_timeout"  # an HTTP body that did not arrive in time (408)
    TEXT_TOO_LONG = "text_too_long"  # the turn's text would exceed the per-turn cap
    NO_ACTIVE_TURN = "no_active_turn"  # text/stop/cancel without a `start`
    TURN_ACTIVE = "turn_active"  # `start` while a turn is still running
    # Contexts (several turns on one socket, by `context_id`):
    CONTEXT_ACTIVE = "context_active"  # `start` or `reconnect` for a context that is running
    TOO_MANY_CONTEXTS = "too_many_contexts"  # past the server's `max_contexts_per_socket`
    INVALID_VOICE = "invalid_voice"
    INVALID_AUDIO = "invalid_audio"  # a voice upload that is not a usable reference recording
    VOICE_EXISTS = "voice_exists"  # a voice upload whose name is taken (409)
    VOICE_NOT_FOUND = "voice_not_found"  # deleting a voice that does not exist (404)
    CLONING_UNSUPPORTED = "cloning_unsupported"  # the engine's checkpoint cannot clone voices
    VOICE_STORE_ERROR = "voice_store_error"  # the voices directory cannot be written (500)
    INVALID_SAMPLE_RATE = "invalid_sample_rate"
    UNSUPPORTED_LANGUAGE = "unsupported_language"
    INVALID_SAMPLING = "invalid_sampling"
    INVALID_LEXICON = "invalid_lexicon"  # a pronunciation dictionary that cannot be used
    CAPACITY = "capacity"
    SLOW_CONSUMER = "slow_consumer"  # a client too far behind real time (then close 1008)
    IDLE_TIMEOUT = "idle_timeout"  # the close reason of a socket without a turn for too long
    NOT_READY = "not_ready"
    SHUTTING_DOWN = "shutting_down"  # the server is draining: retry on another (retryable)
    ENGINE_ERROR = "engine_error"
    ENGINE_CLOSED = "engine_closed"
    # Raised by `voice_tts.client`, never sent by the server:
    DISCONNECTED = "disconnected"  # the socket was lost during a turn
    UNREACHABLE = "unreachable"  # the server could not be reached
    # Reconnect-resume (`reconnect`):
    RESUME_UNKNOWN = "resume_unknown"  # no resumable turn has this token
    RESUME_EXPIRED = "resume_expired"  # the turn waited longer than the server keeps it
    RESUME_LOST = "resume_lost"  # the server restarted (or shut down) since the turn began
    RESUME_GAP = "resume_gap"  # the audio asked for is older than the server still holds
    NOT_RESUMABLE = "not_resumable"  # `ack` on a turn started without `resumable`
    TIMEOUT = "timeout"  # the engine went silent while it owed audio, or stopped answering


class WireModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# A context's name on the wire (docs/protocol.md, "Contexts").
CONTEXT_ID_PATTERN = r"^[A-Za-z0-9_.:-]{1,64}$"
# The `done` reason of a context whose client sent nothing for `context_idle_timeout_s` while
# its input was open.
CONTEXT_IDLE_TIMEOUT = "context_idle_timeout"


class ContextMessage(WireModel):
    """A message that may address one context of a socket. Without a `context_id` it is written
    exactly as before contexts existed (the field is left out), so a plain socket's bytes do not
    change; with one, the field goes last."""

    context_id: str | None = Field(default=None, pattern=CONTEXT_ID_PATTERN)

    @model_serializer(mode="wrap")
    def _context_last(self, handler):
        fields = handler(self)
        context_id = fields.pop("context_id", None)
        if context_id is not None:
            fields["context_id"] = context_id
        return fields


def frame_audio(context_id: str | None, audio: bytes) -> bytes:
    """A binary frame of a socket that has opened a context: one byte, the length of the
    context id (0: the socket's plain turn), the id in ASCII, then the audio bytes."""
    name = (context_id or "").encode("ascii")
    return bytes((len(name),)) + name + audio


def unframe_audio(frame: bytes) -> tuple[str | None, bytes]:
    """The context id (None: the plain turn) and the audio of a framed binary frame."""
    length = frame[0]
    return (frame[1 : 1 + length].decode("ascii") or None), frame[1 + length :]


# Client → server ------------------------------------------------------------------------------


class LexiconEntry(WireModel):
    """One pronunciation-dictionary rule (voice_tts.tn.lexicon): `match` is said as `say`."""

    match: str
    say: str
    whole_word: bool = True
    case_sensitive: bool = False
    regex: bool = False


# A W3C `traceparent` header value (version 00): version, trace id, parent span id, flags.
TRACEPARENT_PATTERN = r"^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$"


class StartMessage(ContextMessage):
    """Opens a turn. `normalize=False` means the text is already spoken form (TN done by the
    client's own `TTSSession`). `lexicon` (with `normalize`) is the turn's pronunciation
    dictionary; its rules come before the server's default ones."""

    type: Literal["start"] = "start"
    voice: str | None = None
    language: str | None = None
    instruct: str | None = None
    sample_rate: int = 24000
    format: AudioFormat = "pcm16"
    normalize: bool = True
    # Keep the turn through a dropped socket: `started` carries a `resume_token` for `reconnect`.
    resumable: bool = False
    lexicon: list[LexiconEntry] | None = Field(default=None, max_length=2000)
    spell_acronyms: bool = True
    # Speaking rate, pitch kept (voice_tts/speed.py); times on the wire are in played time.
    speed: float = Field(default=1.0, ge=MIN_SPEED, le=MAX_SPEED)
    # A cap on the turn's codec frames and the size of its first audio chunk (Qwen3 models;
    # None: the checkpoint's cap and the engine's choice).
    max_new_tokens: int | None = None
    first_chunk_frames: int | None = None
    # Expressive tags in the text, in this dialect (voice_tts/markup.py); null: "<" is text.
    markup: Literal["expr", "cartesia"] | None = None
    # The client's W3C trace context: the server's span of this turn joins the client's trace.
    traceparent: str | None = Field(default=None, pattern=TRACEPARENT_PATTERN)
    # May be served from the server's phrase cache (`--phrase-cache-mb`); false: the engine speaks.
    cache: bool = True

    _first_chunk = field_validator("first_chunk_frames")(checked_first_chunk_frames)

    @classmethod
    def of(cls, request: StreamRequest, traceparent: str | None = None) -> StartMessage:
        """The `start` that asks a server for `request` (its priority is the server's to give),
        under the caller's trace context. Sampling parameters are an in-process engine's: a
        server samples as its checkpoint says, so a request that sets them is refused."""
        if request.sampling is not None:
            raise ValueError("sampling parameters apply to an in-process engine; a server samples as its checkpoint says")
        settings = {name: getattr(request, name) for name in START_SETTINGS}
        lexicon = request.lexicon.as_dicts() if request.lexicon else None
        return cls(**settings, lexicon=lexicon, traceparent=traceparent)

    def stream_request(self, priority: int = PRIORITY_NORMAL) -> StreamRequest:
        """The turn this `start` asks for, at the `priority` the server gives it."""
        lexicon = [rule.model_dump() for rule in self.lexicon] if self.lexicon else None
        return StreamRequest(**self.model_dump(include=set(START_SETTINGS)), lexicon=lexicon, priority=priority)


# The settings a `start` carries as they are (its lexicon goes as rule objects).
START_SETTINGS = (
    "voice",
    "language",
    "instruct",
    "sample_rate",
    "format",
    "normalize",
    "resumable",
    "spell_acronyms",
    "speed",
    "max_new_tokens",
    "first_chunk_frames",
    "markup",
)


class TextMessage(ContextMessage):
    """A text delta of the current turn (raw LLM output when the turn normalizes)."""

    type: Literal["text"] = "text"
    text: str
    # Numbering (1, 2, ...) lets a reconnecting client resend only what the server lacks; a
    # `seq` the turn already has is ignored.
    seq: int | None = Field(default=None, ge=1)


class StopMessage(ContextMessage):
    """No more text: the server speaks what it has, then sends `done`."""

    type: Literal["stop"] = "stop"


class CancelMessage(ContextMessage):
    """Barge-in: no audio follows; `done.heard_text` is what `played_ms` of audio covered
    (what the server produced, when `played_ms` is omitted)."""

    type: Literal["cancel"] = "cancel"
    played_ms: float | None = Field(default=None, ge=0)


class SpeedMessage(ContextMessage):
    """Changes the running turn's speaking rate from its next audio chunk on."""

    type: Literal["speed"] = "speed"
    speed: float = Field(ge=MIN_SPEED, le=MAX_SPEED)


class AuthMessage(WireModel):
    """The API key as a socket's first message, for clients that cannot set a header
    (browsers); only before anything else, and only on a server started with a key."""

    type: Literal["auth"] = "auth"
    api_key: str = Field(min_length=1)


class PauseMessage(ContextMessage):
    """Duplex pause: no audio of the turn is sent from now on; it keeps its place."""

    type: Literal["pause"] = "pause"


class ResumeMessage(ContextMessage):
    """Ends a `pause`: audio continues from the exact next sample."""

    type: Literal["resume"] = "resume"


class AckMessage(ContextMessage):
    """A resumable turn's client has received `samples` samples of audio; the server may
    forget them."""

    type: Literal["ack"] = "ack"
    samples: int = Field(ge=0)


class ReconnectMessage(ContextMessage):
    """On a new socket: take over the resumable turn of `resume_token`, whose first
    `received_samples` samples of audio the client has."""

    type: Literal["reconnect"] = "reconnect"
    resume_token: str = Field(min_length=1, max_length=200)
    received_samples: int = Field(ge=0)


ClientMessage = Annotated[
    Union[
        StartMessage,
        TextMessage,
        StopMessage,
        CancelMessage,
        PauseMessage,
        ResumeMessage,
        AckMessage,
        ReconnectMessage,
        SpeedMessage,
    ],
    Field(discriminator="type"),
]
CLIENT_MESSAGE_TYPES = ("start", "text", "stop", "cancel", "pause", "resume", "ack", "reconnect", "speed")
client_message_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


# Server → client ------------------------------------------------------------------------------


class StartedMessage(ContextMessage):
    type: Literal["started"] = "started"
    stream_id: str
    voice: str | None
    language: str | None
    sample_rate: int
    format: AudioFormat
    normalize: bool
    resume_token: str | None = None
    markup: Literal["expr", "cartesia"] | None = None
    # Kinds of tag this turn's engine cannot act on (its model takes no style instruction:
    # "expression"); those tags are dropped, their words spoken.
    markup_ignored: list[str] | None = None


class ReconnectedMessage(ContextMessage):
    """Answers `reconnect`: the turn goes on here. `text_seq` is the last numbered `text` the
    server has (resend the ones after it, then `stop` if it was sent); audio follows from
    sample `from_sample`, then everything the turn has not sent yet."""

    type: Literal["reconnected"] = "reconnected"
    stream_id: str
    text_seq: int
    from_sample: int


class WordTiming(WireModel):
    """A word of the raw text, with the time its audio starts in this turn."""

    text: str
    start_ms: float
    raw_start: int
    raw_end: int


class ProgressMessage(ContextMessage):
    """Everything before `spoken_end` of the spoken text starts at or before `audio_ms` of this
    turn's audio; `raw_end` is the same point in the raw text, at word granularity (the end of
    the last word that has started). `words` are the words that newly started."""

    type: Literal["progress"] = "progress"
    raw_end: int
    spoken_end: int
    audio_ms: float
    words: list[WordTiming] = Field(default_factory=list)


class UsageInfo(WireModel):
    """A turn's usage. `cached`: served from the server's phrase cache; written only then, so
    that other turns' `done` is as it was before the cache existed."""

    characters_received: int = 0
    characters_spoken: int = 0
    audio_seconds: float = 0.0
    cached: bool = False

    @model_serializer(mode="wrap")
    def _cached_when_true(self, handler):
        fields = handler(self)
        if not fields.get("cached"):
            fields.pop("cached", None)
        return fields


class DoneMessage(ContextMessage):
    """Ends a turn (the socket stays open for the next `start`)."""

    type: Literal["done"] = "done"
    stream_id: str
    cancelled: bool
    heard_text: str
    usage: UsageInfo
    # Why the turn ended when the client did not end it: "pause_timeout", "resume_timeout".
    reason: str | None = None


class ErrorMessage(ContextMessage):
    """With a `stream_id`, the turn failed and `done` follows. Without one, a message was
    rejected (and dropped); any running turn goes on."""

    type: Literal["error"] = "error"
    code: str
    message: str
    retryable: bool = False
    stream_id: str | None = None


ServerMessage = Annotated[
    Union[StartedMessage, ReconnectedMessage, ProgressMessage, DoneMessage, ErrorMessage],
    Field(discriminator="type"),
]
server_message_adapter: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


# HTTP ----------------------------------------------------------------------------------------


class VoiceInfo(WireModel):
    """A voice the server can speak with; `language` is set when the voice speaks only one."""

    name: str
    description: str = ""
    gender: str | None = None
    language: str | None = None
    # Cloned voices only: "x_vector" or "icl" (in-context, with the reference transcript), when
    # the voice was made (Unix seconds), the consent recording's id its upload named (if any),
    # and the reference's transcript (an "icl" voice's).
    mode: str | None = None
    created_at: int | None = None
    consent: str | None = None
    ref_text: str | None = None


class VoiceList(WireModel):
    voices: list[VoiceInfo]


class CreatedVoice(WireModel):
    """The answer to a voice upload (`POST /v1/voices`): use `id` as the voice of a turn."""

    id: str
    name: str
    mode: Literal["x_vector", "icl"]
    created_at: int


class VoiceCloning(WireModel):
    """What a voice-cloning engine accepts (`POST /v1/voices`) and what its voices cost.

    `icl_first_audio`: an in-context ("icl") voice's prompt interleaves its reference transcript
    and the turn's text with the reference's codec frames, so its first audio needs
    `reference frames + 1 - transcript tokens` text tokens of the turn (12.5 frames per second of
    reference), or the end of the turn's text when it is shorter: for a typical reference that
    is the whole reply. x-vector voices start after one token, like presets."""

    modes: list[Literal["x_vector", "icl"]]
    min_reference_seconds: float
    max_reference_seconds: float
    icl_first_audio: str = "after reference_frames + 1 - transcript_tokens text tokens, or the end of the text"


class Headroom(WireModel):
    """An engine's measured real-time headroom (engines that measure it; see docs/protocol.md)."""

    admission: str  # "headroom": new streams are refused when they would not stay real-time; "slots"
    iteration_ms: float | None  # mean recent loop iteration (None before any)
    streams_per_iteration: float | None
    realtime_headroom: float | None  # 1 - iteration time / audio time made per iteration
    max_streams_estimate: int | None  # the most streams the measured costs admit


class Capabilities(WireModel):
    backend: str
    model: str
    voices: list[VoiceInfo]
    languages: list[str]
    sample_rates: list[int]
    formats: list[str]
    features: list[str]
    capacity: int
    active_streams: int
    voice_cloning: VoiceCloning | None = None
    headroom: Headroom | None = None
