"""What every route of one server shares: the engine, its description, settings, metrics, and
the capacity slots its streams take."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.server.metrics import ServerMetrics
from engine.server.phrase_cache import PhraseCache
from engine.server.resume import ResumeRegistry, ResumeRelay
from engine.server.settings import ServerSettings
from engine.server.tracing import StreamTracer
from engine.server.usage import StreamUsage, UsageLog, api_key_label
from voice_tts.protocol import (
    SUPPORTED_SAMPLE_RATES,
    Capabilities,
    ErrorCode,
    Headroom,
    StreamingEngine,
    VoiceCloning,
    VoiceInfo,
)
from voice_tts.request import AUDIO_FORMATS
from voice_tts.tn import Lexicon

DEFAULT_CAPACITY = 64
FEATURES = (
    "streaming_text_input",
    "word_timestamps",
    "cancel",
    "server_text_normalization",
    "pronunciation_lexicon",
    "openai_speech",
    "openai_speech_sse",
    "openai_realtime",
    "pause_resume",
    "reconnect_resume",
)


class StreamSlots:
    """Counts streams against the server's capacity (WebSocket turns and HTTP requests)."""

    def __init__(self, capacity: int, metrics: ServerMetrics) -> None:
        self.capacity = capacity
        self.active = 0
        self._metrics = metrics

    def acquire(self) -> bool:
        if self.active >= self.capacity:
            return False
        self.active += 1
        self._metrics.active_streams.set(self.active)
        return True

    def release(self) -> None:
        self.active -= 1
        self._metrics.active_streams.set(self.active)


# Names of voices made from inline references (vLLM-Omni's `ref_audio`, engine/server/references.py):
# the server's cache, not voices to list; uploads may not use the prefix.
INLINE_PREFIX = "inline-"


def is_inline_voice(name: str) -> bool:
    return name.lower().startswith(INLINE_PREFIX)


@dataclass(frozen=True)
class EngineDescription:
    backend: str
    model: str
    voices: tuple[VoiceInfo, ...]
    languages: tuple[str, ...]
    capacity: int | None
    features: tuple[str, ...] = ()  # what the engine adds (e.g. "instruct", "voice_cloning")
    voice_cloning: VoiceCloning | None = None
    # Voices the engine knows but cannot speak (a cloned voice of another kind of checkpoint):
    # let through, so that the engine's own error says why.
    unavailable_voices: frozenset[str] = frozenset()

    @classmethod
    def of(cls, engine: StreamingEngine) -> "EngineDescription":
        """Read what the engine says about itself; engines without a description still serve."""
        voices = tuple(
            VoiceInfo(
                name=voice.name,
                description=getattr(voice, "description", ""),
                gender=getattr(voice, "gender", None),
                language=getattr(voice, "language", None),
                mode=getattr(voice, "mode", None),
                created_at=getattr(voice, "created_at", None),
                consent=getattr(voice, "consent", None),
                ref_text=getattr(voice, "ref_text", None),
            )
            for voice in getattr(engine, "voices", ())
        )
        languages = tuple(
            getattr(language, "code", language) for language in getattr(engine, "languages", ())
        ) or tuple(sorted({voice.language for voice in voices if voice.language}))
        return cls(
            backend=getattr(engine, "backend", type(engine).__name__),
            model=getattr(engine, "model_name", type(engine).__name__),
            voices=voices,
            languages=languages,
            capacity=getattr(engine, "capacity", None),
            features=tuple(getattr(engine, "features", ())),
            voice_cloning=getattr(engine, "voice_cloning", None),
            unavailable_voices=frozenset(getattr(engine, "unavailable_voices", ())),
        )

    @property
    def listed_voices(self) -> list[VoiceInfo]:
        """The voices to show a client (capabilities, voice lists, errors naming the voices):
        all but those made from inline references."""
        return [voice for voice in self.voices if not is_inline_voice(voice.name)]

    def knows_voice(self, voice: str | None) -> bool:
        return (
            voice is None or not self.voices or voice in self.unavailable_voices or any(v.name == voice for v in self.voices)
        )


@dataclass
class Readiness:
    ready: bool = False
    detail: str = "warming up"
    # Set on SIGTERM/SIGINT: running turns finish, new ones are refused (engine/server/http_server.py).
    draining: bool = False
    # Set when the engine's loop died: the server stops for its supervisor to restart it.
    engine_failure: str | None = None

    @property
    def serving(self) -> bool:
        return self.ready and not self.draining and self.engine_failure is None

    def refusal(self) -> tuple[str, str] | None:
        """Why a new stream is refused now (a retryable error code and message), or None."""
        if self.engine_failure is not None:
            return ErrorCode.ENGINE_ERROR, f"the engine failed ({self.engine_failure}): retry"
        if self.draining:
            return ErrorCode.SHUTTING_DOWN, "the server is shutting down: retry on another one"
        if not self.ready:
            return ErrorCode.NOT_READY, f"the engine is not ready: {self.detail}"
        return None


@dataclass
class ServerState:
    engine: StreamingEngine
    settings: ServerSettings
    description: EngineDescription
    metrics: ServerMetrics = field(default_factory=ServerMetrics)
    readiness: Readiness = field(default_factory=Readiness)
    # The server-wide pronunciation dictionary (`--lexicon FILE`); a turn's own rules come first.
    lexicon: Lexicon = field(default_factory=Lexicon)
    slots: StreamSlots = field(init=False)
    # WebSocket turns running now (a drain ends those left at its timeout).
    turns: set = field(default_factory=set)
    usage_log: UsageLog = field(init=False)
    tracer: StreamTracer = field(init=False)
    resumes: ResumeRegistry = field(init=False)
    # The other API workers of this server, for a reconnect of their turn (None: one process).
    resume_relay: ResumeRelay | None = field(init=False)
    # Finished phrases served again from memory (None: `--phrase-cache-mb 0`).
    phrases: PhraseCache | None = field(init=False)

    def __post_init__(self) -> None:
        capacity = self.settings.capacity or self.description.capacity or DEFAULT_CAPACITY
        self.slots = StreamSlots(capacity, self.metrics)
        self.usage_log = UsageLog(self.settings.usage_log)
        self.tracer = StreamTracer.of(self.settings.otlp_traces_endpoint)
        self.resumes = ResumeRegistry(self.settings.resume_timeout_s)
        relay_dir = self.settings.resume_relay_dir
        self.resume_relay = None if relay_dir is None else ResumeRelay(relay_dir, self.settings.api_key)
        cache_bytes = int(self.settings.phrase_cache_mb * 1024 * 1024)
        self.phrases = PhraseCache(cache_bytes) if cache_bytes else None
        if self._headroom() is not None:
            self.metrics.report_headroom(self._headroom)

    def refresh_description(self) -> None:
        """What the engine says of itself now: after a voice was cloned or deleted, here or
        through another API worker. Phrases of a cloned voice that is gone (or was made again
        under its name) are dropped from the phrase cache."""
        self.description = EngineDescription.of(self.engine)
        if self.phrases is not None:
            self.phrases.keep_voices({(v.name, v.created_at) for v in self.description.voices if v.created_at is not None})

    def stream_usage(
        self, route: str, stream_id: str, voice: str | None, traceparent: str | None = None
    ) -> StreamUsage:
        """A new stream's usage, and its trace span under the client's `traceparent`."""
        return StreamUsage(
            self.metrics,
            self.usage_log,
            route,
            stream_id,
            voice,
            api_key_label(self.settings.api_key),
            span=self.tracer.start(route, stream_id, traceparent),
        )

    @property
    def one_of_several_workers(self) -> bool:
        """An API worker of `voice-tts serve --workers N` (those have a resume relay to each
        other), whose engine is the engine core's `CoreClient`."""
        return self.resume_relay is not None

    def active_streams(self) -> int:
        """Streams being synthesized now, server-wide. An API worker of several holds only its
        own turns: the engine core counts every worker's streams (as of its last status, sent a
        few times a second)."""
        if self.one_of_several_workers:
            return self.engine.active_streams
        return self.slots.active

    def cold_workers(self) -> int:
        """API workers of this server still warming up (as of the core's last status); 0 in one
        process, whose own warm-up is `readiness`."""
        return self.engine.cold_workers if self.one_of_several_workers else 0

    def _headroom(self) -> Headroom | None:
        """The engine's measured real-time headroom, for engines that measure it."""
        measure = getattr(self.engine, "headroom", None)
        return Headroom(**measure()) if callable(measure) else None

    def _voice_cloning(self) -> VoiceCloning | None:
        """The engine's cloning limits, with the server's minimum for uploads where it is higher."""
        cloning = self.description.voice_cloning
        if cloning is None or cloning.min_reference_seconds >= self.settings.min_voice_reference_s:
            return cloning
        return cloning.model_copy(update={"min_reference_seconds": self.settings.min_voice_reference_s})

    def capabilities(self) -> Capabilities:
        return Capabilities(
            backend=self.description.backend,
            model=self.description.model,
            voices=self.description.listed_voices,
            languages=list(self.description.languages),
            sample_rates=list(SUPPORTED_SAMPLE_RATES),
            formats=list(AUDIO_FORMATS),
            features=list(FEATURES) + [f for f in self.description.features if f not in FEATURES],
            capacity=self.slots.capacity,
            active_streams=self.active_streams(),
            voice_cloning=self._voice_cloning(),
            headroom=self._headroom(),
        )
