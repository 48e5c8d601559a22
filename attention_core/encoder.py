"""One transformer encoder layer: attention, residual sums, layer norm and feed-forward network, traced."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._validate import FloatArray, as_float_array, as_real, check_result, readonly, shape_str
from .attention import AttentionTrace, multi_head_attention

__all__ = [
    "EncoderTrace",
    "FeedForwardTrace",
    "layer_norm",
    "feed_forward",
    "feed_forward_trace",
    "encoder_layer",
]


def layer_norm(x: ArrayLike, eps: float = 1e-5) -> FloatArray:
    """LN(x) = (x - mean(x)) / sqrt(var(x) + eps) per row (biased variance, no learned gain or bias).

    Computed on each row divided by its largest magnitude (the same result, as LN is scale-free up to eps),
    so finite values as large as 1e308 give no overflow. A constant row gives zeros.

    Args:
        x: (n, d) or (d,), finite.
        eps: float > 0.

    Returns:
        float64 array of x's shape; each row has mean 0 and variance var/(var + eps) (about 1).
    """
    arr = as_float_array("x", x, (1, 2), "(n, d) or (d,)")
    eps = as_real("eps", eps, positive=True)
    return _layer_norm(arr, eps)


def _layer_norm(x: FloatArray, eps: float) -> FloatArray:
    peak = np.abs(x).max(axis=-1, keepdims=True)  # (n, 1)
    peak[peak == 0.0] = 1.0
    xs = x / peak  # (n, d), entries in [-1, 1]
    centred = xs - xs.mean(axis=-1, keepdims=True)  # (n, d)
    var = np.mean(centred * centred, axis=-1, keepdims=True)  # (n, 1)
    with np.errstate(over="ignore", under="ignore"):  # eps / peak^2 may overflow to inf: the result is then 0
        return centred / np.sqrt(var + eps / (peak * peak))


@dataclass(frozen=True, eq=False)
class FeedForwardTrace:
    """The position-wise feed-forward network, step by step (n tokens).

    Fields:
        x: (n, d_model) input.
        hidden_pre: (n, d_ff) x W1 + b1, before ReLU.
        hidden: (n, d_ff) max(0, hidden_pre).
        output: (n, d_model) hidden W2 + b2.
    """

    x: FloatArray
    hidden_pre: FloatArray
    hidden: FloatArray
    output: FloatArray


def _check_ffn(
    d_model: int, w1: ArrayLike, w2: ArrayLike, b1: ArrayLike | None, b2: ArrayLike | None
) -> tuple[FloatArray, FloatArray, FloatArray | None, FloatArray | None]:
    """w1: (d_model, d_ff), w2: (d_ff, d_model), b1: (d_ff,), b2: (d_model,)."""
    w1a = as_float_array("w1", w1, (2,), "(d_model, d_ff)")
    if w1a.shape[0] != d_model:
        raise ValueError(
            f"w1 has shape {shape_str(w1a.shape)} but expected ({d_model}, d_ff): d_model = {d_model}"
        )
    d_ff = w1a.shape[1]
    w2a = as_float_array("w2", w2, (2,), f"({d_ff}, {d_model})")
    if w2a.shape != (d_ff, d_model):
        raise ValueError(
            f"w2 has shape {shape_str(w2a.shape)} but expected ({d_ff}, {d_model}) = (d_ff, d_model), "
            f"as w1 has shape {shape_str(w1a.shape)}"
        )
    biases = []
    for name, value, size in (("b1", b1, d_ff), ("b2", b2, d_model)):
        arr = None if value is None else as_float_array(name, value, (1,), f"({size},)")
        if arr is not None and arr.shape != (size,):
            raise ValueError(f"{name} has shape {shape_str(arr.shape)} but expected ({size},)")
        biases.append(arr)
    return w1a, w2a, biases[0], biases[1]


def _ffn(
    x: FloatArray, w1: FloatArray, w2: FloatArray, b1: FloatArray | None, b2: FloatArray | None
) -> FeedForwardTrace:
    with np.errstate(over="ignore", invalid="ignore"):
        hidden_pre = x @ w1 if b1 is None else x @ w1 + b1  # (n, d_ff)
        check_result("ffn hidden layer", hidden_pre, "x W1 + b1")
        hidden = np.maximum(hidden_pre, 0.0)  # (n, d_ff)
        output = hidden @ w2 if b2 is None else hidden @ w2 + b2  # (n, d_model)
        check_result("ffn output", output, "ReLU(x W1 + b1) W2 + b2")
    return FeedForwardTrace(*(readonly(a) for a in (x, hidden_pre, hidden, output)))


def feed_forward_trace(
    x: ArrayLike, w1: ArrayLike, w2: ArrayLike, b1: ArrayLike | None = None, b2: ArrayLike | None = None
) -> FeedForwardTrace:
    """FFN(x) = max(0, x W1 + b1) W2 + b2, with every step (see FeedForwardTrace).

    Args:
        x: (n, d_model).
        w1: (d_model, d_ff).
        w2: (d_ff, d_model).
        b1: (d_ff,) or None (zeros).
        b2: (d_model,) or None (zeros).
    """
    arr = as_float_array("x", x, (2,), "(n, d_model)")
    return _ffn(arr, *_check_ffn(arr.shape[1], w1, w2, b1, b2))


def feed_forward(
    x: ArrayLike, w1: ArrayLike, w2: ArrayLike, b1: ArrayLike | None = None, b2: ArrayLike | None = None
) -> FloatArray:
    """FFN(x) = max(0, x W1 + b1) W2 + b2 (ReLU), applied to each row (token) on its own.

    Args:
        x: (n, d_model).
        w1: (d_model, d_ff).
        w2: (d_ff, d_model).
        b1: (d_ff,) or None (zeros).
        b2: (d_model,) or None (zeros).

    Returns:
        (n, d_model) float64.
    """
    return np.array(feed_forward_trace(x, w1, w2, b1, b2).output)


@dataclass(frozen=True, eq=False)
class EncoderTrace:
    """Every stage of one encoder layer (n tokens, arrays read-only).

    Post-norm (norm_first=False, the 2017 paper):  sum1 = x + MHA(x);          norm1 = LN(sum1);
        FFN on norm1;  sum2 = norm1 + FFN(norm1);  norm2 = LN(sum2);  output = norm2.
    Pre-norm (norm_first=True):  attn_input = LN(x);  sum1 = x + MHA(attn_input);  norm1 = LN(sum1);
        FFN on norm1;  sum2 = sum1 + FFN(norm1);  norm2 = None;  output = sum2.

    Fields:
        x: (n, d_model) input.
        attn_input: (n, d_model) what attention reads: x (post-norm) or LN(x) (pre-norm).
        attention: the AttentionTrace of the attention sub-layer.
        sum1: (n, d_model) first residual sum, x + attention.output.
        norm1: (n, d_model) LN(sum1), the input of the feed-forward network in both orders.
        ffn_hidden_pre: (n, d_ff) norm1 W1 + b1, before ReLU.
        ffn_hidden: (n, d_ff) after ReLU.
        ffn_out: (n, d_model) ffn_hidden W2 + b2.
        sum2: (n, d_model) second residual sum (norm1 + ffn_out post-norm, sum1 + ffn_out pre-norm).
        norm2: (n, d_model) LN(sum2) (post-norm), None in pre-norm.
        output: (n, d_model) the layer's output.
        norm_first: True for pre-norm.
        eps: the layer norm epsilon.
    """

    x: FloatArray
    attn_input: FloatArray
    attention: AttentionTrace
    sum1: FloatArray
    norm1: FloatArray
    ffn_hidden_pre: FloatArray
    ffn_hidden: FloatArray
    ffn_out: FloatArray
    sum2: FloatArray
    norm2: FloatArray | None
    output: FloatArray
    norm_first: bool
    eps: float

    @property
    def ffn_input(self) -> FloatArray:
        """(n, d_model) what the feed-forward network reads: norm1 in both orders."""
        return self.norm1


def encoder_layer(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike | None,
    w1: ArrayLike,
    w2: ArrayLike,
    b1: ArrayLike | None = None,
    b2: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    norm_first: bool = False,
    eps: float = 1e-5,
    *,
    scale: float | None = None,
    bias: ArrayLike | None = None,
    use_rope: bool = False,
) -> EncoderTrace:
    """One encoder layer, traced.

    Post-norm (2017 paper): h = LN(x + MHA(x)); out = LN(h + FFN(h)).
    Pre-norm:               h = x + MHA(LN(x)); out = h + FFN(LN(h)).
    MHA is multi_head_attention(..., mask, scale, bias, use_rope); FFN(h) = max(0, h W1 + b1) W2 + b2;
    LN is layer_norm(., eps).

    Args:
        x: (n, d_model).
        w_q, w_k: (n_heads, d_model, d_k); w_v: (n_heads, d_model, d_v) (2-D means one head).
        w_o: (n_heads * d_v, d_model), or None when n_heads * d_v == d_model (output = concat).
        w1: (d_model, d_ff); w2: (d_ff, d_model); b1: (d_ff,) or None; b2: (d_model,) or None.
        mask: (n, n) or (n_heads, n, n) bool, True = may attend, or None.
        norm_first: False for post-norm, True for pre-norm.
        eps: float > 0, the layer norm epsilon.
        scale, bias, use_rope: passed to multi_head_attention.

    Returns:
        EncoderTrace with every stage.
    """
    xa = as_float_array("x", x, (2,), "(n, d_model)")
    eps = as_real("eps", eps, positive=True)
    ffn_weights = _check_ffn(xa.shape[1], w1, w2, b1, b2)
    attn_input = _layer_norm(xa, eps) if norm_first else xa
    attention = multi_head_attention(attn_input, w_q, w_k, w_v, w_o, mask, scale, bias, use_rope)
    if attention.output.shape != xa.shape:
        raise ValueError(
            f"w_o is None, so the attention output is the concat of width n_heads * d_v = "
            f"{attention.output.shape[1]}, but the residual x + attention needs width "
            f"d_model = {xa.shape[1]}: "
            f"give w_o of shape ({attention.output.shape[1]}, {xa.shape[1]})"
        )
    sum1 = _add("sum1", xa, attention.output)  # (n, d_model)
    norm1 = _layer_norm(sum1, eps)  # (n, d_model)
    ffn = _ffn(norm1, *ffn_weights)
    sum2 = _add("sum2", sum1 if norm_first else norm1, ffn.output)  # (n, d_model)
    norm2 = None if norm_first else _layer_norm(sum2, eps)
    return EncoderTrace(
        x=readonly(xa.copy()),
        attn_input=readonly(attn_input),
        attention=attention,
        sum1=readonly(sum1),
        norm1=ffn.x,
        ffn_hidden_pre=ffn.hidden_pre,
        ffn_hidden=ffn.hidden,
        ffn_out=ffn.output,
        sum2=readonly(sum2),
        norm2=None if norm2 is None else readonly(norm2),
        output=readonly(sum2 if norm2 is None else norm2),
        norm_first=bool(norm_first),
        eps=eps,
    )


def _add(name: str, a: FloatArray, b: FloatArray) -> FloatArray:
    with np.errstate(over="ignore"):
        total = a + b
    check_result(name, total, "the residual sum")
    return total
