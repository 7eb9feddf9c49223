"""Text tokenization for the talker: Qwen2 byte-level BPE built from the checkpoint's files.

Published Qwen3-TTS folders ship `vocab.json`, `merges.txt` and `tokenizer_config.json` (no
`tokenizer.json`); this module builds the same fast tokenizer the official wrapper ends up with,
using only the `tokenizers` library.

Pre-tokenizer: the official wrapper loads the processor with `fix_mistral_regex=True`, and for a
local checkpoint folder transformers 4.57.3 then replaces the Qwen2 split regex with a
Mistral-style one (case changes split words: "OpenAI" -> "Open" "AI"). The released goldens and
every local deployment of the official code use that regex, so it is the default here
(`split="official"`); `split="qwen2"` gives the original Qwen2 behaviour.

Streaming: BPE merges never cross pre-tokenizer chunks, so the ids of every chunk except the last
one are final once more text follows; `engine.runtime.text_feed.TextFeed` commits text at those
boundaries with this tokenizer's `split_pattern`, which gives the same ids as tokenizing the final
string at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers

from engine.model.config import ModelConfig, read_json
from engine.model.errors import CheckpointError

OFFICIAL_SPLIT = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
    r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
QWEN2_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
TOKENIZER_FILES = ("vocab.json", "merges.txt", "tokenizer_config.json")

Split = Literal["official", "qwen2"]


def _read_merges(file: Path) -> list[tuple[str, str]]:
    if not file.is_file():
        raise CheckpointError(f"{file}: file is missing")
    merges = []
    for number, line in enumerate(file.read_text(encoding="utf-8").split("\n"), start=1):
        if not line or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise CheckpointError(f"{file}: line {number} is not a merge of two symbols: {line!r}")
        merges.append((parts[0], parts[1]))
    return merges


class TextTokenizer:
    def __init__(self, folder: Path, config: ModelConfig, split: Split = "official") -> None:
        folder = Path(folder)
        vocab = read_json(folder / "vocab.json")
        if not isinstance(vocab, dict) or not vocab:
            raise CheckpointError(f"{folder / 'vocab.json'}: expected a non-empty token -> id object")
        merges = _read_merges(folder / "merges.txt")
        tok_config = read_json(folder / "tokenizer_config.json")
        added = tok_config.get("added_tokens_decoder") if isinstance(tok_config, dict) else None
        if not isinstance(added, dict):
            raise CheckpointError(f"{folder / 'tokenizer_config.json'}: field 'added_tokens_decoder' is missing")

        tok = Tokenizer(
            models.BPE(
                vocab=vocab, merges=merges, dropout=None, unk_token=None, continuing_subword_prefix="",
                end_of_word_suffix="", fuse_unk=False, byte_fallback=False,
            )
        )
        tok.normalizer = normalizers.NFC()
        pattern = OFFICIAL_SPLIT if split == "official" else QWEN2_SPLIT
        self.split_pattern = pattern
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
        tok.decoder = decoders.ByteLevel()
        # Added tokens take the next free ids in order; adding them sorted reproduces the ids the
        # config declares only if the vocabulary is dense, which is checked token by token.
        for token_id, spec in sorted(added.items(), key=lambda kv: int(kv[0])):
            token = AddedToken(
                spec["content"], single_word=spec.get("single_word", False), lstrip=spec.get("lstrip", False),
                rstrip=spec.get("rstrip", False), normalized=spec.get("normalized", False),
                special=spec.get("special", False),
            )
            if token.special:
                tok.add_special_tokens([token])
            else:
                tok.add_tokens([token])
            if tok.token_to_id(spec["content"]) != int(token_id):
                raise CheckpointError(
                    f"{folder / 'tokenizer_config.json'}: added token {spec['content']!r} should have id {token_id} "
                    f"but got {tok.token_to_id(spec['content'])} (vocab.json is not dense)"
                )
        self._tok = tok
        self._split = pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False)
        self.config = config
        self.vocab_size = tok.get_vocab_size(with_added_tokens=True)
        for name in ("im_start_id", "im_end_id", "assistant_id", "tts_pad_id", "tts_bos_id", "tts_eos_id"):
            if getattr(config, name) >= self.vocab_size:
                raise CheckpointError(f"{folder}: config.json {name} is outside the tokenizer vocabulary")
        # `<|im_start|>assistant\n`: the three text-only role rows of every prompt.
        self.role_ids = self.encode("<|im_start|>assistant\n")
        if self.role_ids[:2] != [config.im_start_id, config.assistant_id] or len(self.role_ids) != 3:
            raise CheckpointError(
                f"{folder}: '<|im_start|>assistant\\n' tokenizes to {self.role_ids}, expected "
                f"[{config.im_start_id}, {config.assistant_id}, <newline>]"
            )

    def encode(self, text: str) -> list[int]:
        return self._tok.encode(text, add_special_tokens=False).ids

    def decode(self, ids: list[int]) -> str:
        return self._tok.decode(ids, skip_special_tokens=False)

    def assistant_ids(self, text: str) -> list[int]:
        """The official talker input: `<|im_start|>assistant\\n{text}<|im_end|>\\n<|im_start|>assistant\\n`.
        The role rows are ids[:3], the text tokens ids[3:-5]."""
        return self.encode(f"<|im_start|>assistant\n{text}<|im_end|>\n<|im_start|>assistant\n")

    def text_ids(self, text: str) -> list[int]:
        """Text tokens exactly as the official slicing `assistant_ids(text)[3:-5]` yields them."""
        ids = self.assistant_ids(text)
        if ids[:3] != self.role_ids:
            # e.g. a leading line break merges with the role's "\n" and the official slicing breaks
            raise ValueError(f"text {text[:40]!r} merges with the assistant role prefix; strip leading line breaks")
        return ids[3:-5]

    def reference_ids(self, transcript: str) -> list[int]:
        """A cloned voice's transcript tokens: `<|im_start|>assistant\n{transcript}<|im_end|>\n`
        tokenized, ids[3:-2] (the official slicing)."""
        ids = self.encode(f"<|im_start|>assistant\n{transcript}<|im_end|>\n")
        if ids[:3] != self.role_ids:
            raise ValueError(f"transcript {transcript[:40]!r} merges with the assistant role prefix; strip leading line breaks")
        return ids[3:-2]

    def instruct_ids(self, instruct: str) -> list[int]:
        """The instruct rows: `<|im_start|>user\\n{instruct}<|im_end|>\\n`, used whole."""
        return self.encode(f"<|im_start|>user\n{instruct}<|im_end|>\n")
