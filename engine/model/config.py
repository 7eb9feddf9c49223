"""What a Qwen3-TTS checkpoint folder declares about itself.

Every value comes from the folder's `config.json`, `generation_config.json` and
`speech_tokenizer/config.json`. The official configuration classes carry defaults that differ from
the published checkpoints (talker layers, KV heads, codec special ids, ...), so nothing here falls
back to a default: a missing field is a `CheckpointError` naming the file and the field.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.model.errors import CheckpointError

MODEL_TYPE = "qwen3_tts"
CODEC_TYPE = "qwen3_tts_tokenizer_12hz"
SUPPORTED_TTS_MODEL_TYPES = ("custom_voice", "voice_design", "base")
# The official speaker-encoder class defaults: published Base configs write only `enc_dim` and
# `sample_rate` and rely on these for the rest (the weight shapes are checked against them).
SPEAKER_ENCODER_DEFAULTS: dict[str, Any] = {
    "mel_dim": 128,
    "enc_channels": [512, 512, 512, 512, 1536],
    "enc_kernel_sizes": [5, 3, 3, 3, 1],
    "enc_dilations": [1, 2, 3, 4, 1],
    "enc_attention_channels": 128,
    "enc_res2net_scale": 8,
    "enc_se_channels": 128,
}


@dataclass(frozen=True)
class TransformerConfig:
    """One stack of Qwen3-style decoder layers (talker, code predictor or codec pre-transformer)."""

    num_layers: int
    hidden_size: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    rms_norm_eps: float
    rope_theta: float
    attention_bias: bool


@dataclass(frozen=True)
class TalkerConfig:
    layers: TransformerConfig
    vocab_size: int
    text_vocab_size: int
    text_hidden_size: int
    num_code_groups: int
    max_position_embeddings: int
    codec_pad_id: int
    codec_bos_id: int
    codec_eos_id: int
    codec_think_id: int
    codec_nothink_id: int
    codec_think_bos_id: int
    codec_think_eos_id: int
    language_ids: dict[str, int]
    speaker_ids: dict[str, int]
    # speaker -> dialect language key, or None for speakers without a dialect
    speaker_dialects: dict[str, str | None]


@dataclass(frozen=True)
class CodePredictorConfig:
    layers: TransformerConfig
    vocab_size: int
    num_code_groups: int


@dataclass(frozen=True)
class CodecConfig:
    """The 12 Hz speech tokenizer's decoder (codes -> 24 kHz waveform)."""

    transformer: TransformerConfig
    codebook_size: int
    codebook_dim: int
    latent_dim: int
    decoder_dim: int
    num_quantizers: int
    num_semantic_quantizers: int
    sliding_window: int
    layer_scale_initial_scale: float
    upsample_rates: tuple[int, ...]
    upsampling_ratios: tuple[int, ...]
    sample_rate: int
    samples_per_frame: int


@dataclass(frozen=True)
class SpeakerEncoderConfig:
    """The ECAPA-TDNN x-vector model of a voice-cloning (`base`) checkpoint."""

    mel_dim: int
    channels: tuple[int, ...]
    kernel_sizes: tuple[int, ...]
    dilations: tuple[int, ...]
    attention_channels: int
    res2net_scale: int
    se_channels: int
    enc_dim: int
    sample_rate: int


@dataclass(frozen=True)
class CodecEncoderConfig:
    """The speech tokenizer's Mimi encoder (waveform -> reference codes), `base` checkpoints only."""

    transformer: TransformerConfig  # LayerNorm + GELU MLP layers; rms_norm_eps holds the LayerNorm eps
    num_filters: int
    kernel_size: int
    residual_kernel_size: int
    last_kernel_size: int
    num_residual_layers: int
    dilation_growth_rate: int
    compress: int
    ratios: tuple[int, ...]  # SEANet downsampling ratios, in encoder order
    num_quantizers: int
    num_semantic_quantizers: int
    codebook_size: int
    codebook_dim: int
    quantizer_dim: int
    valid_quantizers: int  # codebooks kept (the first `num_code_groups`)
    pad_mode: str
    sample_rate: int
    samples_per_frame: int
    frame_stride: int  # the downsample convolution's stride (SEANet rate -> frame rate)


@dataclass(frozen=True)
class ModelConfig:
    tts_model_type: str
    tts_model_size: str
    im_start_id: int
    im_end_id: int
    assistant_id: int
    tts_pad_id: int
    tts_bos_id: int
    tts_eos_id: int
    talker: TalkerConfig
    code_predictor: CodePredictorConfig
    codec: CodecConfig
    speaker_encoder: SpeakerEncoderConfig | None = None  # base checkpoints only
    codec_encoder: CodecEncoderConfig | None = None  # base checkpoints only

    @property
    def supports_instruct(self) -> bool:
        # The official wrapper drops `instruct` for the 0.6B CustomVoice model; voice cloning
        # passes none.
        if self.tts_model_type == "base":
            return False
        return not (self.tts_model_type == "custom_voice" and self.tts_model_size == "0b6")

    @property
    def supports_cloning(self) -> bool:
        return self.tts_model_type == "base"

    @property
    def languages(self) -> list[str]:
        """User-visible languages: `auto` plus every language id that is not a dialect."""
        return ["auto"] + [k for k in self.talker.language_ids if "dialect" not in k]


class _Fields:
    """Typed access to one JSON object, with errors that name the file and the field path."""

    def __init__(self, data: Any, file: Path, path: str = "") -> None:
        if not isinstance(data, dict):
            raise CheckpointError(f"{file}: {path or 'top level'} must be a JSON object")
        self.data, self.file, self.path = data, file, path

    def _name(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def get(self, key: str, kind: type | tuple[type, ...]) -> Any:
        if key not in self.data:
            raise CheckpointError(f"{self.file}: field '{self._name(key)}' is missing")
        value = self.data[key]
        # bool is an int in Python; keep them apart so `"hidden_size": true` is rejected.
        wrong_bool = isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))
        if wrong_bool or not isinstance(value, kind):
            raise CheckpointError(
                f"{self.file}: field '{self._name(key)}' has value {value!r}, expected {_kind_name(kind)}"
            )
        return value

    def integer(self, key: str, minimum: int = 1) -> int:
        value = self.get(key, int)
        if value < minimum:
            raise CheckpointError(f"{self.file}: field '{self._name(key)}' is {value}, expected >= {minimum}")
        return value

    def number(self, key: str) -> float:
        return float(self.get(key, (int, float)))

    def int_list(self, key: str) -> tuple[int, ...]:
        value = self.get(key, list)
        if not value or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value):
            raise CheckpointError(f"{self.file}: field '{self._name(key)}' must be a list of positive integers")
        return tuple(value)

    def child(self, key: str) -> _Fields:
        return _Fields(self.get(key, dict), self.file, self._name(key))


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {int: "an integer", float: "a number", bool: "true/false", str: "a string", list: "a list", dict: "an object"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def read_json(file: Path) -> Any:
    if not file.is_file():
        raise CheckpointError(f"{file}: file is missing")
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{file}: not valid JSON ({e})") from e


def _transformer(f: _Fields) -> TransformerConfig:
    act = f.get("hidden_act", str)
    if act != "silu":
        raise CheckpointError(f"{f.file}: field '{f._name('hidden_act')}' is {act!r}; only 'silu' is supported")
    cfg = TransformerConfig(
        num_layers=f.integer("num_hidden_layers"),
        hidden_size=f.integer("hidden_size"),
        num_heads=f.integer("num_attention_heads"),
        num_kv_heads=f.integer("num_key_value_heads"),
        head_dim=f.integer("head_dim"),
        intermediate_size=f.integer("intermediate_size"),
        rms_norm_eps=f.number("rms_norm_eps"),
        rope_theta=f.number("rope_theta"),
        attention_bias=f.get("attention_bias", bool),
    )
    if cfg.num_heads % cfg.num_kv_heads:
        raise CheckpointError(
            f"{f.file}: {f.path or 'config'} has {cfg.num_heads} attention heads, not a multiple of "
            f"{cfg.num_kv_heads} key/value heads"
        )
    if cfg.head_dim % 2:
        raise CheckpointError(f"{f.file}: field '{f._name('head_dim')}' must be even for rotary embeddings")
    return cfg


def _check_talker_rope(f: _Fields, head_dim: int) -> None:
    """The talker's M-RoPE is plain 1-D RoPE (all three position streams are equal for TTS);
    only check that the declared sections are consistent with that reading."""
    scaling = f.data.get("rope_scaling")
    if scaling is None:
        return
    scaling = _Fields(scaling, f.file, f._name("rope_scaling"))
    rope_type = scaling.data.get("rope_type", scaling.data.get("type", "default"))
    if rope_type != "default":
        raise CheckpointError(f"{f.file}: rope type {rope_type!r} is not supported (expected 'default')")
    section = scaling.data.get("mrope_section")
    if section is not None and sum(section) != head_dim // 2:
        raise CheckpointError(
            f"{f.file}: rope_scaling.mrope_section {section} must sum to head_dim/2 = {head_dim // 2}"
        )


def _talker(f: _Fields) -> TalkerConfig:
    layers = _transformer(f)
    _check_talker_rope(f, layers.head_dim)
    languages = f.get("codec_language_id", dict)
    speakers = f.get("spk_id", dict)
    dialects = f.get("spk_is_dialect", dict)
    for name, table in (("codec_language_id", languages), ("spk_id", speakers)):
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in table.values()):
            raise CheckpointError(f"{f.file}: every value of 'talker_config.{name}' must be an integer id")
    speaker_dialects: dict[str, str | None] = {}
    for speaker in speakers:
        dialect = dialects.get(speaker, False)
        if dialect is False or dialect is None:
            speaker_dialects[speaker.lower()] = None
        elif isinstance(dialect, str) and dialect in languages:
            speaker_dialects[speaker.lower()] = dialect
        else:
            raise CheckpointError(
                f"{f.file}: talker_config.spk_is_dialect[{speaker!r}] = {dialect!r} is not a language in codec_language_id"
            )
    return TalkerConfig(
        layers=layers,
        vocab_size=f.integer("vocab_size"),
        text_vocab_size=f.integer("text_vocab_size"),
        text_hidden_size=f.integer("text_hidden_size"),
        num_code_groups=f.integer("num_code_groups", minimum=2),
        max_position_embeddings=f.integer("max_position_embeddings"),
        codec_pad_id=f.integer("codec_pad_id", minimum=0),
        codec_bos_id=f.integer("codec_bos_id", minimum=0),
        codec_eos_id=f.integer("codec_eos_token_id", minimum=0),
        codec_think_id=f.integer("codec_think_id", minimum=0),
        codec_nothink_id=f.integer("codec_nothink_id", minimum=0),
        codec_think_bos_id=f.integer("codec_think_bos_id", minimum=0),
        codec_think_eos_id=f.integer("codec_think_eos_id", minimum=0),
        language_ids={k.lower(): v for k, v in languages.items()},
        speaker_ids={k.lower(): v for k, v in speakers.items()},
        speaker_dialects=speaker_dialects,
    )


def _codec(folder: Path) -> CodecConfig:
    file = folder / "speech_tokenizer" / "config.json"
    top = _Fields(read_json(file), file)
    model_type = top.get("model_type", str)
    if model_type != CODEC_TYPE:
        raise CheckpointError(f"{file}: model_type is {model_type!r}, expected {CODEC_TYPE!r}")
    d = top.child("decoder_config")
    transformer = _transformer(d)
    semantic = d.integer("num_semantic_quantizers")
    if semantic != 1:
        # The official decoder always splits the codes as 1 semantic + (n-1) acoustic codebooks.
        raise CheckpointError(f"{file}: decoder_config.num_semantic_quantizers is {semantic}, expected 1")
    layer_types = d.data.get("layer_types")
    if layer_types is not None and any(t != "sliding_attention" for t in layer_types):
        raise CheckpointError(f"{file}: decoder_config.layer_types must all be 'sliding_attention'")
    cfg = CodecConfig(
        transformer=transformer,
        codebook_size=d.integer("codebook_size"),
        codebook_dim=d.integer("codebook_dim", minimum=2),
        latent_dim=d.integer("latent_dim"),
        decoder_dim=d.integer("decoder_dim"),
        num_quantizers=d.integer("num_quantizers", minimum=2),
        num_semantic_quantizers=semantic,
        sliding_window=d.integer("sliding_window"),
        layer_scale_initial_scale=d.number("layer_scale_initial_scale"),
        upsample_rates=d.int_list("upsample_rates"),
        upsampling_ratios=d.int_list("upsampling_ratios"),
        sample_rate=top.integer("output_sample_rate"),
        samples_per_frame=top.integer("decode_upsample_rate"),
    )
    total = math.prod(cfg.upsample_rates + cfg.upsampling_ratios)
    if total != cfg.samples_per_frame:
        raise CheckpointError(
            f"{file}: decode_upsample_rate is {cfg.samples_per_frame} but the decoder upsamples by {total}"
        )
    if cfg.decoder_dim % (2 ** len(cfg.upsample_rates)):
        raise CheckpointError(f"{file}: decoder_dim {cfg.decoder_dim} cannot be halved {len(cfg.upsample_rates)} times")
    return cfg


def _speaker_encoder(top: _Fields, talker_hidden: int) -> SpeakerEncoderConfig:
    given = top.child("speaker_encoder_config")
    f = _Fields({**SPEAKER_ENCODER_DEFAULTS, **given.data}, given.file, given.path)
    cfg = SpeakerEncoderConfig(
        mel_dim=f.integer("mel_dim"),
        channels=f.int_list("enc_channels"),
        kernel_sizes=f.int_list("enc_kernel_sizes"),
        dilations=f.int_list("enc_dilations"),
        attention_channels=f.integer("enc_attention_channels"),
        res2net_scale=f.integer("enc_res2net_scale"),
        se_channels=f.integer("enc_se_channels"),
        enc_dim=f.integer("enc_dim"),
        sample_rate=f.integer("sample_rate"),
    )
    if not len(cfg.channels) == len(cfg.kernel_sizes) == len(cfg.dilations) >= 3:
        raise CheckpointError(f"{f.file}: speaker_encoder_config enc_channels, enc_kernel_sizes and enc_dilations must have the same length (>= 3)")
    if any(c % cfg.res2net_scale for c in cfg.channels[1:-1]):
        raise CheckpointError(f"{f.file}: speaker_encoder_config channels must be multiples of enc_res2net_scale")
    if cfg.enc_dim != talker_hidden:
        # The x-vector goes unprojected into a talker row.
        raise CheckpointError(f"{f.file}: speaker_encoder_config.enc_dim {cfg.enc_dim} differs from the talker hidden size {talker_hidden}")
    return cfg


# transformers' MimiConfig defaults for the fields published speech-tokenizer configs leave out.
MIMI_ENCODER_DEFAULTS: dict[str, Any] = {"attention_bias": False, "sampling_rate": 24000}


def _codec_encoder(folder: Path, num_code_groups: int) -> CodecEncoderConfig:
    file = folder / "speech_tokenizer" / "config.json"
    top = _Fields(read_json(file), file)
    given = top.child("encoder_config")
    e = _Fields({**MIMI_ENCODER_DEFAULTS, **given.data}, given.file, given.path)
    act = e.get("hidden_act", str)
    if act != "gelu":
        raise CheckpointError(f"{file}: encoder_config.hidden_act is {act!r}; only 'gelu' is supported")
    if not e.get("use_causal_conv", bool) or e.get("use_conv_shortcut", bool):
        raise CheckpointError(f"{file}: encoder_config must use causal convolutions without conv shortcuts")
    pad_mode = e.get("pad_mode", str)
    if pad_mode not in ("constant", "replicate", "reflect"):
        raise CheckpointError(f"{file}: encoder_config.pad_mode {pad_mode!r} is not supported")
    heads = e.integer("num_attention_heads")
    hidden = e.integer("hidden_size")
    transformer = TransformerConfig(
        num_layers=e.integer("num_hidden_layers"),
        hidden_size=hidden,
        num_heads=heads,
        num_kv_heads=e.integer("num_key_value_heads"),
        head_dim=e.data.get("head_dim") or hidden // heads,
        intermediate_size=e.integer("intermediate_size"),
        rms_norm_eps=e.number("norm_eps"),
        rope_theta=e.number("rope_theta"),
        attention_bias=e.get("attention_bias", bool),
    )
    ratios = tuple(reversed(e.int_list("upsampling_ratios")))
    sample_rate = e.integer("sampling_rate")
    samples_per_frame = top.integer("encode_downsample_rate")
    frame_rate = e.number("_frame_rate") if "_frame_rate" in e.data else sample_rate / samples_per_frame
    seanet_rate = math.ceil(sample_rate / math.prod(ratios))
    cfg = CodecEncoderConfig(
        transformer=transformer,
        num_filters=e.integer("num_filters"),
        kernel_size=e.integer("kernel_size"),
        residual_kernel_size=e.integer("residual_kernel_size"),
        last_kernel_size=e.integer("last_kernel_size"),
        num_residual_layers=e.integer("num_residual_layers"),
        dilation_growth_rate=e.integer("dilation_growth_rate"),
        compress=e.integer("compress"),
        ratios=ratios,
        num_quantizers=e.integer("num_quantizers"),
        num_semantic_quantizers=e.integer("num_semantic_quantizers"),
        codebook_size=e.integer("codebook_size"),
        codebook_dim=e.integer("codebook_dim"),
        quantizer_dim=e.integer("vector_quantization_hidden_dimension"),
        valid_quantizers=top.integer("encoder_valid_num_quantizers"),
        pad_mode=pad_mode,
        sample_rate=top.integer("input_sample_rate"),
        samples_per_frame=samples_per_frame,
        frame_stride=round(seanet_rate / frame_rate),
    )
    if cfg.sample_rate != sample_rate:
        raise CheckpointError(f"{file}: input_sample_rate {cfg.sample_rate} differs from encoder_config.sampling_rate {sample_rate}")
    if cfg.valid_quantizers != num_code_groups or cfg.valid_quantizers > cfg.num_quantizers:
        raise CheckpointError(
            f"{file}: encoder_valid_num_quantizers {cfg.valid_quantizers} must equal the talker's {num_code_groups} code groups"
        )
    if math.prod(ratios) * cfg.frame_stride != cfg.samples_per_frame:
        raise CheckpointError(f"{file}: the encoder downsamples by {math.prod(ratios) * cfg.frame_stride}, not encode_downsample_rate {cfg.samples_per_frame}")
    return cfg


def read_config(folder: Path) -> ModelConfig:
    """Parse and cross-check the three config files of a checkpoint folder."""
    folder = Path(folder)
    file = folder / "config.json"
    top = _Fields(read_json(file), file)
    model_type = top.get("model_type", str)
    if model_type != MODEL_TYPE:
        raise CheckpointError(f"{file}: model_type is {model_type!r}, expected {MODEL_TYPE!r} (a Qwen3-TTS checkpoint)")
    tokenizer_type = top.get("tokenizer_type", str)
    if tokenizer_type != CODEC_TYPE:
        raise CheckpointError(f"{file}: tokenizer_type is {tokenizer_type!r}; only {CODEC_TYPE!r} (12 Hz) is supported")
    tts_type = top.get("tts_model_type", str)
    if tts_type not in SUPPORTED_TTS_MODEL_TYPES:
        raise CheckpointError(
            f"{file}: tts_model_type is {tts_type!r}; supported: {', '.join(SUPPORTED_TTS_MODEL_TYPES)}"
        )
    t = top.child("talker_config")
    talker = _talker(t)
    cp_fields = t.child("code_predictor_config")
    code_predictor = CodePredictorConfig(
        layers=_transformer(cp_fields),
        vocab_size=cp_fields.integer("vocab_size"),
        num_code_groups=cp_fields.integer("num_code_groups", minimum=2),
    )
    codec = _codec(folder)
    cfg = ModelConfig(
        tts_model_type=tts_type,
        tts_model_size=top.get("tts_model_size", str),
        im_start_id=top.integer("im_start_token_id", minimum=0),
        im_end_id=top.integer("im_end_token_id", minimum=0),
        assistant_id=top.integer("assistant_token_id", minimum=0),
        tts_pad_id=top.integer("tts_pad_token_id", minimum=0),
        tts_bos_id=top.integer("tts_bos_token_id", minimum=0),
        tts_eos_id=top.integer("tts_eos_token_id", minimum=0),
        talker=talker,
        code_predictor=code_predictor,
        codec=codec,
        speaker_encoder=_speaker_encoder(top, talker.layers.hidden_size) if tts_type == "base" else None,
        codec_encoder=_codec_encoder(folder, talker.num_code_groups) if tts_type == "base" else None,
    )
    _cross_check(cfg, file)
    return cfg


def _cross_check(cfg: ModelConfig, file: Path) -> None:
    t, cp, codec = cfg.talker, cfg.code_predictor, cfg.codec
    groups = {t.num_code_groups, cp.num_code_groups, codec.num_quantizers}
    if len(groups) != 1:
        raise CheckpointError(
            f"{file}: codebook counts disagree (talker {t.num_code_groups}, code predictor {cp.num_code_groups}, "
            f"speech tokenizer {codec.num_quantizers})"
        )
    if cp.vocab_size != codec.codebook_size:
        raise CheckpointError(
            f"{file}: code predictor vocab {cp.vocab_size} differs from the codec codebook size {codec.codebook_size}"
        )
    if codec.codebook_size > t.vocab_size:
        raise CheckpointError(f"{file}: codec codebook size {codec.codebook_size} exceeds talker vocab {t.vocab_size}")
    special = {
        "codec_pad_id": t.codec_pad_id, "codec_bos_id": t.codec_bos_id, "codec_eos_token_id": t.codec_eos_id,
        "codec_think_id": t.codec_think_id, "codec_nothink_id": t.codec_nothink_id,
        "codec_think_bos_id": t.codec_think_bos_id, "codec_think_eos_id": t.codec_think_eos_id,
        **{f"codec_language_id[{k}]": v for k, v in t.language_ids.items()},
        **{f"spk_id[{k}]": v for k, v in t.speaker_ids.items()},
    }
    for name, value in special.items():
        if not 0 <= value < t.vocab_size:
            raise CheckpointError(f"{file}: talker_config.{name} = {value} is outside the codec vocab (0..{t.vocab_size - 1})")
    for name in ("im_start_id", "im_end_id", "assistant_id", "tts_pad_id", "tts_bos_id", "tts_eos_id"):
        if not 0 <= getattr(cfg, name) < t.text_vocab_size:
            raise CheckpointError(f"{file}: {name} = {getattr(cfg, name)} is outside the text vocab")


# The official wrapper's fallbacks, used only for keys that generation_config.json leaves out.
GENERATION_FALLBACKS: dict[str, Any] = {
    "do_sample": True,
    "top_k": 50,
    "top_p": 1.0,
    "temperature": 0.9,
    "repetition_penalty": 1.05,
    "subtalker_dosample": True,
    "subtalker_top_k": 50,
    "subtalker_top_p": 1.0,
    "subtalker_temperature": 0.9,
    "max_new_tokens": 2048,
}


def read_generation_config(folder: Path) -> dict[str, Any]:
    """`generation_config.json` merged over the official wrapper's fallbacks."""
    file = Path(folder) / "generation_config.json"
    data = read_json(file)
    if not isinstance(data, dict):
        raise CheckpointError(f"{file}: must be a JSON object")
    return {**GENERATION_FALLBACKS, **data}
