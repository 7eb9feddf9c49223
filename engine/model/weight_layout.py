"""Which tensors a checkpoint must hold, and their shapes, derived from its config.

One table serves the loader (missing / unexpected / mis-shaped tensors are reported against it)
and `bench/make_random_checkpoint.py` (which writes exactly these tensors).
"""

from __future__ import annotations

from engine.model.config import CodecConfig, CodecEncoderConfig, ModelConfig, SpeakerEncoderConfig, TransformerConfig

Shapes = dict[str, tuple[int, ...]]

# Tensors a file may hold that inference never reads, skipped instead of reported as unexpected:
# rotary frequency buffers some exports persist, the quantizers' encode-side projections, Mimi's
# `initialized` flags, and - in checkpoints that do not clone voices - the speaker encoder and the
# Mimi encoder.
UNUSED_SUFFIXES = ("rotary_emb.inv_freq", "codebook.initialized")
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
    if cfg.speaker_encoder is not None:
        shapes |= speaker_encoder_shapes(cfg.speaker_encoder)
    return shapes


def _conv(prefix: str, c_out: int, c_in: int, kernel: int, bias: bool = True) -> Shapes:
    shapes: Shapes = {prefix + "weight": (c_out, c_in, kernel)}
    if bias:
        shapes[prefix + "bias"] = (c_out,)
    return shapes


def speaker_encoder_shapes(c: SpeakerEncoderConfig) -> Shapes:
    """`speaker_encoder.*` of a base checkpoint's `model.safetensors` (ECAPA-TDNN)."""
    p = "speaker_encoder."
    ch = c.channels
    shapes = _conv(f"{p}blocks.0.conv.", ch[0], c.mel_dim, c.kernel_sizes[0])
    for i in range(1, len(ch) - 1):
        b = f"{p}blocks.{i}."
        part = ch[i] // c.res2net_scale
        shapes |= _conv(b + "tdnn1.conv.", ch[i], ch[i - 1], 1)
        for j in range(c.res2net_scale - 1):
            shapes |= _conv(f"{b}res2net_block.blocks.{j}.conv.", part, part, c.kernel_sizes[i])
        shapes |= _conv(b + "tdnn2.conv.", ch[i], ch[i], 1)
        shapes |= _conv(b + "se_block.conv1.", c.se_channels, ch[i], 1)
        shapes |= _conv(b + "se_block.conv2.", ch[i], c.se_channels, 1)
    shapes |= _conv(f"{p}mfa.conv.", ch[-1], ch[-1], c.kernel_sizes[-1])
    shapes |= _conv(f"{p}asp.tdnn.conv.", c.attention_channels, ch[-1] * 3, 1)
    shapes |= _conv(f"{p}asp.conv.", ch[-1], c.attention_channels, 1)
    shapes |= _conv(f"{p}fc.", c.enc_dim, ch[-1] * 2, 1)
    return shapes


def codec_encoder_layers(c: CodecEncoderConfig) -> list[tuple[str, int, int, int, int, int]]:
    """The SEANet encoder's convolutions in order: (name, in, out, kernel, stride, dilation);
    `block` names are residual-unit convolutions, applied inside their unit."""
    layers = [("encoder.encoder.layers.0.", 1, c.num_filters, c.kernel_size, 1, 1)]
    index, channels = 1, c.num_filters
    for ratio in c.ratios:
        for j in range(c.num_residual_layers):
            hidden = channels // c.compress
            unit = f"encoder.encoder.layers.{index}.block."
            layers.append((unit + "1.", channels, hidden, c.residual_kernel_size, 1, c.dilation_growth_rate**j))
            layers.append((unit + "3.", hidden, channels, 1, 1, 1))
            index += 1
        index += 1  # ELU
        layers.append((f"encoder.encoder.layers.{index}.", channels, channels * 2, ratio * 2, ratio, 1))
        index += 1
        channels *= 2
    index += 1  # ELU
    layers.append((f"encoder.encoder.layers.{index}.", channels, c.transformer.hidden_size, c.last_kernel_size, 1, 1))
    return layers


def codec_encoder_shapes(c: CodecEncoderConfig) -> Shapes:
    """`encoder.*` of `speech_tokenizer/model.safetensors`: the Mimi encoder (base checkpoints)."""
    shapes: Shapes = {}
    for name, c_in, c_out, kernel, _, _ in codec_encoder_layers(c):
        shapes |= _conv(name + "conv.", c_out, c_in, kernel)
    tr, h = c.transformer, c.transformer.hidden_size
    for i in range(tr.num_layers):
        p = f"encoder.encoder_transformer.layers.{i}."
        for norm in ("input_layernorm.", "post_attention_layernorm."):
            shapes[p + norm + "weight"] = (h,)
            shapes[p + norm + "bias"] = (h,)
        q_out, kv_out = tr.num_heads * tr.head_dim, tr.num_kv_heads * tr.head_dim
        for proj, shape in (("q", (q_out, h)), ("k", (kv_out, h)), ("v", (kv_out, h)), ("o", (h, q_out))):
            shapes[f"{p}self_attn.{proj}_proj.weight"] = shape
            if tr.attention_bias:
                shapes[f"{p}self_attn.{proj}_proj.bias"] = (shape[0],)
        shapes[p + "mlp.fc1.weight"] = (tr.intermediate_size, h)
        shapes[p + "mlp.fc2.weight"] = (h, tr.intermediate_size)
        shapes[p + "self_attn_layer_scale.scale"] = (h,)
        shapes[p + "mlp_layer_scale.scale"] = (h,)
    shapes["encoder.downsample.conv.weight"] = (h, h, 2 * c.frame_stride)
    q = "encoder.quantizer."
    for group, count in (
        ("semantic_residual_vector_quantizer", c.num_semantic_quantizers),
        ("acoustic_residual_vector_quantizer", c.num_quantizers - c.num_semantic_quantizers),
    ):
        shapes[f"{q}{group}.input_proj.weight"] = (c.quantizer_dim, h, 1)
        shapes[f"{q}{group}.output_proj.weight"] = (h, c.quantizer_dim, 1)
        for k in range(count):
            shapes[f"{q}{group}.layers.{k}.codebook.embed_sum"] = (c.codebook_size, c.codebook_dim)
            shapes[f"{q}{group}.layers.{k}.codebook.cluster_usage"] = (c.codebook_size,)
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


def is_unused_model_tensor(key: str, cloning: bool = False) -> bool:
    return (not cloning and key.startswith(MODEL_UNUSED_PREFIXES)) or key.endswith(UNUSED_SUFFIXES)


def is_unused_codec_tensor(key: str, cloning: bool = False) -> bool:
    encode_side = key.startswith("decoder.quantizer.") and key.endswith(".input_proj.weight")
    return (not cloning and key.startswith(CODEC_UNUSED_PREFIXES)) or key.endswith(UNUSED_SUFFIXES) or encode_side
