"""Activation functions of feed-forward networks: ReLU, exact (erf) GELU and SiLU (the gate of SwiGLU).

Each keeps its input's dtype: the toy engine calls them on float64, the real models on float32.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validate import FloatArray, as_float_array

__all__ = ["ACTIVATIONS", "erf", "gelu", "silu"]

# The activations a feed-forward network may use ("swiglu": silu(x W_gate) * (x W_up), see encoder.py).
ACTIVATIONS: tuple[str, ...] = ("relu", "gelu", "swiglu")

_erf_exact = np.frompyfunc(math.erf, 1, 1)  # the C library's erf, one element at a time

# Numerical Recipes' Chebyshev fit of erfc (Press et al., "erfcc"): erfc(z) = t exp(-z^2 + P(t)),
# t = 1 / (1 + z/2), z >= 0, fractional error below 1.2e-7 everywhere. Coefficients of P, constant first.
_ERFC_FIT = (
    -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
    0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277,
)  # fmt: skip


def _erf(x: NDArray[np.floating]) -> NDArray[np.floating]:
    """erf(x) in x's dtype. float64: math.erf element by element (exact); float32: the erfc fit above,
    computed in float64 (its error, < 1.2e-7, is at float32's resolution near 1), ~30x faster. x: any shape."""
    if x.dtype == np.float64:
        return _erf_exact(x).astype(np.float64) if x.size else x.copy()
    z = np.abs(x, dtype=np.float64)  # (same shape), float64 from here on; updated in place below
    t = 0.5 * z
    t += 1.0
    np.reciprocal(t, out=t)  # t = 1 / (1 + z/2)
    poly = _ERFC_FIT[-1] * t
    poly += _ERFC_FIT[-2]
    for c in _ERFC_FIT[-3::-1]:  # Horner (a loop over coefficients, not over tokens)
        poly *= t
        poly += c
    z *= z
    poly -= z
    with np.errstate(under="ignore"):
        np.exp(poly, out=poly)
    poly *= t  # erfc(|x|)
    np.subtract(1.0, poly, out=poly)  # erf(|x|)
    return np.copysign(poly, x, dtype=x.dtype, casting="same_kind")


def erf(x: ArrayLike) -> FloatArray:
    """The error function erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt, element by element.

    Args:
        x: array of any shape, finite.

    Returns:
        float64 array of x's shape (exact: the C library's erf).
    """
    return _erf(as_float_array("x", x, tuple(range(0, 33)), "(...)"))


def _gelu(x: NDArray[np.floating]) -> NDArray[np.floating]:
    """x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2))), in x's dtype (see _erf for the precision)."""
    return (0.5 * x) * (1.0 + _erf(x * x.dtype.type(1.0 / math.sqrt(2.0))))


def gelu(x: ArrayLike) -> FloatArray:
    """GELU(x) = x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2))): the exact form (BERT's), not the tanh estimate.

    Args:
        x: array of any shape, finite.

    Returns:
        float64 array of x's shape.
    """
    return _gelu(as_float_array("x", x, tuple(range(0, 33)), "(...)"))


def _silu(x: NDArray[np.floating]) -> NDArray[np.floating]:
    """x * sigmoid(x) = x / (1 + exp(-x)), in x's dtype; exp(-x) overflowing for x << 0 gives the exact -0."""
    with np.errstate(over="ignore"):
        out = np.negative(x)  # one array for every step: these are the feed-forward network's widest rows
        np.exp(out, out=out)
        out += 1.0
        return np.divide(x, out, out=out)


def silu(x: ArrayLike) -> FloatArray:
    """SiLU(x) = x * sigmoid(x) = x / (1 + exp(-x)) (also called swish): the gate of SwiGLU.

    Args:
        x: array of any shape, finite.

    Returns:
        float64 array of x's shape.
    """
    return _silu(as_float_array("x", x, tuple(range(0, 33)), "(...)"))
