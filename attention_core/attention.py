"""Scaled dot-product attention and multi-head attention, returning every intermediate matrix.

Axis vocabulary: rows are queries, columns are keys, in every (.., n_q, n_k) array. Masks are boolean,
True = may attend. The kernel they share with the real models (``_attend``) lives in ``kernel``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    BoolArray,
    FloatArray,
    as_bool_array,
    as_float_array,
    as_real,
    check_result,
    readonly,
    shape_str,
)
from .kernel import _attend
from .positional import _rotate

__all__ = [
    "AttentionTrace",
    "scaled_dot_product_attention",
    "multi_head_attention",
    "weighted_value_contributions",
]


@dataclass(frozen=True, eq=False)
class AttentionTrace:
    """Every step of multi-head attention. Arrays are read-only; h = n_heads, n = number of tokens.

    Fields:
        x: (n, d_model) the input.
        q: (h, n, d_k) queries x W_Q per head (after RoPE when ``use_rope``).
        k: (h, n, d_k) keys x W_K per head (after RoPE when ``use_rope``).
        v: (h, n, d_v) values x W_V per head.
        scores: (h, n, n) raw scores q k^T; rows are queries, columns keys.
        scaled: (h, n, n) scores * scale (the same array as ``scores`` when scale == 1).
        masked: (h, n, n) scaled + bias, with -inf where the mask forbids attending (the same array as
            ``scaled`` when there is neither mask nor bias).
        weights: (h, n, n) softmax of ``masked`` along keys; rows sum to 1, a fully masked row is all 0.
        head_outputs: (h, n, d_v) weights @ v per head (a fully masked query gets a zero row).
        concat: (n, h * d_v) the head outputs side by side, head 0 first.
        output: (n, d_model) concat @ w_o, or ``concat`` itself when w_o is None.
        mask: (n, n) or (h, n, n) bool as given, or None.
        bias: (n, n) or (h, n, n) as given, or None.
        scale: the factor applied to the scores (1/sqrt(d_k) by default).
        w_o: (h * d_v, d_model) or None.
        use_rope: whether RoPE rotated q and k.
        q_pre_rope, k_pre_rope: (h, n, d_k) q and k before RoPE, or None without RoPE.
        kv_head: grouped-query attention (the real decoder): query head i reads key/value head kv_head[i],
            so k and v above repeat each shared head for its query heads; None when every head has its own.
        head_mask: (h,) the weight of each head's output in concat (1 keeps, 0 removes), or None (all 1).
        b_o: (d_model,) the output projection's bias (output = concat @ w_o + b_o), or None.
    """

    x: FloatArray
    q: FloatArray
    k: FloatArray
    v: FloatArray
    scores: FloatArray
    scaled: FloatArray
    masked: FloatArray
    weights: FloatArray
    head_outputs: FloatArray
    concat: FloatArray
    output: FloatArray
    mask: BoolArray | None
    bias: FloatArray | None
    scale: float
    w_o: FloatArray | None
    use_rope: bool = False
    q_pre_rope: FloatArray | None = None
    k_pre_rope: FloatArray | None = None
    kv_head: tuple[int, ...] | None = None
    head_mask: FloatArray | None = None
    b_o: FloatArray | None = None

    @property
    def n_heads(self) -> int:
        return int(self.q.shape[0])

    @property
    def n_tokens(self) -> int:
        return int(self.x.shape[0])

    @property
    def d_k(self) -> int:
        return int(self.q.shape[2])

    @property
    def d_v(self) -> int:
        return int(self.v.shape[2])

    @property
    def nbytes(self) -> int:
        """Bytes held by the trace's arrays, counting an array shared by two fields once."""
        seen: set[tuple[int, tuple[int, ...], tuple[int, ...]]] = set()
        total = 0
        for f in fields(self):
            arr = getattr(self, f.name)
            if isinstance(arr, np.ndarray):
                key = (arr.__array_interface__["data"][0], arr.shape, arr.strides)
                if key not in seen:
                    seen.add(key)
                    total += arr.nbytes
        return total


def _check_pair(name: str, arr: FloatArray, other: str, other_arr: FloatArray, axis: int, what: str) -> None:
    if arr.shape[axis] != other_arr.shape[axis]:
        raise ValueError(
            f"{name} has shape {shape_str(arr.shape)} but {other} has shape "
            f"{shape_str(other_arr.shape)}: {what}"
        )


def _mask_and_bias(
    mask: ArrayLike | None, bias: ArrayLike | None, n_heads: int, n_q: int, n_k: int, what: str
) -> tuple[BoolArray | None, FloatArray | None]:
    """Check mask (bool) and bias (finite), each (n_q, n_k) or (n_heads, n_q, n_k)."""
    ok = {(n_q, n_k), (n_heads, n_q, n_k)} if n_heads > 1 else {(n_q, n_k), (1, n_q, n_k)}
    expected = f"({n_q}, {n_k})" + (f" or ({n_heads}, {n_q}, {n_k})" if n_heads > 1 else "")
    checked: list[FloatArray | BoolArray | None] = []
    for name, value in (("mask", mask), ("bias", bias)):
        if value is None:
            checked.append(None)
            continue
        if name == "mask":
            arr: FloatArray | BoolArray = as_bool_array(name, value, (2, 3), expected)
        else:
            hint = ": to stop a query attending to a key, use mask (False) rather than a -inf bias"
            arr = as_float_array(name, value, (2, 3), expected, hint=hint)
        if arr.shape not in ok:
            raise ValueError(f"{name} has shape {shape_str(arr.shape)} but expected {expected} for {what}")
        checked.append(arr)
    return checked[0], checked[1]


def _scale(scale: float | None, d_k: int) -> float:
    return 1.0 / math.sqrt(d_k) if scale is None else as_real("scale", scale)


def scaled_dot_product_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    bias: ArrayLike | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Attention(Q, K, V) = softmax(Q K^T * scale + bias, masked) V, for one head.

    weights[i, j] = exp(s_ij) / sum_j' exp(s_ij') over the keys j that query i may attend to, with
    s = q k^T * scale + bias; scale defaults to 1/sqrt(d_k). A query whose keys are all masked gets zero
    weights and a zero output row. Overflowing scores raise ValueError.

    Args:
        q: (n_q, d_k) queries.
        k: (n_k, d_k) keys.
        v: (n_k, d_v) values.
        mask: (n_q, n_k) bool, True = may attend, or None.
        scale: finite float or None (1/sqrt(d_k)).
        bias: (n_q, n_k) finite floats added to the scaled scores (e.g. ALiBi), or None.

    Returns:
        output: (n_q, d_v) float64, weights @ v.
        weights: (n_q, n_k) float64.
    """
    q = as_float_array("q", q, (2,), "(n_q, d_k)")
    k = as_float_array("k", k, (2,), "(n_k, d_k)")
    v = as_float_array("v", v, (2,), "(n_k, d_v)")
    _check_pair("k", k, "q", q, 1, "q and k must have the same number of columns d_k")
    _check_pair("v", v, "k", k, 0, "v needs one row per key (one per row of k)")
    mask_arr, bias_arr = _mask_and_bias(mask, bias, 1, q.shape[0], k.shape[0], "(n_q, n_k) queries by keys")
    _, _, _, weights, out = _attend(
        q[None],
        k[None],
        v[None],
        _scale(scale, q.shape[1]),
        None if bias_arr is None else bias_arr[None],
        None if mask_arr is None else mask_arr[None],
    )
    return out[0], weights[0]


def _check_weights(
    x: FloatArray, w_q: ArrayLike, w_k: ArrayLike, w_v: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """w_q, w_k: (h, d_model, d_k), w_v: (h, d_model, d_v); a 2-D matrix is one head."""
    arrays = []
    for name, value, d in (("w_q", w_q, "d_k"), ("w_k", w_k, "d_k"), ("w_v", w_v, "d_v")):
        shape = np.shape(value) if isinstance(value, np.ndarray) else ()
        if len(shape) == 3 and shape[0] == 0:
            raise ValueError(
                f"{name} has shape {shape_str(shape)}, that is 0 heads: n_heads must be at least 1"
            )
        arr = as_float_array(name, value, (2, 3), f"(n_heads, d_model, {d})")
        arr = arr[None] if arr.ndim == 2 else arr  # (h, d_model, d)
        if arr.shape[1] != x.shape[1]:
            raise ValueError(
                f"{name} has shape {shape_str(arr.shape)} but x has shape {shape_str(x.shape)}: each head of "
                f"{name.upper()} needs d_model = {x.shape[1]} rows, one per column of x"
            )
        arrays.append(arr)
    wq, wk, wv = arrays
    _check_pair("w_k", wk, "w_q", wq, 0, "W_Q and W_K must have the same number of heads")
    _check_pair("w_k", wk, "w_q", wq, 2, "W_Q and W_K must have the same d_k")
    _check_pair("w_v", wv, "w_q", wq, 0, "W_V must have the same number of heads as W_Q")
    return wq, wk, wv


def _check_w_o(w_o: ArrayLike | None, n_heads: int, d_v: int, d_model: int) -> FloatArray | None:
    if w_o is None:
        return None
    expected = f"({n_heads * d_v}, {d_model}) = (n_heads * d_v, d_model) = ({n_heads} * {d_v}, {d_model})"
    arr = as_float_array("w_o", w_o, (2,), expected)
    if arr.shape != (n_heads * d_v, d_model):
        raise ValueError(f"w_o has shape {shape_str(arr.shape)} but expected {expected}")
    return arr


def multi_head_attention(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    scale: float | None = None,
    bias: ArrayLike | None = None,
    use_rope: bool = False,
) -> AttentionTrace:
    """Multi-head self-attention, traced.

    MHA(x) = concat_h(softmax(q_h k_h^T * scale + bias_h, mask) v_h) W_O, where
    q_h = x W_Q[h], k_h = x W_K[h], v_h = x W_V[h], all heads in one stacked matmul; with ``use_rope``,
    q_h and k_h are rotated by RoPE (positions 0 .. n-1, base 10000) before the scores. scale defaults to
    1/sqrt(d_k). A query whose keys are all masked gets zero weights and a zero head output. Finite inputs
    whose products overflow float64 (e.g. entries near 1e200) raise a ValueError that names the overflowing
    step ("q, k, v overflows ...", "scores overflow ..."), never a NaN.

    Args:
        x: (n, d_model) token vectors, one row per token.
        w_q: (n_heads, d_model, d_k); a 2-D (d_model, d_k) matrix means one head.
        w_k: (n_heads, d_model, d_k), or 2-D for one head.
        w_v: (n_heads, d_model, d_v), or 2-D for one head.
        w_o: (n_heads * d_v, d_model) or None (then output = concat).
        mask: (n, n) shared by all heads or (n_heads, n, n), bool, True = may attend; or None.
        scale: finite float or None (1/sqrt(d_k)).
        bias: (n, n) or (n_heads, n, n) finite floats added after scaling (e.g. alibi_bias), or None.
        use_rope: apply rotary position embeddings to q and k.

    Returns:
        AttentionTrace holding every intermediate (see its field list).
    """
    x = as_float_array("x", x, (2,), "(n, d_model)")
    wq, wk, wv = _check_weights(x, w_q, w_k, w_v)
    n_heads, n, d_k, d_v = wq.shape[0], x.shape[0], wq.shape[2], wv.shape[2]
    w_out = _check_w_o(w_o, n_heads, d_v, x.shape[1])
    mask_arr, bias_arr = _mask_and_bias(mask, bias, n_heads, n, n, f"{n} tokens and {n_heads} heads")
    scale_f = _scale(scale, d_k)
    if not isinstance(use_rope, bool | np.bool_):
        raise ValueError(f"use_rope must be True or False, got {use_rope!r}")

    q, k, v, q_pre, k_pre = _project(x, wq, wk, wv, bool(use_rope))
    per_head = lambda a: None if a is None else a.reshape(-1, n, n)  # noqa: E731 - (1 or h, n, n)
    scores, scaled, masked, weights, heads = _attend(q, k, v, scale_f, per_head(bias_arr), per_head(mask_arr))
    concat = heads.transpose(1, 0, 2).reshape(n, n_heads * d_v)  # (n, h * d_v), head 0 first
    output = concat if w_out is None else _project_out(concat, w_out)
    return _freeze(x=x, q=q, k=k, v=v, scores=scores, scaled=scaled, masked=masked, weights=weights,
                   head_outputs=heads, concat=concat, output=output, mask=mask_arr, bias=bias_arr, scale=scale_f,
                   w_o=w_out, use_rope=bool(use_rope), q_pre_rope=q_pre, k_pre_rope=k_pre)  # fmt: skip


def _project(
    x: FloatArray, wq: FloatArray, wk: FloatArray, wv: FloatArray, use_rope: bool
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray | None, FloatArray | None]:
    """q, k, v = x W_Q, x W_K, x W_V for every head in one stacked matmul, then RoPE on q and k if asked.

    x: (n, d_model); wq, wk: (h, d_model, d_k); wv: (h, d_model, d_v). Returns q, k (h, n, d_k), v (h, n, d_v)
    and q, k before RoPE (None without RoPE).
    """
    (n_heads, d_model, d_k), d_v, n = wq.shape, wv.shape[2], x.shape[0]
    width = 2 * d_k + d_v
    w_all = np.concatenate([w.transpose(1, 0, 2) for w in (wq, wk, wv)], axis=2)  # (d_model, h, 2 d_k + d_v)
    with np.errstate(over="ignore", invalid="ignore"):
        qkv = x @ w_all.reshape(d_model, n_heads * width)  # (n, h * (2 d_k + d_v)): one matmul for all
    check_result("q, k, v", qkv, "x W_Q, x W_K, x W_V")
    qkv = qkv.reshape(n, n_heads, width).transpose(1, 0, 2)  # (h, n, 2 d_k + d_v), a view
    q, k, v = qkv[..., :d_k], qkv[..., d_k : 2 * d_k], qkv[..., 2 * d_k :]  # (h, n, d_k/d_k/d_v) views
    if not use_rope:
        return q, k, v, None, None
    positions = np.arange(x.shape[0], dtype=np.float64)
    return _rotate(q, positions, 10000.0), _rotate(k, positions, 10000.0), v, q, k  # (h, n, d_k) rotated


def _project_out(concat: FloatArray, w_o: FloatArray) -> FloatArray:
    with np.errstate(over="ignore", invalid="ignore"):
        output = concat @ w_o  # (n, d_model)
    check_result("output", output, "concat W_O")
    return output


_CALLER_ARRAYS = ("x", "mask", "bias", "w_o")


def _freeze(**values: object) -> AttentionTrace:
    """Build the trace with read-only arrays, so no field can be changed through another or by the caller.

    The caller's own arrays (x, mask, bias, w_o) are copied: editing them later leaves the trace as it was.
    """
    frozen = {}
    for key, val in values.items():
        if isinstance(val, np.ndarray):
            val = readonly(val.copy() if key in _CALLER_ARRAYS else val)
        frozen[key] = val
    return AttentionTrace(**frozen)  # type: ignore[arg-type]


def weighted_value_contributions(weights: ArrayLike, v: ArrayLike) -> FloatArray:
    """What each key adds to each query's output: contrib[i, j] = weights[i, j] * v[j].

    Summing over keys gives the attention output: contrib.sum(axis=-2) == weights @ v. The app's
    "one token's view" draws contrib[i] (one bar group per key).

    Args:
        weights: (n_q, n_k), or (n_heads, n_q, n_k) per head.
        v: (n_k, d_v), or (n_heads, n_k, d_v) per head (same number of dimensions as weights).

    Returns:
        (n_q, n_k, d_v), or (n_heads, n_q, n_k, d_v), float64. It holds n_q * n_k * d_v numbers: for one
        query's view pass its row only, weights[i : i + 1].
    """
    w = as_float_array("weights", weights, (2, 3), "(n_q, n_k) or (n_heads, n_q, n_k)")
    values = as_float_array("v", v, (2, 3), "(n_k, d_v) or (n_heads, n_k, d_v)")
    if w.ndim != values.ndim or (w.ndim == 3 and w.shape[0] != values.shape[0]):
        raise ValueError(
            f"v has shape {shape_str(values.shape)} but weights has shape {shape_str(w.shape)}: "
            "give both per head (3-D, same n_heads) or both for one head (2-D)"
        )
    if values.shape[-2] != w.shape[-1]:
        raise ValueError(
            f"v has shape {shape_str(values.shape)} but weights has shape {shape_str(w.shape)}: "
            f"v needs one row per key, {w.shape[-1]} (one per column of weights)"
        )
    return w[..., :, :, None] * values[..., None, :, :]  # (..., n_q, n_k, d_v)
