"""The toy's encoder layer: its arguments checked (a ValueError names the one that is wrong), laid out as
transformer_layer reads them (stacked W_Q, W_K, W_V; no biases in attention; layer norm without gain),
float64, then run through the one engine function."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import as_float_array, as_real
from ..attention import _check_w_o, _check_weights, _mask_and_bias, _scale
from ..encoder import EncoderTrace, _check_ffn
from ..weights import LayerWeights, ModelConfig
from .layer import transformer_layer

Floats = NDArray[np.floating]


def encoder_layer(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike | None,
    w1: ArrayLike,
    w2: ArrayLike,
    *options: Any,
    **named: Any,
) -> EncoderTrace:
    """The toy's encoder layer: its arguments checked, then transformer_layer (layer norm without gain,
    ReLU, no biases in attention), float64.

    Post-norm (2017 paper): h = LN(x + MHA(x)); out = LN(h + FFN(h)).
    Pre-norm:               h = x + MHA(LN(x)); out = h + FFN(LN(h)).
    MHA is multi_head_attention(..., mask, scale, bias, use_rope); FFN(h) = max(0, h W1 + b1) W2 + b2;
    LN is layer_norm(., eps).

    The options b1 .. eps come in this order or by name, scale, bias and use_rope by name; toy_layer reads
    them all.

    Args:
        x: (n, d_model).
        w_q, w_k: (n_heads, d_model, d_k); w_v: (n_heads, d_model, d_v) (2-D means one head).
        w_o: (n_heads * d_v, d_model), or None when n_heads * d_v == d_model (output = concat).
        w1: (d_model, d_ff); w2: (d_ff, d_model); b1: (d_ff,) or None; b2: (d_model,) or None.
        mask: (n, n) or (n_heads, n, n) bool, True = may attend, or None.
        norm_first: False for post-norm, True for pre-norm.
        eps: float > 0, the layer norm epsilon.
        scale, bias, use_rope: as multi_head_attention's (RoPE base 10000).

    Returns:
        EncoderTrace with every stage.
    """
    weights, config, mask_arr, bias_arr, scale_f = toy_layer(x, w_q, w_k, w_v, w_o, w1, w2, *options, **named)
    xa = as_float_array("x", x, (2,), "(n, d_model)").copy()  # the trace keeps its own x
    return transformer_layer(xa, weights, config, mask_arr, scale=scale_f, bias=bias_arr)


def toy_layer(
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
    scale: float | None = None,
    bias: ArrayLike | None = None,
    use_rope: bool = False,
) -> tuple[LayerWeights, ModelConfig, NDArray[np.bool_] | None, Floats | None, float]:
    """encoder_layer's arguments checked (a ValueError names the one that is wrong) and laid out as
    transformer_layer reads them: (weights, config, mask, bias, scale). Shapes: see encoder_layer."""
    xa = as_float_array("x", x, (2,), "(n, d_model)")
    eps = as_real("eps", eps, positive=True)
    w1a, w2a, b1a, b2a = _check_ffn(xa.shape[1], w1, w2, b1, b2)
    wq, wk, wv = _check_weights(xa, w_q, w_k, w_v)
    h, n, d_k, d_v = wq.shape[0], xa.shape[0], wq.shape[2], wv.shape[2]
    w_out = _check_w_o(w_o, h, d_v, xa.shape[1])
    if w_out is None and h * d_v != xa.shape[1]:
        raise ValueError(
            f"w_o is None, so the attention output is the concat of width n_heads * d_v = {h * d_v}, but the "
            f"residual x + attention needs width d_model = {xa.shape[1]}: "
            f"give w_o of shape ({h * d_v}, {xa.shape[1]})"
        )
    mask_arr, bias_arr = _mask_and_bias(mask, bias, h, n, n, f"{n} tokens and {h} heads")
    if not isinstance(use_rope, bool | np.bool_):
        raise ValueError(f"use_rope must be True or False, got {use_rope!r}")
    w_qkv = np.concatenate([w.transpose(1, 0, 2).reshape(xa.shape[1], -1) for w in (wq, wk, wv)], axis=1)
    none = dict(attn_norm_gain=None, attn_norm_bias=None, norm1_gain=None, norm1_bias=None)
    weights = LayerWeights(w_qkv=w_qkv, b_qkv=None, w_o=w_out, b_o=None, w1=w1a, b1=b1a, w_up=None, w2=w2a,  # type: ignore[arg-type]
                           b2=b2a, **none, norm2_gain=None, norm2_bias=None, n_heads=h, n_kv_heads=h, d_k=d_k)  # fmt: skip
    config = ModelConfig(
        name="toy", n_layers=1, n_heads=h, n_kv_heads=h, d_model=xa.shape[1], d_k=d_k, d_ff=w1a.shape[1],
        vocab_size=0, max_positions=n, norm="layer_norm", norm_first=bool(norm_first), eps=eps,
        activation="relu", positions="rope" if use_rope else "none", rope_base=10000.0 if use_rope else None,
        causal=False, tied_embeddings=False, has_logits=False, dtype="float64",
    )  # fmt: skip
    own = lambda a: None if a is None else a.copy()  # noqa: E731 - the trace keeps its own, not the caller's
    return replace(weights, w_o=own(w_out)), config, own(mask_arr), own(bias_arr), _scale(scale, d_k)
