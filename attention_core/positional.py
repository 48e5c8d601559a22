"""Position information: sinusoidal encodings, rotary embeddings (RoPE) and ALiBi biases."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validate import FloatArray, as_float_array, as_int, as_real, shape_str

__all__ = [
    "POSITIONAL_KINDS",
    "positional_encoding",
    "notebook_positional_encoding",
    "rope",
    "alibi_slopes",
    "alibi_bias",
]

POSITIONAL_KINDS: tuple[str, ...] = ("sinusoidal", "sinusoidal_split", "none")


def _pair_angles(positions: FloatArray, n_pairs: int, d_model: int, base: float) -> FloatArray:
    """angle[pos, i] = pos / base^(2i / d_model), for pair index i = 0 .. n_pairs-1.  # (n, n_pairs)"""
    inv_freq = base ** (-2.0 * np.arange(n_pairs) / d_model)  # (n_pairs,)
    return np.outer(positions, inv_freq)  # (n, n_pairs)


def positional_encoding(
    n_positions: int, d_model: int, kind: str = "sinusoidal", base: float = 10000.0
) -> FloatArray:
    """Fixed positional encodings, one row per position 0 .. n_positions-1.

    kind="sinusoidal" (Vaswani et al. 2017, section 3.5), interleaved columns:
        PE(pos, 2i)   = sin(pos / base^(2i/d_model))
        PE(pos, 2i+1) = cos(pos / base^(2i/d_model))
      the exponent uses the PAIR index i, so columns 2i and 2i+1 share a frequency; an odd d_model ends on a
      sin column. At pos 1, d_model 4: [0.84147098, 0.54030231, 0.00999983, 0.99995].
    kind="sinusoidal_split": the same values with all ceil(d/2) sin columns first, then the floor(d/2) cos
      columns (tensor2tensor's layout): a column permutation of "sinusoidal".
    kind="none": zeros (no position information).

    Args:
        n_positions: int >= 1, the number of rows n.
        d_model: int >= 1.
        kind: one of POSITIONAL_KINDS.
        base: float > 0, the wavelength base (10000 in the paper).

    Returns:
        PE: (n_positions, d_model) float64.
    """
    n_positions = as_int("n_positions", n_positions, 1)
    d_model = as_int("d_model", d_model, 1)
    base = as_real("base", base, positive=True)
    if kind not in POSITIONAL_KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, POSITIONAL_KINDS))}, got {kind!r}")
    pe = np.zeros((n_positions, d_model))  # (n, d_model)
    if kind == "none":
        return pe
    n_sin, n_cos = (d_model + 1) // 2, d_model // 2
    angles = _pair_angles(np.arange(n_positions, dtype=np.float64), n_sin, d_model, base)  # (n, n_sin)
    if kind == "sinusoidal":
        pe[:, 0::2] = np.sin(angles)
        pe[:, 1::2] = np.cos(angles[:, :n_cos])
    else:
        pe[:, :n_sin] = np.sin(angles)
        pe[:, n_sin:] = np.cos(angles[:, :n_cos])
    return pe


def notebook_positional_encoding(n_positions: int, d_model: int, base: float = 10000.0) -> FloatArray:
    """The common mistake of seed notebook 000, kept so the app can show it beside the paper's formula.

    PE(pos, i) = sin(pos / base^(2i/d_model)) for even i, cos(pos / base^(2i/d_model)) for odd i: the
    exponent uses the DIMENSION index i instead of the pair index, so every column has its own frequency and
    the high columns barely move. At pos 1, d_model 4: [0.84147098, 0.99995, 0.0001, 1.0].

    Args:
        n_positions: int >= 1.
        d_model: int >= 1.
        base: float > 0.

    Returns:
        PE: (n_positions, d_model) float64.
    """
    n_positions = as_int("n_positions", n_positions, 1)
    d_model = as_int("d_model", d_model, 1)
    base = as_real("base", base, positive=True)
    angles = _pair_angles(np.arange(n_positions, dtype=np.float64), d_model, d_model, base)  # (n, d_model)
    is_even = np.arange(d_model) % 2 == 0  # (d_model,)
    return np.where(is_even, np.sin(angles), np.cos(angles))


def rope(x: ArrayLike, base: float = 10000.0, positions: ArrayLike | None = None) -> FloatArray:
    """Rotary position embedding (Su et al., RoFormer): rotate each pair of columns by a position angle.

    For row pos and pair i = 0 .. d//2 - 1, with t = positions[pos] * base^(-2i/d):
        out[pos, 2i]   = x[pos, 2i] cos t - x[pos, 2i+1] sin t
        out[pos, 2i+1] = x[pos, 2i] sin t + x[pos, 2i+1] cos t
    Norms are kept, and (rope(q) at m) . (rope(k) at n) depends only on m - n. An odd d leaves its last
    column unrotated.

    Args:
        x: (n, d) or (n_heads, n, d): rows are positions, the last axis is rotated.
        base: float > 0.
        positions: (n,) finite numbers, default 0 .. n-1.

    Returns:
        (same shape as x) float64, a new array.
    """
    x = as_float_array("x", x, (2, 3), "(n, d) or (n_heads, n, d)")
    base = as_real("base", base, positive=True)
    n, d = x.shape[-2:]
    if positions is None:
        pos = np.arange(n, dtype=np.float64)
    else:
        pos = as_float_array("positions", positions, (1,), f"({n},)")
        if pos.shape != (n,):
            raise ValueError(
                f"positions has shape {shape_str(pos.shape)} but x has {n} rows: expected shape ({n},)"
            )
    return _rotate(x, pos, base)


def _rotate(x: FloatArray, pos: FloatArray, base: float) -> FloatArray:
    """RoPE without checks, for (..., n, d) arrays, in x's dtype (angles computed in float64)."""
    d = x.shape[-1]
    n_pairs = d // 2
    angles = _pair_angles(pos, n_pairs, d, base)  # (n, n_pairs)
    cos, sin = np.cos(angles).astype(x.dtype, copy=False), np.sin(angles).astype(x.dtype, copy=False)
    even, odd = x[..., 0 : 2 * n_pairs : 2], x[..., 1 : 2 * n_pairs : 2]  # (..., n, n_pairs)
    out = x.copy()
    out[..., 0 : 2 * n_pairs : 2] = even * cos - odd * sin
    out[..., 1 : 2 * n_pairs : 2] = even * sin + odd * cos
    return out


def alibi_slopes(n_heads: int) -> FloatArray:
    """ALiBi head slopes (Press et al. 2022): slope_h = 2^(-8 (h+1) / n_heads), h = 0 .. n_heads-1.

    Args:
        n_heads: int >= 1.

    Returns:
        (n_heads,) float64, decreasing from 2^(-8/n_heads) to 2^-8.
    """
    n_heads = as_int("n_heads", n_heads, 1)
    return 2.0 ** (-8.0 * np.arange(1, n_heads + 1) / n_heads)


def alibi_bias(n: int, n_heads: int) -> FloatArray:
    """ALiBi attention bias: bias[h, i, j] = -slope_h * |i - j| (0 on the diagonal, more negative far away).

    Args:
        n: int >= 1, the number of tokens.
        n_heads: int >= 1.

    Returns:
        (n_heads, n, n) float64, to pass as ``bias`` to the attention functions.
    """
    n = as_int("n", n, 1)
    distance = np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(np.float64)  # (n, n)
    return -alibi_slopes(n_heads)[:, None, None] * distance  # (n_heads, n, n)
