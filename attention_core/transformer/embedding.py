"""The first layer's input: token embeddings, learned positions and token types, normed where the model
norms them (BERT); a Llama-style decoder reads the token rows as they are."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import readonly, shape_str
from ..weights import EmbeddingWeights, ModelConfig
from .layer import _norm

Floats = NDArray[np.floating]


@dataclass(frozen=True, eq=False)
class EmbeddingTrace:
    """The input of the first layer, step by step (n tokens, read-only).

    Fields:
        token: (n, d_model) the token embedding rows E[token_ids].
        position: (n, d_model) the learned position rows 0 .. n-1, or None (RoPE models).
        token_type: (n, d_model) the segment rows (all row 0), or None.
        sum: (n, d_model) token + position + token_type.
        output: (n, d_model) what layer 0 reads: LN(sum) with gain and bias (BERT), or sum itself.
    """

    token: Floats
    position: Floats | None
    token_type: Floats | None
    sum: Floats
    output: Floats


def embed_tokens(token_ids: ArrayLike, weights: EmbeddingWeights, config: ModelConfig) -> EmbeddingTrace:
    """x0 = norm(E[ids] + P[0 .. n-1] + T[0]) for BERT, x0 = E[ids] for Llama: the first layer's input.

    Args:
        token_ids: (n,) ints in 0 .. vocab_size - 1, n <= max_positions.
        weights: EmbeddingWeights.
        config: ModelConfig.

    Returns:
        EmbeddingTrace.
    """
    ids = np.asarray(token_ids)
    if ids.ndim != 1 or ids.size == 0 or ids.dtype.kind not in "iu":
        raise ValueError(f"token_ids must be a non-empty list of token ids, got shape {shape_str(ids.shape)}")
    if ids.min() < 0 or ids.max() >= config.vocab_size or ids.size > config.max_positions:
        raise ValueError(
            f"token_ids must lie in 0 .. {config.vocab_size - 1}, at most {config.max_positions} of them"
        )
    n = ids.size
    token = weights.token[ids]  # (n, d_model)
    position = None if weights.position is None else weights.position[:n]  # (n, d_model)
    token_type = None if weights.token_type is None else np.broadcast_to(weights.token_type[0], token.shape)
    total = token.copy()
    for extra in (position, token_type):
        if extra is not None:
            total += extra
    out = total if weights.norm_gain is None else _norm(config, total, weights.norm_gain, weights.norm_bias)
    arrays = (token, position, token_type, total, out)
    return EmbeddingTrace(*(None if a is None else readonly(a) for a in arrays))
