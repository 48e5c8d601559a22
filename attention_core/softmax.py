"""Softmax that is defined everywhere attention needs it: huge logits and fully masked rows."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validate import FloatArray, as_float_array, as_int

__all__ = ["softmax"]


def softmax(x: ArrayLike, axis: int = -1) -> FloatArray:
    """softmax(x)_j = exp(x_j - max(x)) / sum_k exp(x_k - max(x)), along ``axis``.

    Subtracting the row max keeps exp from overflowing: finite logits as large as ±1e308 give no NaN. -inf
    means "masked": it gets weight 0, and a row that is entirely -inf gives all zeros (never NaN). NaN and
    +inf are rejected with a ValueError (a +inf logit has no meaningful weight).

    Args:
        x: array of any shape with at least one entry, float; -inf allowed.
        axis: int, the axis that sums to 1.

    Returns:
        float64 array of x's shape: entries in [0, 1], each slice along ``axis`` sums to 1 (or is all 0).
    """
    arr = as_float_array("x", x, tuple(range(1, 33)), "(..., n)", finite=False)
    axis = as_int("axis", axis, -arr.ndim)
    if axis >= arr.ndim:
        raise ValueError(
            f"axis must be in -{arr.ndim} .. {arr.ndim - 1} for x of {arr.ndim} dimensions, got {axis}"
        )
    bad = np.isnan(arr) | (arr == np.inf)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"x contains {int(bad.sum())} NaN or +inf value(s), the first at index {first}: "
            "softmax needs finite logits (-inf is allowed and means masked)"
        )
    logits = np.moveaxis(arr, axis, -1)  # (..., n)
    out = np.empty(logits.shape)  # (..., n)
    softmax_into(logits, out)
    return np.moveaxis(out, -1, axis)


def softmax_into(z: FloatArray, out: FloatArray, shift: bool = True) -> FloatArray | None:
    """Write softmax(z) along the last axis into ``out`` (may be ``z`` itself). z: (..., n), no NaN or +inf.

    With ``shift`` (the safe default) the row max is subtracted first. Rows whose max is -inf (fully masked)
    become zeros: their max is replaced by 0, so exp(-inf - 0) = 0, and their sum 0 is replaced by 1 before
    dividing. Returns the row maxima (..., 1) of z as found (NaN or +inf there tell the caller z was not
    finite). ``shift=False`` skips the max (two passes fewer) and returns None: only for z whose finite
    entries are known to lie within ±600, where exp neither overflows nor underflows to 0.
    """
    found = None
    if shift:
        row_max = z.max(axis=-1, keepdims=True)  # (..., 1)
        found = row_max.copy()
        row_max[~np.isfinite(row_max)] = 0.0
        with np.errstate(over="ignore"):  # -1e308 - 1e308 = -inf, whose exp is the correct 0
            np.subtract(z, row_max, out=out)
        np.exp(out, out=out)
    else:
        np.exp(z, out=out)
    row_sum = out.sum(axis=-1, keepdims=True)  # (..., 1)
    row_sum[row_sum == 0.0] = 1.0
    np.reciprocal(row_sum, out=row_sum)
    np.multiply(out, row_sum, out=out)
    return found
