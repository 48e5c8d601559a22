"""The attention kernel on checked arrays: scores q k^T, scale, bias and mask, softmax, output weights @ v.

Shared by the toy's ``attention.multi_head_attention`` and the real models' ``transformer``: validation happens
in the callers; this module only computes, in blocks of query rows, without overflowing. Axis vocabulary:
rows are queries, columns are keys; masks are boolean, True = may attend.
"""

from __future__ import annotations

import numpy as np

from ._parallel import for_row_blocks
from ._validate import BoolArray, FloatArray
from .softmax import softmax_into

# Below this bound on |scaled scores| exp(s) lies within 1e-261 .. 1e261 and the row max need not be
# subtracted: a row of n_k such terms sums to at most n_k * 1e261, far below the float64 limit of 1.8e308.
# float32 (the real models): exp(±60) lies within 1e-27 .. 1e26, a row of up to 1e12 terms stays finite.
_SAFE_BOUND = 600.0
_SAFE_BOUND_32 = 60.0

_OVERFLOW = (
    "scores overflow: q k^T * scale{bias} exceeds the float64 range (about ±1.8e308) for at least one "
    "query-key pair, so softmax is undefined; use smaller inputs, weights or scale"
)


def _normalise(
    scores: FloatArray,
    scale: float,
    bias: FloatArray | None,
    mask: BoolArray | None,
    bound: float,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """scaled = scores * scale; masked = scaled + bias, -inf where masked; weights = softmax(masked).

    scores: (h, n_q, n_k); bias: (1 or h, n_q, n_k) or None; mask: (1 or h, n_q, n_k) or None; bound: an
    upper bound of |scaled + bias|. Below _SAFE_BOUND exp cannot overflow, so softmax skips the row max (it
    changes no digit that matters) and no overflow check is needed. Runs over blocks of query rows (see
    _parallel), so every step of a block stays in the cache.
    """
    scaled = scores if scale == 1.0 else np.empty_like(scores)
    masked = scaled if bias is None and mask is None else np.empty_like(scores)
    weights = np.empty_like(scores)
    blocked = None if mask is None else ~mask  # (1 or h, n_q, n_k)
    # Which rows may attend to at least one key: (1 or h, n_q, 1); the others are fully masked.
    open_rows = None if mask is None else mask.any(axis=-1, keepdims=True)
    safe = bound < (_SAFE_BOUND if scores.dtype == np.float64 else _SAFE_BOUND_32)

    def work(rows: slice) -> None:
        if scaled is not scores:
            np.multiply(scores[:, rows], scale, out=scaled[:, rows])
        if bias is not None:
            np.add(scaled[:, rows], bias[:, rows], out=masked[:, rows])
        elif masked is not scaled:
            np.copyto(masked[:, rows], scaled[:, rows])
        if blocked is not None:
            np.copyto(masked[:, rows], -np.inf, where=blocked[:, rows])
        row_max = softmax_into(masked[:, rows], weights[:, rows], shift=not safe)  # (h, rows, 1) or None
        if row_max is not None:
            _check_overflow(row_max, None if open_rows is None else open_rows[:, rows], bias is not None)

    with np.errstate(over="ignore", invalid="ignore"):  # overflow is detected by _check_overflow
        for_row_blocks(work, scores.shape[1], scores.shape[0] * scores.shape[2])
    return scaled, masked, weights


def _score_bound(q: FloatArray, k: FloatArray, scale: float, bias: FloatArray | None) -> float:
    """max over heads of |scale| * max_i |q_i| * max_j |k_j| + max |bias|: no |scaled + bias| exceeds it.

    (Cauchy-Schwarz: |q_i . k_j| <= |q_i| |k_j|.) q: (h, n_q, d_k), k: (h, n_k, d_k). inf when huge.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        q_norm = np.sqrt(np.einsum("hnd,hnd->hn", q, q).max(axis=1))  # (h,)
        k_norm = np.sqrt(np.einsum("hnd,hnd->hn", k, k).max(axis=1))  # (h,)
        bound = float(abs(scale) * (q_norm * k_norm).max())
        return bound + (0.0 if bias is None else float(np.abs(bias).max()))


def _check_overflow(row_max: FloatArray, open_rows: BoolArray | None, has_bias: bool) -> None:
    """Raise if the scaled scores overflowed: a row max of +inf or NaN, or -inf in a row that is not masked.

    A score that overflowed to -inf in a row whose max is finite gets weight exp(-inf) = 0, which is also its
    exact weight in float64, so that case needs no error. row_max: (h, rows, 1); open_rows: (1 or h, rows, 1).
    """
    finite = np.isfinite(row_max)
    if finite.all():
        return
    fully_masked = row_max == -np.inf
    if open_rows is not None:
        fully_masked &= ~open_rows
    if not (finite | fully_masked).all():
        raise ValueError(_OVERFLOW.format(bias=" + bias" if has_bias else ""))


def _attend(
    q: FloatArray,
    k: FloatArray,
    v: FloatArray,
    scale: float,
    bias: FloatArray | None,
    mask: BoolArray | None,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """Batched attention on checked inputs: q (h, n_q, d_k), k (h, n_k, d_k), v (h, n_k, d_v).

    bias and mask: (1 or h, n_q, n_k) or None. Returns scores, scaled, masked, weights (h, n_q, n_k) and the
    output (h, n_q, d_v).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        scores = np.matmul(q, k.transpose(0, 2, 1))  # (h, n_q, n_k)
    scaled, masked, weights = _normalise(scores, scale, bias, mask, _score_bound(q, k, scale, bias))
    out = np.matmul(weights, v)  # (h, n_q, d_v)
    return scores, scaled, masked, weights, out
