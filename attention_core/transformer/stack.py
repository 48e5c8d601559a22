"""A whole model, layer after layer: a traced run from token ids to logits, the rest of a run from a given
layer on (activation patching), the next-token logits, and many variants of one run with heads switched
off, all at once. Precision: the arrays keep the dtype of the weights (float32 for the real models)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._parallel import for_row_blocks
from .._validate import as_float_array, readonly, shape_str
from ..encoder import EncoderTrace, _ffn, _linear
from ..kernel import _attend
from ..masks import causal_mask
from ..positional import _rotate
from ..weights import LayerWeights, ModelConfig, ModelWeights
from .embedding import EmbeddingTrace, embed_tokens
from .layer import _norm, _split_heads, transformer_layer

Floats = NDArray[np.floating]
# Rows of the variants that run through a layer together (at 64 tokens 16 variants, 7 MB a step): one matrix
# product of a thousand rows runs about 1.4x faster per row than one of 64 (one core, float32).
_BATCH_ROWS = 1024
HEAD_MASK_LIMIT = 10.0  # |head_mask| at most this: scaling a head's output up to 10x is plenty to explore


def check_head_mask(head_mask: ArrayLike | None, config: ModelConfig) -> Floats | None:
    """head_mask as a float64 (n_layers, n_heads) array of weights in [-10, 10], or None (keep every head).

    Args:
        head_mask: (n_layers, n_heads) numbers: 1 keeps a head, 0 removes its output, values in between scale
            it; or None.
        config: ModelConfig.

    Returns:
        (n_layers, n_heads) float64, read-only, or None when head_mask is None or all ones.
    """
    if head_mask is None:
        return None
    expected = f"({config.n_layers}, {config.n_heads}) = (n_layers, n_heads)"
    arr = as_float_array(
        "head_mask", head_mask, (2,), expected, hint=": give each head a number (1 keeps it)"
    )
    if arr.shape != (config.n_layers, config.n_heads):
        raise ValueError(f"head_mask has shape {shape_str(arr.shape)} but {config.name} needs {expected}")
    if np.abs(arr).max() > HEAD_MASK_LIMIT:
        raise ValueError(f"head_mask values must lie between -{HEAD_MASK_LIMIT:g} and {HEAD_MASK_LIMIT:g}")
    return None if (arr == 1.0).all() else readonly(arr.copy())


def run_transformer(
    token_ids: ArrayLike, weights: ModelWeights, config: ModelConfig, head_mask: ArrayLike | None = None
) -> tuple[EmbeddingTrace, tuple[EncoderTrace, ...], Floats | None, Floats | None]:
    """Every layer of the model on token_ids, traced.

    x0 = embed_tokens(ids); x_{l+1} = transformer_layer(x_l) (with head_mask[l]); for a decoder
    final = RMSNorm(x_L) * gain and logits = final E^T (tied) or final @ lm_head.

    Args:
        token_ids: (n,) ints.
        weights: ModelWeights.
        config: ModelConfig.
        head_mask: (n_layers, n_heads) or None (see check_head_mask).

    Returns:
        (embeddings, layers, final, logits): EmbeddingTrace, one EncoderTrace per layer, final (n, d_model)
        the last layer's output after the final norm or None (no final norm), logits (n, vocab_size) or None.
    """
    mask_weights = check_head_mask(head_mask, config)
    embeddings = embed_tokens(token_ids, weights.embeddings, config)
    n = embeddings.output.shape[0]
    mask = causal_mask(n) if config.causal else None  # (n, n)
    x, layers = embeddings.output, []
    for i, w in enumerate(weights.layers):  # layer after layer: each needs the one before
        layer = transformer_layer(x, w, config, mask, None if mask_weights is None else mask_weights[i])
        layers.append(layer)
        x = layer.output
    final = None if weights.final_norm_gain is None else _norm(config, x, weights.final_norm_gain, None)
    logits = None
    if config.has_logits:
        head = weights.embeddings.token.T if weights.lm_head is None else weights.lm_head  # (d_model, vocab)
        logits = (x if final is None else final) @ head  # (n, vocab_size)
    return embeddings, tuple(layers), None if final is None else readonly(final), _ro(logits)


def run_layers(
    x: Floats, weights: ModelWeights, config: ModelConfig, start: int = 0, stop: int | None = None
) -> Floats:
    """x_{l+1} = transformer_layer(x_l) for l = start .. stop - 1, keeping only the last output.

    The rest of a run from a given layer on: activation patching changes the residual stream entering a
    layer and reuses everything before it. Inputs are trusted (the model's own states).

    Args:
        x: (..., n, d_model) the residual stream entering layer ``start`` (a batch when there are leading
            axes: each sequence runs on its own, all in one set of matrix products).
        weights: ModelWeights.
        config: ModelConfig.
        start: the first layer to run, 0 .. n_layers.
        stop: one past the last layer to run (n_layers when None).

    Returns:
        (..., n, d_model) the output of layer stop - 1 (x itself when start == stop).
    """
    stop = config.n_layers if stop is None else stop
    assert 0 <= start <= stop <= config.n_layers, (start, stop)
    mask = causal_mask(x.shape[-2]) if config.causal else None  # (n, n)
    for w in weights.layers[start:stop]:  # layer after layer: each needs the one before
        x = transformer_layer(x, w, config, mask).output
    return x


def output_logits(
    x: Floats, weights: ModelWeights, config: ModelConfig, token_ids: ArrayLike | None = None
) -> Floats:
    """logits = N(x) E^T (tied) or N(x) @ lm_head, N the final norm (if any): the next-token scores.

    Args:
        x: (..., d_model) the last layer's output at some positions.
        weights: ModelWeights.
        config: ModelConfig (a decoder: has_logits).
        token_ids: (k,) ints: only these tokens' logits (cheaper than the whole vocabulary), or None.

    Returns:
        (..., vocab_size), or (..., k) for the given tokens.
    """
    assert config.has_logits, config.name
    final = x if weights.final_norm_gain is None else _norm(config, x, weights.final_norm_gain, None)
    head = weights.embeddings.token.T if weights.lm_head is None else weights.lm_head  # (d_model, vocab)
    if token_ids is not None:
        head = head[:, np.asarray(token_ids)]  # (d_model, k)
    return final @ head


def _ro(arr: Floats | None) -> Floats | None:
    return None if arr is None else readonly(arr)


def _layer_batch(
    x: Floats,
    w: LayerWeights,
    config: ModelConfig,
    mask: NDArray[np.bool_] | None,
    head_weights: Floats,
    last_only: bool = False,
) -> Floats:
    """transformer_layer's output for a batch of inputs, untraced: x (b, n, d_model), head_weights (b, h);
    (b, n, d_model), or with ``last_only`` (b, 1, d_model): position n - 1's output alone (its query against
    every key; the other positions' keys and values are all it needs of them).

    The position-wise steps see the b * n rows as one matrix; attention sees the b * h heads as one stack of
    heads (the same _attend as a traced run), so one batch costs about what one input does at a few tokens.
    """
    b, n, dm = x.shape
    h, g, d = config.n_heads, config.n_kv_heads, config.d_k
    rows = x.reshape(b * n, dm)  # (b n, d_model)
    attn_input = _norm(config, rows, w.attn_norm_gain, w.attn_norm_bias) if config.norm_first else rows
    q, k, v = _split_heads(_linear(attn_input, w.w_qkv, w.b_qkv), config)  # (h|g, b n, d)
    q, k, v = (a.reshape(-1, b, n, d).transpose(1, 0, 2, 3) for a in (q, k, v))  # (b, h|g, n, d)
    if config.rope_base is not None:
        positions = np.arange(n, dtype=np.float64)
        q, k = _rotate(q, positions, config.rope_base), _rotate(k, positions, config.rope_base)
    if g != h:
        k, v = k[:, np.asarray(config.kv_head)], v[:, np.asarray(config.kv_head)]  # (b, h, n, d)
    if last_only:  # the last query alone; rows: the last position's
        q, mask, rows = q[:, :, -1:], None if mask is None else mask[-1:], x[:, -1]
    nq = q.shape[2]
    stack = lambda a: a.reshape(b * h, a.shape[2], d)  # noqa: E731 - (b h, n, d): every variant's heads
    heads = _attend(
        stack(q), stack(k), stack(v), 1.0 / math.sqrt(d), None, None if mask is None else mask[None]
    )[4]
    heads = heads.reshape(b, h, nq, d) * head_weights.astype(heads.dtype)[:, :, None, None]  # each scaled
    concat = heads.transpose(0, 2, 1, 3).reshape(b * nq, h * d)  # (b nq, h d), head 0 first
    sum1 = rows + _linear(concat, w.w_o, w.b_o)
    norm1 = _norm(config, sum1, w.norm1_gain, w.norm1_bias)
    sum2 = (sum1 if config.norm_first else norm1) + _ffn(
        norm1, w.w1, w.w2, w.b1, w.b2, config.activation, w.w_up
    ).output
    out = sum2 if config.norm_first else _norm(config, sum2, w.norm2_gain, w.norm2_bias)
    return out.reshape(b, nq, dm)


def _check_masks(head_masks: ArrayLike, states: Floats, config: ModelConfig) -> Floats:
    """head_masks as a float (b, L, H) array after checking it against the config and the run's states."""
    L, H = config.n_layers, config.n_heads
    masks = as_float_array("head_masks", head_masks, (3,), f"(b, {L}, {H})")
    if masks.shape[1:] != (L, H) or states.shape[0] != L + 1:
        raise ValueError(f"head_masks has shape {shape_str(masks.shape)} and hidden_states "
                         f"{shape_str(states.shape)}; {config.name} needs (b, {L}, {H}) and ({L + 1}, n, d_model)")  # fmt: skip
    if masks.size and np.abs(masks).max() > HEAD_MASK_LIMIT:
        raise ValueError(f"head_masks values must lie between -{HEAD_MASK_LIMIT:g} and {HEAD_MASK_LIMIT:g}")
    return masks


def resume_transformer(
    hidden_states: ArrayLike,
    weights: ModelWeights,
    config: ModelConfig,
    head_masks: ArrayLike,
    last_only: bool = False,
) -> Floats:
    """The last hidden states of b variants of one run, each with its own head mask, all at once.

    A variant's layers before the first one its mask changes compute exactly what the run computed, so it
    starts there, from the run's own residual stream: x_s = hidden_states[s], x_{l+1} = layer_l(x_l) with
    head_masks[i, l] for l = s .. L-1, then the final norm where the model has one. Variants that start at
    the same layer or earlier run through each layer together (_layer_batch: one batch of b * n rows).

    Args:
        hidden_states: (L + 1, n, d_model) a run's hidden states (ModelTrace.hidden_states): [l] is layer l's
            input, [L] the last layer's output (after the final norm where there is one).
        weights: ModelWeights.
        config: ModelConfig.
        head_masks: (b, L, H) one head mask per variant (see check_head_mask; all ones: the run itself).
        last_only: compute the last layer at position n - 1 only (what the next token is read from).

    Returns:
        (b, n, d_model) each variant's last hidden states, as hidden_states[L] is for the run; with
        last_only (b, 1, d_model), their last position.
    """
    states = np.asarray(hidden_states)
    L, masks = config.n_layers, _check_masks(head_masks, states, config)  # (b, L, H)
    changed = (masks != 1.0).any(axis=2)  # (b, L)
    starts = np.where(changed.any(axis=1), changed.argmax(axis=1), L)  # (b,) the first layer that differs
    n = states.shape[1]
    mask = causal_mask(n) if config.causal else None  # (n, n)
    x = np.empty((masks.shape[0], *states.shape[1:]), dtype=states.dtype)  # (b, n, d_model)
    y = np.empty((masks.shape[0], 1, states.shape[2]), dtype=states.dtype) if last_only else x  # the output
    for layer in range(int(starts.min(initial=L)), L):  # layer after layer: each needs the one before
        x[starts == layer] = states[layer]  # variants that start here, from the run's own stream
        active = np.flatnonzero(starts <= layer)
        out, only = (y, True) if last_only and layer == L - 1 else (x, False)

        def work(
            rows: slice,
            active: NDArray[np.intp] = active,
            layer: int = layer,
            out: Floats = out,
            only: bool = only,
        ) -> None:
            # a block of variants: blocks run in the pool's threads, numpy releases the GIL
            part = active[rows]
            out[part] = _layer_batch(x[part], weights.layers[layer], config, mask, masks[part, layer], only)

        for_row_blocks(work, active.size, n * (config.d_model + config.d_ff), block_rows=-(-_BATCH_ROWS // n))
    ran = starts < L
    if weights.final_norm_gain is not None and ran.any():
        y[ran] = _norm(config, y[ran], weights.final_norm_gain, None)
    y[~ran] = states[L, -1:] if last_only else states[L]
    return readonly(y)
