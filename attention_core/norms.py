"""Normalisation of each token's vector: layer norm (BERT, the 2017 paper) and RMS norm (Llama, SmolLM2).

The private versions keep their input's dtype (float64 for the toy engine, float32 for the real models).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validate import FloatArray, as_float_array, as_real, shape_str

__all__ = ["layer_norm", "rms_norm"]

Floats = NDArray[np.floating]


def _gain_and_bias(
    d: int, gain: ArrayLike | None, bias: ArrayLike | None
) -> tuple[FloatArray | None, FloatArray | None]:
    """gain, bias: (d,) finite or None."""
    out = []
    for name, value in (("gain", gain), ("bias", bias)):
        arr = None if value is None else as_float_array(name, value, (1,), f"({d},)")
        if arr is not None and arr.shape != (d,):
            raise ValueError(
                f"{name} has shape {shape_str(arr.shape)} but x has {d} columns: expected ({d},)"
            )
        out.append(arr)
    return out[0], out[1]


def layer_norm(
    x: ArrayLike, eps: float = 1e-5, gain: ArrayLike | None = None, bias: ArrayLike | None = None
) -> FloatArray:
    """LN(x) = (x - mean(x)) / sqrt(var(x) + eps) * gain + bias per row (biased variance).

    Computed on each row divided by its largest magnitude (the same result, as LN is scale-free up to eps),
    so finite values as large as 1e308 give no overflow. A constant row gives zeros (then bias).

    Args:
        x: (n, d) or (d,), finite.
        eps: float > 0.
        gain: (d,) the learned scale (gamma), or None (ones).
        bias: (d,) the learned shift (beta), or None (zeros).

    Returns:
        float64 array of x's shape; without gain and bias each row has mean 0 and variance var/(var + eps).
    """
    arr = as_float_array("x", x, (1, 2), "(n, d) or (d,)")
    eps = as_real("eps", eps, positive=True)
    g, b = _gain_and_bias(arr.shape[-1], gain, bias)
    return _layer_norm(arr, eps, g, b)


def _layer_norm(x: Floats, eps: float, gain: Floats | None = None, bias: Floats | None = None) -> Floats:
    peak = np.abs(x).max(axis=-1, keepdims=True)  # (n, 1)
    peak[peak == 0.0] = 1.0
    xs = x / peak  # (n, d), entries in [-1, 1]
    centred = xs - xs.mean(axis=-1, keepdims=True)  # (n, d)
    var = np.mean(centred * centred, axis=-1, keepdims=True)  # (n, 1)
    with np.errstate(over="ignore", under="ignore"):  # eps / peak^2 may overflow to inf: the result is then 0
        out = centred / np.sqrt(var + eps / (peak * peak))
    if gain is not None:
        out *= gain
    if bias is not None:
        out += bias
    return out


def rms_norm(x: ArrayLike, eps: float = 1e-6, gain: ArrayLike | None = None) -> FloatArray:
    """RMSNorm(x) = x / sqrt(mean(x^2) + eps) * gain per row (Zhang & Sennrich 2019): no centring, no bias.

    Computed on each row divided by its largest magnitude (the same result up to eps), so finite values as
    large as 1e308 give no overflow. A zero row stays zero.

    Args:
        x: (n, d) or (d,), finite.
        eps: float > 0.
        gain: (d,) the learned scale, or None (ones).

    Returns:
        float64 array of x's shape; without gain each row has mean square ms/(ms + eps) (about 1).
    """
    arr = as_float_array("x", x, (1, 2), "(n, d) or (d,)")
    eps = as_real("eps", eps, positive=True)
    g, _ = _gain_and_bias(arr.shape[-1], gain, None)
    return _rms_norm(arr, eps, g)


def _rms_norm(x: Floats, eps: float, gain: Floats | None = None) -> Floats:
    peak = np.abs(x).max(axis=-1, keepdims=True)  # (n, 1)
    peak[peak == 0.0] = 1.0
    xs = x / peak  # (n, d), entries in [-1, 1]
    mean_sq = np.mean(xs * xs, axis=-1, keepdims=True)  # (n, 1)
    with np.errstate(over="ignore", under="ignore"):
        out = xs / np.sqrt(mean_sq + eps / (peak * peak))
    if gain is not None:
        out *= gain
    return out
