"""What a speech request asks of the voice, as OpenAI's speech API and vLLM-Omni's dialect of it
say it, and how that becomes the options of one engine stream.

`SpeechSettings` is shared by `POST /v1/audio/speech` (engine/server/speech.py adds the text and
how the answer is delivered) and the `session.config` of the `/v1/audio/speech/stream` socket
(engine/server/omni_stream.py). `resolve` checks the settings against the loaded checkpoint
once, for both:

- `task_type` is inferred as vLLM-Omni infers it: `ref_audio` or `ref_text` mean Base, a voice
  that names a cloned voice means Base, anything else CustomVoice; VoiceDesign is only ever
  asked for. A task the checkpoint cannot do is refused naming the checkpoint's kind (an
  inferred CustomVoice is not: OpenAI's clients never send a task, and their voice names speak
  with the server's default voice on every checkpoint).
- `ref_audio` (with `ref_text`, or `x_vector_only_mode`) clones inline
  (engine/server/references.py); it decides the voice, whatever `voice` says.
- `max_new_tokens` caps the frames of the Qwen3 engine (official semantics: at most
  max_new_tokens - 1 frames); `initial_codec_chunk_frames` is the size of its first audio chunk
  (`StreamRequest.first_chunk_frames`, checked there: 1 to MAX_FIRST_CHUNK_FRAMES). Neither has
  an effect on the embedded voice, which has no codec frames. `non_streaming_mode` is checked
  and has no effect on audio: the engine's streams always take their text token by token in the
  official streaming layout.
- A field vLLM-Omni defines for other models or features this server does not have is refused
  naming the field; any other unknown field is refused as OpenAI's API would not know it either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

from engine.server.references import Reference, ReferenceRefused, reference_voice
from engine.server.state import EngineDescription, ServerState
from voice_tts.protocol import PRIORITY_NORMAL, ErrorCode, LexiconEntry
from voice_tts.request import MAX_SPEED, MIN_SPEED, StreamRequest, checked_first_chunk_frames

# Speech answers at the codec's rate: 24 kHz mono s16le before any encoding; G.711 formats
# (the stream's own encodings, voice_tts/audio.py) at the telephone's 8 kHz, headerless.
SAMPLE_RATE = 24000
G711_SAMPLE_RATE = 8000
G711_FORMATS = ("mulaw", "alaw")
TaskType = Literal["CustomVoice", "VoiceDesign", "Base"]
TASK_TYPES: tuple[str, ...] = ("CustomVoice", "VoiceDesign", "Base")
OPENAI_VOICES = frozenset(
    {"alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse", "marin", "cedar"}
)
# vLLM-Omni request fields this server does not implement, and what to do instead.
NOT_IMPLEMENTED = {
    "sample_rate": "audio is 24000 Hz here (resample on the client, or use /v1/ws, which takes a sample_rate)",
    "seed": "the sampling seed is not a request option here",
    "speaker_embedding": "clone from ref_audio or an uploaded voice (POST /v1/audio/voices)",
    "ref_audio_2": "two-speaker dialogue is a MOSS-TTSD feature",
    "ambient_sound": "sound effects are a MOSS-SoundEffect feature",
    "duration_seconds": "a target duration is a MOSS-SoundEffect feature",
    "extra_params": "model-specific parameters are not passed through here",
    "references": "send the reference as ref_audio and ref_text",
    "word_timestamps": "word timings come with the streaming socket's word_progress events and /v1/ws",
}


class SpeechSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    model: str | None = None  # accepted; the server speaks with the engine it was started with
    voice: str | None = Field(default=None, validation_alias=AliasChoices("voice", "speaker"))
    response_format: str = "wav"
    speed: float = 1.0
    instructions: str | None = None
    language: str | None = None
    lexicon: list[LexiconEntry] | None = Field(default=None, max_length=2000)
    spell_acronyms: bool = True
    task_type: TaskType | None = None
    ref_audio: str | None = None
    ref_text: str | None = Field(default=None, min_length=1)
    x_vector_only_mode: bool | None = None
    max_new_tokens: int | None = Field(default=None, ge=2)
    initial_codec_chunk_frames: int | None = None
    non_streaming_mode: bool | None = None
    # Expressive tags in the input (voice_tts/markup.py); null: "<" is text.
    markup: Literal["expr", "cartesia"] | None = None

    @field_validator("initial_codec_chunk_frames")
    @classmethod
    def _check_first_chunk(cls, frames: int | None) -> int | None:
        return checked_first_chunk_frames(frames)

    @model_validator(mode="before")
    @classmethod
    def _refuse_unimplemented(cls, data):
        if isinstance(data, dict):
            for name, instead in NOT_IMPLEMENTED.items():
                if name in data:
                    raise ValueError(f"{name} is a vLLM-Omni field this server does not implement: {instead}")
        return data


class SpeechRefused(Exception):
    """Settings the server cannot speak with: the HTTP status, code, parameter and message."""

    def __init__(self, status: int, message: str, code: str, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.param = param


@dataclass(frozen=True)
class StreamChoice:
    """What an engine stream is opened with: the voice (None: the server's default), the
    instruct, and the engine options the engine takes."""

    voice: str | None
    instruct: str | None
    max_new_tokens: int | None
    first_chunk_frames: int | None


def checkpoint_kind(description: EngineDescription) -> str | None:
    """The Qwen3-TTS task the loaded checkpoint does (its name ends with it), or None for an
    engine without checkpoint kinds (the embedded voice)."""
    return next((kind for kind in TASK_TYPES if description.model.endswith(kind)), None)


def known_voice(description: EngineDescription, voice: str) -> str | None:
    """The server's name of `voice`, matched without regard to case as vLLM-Omni matches them."""
    wanted = voice.lower()
    return next((v.name for v in description.voices if v.name.lower() == wanted), None)


def _task(settings: SpeechSettings, description: EngineDescription) -> tuple[str, bool]:
    """(the task, whether it must match the checkpoint) as vLLM-Omni infers it."""
    if settings.task_type is not None:
        return settings.task_type, True
    if settings.ref_audio is not None or settings.ref_text is not None:
        return "Base", True
    voice = known_voice(description, settings.voice) if settings.voice else None
    if voice is not None and any(v.name == voice and v.mode for v in description.voices):
        return "Base", True
    return "CustomVoice", False


def _check_task(task: str, description: EngineDescription) -> None:
    kind = checkpoint_kind(description)
    if kind == task or (kind is None and task == "CustomVoice"):  # the embedded voice's presets
        return
    if kind is None:
        message = (
            f"task_type {task!r} needs a Qwen3-TTS {task} checkpoint; this server speaks with "
            f"{description.model} (backend {description.backend}), which has preset voices only (CustomVoice)"
        )
    else:
        message = (
            f"Qwen3-TTS {kind} checkpoint ({description.model}) does not support task_type={task!r}. "
            f"Use task_type={kind!r} or load the matching {task} checkpoint."
        )
    raise SpeechRefused(400, message, "unsupported_task", "task_type")


def check_speed(settings: SpeechSettings) -> None:
    """OpenAI takes 0.25-4.0; past `MIN_SPEED`-`MAX_SPEED` speech stops sounding like speech,
    and a rate quietly different from the one asked for would be worse than a refusal."""
    if not MIN_SPEED <= settings.speed <= MAX_SPEED:
        message = f"speed must be from {MIN_SPEED} to {MAX_SPEED}, got {settings.speed}"
        raise SpeechRefused(400, message, "unsupported_speed", "speed")


async def resolve(state: ServerState, settings: SpeechSettings) -> StreamChoice:
    """The stream options for `settings` on this server's engine. Raises SpeechRefused."""
    voice, instruct = await _voice_and_instruct(state, settings)
    return StreamChoice(voice, instruct, settings.max_new_tokens, settings.initial_codec_chunk_frames)


async def _voice_and_instruct(state: ServerState, settings: SpeechSettings) -> tuple[str | None, str | None]:
    """The stream's voice (None: the server's default) and instruct, for the task asked or inferred."""
    description = state.description
    task, must_match = _task(settings, description)
    if must_match:
        _check_task(task, description)
    if task != "Base":
        for name in ("ref_audio", "ref_text", "x_vector_only_mode"):
            if getattr(settings, name) is not None:
                raise SpeechRefused(400, f"{name} is only valid for task_type 'Base'", ErrorCode.INVALID_MESSAGE, name)
    instruct = settings.instructions or None
    if task == "VoiceDesign":
        if instruct is None:
            raise SpeechRefused(
                400, "task_type 'VoiceDesign' needs 'instructions' describing the voice", ErrorCode.INVALID_MESSAGE, "instructions"
            )
        return None, instruct
    if settings.ref_audio is not None:
        if not settings.x_vector_only_mode and settings.ref_text is None:
            raise SpeechRefused(
                400,
                "Base task requires non-empty 'ref_text' (transcript of the reference audio) unless "
                "'x_vector_only_mode' is enabled",
                ErrorCode.INVALID_MESSAGE,
                "ref_text",
            )
        reference = Reference(settings.ref_audio, None if settings.x_vector_only_mode else settings.ref_text)
        try:
            voice = await reference_voice(state, reference)
        except ReferenceRefused as e:
            raise SpeechRefused(e.status, str(e), e.code, "ref_audio") from None
        return voice, instruct
    if task == "Base" and settings.ref_text is not None:
        raise SpeechRefused(400, "ref_text goes with ref_audio", ErrorCode.INVALID_MESSAGE, "ref_text")
    voice = settings.voice
    if voice is None or voice.lower() in OPENAI_VOICES:
        return None, instruct
    named = known_voice(description, voice)
    if named is None and voice not in description.unavailable_voices and description.voices:
        names = [v.name for v in description.listed_voices]
        raise SpeechRefused(400, f"unknown voice {voice!r}; voices: {names}", ErrorCode.INVALID_VOICE, "voice")
    return named or voice, instruct


def stream_request(settings: SpeechSettings, choice: StreamChoice, priority: int = PRIORITY_NORMAL) -> StreamRequest:
    """The engine stream `settings` ask for, as `resolve` chose it: raw text normalized on the
    server, 24 kHz s16le or 8 kHz G.711 as `response_format` says (`max_new_tokens` and `first_chunk_frames`: an engine without codec
    frames, the embedded voice, ignores them). Raises ValueError (a coded one for a bad lexicon rule)."""
    return StreamRequest(
        voice=choice.voice,
        language=settings.language,
        instruct=choice.instruct,
        sample_rate=G711_SAMPLE_RATE if settings.response_format in G711_FORMATS else SAMPLE_RATE,
        format=settings.response_format if settings.response_format in G711_FORMATS else "pcm16",
        normalize=True,
        lexicon=[rule.model_dump() for rule in settings.lexicon] if settings.lexicon else None,
        spell_acronyms=settings.spell_acronyms,
        speed=settings.speed,
        max_new_tokens=choice.max_new_tokens,
        first_chunk_frames=choice.first_chunk_frames,
        priority=priority,
        markup=settings.markup,
    )
