"""One transformer layer, traced: every layer the app shows runs through transformer_layer (the toy's, a real
model's, one trained in the engine), from the engine's own small functions: the same attention
(``kernel._attend``: scores, scale, mask, softmax), norms (``norms``), feed-forward network (``encoder._ffn``)
and RoPE (``positional._rotate``) as the toy explorer, grown with what real models need: biases on every
projection, layer norm with gain and bias, RMSNorm, exact GELU and SwiGLU, grouped-query attention.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .._validate import check_result, readonly
from ..attention import AttentionTrace
from ..encoder import EncoderTrace, FeedForwardTrace, _add, _ffn, _linear
from ..kernel import _attend
from ..norms import _layer_norm, _rms_norm
from ..positional import _rotate
from ..weights import LayerWeights, ModelConfig, _is_array

Floats = NDArray[np.floating]


def _norm(config: ModelConfig, x: Floats, gain: Floats | None, bias: Floats | None) -> Floats:
    """The model's norm of each row of x (n, d_model), with its learned gain and bias; "none" (an
    attention-only model trained without norms) gives x itself."""
    if config.norm == "none":
        return x
    if config.norm == "rms_norm":
        return _rms_norm(x, config.eps, gain)
    return _layer_norm(x, config.eps, gain, bias)


def _split_heads(qkv: Floats, config: ModelConfig) -> tuple[Floats, Floats, Floats]:
    """qkv (..., n, (h + g) d + g d_v) -> q (..., h, n, d), k (..., g, n, d), v (..., g, n, d_v), views
    (d_v = d for every real model; the toy's layer may give its values another width)."""
    lead, n, h, g, d = qkv.shape[:-2], qkv.shape[-2], config.n_heads, config.n_kv_heads, config.d_k
    d_v = (qkv.shape[-1] - (h + g) * d) // g
    q = qkv[..., : h * d].reshape(*lead, n, h, d).swapaxes(-2, -3)  # (..., h, n, d)
    k = qkv[..., h * d : (h + g) * d].reshape(*lead, n, g, d).swapaxes(-2, -3)  # (..., g, n, d)
    v = qkv[..., (h + g) * d :].reshape(*lead, n, g, d_v).swapaxes(-2, -3)  # (..., g, n, d_v)
    return q, k, v


def _per_query_head(arr: Floats | None, config: ModelConfig) -> Floats | None:
    """(..., g, n, d) key/value heads -> (..., h, n, d), each repeated for the query heads sharing it (GQA)."""
    if arr is None or config.n_kv_heads == config.n_heads:
        return arr
    return np.take(arr, np.asarray(config.kv_head), axis=-3)  # (..., h, n, d)


def _heads_of(arr: NDArray | None, lead: tuple[int, ...]) -> NDArray | None:
    """A mask or bias, (n, n) for every head or (h, n, n) one per head, as kernel._attend reads it beside
    (..., h, n, n) heads flattened to one axis: (1, n, n), or (batch * h, n, n)."""
    if arr is None or arr.ndim == 2:
        return None if arr is None else arr[None]
    return np.broadcast_to(arr, (*lead, *arr.shape[-2:])).reshape(-1, *arr.shape[-2:])


def _attend_batch(
    q: Floats,
    k: Floats,
    v: Floats,
    scale: float,
    mask: NDArray[np.bool_] | None,
    bias: Floats | None = None,
) -> tuple[Floats, ...]:
    """kernel._attend over (..., h, n, d) inputs: the leading axes and the heads as one axis of heads."""
    lead, n = q.shape[:-2], q.shape[-2]
    flat = [a.reshape(-1, n, a.shape[-1]) for a in (q, k, v)]  # (batch * h, n, d)
    out = _attend(*flat, scale, _heads_of(bias, lead), _heads_of(mask, lead))
    return tuple(a.reshape(*lead, n, a.shape[-1]) for a in out)  # (..., h, n, n) x 4, (..., h, n, d)


def _attention(
    x: Floats,
    w: LayerWeights,
    config: ModelConfig,
    mask: NDArray[np.bool_] | None,
    head_mask: Floats | None,
    head_replacement: tuple[Floats, NDArray[np.bool_]] | None = None,
    scale: float | None = None,
    bias: Floats | None = None,
) -> AttentionTrace:
    """Multi-head (or grouped-query) self-attention of x (..., n, d_model), traced; head_mask: (..., h) or
    None; head_replacement: (outputs (..., h, n, d), which (..., h) bool) or None; scale, bias: see
    transformer_layer. An overflow of a product raises the ValueError that names it."""
    with np.errstate(over="ignore", invalid="ignore"):
        qkv = _linear(x, w.w_qkv, w.b_qkv)  # (..., n, (h + 2 g) d)
    check_result("q, k, v", qkv, "x W_Q, x W_K, x W_V")
    q, k, v = _split_heads(qkv, config)  # (..., h|g, n, d)
    q_pre = k_pre = None
    if config.rope_base is not None:
        positions = np.arange(x.shape[-2], dtype=np.float64)
        q_pre, k_pre = q, k
        q, k = _rotate(q, positions, config.rope_base), _rotate(k, positions, config.rope_base)
    k, v = _per_query_head(k, config), _per_query_head(v, config)  # (..., h, n, d)
    scale = 1.0 / math.sqrt(config.d_k) if scale is None else float(scale)
    scores, scaled, masked, weights, heads = _attend_batch(q, k, v, scale, mask, bias)
    if head_replacement is not None:
        outputs, which = head_replacement
        heads = np.where(np.asarray(which)[..., None, None], outputs, heads).astype(heads.dtype, copy=False)
    n, h, d = x.shape[-2], config.n_heads, heads.shape[-1]
    concat = heads.swapaxes(-2, -3).reshape(*heads.shape[:-3], n, h * d)  # (..., n, h * d), head 0 first
    if head_mask is not None:  # each head's block scaled: (..., 1, h * d)
        concat = concat * np.repeat(head_mask.astype(concat.dtype), d, axis=-1)[..., None, :]
    output = concat  # without W_O (a toy layer whose heads fill d_model): the concat itself
    if w.w_o is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            output = _linear(concat, w.w_o, w.b_o)  # (n, d_model)
        check_result("output", output, "concat W_O")
    grouped = config.n_kv_heads != config.n_heads
    values = dict(x=x, q=q, k=k, v=v, scores=scores, scaled=scaled, masked=masked, weights=weights)
    values |= dict(head_outputs=heads, concat=concat, output=output, mask=mask, bias=bias, w_o=w.w_o)
    values |= dict(
        q_pre_rope=q_pre, k_pre_rope=_per_query_head(k_pre, config), head_mask=head_mask, b_o=w.b_o
    )
    frozen = {key: readonly(val) if _is_array(val) else val for key, val in values.items()}
    kv_head = config.kv_head if grouped else None
    return AttentionTrace(**frozen, scale=scale, use_rope=q_pre is not None, kv_head=kv_head)


def transformer_layer(
    x: Floats,
    weights: LayerWeights,
    config: ModelConfig,
    mask: NDArray[np.bool_] | None = None,
    head_mask: Floats | None = None,
    head_replacement: tuple[Floats, NDArray[np.bool_]] | None = None,
    *,
    scale: float | None = None,
    bias: Floats | None = None,
) -> EncoderTrace:
    """One transformer layer, traced: every layer the app shows runs here (the toy's, a real model's, one
    trained in the engine). Inputs are trusted (encoder_layer checks a toy layer's first).

    Post-norm (2017, BERT):  sum1 = x + MHA(x);  norm1 = N(sum1);  sum2 = norm1 + FFN(norm1);  out = N(sum2).
    Pre-norm (Llama):        sum1 = x + MHA(N(x));  norm1 = N(sum1);  out = sum2 = sum1 + FFN(norm1).
    N is the model's norm with its own gain (and bias), or none (the toy's layer norm); MHA is
    softmax(q k^T * scale + bias, mask) v per head, then W_O, with biases on every projection where the
    model has them, RoPE on q and k where it uses RoPE, shared key/value heads where n_kv_heads < n_heads;
    FFN is ReLU or GELU(x W1 + b1) W2 + b2, or (silu(x W_gate) * x W_up) W_down (SwiGLU). A product that
    overflows raises a ValueError naming it (edited weights can be huge).

    A batch of sequences runs at once when x has leading axes (..., n, d_model): every array of the trace
    then has them too (the matrix products take all the rows together, see encoder._linear).

    Args:
        x: (n, d_model) the layer's input, in the weights' dtype; or (..., n, d_model) a batch.
        weights: LayerWeights.
        config: ModelConfig.
        mask: (n, n) bool, True = may attend (causal for a decoder), or None.
        head_mask: (n_heads,) the weight of each head's output in concat (0 removes a head), or (..., n_heads)
            one per sequence of a batch; or None.
        head_replacement: (outputs, which) or None. outputs (..., n_heads, n, d_k) is taken instead of a head's
            A V (its output before W_O, at every position) where which (..., n_heads) is True: activation
            patching puts another run's head output there. The trace's head_outputs hold the replaced ones.
        scale: the scores' factor, 1/sqrt(d_k) when None (the toy lets a visitor pick another).
        bias: (n, n) or (n_heads, n, n) added to the scaled scores (ALiBi), or None.

    Returns:
        EncoderTrace (attention: an AttentionTrace; ffn_up, activation and norm set).
    """
    w = weights
    attn_input = _norm(config, x, w.attn_norm_gain, w.attn_norm_bias) if config.norm_first else x
    attention = _attention(attn_input, w, config, mask, head_mask, head_replacement, scale, bias)
    sum1 = _add("sum1", x, attention.output)  # (n, d_model)
    norm1 = _norm(config, sum1, w.norm1_gain, w.norm1_bias)  # (n, d_model)
    ffn = _ffn(norm1, w.w1, w.w2, w.b1, w.b2, config.activation, w.w_up)
    sum2 = _add("sum2", sum1 if config.norm_first else norm1, ffn.output)  # (n, d_model)
    norm2 = None if config.norm_first else _norm(config, sum2, w.norm2_gain, w.norm2_bias)
    stages = dict(x=x, attn_input=attn_input, sum1=sum1, sum2=sum2, norm2=norm2)
    stages["output"] = sum2 if norm2 is None else norm2
    return _layer_trace(stages, attention, ffn, config)


def _layer_trace(
    stages: dict[str, Floats | None], attention: AttentionTrace, ffn: FeedForwardTrace, config: ModelConfig
) -> EncoderTrace:
    """The layer's trace: its stages read-only, beside its attention's and its feed-forward network's."""
    frozen = {key: None if val is None else readonly(val) for key, val in stages.items()}
    return EncoderTrace(**frozen, attention=attention, norm1=ffn.x, ffn_hidden_pre=ffn.hidden_pre,
                        ffn_hidden=ffn.hidden, ffn_out=ffn.output, norm_first=config.norm_first, eps=config.eps,
                        ffn_up=ffn.up, activation=config.activation, norm=config.norm)  # fmt: skip
