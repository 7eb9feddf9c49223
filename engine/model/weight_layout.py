"""Which tensors a checkpoint must hold, and their shapes, derived from its config.

One table serves the loader (missing / unexpected / mis-shaped tensors are reported against it)
and `bench/make_random_checkpoint.py` (which writes exactly these tensors).
"""

from __future__ import annotations

from engine.model.config import CodecConfig, ModelConfig, TransformerConfig

Shapes = dict[str, tuple[int, ...]]

# Tensors a file may hold that inference never reads, skipped instead of reported as unexpected:
# the speaker encoder (built by the official classes only for voice-cloning checkpoints), rotary
# frequency buffers some exports persist, and in the speech tokenizer the Mimi encoder and the
# quantizers' encode-side projections.
UNUSED_SUFFIXES = ("rotary_emb.inv_freq",)
MODEL_UNUSED_PREFIXES = ("speaker_encoder.",)
CODEC_UNUSED_PREFIXES = ("encoder.",)


def _qwen3_layer(prefix: str, c: TransformerConfig, *, qk_norm: bool) -> Shapes:
    q_out, kv_out = c.num_heads * c.head_dim, c.num_kv_heads * c.head_dim
    shapes: Shapes = {
        f"{prefix}input_layernorm.weight": (c.hidden_size,),
        f"{prefix}post_attention_layernorm.weight": (c.hidden_size,),
        f"{prefix}self_attn.q_proj.weight": (q_out, c.hidden_size),
        f"{prefix}self_attn.k_proj.weight": (kv_out, c.hidden_size),
        f"{prefix}self_attn.v_proj.weight": (kv_out, c.hidden_size),
        f"{prefix}self_attn.o_proj.weight": (c.hidden_size, q_out),
        f"{prefix}mlp.gate_proj.weight": (c.intermediate_size, c.hidden_size),
        f"{prefix}mlp.up_proj.weight": (c.intermediate_size, c.hidden_size),
        f"{prefix}mlp.down_proj.weight": (c.hidden_size, c.intermediate_size),
    }
    if qk_norm:
        shapes[f"{prefix}self_attn.q_norm.weight"] = (c.head_dim,)
        shapes[f"{prefix}self_attn.k_norm.weight"] = (c.head_dim,)
    if c.attention_bias:
        shapes[f"{prefix}self_attn.q_proj.bias"] = (q_out,)
        shapes[f"{prefix}self_attn.k_proj.bias"] = (kv_out,)
        shapes[f"{prefix}self_attn.v_proj.bias"] = (kv_out,)
        shapes[f"{prefix}self_attn.o_proj.bias"] = (c.hidden_size,)
    return shapes


def model_shapes(cfg: ModelConfig) -> Shapes:
    """Tensors of `model.safetensors` (talker, text projection, code predictor)."""
    t, cp = cfg.talker, cfg.code_predictor
    h, cph = t.layers.hidden_size, cp.layers.hidden_size
    shapes: Shapes = {
        "talker.model.text_embedding.weight": (t.text_vocab_size, t.text_hidden_size),
        "talker.model.codec_embedding.weight": (t.vocab_size, h),
        "talker.text_projection.linear_fc1.weight": (t.text_hidden_size, t.text_hidden_size),
        "talker.text_projection.linear_fc1.bias": (t.text_hidden_size,),
        "talker.text_projection.linear_fc2.weight": (h, t.text_hidden_size),
        "talker.text_projection.linear_fc2.bias": (h,),
        "talker.model.norm.weight": (h,),
        "talker.codec_head.weight": (t.vocab_size, h),
        "talker.code_predictor.model.norm.weight": (cph,),
    }
    for i in range(t.layers.num_layers):
        shapes |= _qwen3_layer(f"talker.model.layers.{i}.", t.layers, qk_norm=True)
    for i in range(cp.layers.num_layers):
        shapes |= _qwen3_layer(f"talker.code_predictor.model.layers.{i}.", cp.layers, qk_norm=True)
    for j in range(cp.num_code_groups - 1):
        shapes[f"talker.code_predictor.model.codec_embedding.{j}.weight"] = (cp.vocab_size, h)
        shapes[f"talker.code_predictor.lm_head.{j}.weight"] = (cp.vocab_size, cph)
    if cph != h:
        shapes["talker.code_predictor.small_to_mtp_projection.weight"] = (cph, h)
        shapes["talker.code_predictor.small_to_mtp_projection.bias"] = (cph,)
    return shapes


def codec_decoder_channels(c: CodecConfig) -> list[tuple[int, int, int]]:
    """(in channels, out channels, upsample rate) of each decoder block."""
    return [
        (c.decoder_dim // 2**i, c.decoder_dim // 2 ** (i + 1), rate) for i, rate in enumerate(c.upsample_rates)
    ]


def codec_shapes(c: CodecConfig) -> Shapes:
    """Decoder tensors of `speech_tokenizer/model.safetensors`."""
    vq_dim = c.codebook_dim // 2
    shapes: Shapes = {}
    for group, count in (("rvq_first", c.num_semantic_quantizers), ("rvq_rest", c.num_quantizers - c.num_semantic_quantizers)):
        for k in range(count):
            book = f"decoder.quantizer.{group}.vq.layers.{k}._codebook."
            shapes[book + "embedding_sum"] = (c.codebook_size, vq_dim)
            shapes[book + "cluster_usage"] = (c.codebook_size,)
        shapes[f"decoder.quantizer.{group}.output_proj.weight"] = (c.codebook_dim, vq_dim, 1)
    tr = c.transformer
    shapes |= {
        "decoder.pre_conv.conv.weight": (c.latent_dim, c.codebook_dim, 3),
        "decoder.pre_conv.conv.bias": (c.latent_dim,),
        "decoder.pre_transformer.input_proj.weight": (tr.hidden_size, c.latent_dim),
        "decoder.pre_transformer.input_proj.bias": (tr.hidden_size,),
        "decoder.pre_transformer.output_proj.weight": (c.latent_dim, tr.hidden_size),
        "decoder.pre_transformer.output_proj.bias": (c.latent_dim,),
        "decoder.pre_transformer.norm.weight": (tr.hidden_size,),
    }
    for i in range(tr.num_layers):
        prefix = f"decoder.pre_transformer.layers.{i}."
        shapes |= _qwen3_layer(prefix, tr, qk_norm=False)
        shapes[prefix + "self_attn_layer_scale.scale"] = (tr.hidden_size,)
        shapes[prefix + "mlp_layer_scale.scale"] = (tr.hidden_size,)
    lat = c.latent_dim
    for i, factor in enumerate(c.upsampling_ratios):
        up = f"decoder.upsample.{i}."
        shapes |= {
            up + "0.conv.weight": (lat, lat, factor),
            up + "0.conv.bias": (lat,),
            up + "1.dwconv.conv.weight": (lat, 1, 7),
            up + "1.dwconv.conv.bias": (lat,),
            up + "1.norm.weight": (lat,),
            up + "1.norm.bias": (lat,),
            up + "1.pwconv1.weight": (4 * lat, lat),
            up + "1.pwconv1.bias": (4 * lat,),
            up + "1.pwconv2.weight": (lat, 4 * lat),
            up + "1.pwconv2.bias": (lat,),
            up + "1.gamma": (lat,),
        }
    shapes["decoder.decoder.0.conv.weight"] = (c.decoder_dim, lat, 7)
    shapes["decoder.decoder.0.conv.bias"] = (c.decoder_dim,)
    blocks = codec_decoder_channels(c)
    for b, (cin, cout, rate) in enumerate(blocks, start=1):
        block = f"decoder.decoder.{b}.block."
        shapes |= {
            block + "0.alpha": (cin,),
            block + "0.beta": (cin,),
            block + "1.conv.weight": (cin, cout, 2 * rate),
            block + "1.conv.bias": (cout,),
        }
        for u in (2, 3, 4):
            unit = f"{block}{u}."
            shapes |= {
                unit + "act1.alpha": (cout,),
                unit + "act1.beta": (cout,),
                unit + "act2.alpha": (cout,),
                unit + "act2.beta": (cout,),
                unit + "conv1.conv.weight": (cout, cout, 7),
                unit + "conv1.conv.bias": (cout,),
                unit + "conv2.conv.weight": (cout, cout, 1),
                unit + "conv2.conv.bias": (cout,),
            }
    last = len(blocks) + 1
    out_dim = blocks[-1][1]
    shapes[f"decoder.decoder.{last}.alpha"] = (out_dim,)
    shapes[f"decoder.decoder.{last}.beta"] = (out_dim,)
    shapes[f"decoder.decoder.{last + 1}.conv.weight"] = (1, out_dim, 7)
    shapes[f"decoder.decoder.{last + 1}.conv.bias"] = (1,)
    return shapes


def is_unused_model_tensor(key: str) -> bool:
    return key.startswith(MODEL_UNUSED_PREFIXES) or key.endswith(UNUSED_SUFFIXES)


def is_unused_codec_tensor(key: str) -> bool:
    encode_side = key.startswith("decoder.quantizer.") and key.endswith(".input_proj.weight")
    return key.startswith(CODEC_UNUSED_PREFIXES) or key.endswith(UNUSED_SUFFIXES) or encode_side
