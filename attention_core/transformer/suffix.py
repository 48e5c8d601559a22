"""The rest of a causal run after some of its positions changed from a layer on: only the rows that change.

In a causal model a token's state depends on itself and the tokens before it, so replacing the residual
stream entering layer s at position p leaves every position before p as the run had it, at every layer. The
variant then needs only rows p .. n-1 of each layer from s on; the keys and values of the positions before p
are the run's own (a key/value cache read from the run's hidden states). Many variants, each with its own
position, run as one stack of rows: the position-wise products (norms, q k v, W_O, the feed-forward network)
over every variant's changed rows at once, attention per variant over its n keys. Activation patching's
residual sweep is this, with one variant per position; its head sweep too, with one variant per head, from
the first position where two texts differ (the run's own attention changes there through the patched
head's rows of W_O only). Variants that start at different layers run together from the layer each starts
at (``resume_rows``): one set of matrix products per layer.

The arithmetic is transformer_layer's on the same rows (the same _norm, _linear, _rotate, _attend, _ffn); a
variant's outputs equal a full run of its n rows up to the rounding of differently grouped matrix products.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..encoder import EncoderTrace, _ffn, _linear
from ..kernel import _attend
from ..masks import causal_mask
from ..positional import _rotate
from ..weights import LayerWeights, ModelConfig, ModelWeights
from .layer import _norm, _split_heads

Floats = NDArray[np.floating]


class Rows(NamedTuple):
    """Changed rows of variants of a run that enter layer ``layer`` (n_layers: already the last layer's output
    at position n - 1). R rows of b variants, a variant's rows consecutive, increasing, up to position n - 1.

    Fields:
        layer: 0 .. n_layers.
        x: (R, d_model) the rows, in the run's dtype.
        seq: (R,) each row's variant, 0 .. b - 1, increasing.
        pos: (R,) each row's position.
    """

    layer: int
    x: Floats
    seq: NDArray[np.intp]
    pos: NDArray[np.intp]


def position_rows(hidden_states: Floats, start: int, rows: Floats, positions: NDArray[np.integer]) -> Rows:
    """The variants of a residual patch: variant k with the stream entering layer ``start`` replaced at position
    positions[k] by rows[positions[k]], its rows from there to n - 1 (the rows before are the run's).

    Args:
        hidden_states: (L + 1, n, d_model) the run's hidden states ([l] is layer l's input).
        start: the layer whose input is replaced, 0 .. n_layers - 1.
        rows: (n, d_model) the replacement of each position, in the run's dtype.
        positions: (b,) the positions patched, increasing.
    """
    n = hidden_states.shape[1]
    assert rows.shape == (n, hidden_states.shape[2]), rows.shape
    at = np.asarray(positions, dtype=np.intp)  # (b,)
    seq = np.repeat(np.arange(at.size), n - at)  # (R,) the variant of each changed row
    pos = np.concatenate([np.arange(p, n) for p in at]) if at.size else at  # (R,) its position
    x = np.asarray(hidden_states[start])[pos]  # (R, d_model), a copy
    first = pos == at[seq]  # (R,) the first changed row of each variant: the replacement
    x[first] = rows[at]
    return Rows(start, x, seq, pos)


def head_rows(
    layer_trace: EncoderTrace,
    weights: ModelWeights,
    config: ModelConfig,
    start: int,
    heads: Floats,
    first: int,
) -> Rows:
    """The variants of a head patch after their layer: variant j with head j's output of layer ``start`` (its A V
    before W_O, at every position) replaced by heads[j]; they enter layer start + 1.

    Only W_O's rows of head j see the change: sum1' = sum1 + (heads[j] - A_j V_j) W_O[j d_k : (j + 1) d_k] (the
    run's own attention for every other head), then the rest of the layer, on the rows from position
    ``first`` on: the replacements equal the run's head outputs before it (they come from a run of a text that
    begins with the same tokens), so those rows are the run's, and so are their keys and values. After the
    last layer only position n - 1 is kept.

    Args:
        layer_trace: the run's layer ``start`` traced (its sum1 and attention.head_outputs are read).
        weights: ModelWeights of a causal model.
        config: ModelConfig (causal).
        start: the layer whose heads are replaced, 0 .. n_layers - 1.
        heads: (n_heads, n, d_k) the replacement of each head's output, in the run's dtype.
        first: 0 .. n - 1, the first position where a replacement may differ from the run's head output.
    """
    h, n, d = heads.shape
    assert 0 <= first < n, (first, n)
    w = weights.layers[start]
    lo = n - 1 if start == config.n_layers - 1 else first  # the last layer's output is read at n - 1 only
    w_o = np.eye(h * d, dtype=heads.dtype) if w.w_o is None else w.w_o  # (h d, d_model)
    diff = heads[:, lo:] - layer_trace.attention.head_outputs[:, lo:]  # (h, n - lo, d_k)
    moved = np.einsum("jrd,jde->jre", diff, w_o.reshape(h, d, -1))  # (h, n - lo, d_model)
    x = _after_attention(layer_trace.sum1[lo:] + moved, w, config).reshape(h * (n - lo), -1)
    return Rows(start + 1, x, np.repeat(np.arange(h), n - lo), np.tile(np.arange(lo, n), h))


def resume_rows(
    hidden_states: Floats, weights: ModelWeights, config: ModelConfig, parts: list[Rows]
) -> Floats:
    """The last position's output of the last layer for the variants of a causal run given by ``parts``.

    Each part's rows enter its layer; from there x_{l+1} = layer_l(x_l) for l = layer .. L-1 on the changed rows
    only, the rows before a variant's first changed row read from the run (their keys and values are the
    run's). The variants that have entered by a layer run through it together: one set of matrix products.

    Args:
        hidden_states: (L + 1, n, d_model) the run's hidden states ([l] is layer l's input).
        weights: ModelWeights of a causal model.
        config: ModelConfig (causal).
        parts: Rows, in increasing order of layer.

    Returns:
        (b, d_model) x_L at position n - 1 of every variant (before the final norm), part after part.
    """
    assert config.causal, config.name
    L, n, dm = config.n_layers, hidden_states.shape[1], hidden_states.shape[2]
    x, seq, pos, b = np.empty((0, dm), hidden_states.dtype), np.empty(0, np.intp), np.empty(0, np.intp), 0
    todo = list(parts)
    for layer in range(todo[0].layer if todo else L, L + 1):  # layer after layer: each needs the one before
        while todo and todo[0].layer == layer:  # the variants that start here join the others
            part = todo.pop(0)
            x, pos = np.concatenate([x, part.x]), np.concatenate([pos, part.pos])
            seq = np.concatenate([seq, part.seq + b])
            b = int(seq[-1]) + 1 if seq.size else b
        if layer < L and b:
            x = _suffix_layer(
                x, hidden_states[layer], weights.layers[layer], config, seq, pos, layer == L - 1
            )
            if layer == L - 1:  # one row per variant from here on
                seq, pos = np.arange(b), np.full(b, n - 1)
    assert not todo and x.shape[0] == b, (todo, x.shape, b)
    return x  # (b, d_model)


def resume_at_positions(
    hidden_states: Floats,
    weights: ModelWeights,
    config: ModelConfig,
    start: int,
    rows: Floats,
    positions: NDArray[np.integer] | None = None,
) -> Floats:
    """The last position's output of the last layer for variants of a causal run, variant p with the residual
    stream entering layer ``start`` replaced at position p by rows[p].

    x_start = hidden_states[start] with row p := rows[p]; x_{l+1} = layer_l(x_l) for l = start .. L-1, keeping
    of each variant only the rows p .. n-1 (the rows before p are the run's, and so are their keys and values).

    Args:
        hidden_states: (L + 1, n, d_model) the run's hidden states ([l] is layer l's input).
        weights: ModelWeights of a causal model.
        config: ModelConfig (causal).
        start: the layer whose input is replaced, 0 .. n_layers - 1.
        rows: (n, d_model) the replacement of position p, one per position, in the run's dtype.
        positions: (b,) the positions patched, one variant each, increasing; None: every position 0 .. n-1.

    Returns:
        (b, d_model) x_L at position n - 1 of each variant (before the final norm), in the order of positions.
    """
    at = np.arange(hidden_states.shape[1]) if positions is None else positions
    return resume_rows(hidden_states, weights, config, [position_rows(hidden_states, start, rows, at)])


def resume_with_heads(
    hidden_states: Floats,
    layer_trace: EncoderTrace,
    weights: ModelWeights,
    config: ModelConfig,
    start: int,
    heads: Floats,
    first: int = 0,
) -> Floats:
    """The last position's output of the last layer for n_heads variants of a causal run, variant j with head
    j's output of layer ``start`` (its A V before W_O, at every position) replaced by heads[j] (head_rows,
    then resume_rows).

    Args:
        hidden_states: (L + 1, n, d_model) the run's hidden states.
        the others: as head_rows's.

    Returns:
        (n_heads, d_model) x_L at position n - 1 of each variant.
    """
    part = head_rows(layer_trace, weights, config, start, heads, first)
    return resume_rows(hidden_states, weights, config, [part])


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
    return _after_attention(x[keep] + _linear(concat, w.w_o, w.b_o), w, config)


def _after_attention(sum1: Floats, w: LayerWeights, config: ModelConfig) -> Floats:
    """The rest of a layer from sum1 = x + MHA (..., d_model): norm1, the feed-forward network, sum2 (and the
    last norm of a post-norm layer): transformer_layer's output."""
    norm1 = _norm(config, sum1, w.norm1_gain, w.norm1_bias)
    ffn = _ffn(norm1, w.w1, w.w2, w.b1, w.b2, config.activation, w.w_up).output
    sum2 = (sum1 if config.norm_first else norm1) + ffn
    return sum2 if config.norm_first else _norm(config, sum2, w.norm2_gain, w.norm2_bias)
