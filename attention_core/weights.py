"""The shape of a transformer and its weights: ``ModelConfig`` (nanoGPT's GPTConfig) and the read-only
``LayerWeights``, ``EmbeddingWeights`` and ``ModelWeights`` that ``transformer`` runs and ``pretrained`` fills.

Declared apart from the functions that run them: a loader needs the shapes, not the maths.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
from numpy.typing import NDArray

__all__ = ["EmbeddingWeights", "LayerWeights", "ModelConfig", "ModelWeights"]

Floats = NDArray[np.floating]


def _is_array(value: object) -> bool:
    return isinstance(value, np.ndarray)


@dataclass(frozen=True)
class ModelConfig:
    """The shape and the kind of a transformer (nanoGPT's GPTConfig): everything the maths needs.

    Fields:
        name: the model's name, e.g. "all-MiniLM-L6-v2".
        n_layers: number of layers (6 for MiniLM, 30 for SmolLM2).
        n_heads: query heads per layer.
        n_kv_heads: key/value heads per layer (n_heads, or fewer for grouped-query attention).
        d_model: width of the residual stream.
        d_k: width of one head (queries, keys and values alike).
        d_ff: width of the feed-forward network's hidden layer (0: none, an attention-only model: W1 (d_model,
            0) and W2 (0, d_model) add nothing).
        vocab_size: number of tokens in the vocabulary.
        max_positions: the longest input the model was trained on (learned positions: rows of the table).
        norm: "layer_norm" (BERT), "rms_norm" (Llama) or "none" (an attention-only model without norms).
        norm_first: False for post-norm (BERT: LN after each residual sum), True for pre-norm (Llama).
        eps: the norm's epsilon.
        activation: "gelu" (exact erf GELU, BERT), "swiglu" (Llama) or "relu".
        positions: "learned" (a table added to the embeddings) or "rope" (q and k rotated in each layer).
        rope_base: the RoPE base (Llama: 10000, SmolLM2: 100000), None without RoPE.
        causal: True for a decoder (each token sees itself and the tokens before it).
        tied_embeddings: the output layer reuses the token embedding table (logits = h E^T).
        has_logits: the model predicts the next token (a decoder); an encoder gives hidden states only.
        dtype: "float32" for the real models, as shipped.
        weights: how the shipped weights are stored, in words (e.g. "float32", "4-bit Q4_1, embedding 8-bit
            Q8_0, dequantized to float32").
    """

    name: str
    n_layers: int
    n_heads: int
    n_kv_heads: int
    d_model: int
    d_k: int
    d_ff: int
    vocab_size: int
    max_positions: int
    norm: str
    norm_first: bool
    eps: float
    activation: str
    positions: str
    rope_base: float | None
    causal: bool
    tied_embeddings: bool
    has_logits: bool
    dtype: str = "float32"
    weights: str = "float32"

    @property
    def kv_head(self) -> tuple[int, ...]:
        """Which key/value head each query head reads: (n_heads,) ints, e.g. (0, 0, 0, 1, 1, 1, 2, 2, 2)."""
        group = self.n_heads // self.n_kv_heads
        return tuple(i // group for i in range(self.n_heads))


@dataclass(frozen=True, eq=False)
class LayerWeights:
    """The weights of one layer, read-only, laid out for x @ W (rows are inputs). h = n_heads,
    g = n_kv_heads, d = d_k. Biases and norm gains are None where the model has none.

    Fields:
        w_qkv: (d_model, (h + 2 g) d) W_Q, W_K, W_V side by side (one matmul gives every head's q, k, v);
            read them per head as ``w_q`` (h, d_model, d), ``w_k`` (g, d_model, d), ``w_v`` (g, d_model, d).
        b_qkv: ((h + 2 g) d,) their biases (``b_q`` (h, d), ``b_k`` (g, d), ``b_v`` (g, d)), or None.
        w_o: (h d, d_model) the output projection W_O; b_o: (d_model,) or None.
        w1: (d_model, d_ff) the first FFN matrix (SwiGLU: the gate); b1: (d_ff,) or None.
        w_up: (d_model, d_ff) SwiGLU's up projection, or None.
        w2: (d_ff, d_model) the second FFN matrix (down); b2: (d_model,) or None.
        attn_norm_gain, attn_norm_bias: (d_model,) the norm before attention (pre-norm only), or None.
        norm1_gain, norm1_bias: (d_model,) the norm of the first residual sum (both orders).
        norm2_gain, norm2_bias: (d_model,) the norm of the second residual sum (post-norm only), or None.
        n_heads, n_kv_heads, d_k: ints.
    """

    w_qkv: Floats
    b_qkv: Floats | None
    w_o: Floats
    b_o: Floats | None
    w1: Floats
    b1: Floats | None
    w_up: Floats | None
    w2: Floats
    b2: Floats | None
    attn_norm_gain: Floats | None
    attn_norm_bias: Floats | None
    norm1_gain: Floats | None
    norm1_bias: Floats | None
    norm2_gain: Floats | None
    norm2_bias: Floats | None
    n_heads: int
    n_kv_heads: int
    d_k: int

    def _block(self, arr: Floats, i: int) -> Floats:
        """Block i (0: q, 1: k, 2: v) of the last axis of w_qkv or b_qkv, one slice per head: (..., heads, d)."""
        h, g, d = self.n_heads, self.n_kv_heads, self.d_k
        start = (0, h * d, (h + g) * d)[i]
        heads = h if i == 0 else g
        return arr[..., start : start + heads * d].reshape(*arr.shape[:-1], heads, d)

    @property
    def w_q(self) -> Floats:
        """(h, d_model, d_k) W_Q per head, a read-only view."""
        return self._block(self.w_qkv, 0).transpose(1, 0, 2)

    @property
    def w_k(self) -> Floats:
        """(n_kv_heads, d_model, d_k) W_K per key/value head, a read-only view."""
        return self._block(self.w_qkv, 1).transpose(1, 0, 2)

    @property
    def w_v(self) -> Floats:
        """(n_kv_heads, d_model, d_k) W_V per key/value head, a read-only view."""
        return self._block(self.w_qkv, 2).transpose(1, 0, 2)

    @property
    def b_q(self) -> Floats | None:
        """(h, d_k) or None."""
        return None if self.b_qkv is None else self._block(self.b_qkv, 0)

    @property
    def b_k(self) -> Floats | None:
        """(n_kv_heads, d_k) or None."""
        return None if self.b_qkv is None else self._block(self.b_qkv, 1)

    @property
    def b_v(self) -> Floats | None:
        """(n_kv_heads, d_k) or None."""
        return None if self.b_qkv is None else self._block(self.b_qkv, 2)

    @property
    def nbytes(self) -> int:
        """Bytes of the weights."""
        return sum(getattr(self, f.name).nbytes for f in fields(self) if _is_array(getattr(self, f.name)))


@dataclass(frozen=True, eq=False)
class EmbeddingWeights:
    """The input embeddings, read-only.

    Fields:
        token: (vocab_size, d_model) one row per token id (also the output layer when embeddings are tied).
        position: (max_positions, d_model) learned positions, or None (RoPE).
        token_type: (n_types, d_model) BERT's segment embeddings (row 0 for a single sentence), or None.
        norm_gain, norm_bias: (d_model,) the layer norm of the summed embeddings (BERT), or None.
    """

    token: Floats
    position: Floats | None = None
    token_type: Floats | None = None
    norm_gain: Floats | None = None
    norm_bias: Floats | None = None


@dataclass(frozen=True, eq=False)
class ModelWeights:
    """Every weight of a model, read-only.

    Fields:
        embeddings: EmbeddingWeights.
        layers: one LayerWeights per layer.
        final_norm_gain: (d_model,) the norm after the last layer (Llama), or None.
        lm_head: (d_model, vocab_size) the output layer, or None (tied: the token table transposed, or no
            logits at all for an encoder).
    """

    embeddings: EmbeddingWeights
    layers: tuple[LayerWeights, ...]
    final_norm_gain: Floats | None = None
    lm_head: Floats | None = None

    @property
    def nbytes(self) -> int:
        """Bytes of every weight (an array shared by two fields counted once)."""
        arrays = [getattr(self.embeddings, f.name) for f in fields(self.embeddings)]
        arrays += [self.final_norm_gain, self.lm_head]
        return sum(a.nbytes for a in arrays if _is_array(a)) + sum(w.nbytes for w in self.layers)
