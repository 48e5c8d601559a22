"""The real models for the tests: loaded once; skipped where a model's package is not installed, except in
CI (CI set), where a missing model is a failure (scripts/test.sh installs requirements-models.txt). And a
hand-built model with a known circuit, small enough to check every number of a measurement by reasoning."""

from __future__ import annotations

import os

import numpy as np
import pytest

from attention_core import pretrained


def need(name: str) -> pretrained.Model:
    """pretrained.load(name), or skip (locally) / fail (in CI) when it is not installed."""
    try:
        return pretrained.load(name)
    except pretrained.ModelNotInstalledError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have the real models installed: {exc}")
        pytest.skip(str(exc))


# The circuit model's words: token ids 0 .. 3; its residual stream has a dimension per word and per position.
CIRCUIT_WORDS = ("x", "a", "b", "y")


def circuit_model(name: str, mover: bool = True) -> pretrained.Model:
    """A hand-built 3-layer decoder with one known circuit, in float64, that reads words split on spaces.

    The residual stream (d_model 8) holds the token as one-hot in dimensions 0-3 and the position as one-hot
    in 4-7. Layers 0 and 2 add nothing (W_O and W2 are zero), and so does layer 1's head 0 (W_V zero). Layer
    1's head 1, the mover (when ``mover``), attends from every position to position 1 (its queries and keys
    read only the position dimensions) and copies that position's token into the token dimensions. The next
    token is then read off the token dimensions (tied embeddings): after "x a y" the model prefers "a" to
    "b", after "x b y" the reverse. Give each variant its own ``name``: results are cached per model name.
    """
    from attention_core.pretrained import Model
    from attention_core.pretrained._model import Tokenizer
    from attention_core.transformer import EmbeddingWeights, LayerWeights, ModelConfig, ModelWeights

    d, n_words = 8, len(CIRCUIT_WORDS)
    config = ModelConfig(
        name=name, n_layers=3, n_heads=2, n_kv_heads=2, d_model=d, d_k=4, d_ff=4, vocab_size=n_words,
        max_positions=4, norm="rms_norm", norm_first=True, eps=1e-6, activation="relu", positions="learned",
        rope_base=None, causal=True, tied_embeddings=True, has_logits=True, dtype="float64",
    )  # fmt: skip
    rng = np.random.default_rng(0)
    token, position = np.eye(d)[:n_words], np.eye(d)[n_words:]  # (4, 8) each
    zero = np.zeros

    def layer(moves: bool) -> LayerWeights:
        w_q, w_k, w_v = rng.standard_normal((3, d, 8))  # (d_model, 2 heads * d_k) each: heads 0 and 1
        w_o = zero((8, d))
        w_v[:, :4] = 0.0  # head 0 reads nothing
        if moves:
            w_q[:, 4:], w_k[:, 4:] = 0.0, 0.0
            w_q[4:, 4] = 3.0  # every position asks ...
            w_k[5, 4] = 3.0  # ... for position 1
            w_v[:, 4:] = 0.0
            w_v[:4, 4:] = np.eye(4)  # the token's identity
            w_o[4:, :4] = np.eye(4)  # written back into the token dimensions
        return LayerWeights(
            w_qkv=np.concatenate([w_q, w_k, w_v], axis=1), b_qkv=None, w_o=w_o, b_o=None,
            w1=rng.standard_normal((d, 4)), b1=None, w_up=None, w2=zero((4, d)), b2=None,
            attn_norm_gain=np.ones(d), attn_norm_bias=None, norm1_gain=np.ones(d), norm1_bias=None,
            norm2_gain=None, norm2_bias=None, n_heads=2, n_kv_heads=2, d_k=4,
        )  # fmt: skip

    layers = (layer(False), layer(mover), layer(False))
    weights = ModelWeights(EmbeddingWeights(token, position), layers, final_norm_gain=np.ones(d))
    index = {w: i for i, w in enumerate(CIRCUIT_WORDS)}

    def encode(text: str) -> list[int]:
        return [index[w] for w in text.split()]

    def display(ids: list[int]) -> list[str]:
        return [CIRCUIT_WORDS[i] for i in ids]

    return Model(config, weights, Tokenizer(encode, display, keep_last=0), {"origin": "built by hand"})
