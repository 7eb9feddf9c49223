"""Write a full-size, random-weight Qwen3-TTS CustomVoice or Base checkpoint in the official layout.

    python bench/make_random_checkpoint.py OUT_DIR [--size 1.7b|0.6b] [--type custom_voice|base]
        [--device cuda] [--shards 1]

The configs are the published ones (shared/specs/qwen3-tts.md section 2.4: talker, code predictor,
9 preset speakers and 12 language ids, or for Base no speakers, 10 languages and the speaker
encoder; the 12 Hz codec). Tokenizer files are copied from the tiny fixture, which has the real id
layout. The speech tokenizer holds the decoder, and for Base also the Mimi encoder that turns a
reference recording into codes (preset-speaker synthesis never uses it).
Weights are drawn on `--device` (a GPU makes the 1.9 B parameters take seconds) and written with
safetensors; the result loads through `engine.model.load_model` and is what the GPU benchmarks time.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import time
from pathlib import Path

import torch
from safetensors.torch import save_file

from engine.model.config import read_config
from engine.model.weight_layout import Shapes, codec_encoder_shapes, codec_shapes, model_shapes

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(os.environ.get("VOICE_TTS_SHARED", REPO_ROOT.parent / "shared")) / "fixtures" / "qwen3-tts-tiny-customvoice"

SIZES = {
    "1.7b": {"tts_model_size": "1b7", "hidden_size": 2048, "intermediate_size": 6144},
    "0.6b": {"tts_model_size": "0b6", "hidden_size": 1024, "intermediate_size": 3072},
}
SPEAKERS = {"serena": 3066, "vivian": 3065, "uncle_fu": 3010, "ryan": 3061, "aiden": 2861,
            "ono_anna": 2873, "sohee": 2864, "eric": 2875, "dylan": 2878}
DIALECTS = {"eric": "sichuan_dialect", "dylan": "beijing_dialect"}
LANGUAGES = {"chinese": 2055, "english": 2050, "german": 2053, "italian": 2070, "portuguese": 2071,
             "spanish": 2054, "japanese": 2058, "korean": 2064, "french": 2061, "russian": 2069,
             "beijing_dialect": 2074, "sichuan_dialect": 2062}
GENERATION_CONFIG = {"do_sample": True, "repetition_penalty": 1.05, "temperature": 0.9, "top_p": 1.0, "top_k": 50,
                     "subtalker_dosample": True, "subtalker_temperature": 0.9, "subtalker_top_p": 1.0,
                     "subtalker_top_k": 50, "max_new_tokens": 8192}


def model_config(size: str, kind: str = "custom_voice") -> dict:
    s = SIZES[size]
    base = kind == "base"
    code_predictor = {
        "model_type": "qwen3_tts_talker_code_predictor", "attention_bias": False, "attention_dropout": 0.0,
        "head_dim": 128, "hidden_act": "silu", "hidden_size": 1024, "intermediate_size": 3072, "max_length": 20,
        "max_position_embeddings": 65536, "num_attention_heads": 16, "num_code_groups": 16, "num_hidden_layers": 5,
        "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000,
        "sliding_window": None, "use_sliding_window": False, "layer_types": ["full_attention"] * 5,
        "max_window_layers": 28, "use_cache": True, "vocab_size": 2048,
    }
    talker = {
        "model_type": "qwen3_tts_talker", "attention_bias": False, "attention_dropout": 0.0, "head_dim": 128,
        "hidden_act": "silu", "hidden_size": s["hidden_size"], "intermediate_size": s["intermediate_size"],
        "max_position_embeddings": 32768, "num_attention_heads": 16, "num_code_groups": 16, "num_hidden_layers": 28,
        "num_key_value_heads": 8, "position_id_per_seconds": 13, "rms_norm_eps": 1e-06, "rope_theta": 1000000,
        "rope_scaling": {"interleaved": True, "mrope_section": [24, 20, 20], "rope_type": "default", "type": "default"},
        "sliding_window": None, "use_sliding_window": False, "use_cache": True,
        "text_hidden_size": 2048, "text_vocab_size": 151936, "vocab_size": 3072,
        "codec_bos_id": 2149, "codec_eos_token_id": 2150, "codec_pad_id": 2148, "codec_think_id": 2154,
        "codec_nothink_id": 2155, "codec_think_bos_id": 2156, "codec_think_eos_id": 2157,
        "codec_language_id": {k: v for k, v in LANGUAGES.items() if not (base and "dialect" in k)},
        "spk_id": {} if base else SPEAKERS,
        "spk_is_dialect": {} if base else {name: DIALECTS.get(name, False) for name in SPEAKERS},
        "code_predictor_config": code_predictor,
    }
    return {
        "architectures": ["Qwen3TTSForConditionalGeneration"], "model_type": "qwen3_tts",
        "tokenizer_type": "qwen3_tts_tokenizer_12hz", "tts_model_size": s["tts_model_size"],
        "tts_model_type": kind, "im_start_token_id": 151644, "im_end_token_id": 151645,
        "assistant_token_id": 77091, "tts_pad_token_id": 151671, "tts_bos_token_id": 151672,
        "tts_eos_token_id": 151673, "sample_rate": 24000,
        "speaker_encoder_config": {"enc_dim": s["hidden_size"], "sample_rate": 24000},
        "talker_config": talker, "transformers_version": "4.57.3",
    }


CODEC_CONFIG = {
    "architectures": ["Qwen3TTSTokenizerV2Model"], "model_type": "qwen3_tts_tokenizer_12hz",
    "encoder_valid_num_quantizers": 16, "input_sample_rate": 24000, "output_sample_rate": 24000,
    "decode_upsample_rate": 1920, "encode_downsample_rate": 1920,
    "decoder_config": {
        "attention_bias": False, "attention_dropout": 0.0, "latent_dim": 1024, "codebook_dim": 512,
        "codebook_size": 2048, "decoder_dim": 1536, "hidden_act": "silu", "hidden_size": 512,
        "intermediate_size": 1024, "layer_scale_initial_scale": 0.01, "max_position_embeddings": 8000,
        "head_dim": 64, "num_attention_heads": 16, "num_hidden_layers": 8, "num_key_value_heads": 16,
        "num_quantizers": 16, "num_semantic_quantizers": 1, "rms_norm_eps": 1e-05, "rope_theta": 10000,
        "semantic_codebook_size": 4096, "sliding_window": 72, "upsample_rates": [8, 5, 4, 3],
        "upsampling_ratios": [2, 2], "vector_quantization_hidden_dimension": 512,
    },
    "encoder_config": {
        "audio_channels": 1, "num_filters": 64, "kernel_size": 7, "residual_kernel_size": 3, "last_kernel_size": 3,
        "num_residual_layers": 1, "dilation_growth_rate": 2, "compress": 2, "upsampling_ratios": [8, 6, 5, 4],
        "hidden_size": 512, "num_hidden_layers": 8, "num_attention_heads": 8, "num_key_value_heads": 8,
        "head_dim": 64, "intermediate_size": 2048, "hidden_act": "gelu", "norm_eps": 1e-05,
        "layer_scale_initial_scale": 0.01, "rope_theta": 10000, "max_position_embeddings": 8000,
        "sliding_window": 250, "num_quantizers": 32, "num_semantic_quantizers": 1, "codebook_size": 2048,
        "codebook_dim": 256, "vector_quantization_hidden_dimension": 256, "upsample_groups": 512,
        "pad_mode": "constant", "use_causal_conv": True, "use_conv_shortcut": False, "trim_right_ratio": 1.0,
        "_frame_rate": 12.5,
    },
    "transformers_version": "4.57.3",
}


def random_tensor(key: str, shape: tuple[int, ...], device: str, dtype: torch.dtype, gen: torch.Generator) -> torch.Tensor:
    """Values that keep activations finite: unit norms, zero biases, small projections."""
    if key.endswith(("norm.weight", "cluster_usage")):
        return torch.ones(shape, device=device, dtype=dtype)
    if key.endswith((".bias", ".alpha", ".beta")):
        return torch.zeros(shape, device=device, dtype=dtype)
    if key.endswith("layer_scale.scale"):
        return torch.full(shape, 0.01, device=device, dtype=dtype)
    if key.endswith(".gamma"):
        return torch.full(shape, 0.1, device=device, dtype=dtype)
    if key.endswith("embedding_sum"):
        std = 1.0
    elif len(shape) == 3:  # convolutions: keep the signal's scale through the decoder
        std = 1.0 / math.sqrt(shape[1] * shape[2])
    else:
        std = 0.02
    return (torch.randn(shape, device=device, generator=gen) * std).to(dtype)


def write_weights(folder: Path, shapes: Shapes, shards: int, device: str, dtype: torch.dtype, seed: int) -> None:
    gen = torch.Generator(device=device).manual_seed(seed)
    keys = sorted(shapes)
    if shards == 1:
        groups = {"model.safetensors": keys}
    else:
        groups = {f"model-{i + 1:05d}-of-{shards:05d}.safetensors": keys[i::shards] for i in range(shards)}
    weight_map = {}
    for name, part in groups.items():
        tensors = {k: random_tensor(k, shapes[k], device, dtype, gen).cpu() for k in part}
        save_file(tensors, folder / name, metadata={"format": "pt"})
        weight_map |= {k: name for k in part}
        del tensors
    if shards > 1:
        index = {"metadata": {"total_size": sum(math.prod(s) for s in shapes.values()) * dtype.itemsize},
                 "weight_map": weight_map}
        (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2))


def write_random_checkpoint(
    out: Path, *, size: str = "1.7b", kind: str = "custom_voice", device: str = "cpu",
    dtype: torch.dtype = torch.bfloat16, seed: int = 0, shards: int = 1, tokenizer_from: Path = FIXTURE,
) -> Path:
    out = Path(out)
    (out / "speech_tokenizer").mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(model_config(size, kind), indent=2))
    (out / "generation_config.json").write_text(json.dumps(GENERATION_CONFIG, indent=2))
    (out / "speech_tokenizer" / "config.json").write_text(json.dumps(CODEC_CONFIG, indent=2))
    for name in ("vocab.json", "merges.txt", "tokenizer_config.json", "preprocessor_config.json", "configuration.json"):
        shutil.copyfile(tokenizer_from / name, out / name)
    for name in ("preprocessor_config.json", "configuration.json"):
        shutil.copyfile(tokenizer_from / "speech_tokenizer" / name, out / "speech_tokenizer" / name)
    config = read_config(out)
    write_weights(out, model_shapes(config), shards, device, dtype, seed)
    codec = codec_shapes(config.codec)
    if config.codec_encoder is not None:
        codec |= codec_encoder_shapes(config.codec_encoder)
    write_weights(out / "speech_tokenizer", codec, 1, device, dtype, seed + 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--size", choices=sorted(SIZES), default="1.7b")
    parser.add_argument("--type", dest="kind", choices=["custom_voice", "base"], default="custom_voice")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--dtype", choices=["bfloat16", "float32"], default="bfloat16")
    parser.add_argument("--shards", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tokenizer-from", type=Path, default=FIXTURE, help="folder with vocab.json, merges.txt, tokenizer_config.json")
    args = parser.parse_args()
    start = time.perf_counter()
    write_random_checkpoint(
        args.out, size=args.size, kind=args.kind, device=args.device, dtype=getattr(torch, args.dtype),
        seed=args.seed, shards=args.shards, tokenizer_from=args.tokenizer_from,
    )
    size = sum(f.stat().st_size for f in args.out.rglob("*.safetensors"))
    print(f"wrote {args.out} ({size / 1e9:.2f} GB, {args.size} {args.kind}, {args.dtype}) in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
