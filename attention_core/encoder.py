"""What one transformer layer is made of and traced as: the feed-forward network and the layer's trace.

The layer itself runs in ``transformer.transformer_layer`` (the toy's ``encoder_layer`` is a name for it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validate import FloatArray, as_float_array, check_result, readonly, shape_str
from .activations import ACTIVATIONS, _gelu, _silu
from .attention import AttentionTrace
from .norms import layer_norm

Floats = NDArray[np.floating]

__all__ = [
    "EncoderTrace",
    "FeedForwardTrace",
    "layer_norm",
    "feed_forward",
    "feed_forward_trace",
]


@dataclass(frozen=True, eq=False)
class FeedForwardTrace:
    """The position-wise feed-forward network, step by step (n tokens).

    Fields:
        x: (n, d_model) input.
        hidden_pre: (n, d_ff) x W1 + b1, before the activation (for SwiGLU: the gate, x W_gate).
        hidden: (n, d_ff) act(hidden_pre): max(0, .) for ReLU, GELU for "gelu"; for SwiGLU
            silu(hidden_pre) * up.
        output: (n, d_model) hidden W2 + b2.
        up: (n, d_ff) x W_up + b_up for SwiGLU, None otherwise.
        activation: "relu", "gelu" or "swiglu" (see activations.ACTIVATIONS).
    """

    x: FloatArray
    hidden_pre: FloatArray
    hidden: FloatArray
    output: FloatArray
    up: FloatArray | None = None
    activation: str = "relu"


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


def _check_activation(activation: str, w1: FloatArray, w_up: ArrayLike | None) -> FloatArray | None:
    """activation in ACTIVATIONS; w_up (d_model, d_ff) exactly when activation == "swiglu"."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(map(repr, ACTIVATIONS))}, got {activation!r}")
    if (activation == "swiglu") != (w_up is not None):
        raise ValueError('w_up (the "up" projection) is given exactly when activation is "swiglu"')
    if w_up is None:
        return None
    up = as_float_array("w_up", w_up, (2,), shape_str(w1.shape))
    if up.shape != w1.shape:
        raise ValueError(f"w_up has shape {shape_str(up.shape)} but w1 has shape {shape_str(w1.shape)}")
    return up


def _linear(x: Floats, w: Floats, b: Floats | None) -> Floats:
    """x W + b: x (..., n, d_in), w (d_in, d_out), b (d_out,) or None -> (..., n, d_out), in x's dtype."""
    if (
        x.ndim > 2
    ):  # a batch: one matrix product over every row (numpy's stacked matmul is a product per item)
        return _linear(x.reshape(-1, x.shape[-1]), w, b).reshape(*x.shape[:-1], w.shape[1])
    out = x @ w
    if b is not None:
        out += b
    return out


def _ffn(
    x: Floats,
    w1: Floats,
    w2: Floats,
    b1: Floats | None,
    b2: Floats | None,
    activation: str = "relu",
    w_up: Floats | None = None,
    b_up: Floats | None = None,
) -> FeedForwardTrace:
    """The FFN on checked inputs (any float dtype, kept): see FeedForwardTrace for each step's formula."""
    with np.errstate(over="ignore", invalid="ignore"):
        hidden_pre = _linear(x, w1, b1)  # (n, d_ff)
        check_result("ffn hidden layer", hidden_pre, "x W1 + b1")
        up = None if w_up is None else _linear(x, w_up, b_up)  # (n, d_ff) or None
        if activation == "relu":
            hidden = np.maximum(hidden_pre, 0.0)  # (n, d_ff)
        elif activation == "gelu":
            hidden = _gelu(hidden_pre)
        else:  # swiglu
            hidden = _silu(hidden_pre)
            hidden *= up
        output = _linear(hidden, w2, b2)  # (n, d_model)
        check_result("ffn output", output, "act(x W1 + b1) W2 + b2")
    arrays = (x, hidden_pre, hidden, output, up)
    return FeedForwardTrace(*(None if a is None else readonly(a) for a in arrays), activation=activation)


def feed_forward_trace(
    x: ArrayLike,
    w1: ArrayLike,
    w2: ArrayLike,
    b1: ArrayLike | None = None,
    b2: ArrayLike | None = None,
    *,
    activation: str = "relu",
    w_up: ArrayLike | None = None,
) -> FeedForwardTrace:
    """FFN(x) = act(x W1 + b1) W2 + b2, with every step (see FeedForwardTrace).

    act is max(0, .) ("relu", the paper's), exact GELU ("gelu", BERT's) or, with "swiglu" (Llama's),
    silu(x W1) * (x W_up): W1 is then the gate.

    Args:
        x: (n, d_model).
        w1: (d_model, d_ff).
        w2: (d_ff, d_model).
        b1: (d_ff,) or None (zeros).
        b2: (d_model,) or None (zeros).
        activation: "relu", "gelu" or "swiglu".
        w_up: (d_model, d_ff) for "swiglu", else None.
    """
    arr = as_float_array("x", x, (2,), "(n, d_model)")
    w1a, w2a, b1a, b2a = _check_ffn(arr.shape[1], w1, w2, b1, b2)
    up = _check_activation(activation, w1a, w_up)
    return _ffn(arr, w1a, w2a, b1a, b2a, activation, up)


def feed_forward(
    x: ArrayLike,
    w1: ArrayLike,
    w2: ArrayLike,
    b1: ArrayLike | None = None,
    b2: ArrayLike | None = None,
    *,
    activation: str = "relu",
    w_up: ArrayLike | None = None,
) -> FloatArray:
    """FFN(x) = act(x W1 + b1) W2 + b2 (ReLU by default), applied to each row (token) on its own.

    Args:
        x: (n, d_model).
        w1: (d_model, d_ff).
        w2: (d_ff, d_model).
        b1: (d_ff,) or None (zeros).
        b2: (d_model,) or None (zeros).
        activation: "relu", "gelu" or "swiglu" (see feed_forward_trace).
        w_up: (d_model, d_ff) for "swiglu", else None.

    Returns:
        (n, d_model) float64.
    """
    return np.array(feed_forward_trace(x, w1, w2, b1, b2, activation=activation, w_up=w_up).output)


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
        ffn_up: (n, d_ff) the SwiGLU "up" projection norm1 W_up (then ffn_hidden = silu(ffn_hidden_pre) *
            ffn_up), None for other activations.
        activation: "relu" (the toy layer), "gelu" (BERT) or "swiglu" (Llama).
        norm: "layer_norm" or "rms_norm" (Llama: x / sqrt(mean(x^2) + eps) * gain, no centring).

    The attention fields are also read directly on the layer: q, k, v, scores, scaled, masked, weights,
    head_outputs and concat are ``attention``'s (the attention's own output is ``attention.output``; a
    layer's ``output`` is the layer's).
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
    ffn_up: FloatArray | None = None
    activation: str = "relu"
    norm: str = "layer_norm"

    @property
    def ffn_input(self) -> FloatArray:
        """(n, d_model) what the feed-forward network reads: norm1 in both orders."""
        return self.norm1

    @property
    def q(self) -> FloatArray:
        """(h, n, d_k) the attention's queries (after RoPE where applied)."""
        return self.attention.q

    @property
    def k(self) -> FloatArray:
        """(h, n, d_k) the attention's keys, one per query head (after RoPE where applied)."""
        return self.attention.k

    @property
    def v(self) -> FloatArray:
        """(h, n, d_v) the attention's values, one per query head."""
        return self.attention.v

    @property
    def scores(self) -> FloatArray:
        """(h, n, n) q k^T."""
        return self.attention.scores

    @property
    def scaled(self) -> FloatArray:
        """(h, n, n) scores * scale."""
        return self.attention.scaled

    @property
    def masked(self) -> FloatArray:
        """(h, n, n) scaled with -inf where the mask forbids attending."""
        return self.attention.masked

    @property
    def weights(self) -> FloatArray:
        """(h, n, n) the softmax weights, rows are queries."""
        return self.attention.weights

    @property
    def head_outputs(self) -> FloatArray:
        """(h, n, d_v) weights @ v per head."""
        return self.attention.head_outputs

    @property
    def concat(self) -> FloatArray:
        """(n, h * d_v) the head outputs side by side (each scaled by its head_mask weight, if any)."""
        return self.attention.concat


def _add(name: str, a: FloatArray, b: FloatArray) -> FloatArray:
    with np.errstate(over="ignore"):
        total = a + b
    check_result(name, total, "the residual sum")
    return total
