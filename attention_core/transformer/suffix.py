"""The rest of a causal run after one position of its residual stream changed: only the rows that change.

In a causal model a token's state depends on itself and the tokens before it, so replacing the residual
stream entering layer s at position p leaves every position before p as the run had it, at every layer. The
variant then needs only rows p .. n-1 of each layer from s on; the keys and values of the positions before p
are the run's own (a key/value cache read from the run's hidden states). Many variants, each with its own
position, run as one stack of rows: the position-wise products (norms, q k v, W_O, the feed-forward network)
over every variant's changed rows at once, attention per variant over its n keys. Activation patching's
residual sweep is this, with one variant per position.

The arithmetic is transformer_layer's on the same rows (the same _norm, _linear, _rotate, _attend, _ffn); a
variant's outputs equal a full run of its n rows up to the rounding of differently grouped matrix products.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..encoder import _ffn, _linear
from ..kernel import _attend
from ..masks import causal_mask
from ..positional import _rotate
from ..weights import LayerWeights, ModelConfig, ModelWeights
from .layer import _norm, _split_heads

Floats = NDArray[np.floating]


def resume_at_positions(
    hidden_states: Floats, weights: ModelWeights, config: ModelConfig, start: int, rows: Floats
) -> Floats:
    """The last position's output of the last layer for n variants of a causal run, variant p with the
    residual stream entering layer ``start`` replaced at position p by rows[p].

    x_start = hidden_states[start] with row p := rows[p]; x_{l+1} = layer_l(x_l) for l = start .. L-1, keeping
    of each variant only the rows p .. n-1 (the rows before p are the run's, and so are their keys and values).

    Args:
        hidden_states: (L + 1, n, d_model) the run's hidden states ([l] is layer l's input).
        weights: ModelWeights of a causal model.
        config: ModelConfig (causal).
        start: the layer whose input is replaced, 0 .. n_layers - 1.
        rows: (n, d_model) the replacement of position p, one per variant, in the run's dtype.

    Returns:
        (n, d_model) x_L at position n - 1 of each variant (before the final norm).
    """
    assert config.causal, config.name
    n = hidden_states.shape[1]
    assert rows.shape == (n, hidden_states.shape[2]), rows.shape
    lengths = n - np.arange(n)  # (n,) variant p changes positions p .. n-1
    seq = np.repeat(np.arange(n), lengths)  # (R,) the variant of each changed row
    pos = np.concatenate([np.arange(p, n) for p in range(n)])  # (R,) its position
    x = np.asarray(hidden_states[start])[pos].copy()  # (R, d_model)
    x[pos == seq] = rows  # the first changed row of each variant: the replacement
    L = config.n_layers
    for layer in range(start, L):  # layer after layer: each needs the one before
        last = layer == L - 1
        x = _suffix_layer(x, hidden_states[layer], weights.layers[layer], config, seq, pos, last)
    return x  # (n, d_model): the last layer keeps only position n - 1, in variant order


def _suffix_layer(
    x: Floats,
    run_x: Floats,
    w: LayerWeights,
    config: ModelConfig,
    seq: NDArray[np.intp],
    pos: NDArray[np.intp],
    only_last: bool,
) -> Floats:
    """One layer over the changed rows x (R, d_model) of b variants, the run's input run_x (n, d_model)
    giving every other row's key and value; with ``only_last`` just position n - 1's output (b, d_model)."""
    n, b = run_x.shape[0], int(seq[-1]) + 1
    h, g, d = config.n_heads, config.n_kv_heads, config.d_k
    both = np.concatenate([run_x, x])  # (n + R, d_model): the run's rows, then the variants'
    a = _norm(config, both, w.attn_norm_gain, w.attn_norm_bias) if config.norm_first else both
    q, k, v = _split_heads(_linear(a, w.w_qkv, w.b_qkv), config)  # (h|g, n + R, d)
    if config.rope_base is not None:
        at = np.concatenate([np.arange(n), pos]).astype(np.float64)  # (n + R,) each row's position
        q, k = _rotate(q, at, config.rope_base), _rotate(k, at, config.rope_base)
    keys = np.repeat(k[None, :, :n], b, axis=0)  # (b, g, n, d): the run's keys and values ...
    values = np.repeat(v[None, :, :n], b, axis=0)
    keys[seq, :, pos] = k[:, n:].swapaxes(0, 1)  # ... with each variant's changed rows in place
    values[seq, :, pos] = v[:, n:].swapaxes(0, 1)
    queries = np.zeros((b, h, n, d), dtype=q.dtype)  # rows before p stay 0: computed, never read
    queries[seq, :, pos] = q[:, n:].swapaxes(0, 1)
    if g != h:
        keys, values = keys[:, np.asarray(config.kv_head)], values[:, np.asarray(config.kv_head)]
    stack = lambda arr: arr.reshape(b * h, n, d)  # noqa: E731 - (b h, n, d): every variant's heads
    scale = 1.0 / math.sqrt(d)
    heads = _attend(stack(queries), stack(keys), stack(values), scale, None, causal_mask(n)[None])[4]
    keep = pos == n - 1 if only_last else slice(None)  # (R,) the rows this layer's output needs
    concat = heads.reshape(b, h, n, d)[seq[keep], :, pos[keep]].reshape(-1, h * d)  # (R', h d), head 0 first
    rows = x[keep]
    sum1 = rows + _linear(concat, w.w_o, w.b_o)
    norm1 = _norm(config, sum1, w.norm1_gain, w.norm1_bias)
    ffn = _ffn(norm1, w.w1, w.w2, w.b1, w.b2, config.activation, w.w_up).output
    sum2 = (sum1 if config.norm_first else norm1) + ffn
    return sum2 if config.norm_first else _norm(config, sum2, w.norm2_gain, w.norm2_bias)
