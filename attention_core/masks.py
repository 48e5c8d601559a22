"""Boolean attention masks: True = the query (row) may attend to the key (column)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validate import BoolArray, as_bool_array, as_int, shape_str

__all__ = ["causal_mask", "sliding_window_mask", "padding_mask", "combine_masks"]


def causal_mask(n: int) -> BoolArray:
    """mask[i, j] = (j <= i): each query sees itself and the keys before it (lower triangle).

    Args:
        n: int >= 1, the number of tokens.

    Returns:
        (n, n) bool.
    """
    n = as_int("n", n, 1)
    return np.tri(n, dtype=np.bool_)  # (n, n)


def sliding_window_mask(n: int, window: int) -> BoolArray:
    """Causal local attention: mask[i, j] = (i - window < j <= i), query i sees keys i-window+1 .. i.

    window=1 lets each token see only itself; window >= n equals causal_mask(n).

    Args:
        n: int >= 1, the number of tokens.
        window: int >= 1, how many keys (itself included) each query sees at most.

    Returns:
        (n, n) bool.
    """
    n = as_int("n", n, 1)
    window = as_int("window", window, 1)
    offset = np.subtract.outer(np.arange(n), np.arange(n))  # (n, n): i - j
    return (offset >= 0) & (offset < window)


def padding_mask(is_pad: ArrayLike) -> BoolArray:
    """mask[i, j] = not is_pad[j]: no query attends to a padding key (padded queries still attend).

    A sentence made only of padding gives an all-False mask: every row is fully masked, and attention
    then returns zero weights and zero outputs for it.

    Args:
        is_pad: (n,) bool, True where the token is padding, e.g. [t == "[PAD]" for t in tokens].

    Returns:
        (n, n) bool.
    """
    pad = as_bool_array("is_pad", is_pad, (1,), "(n,)")
    n = pad.shape[0]
    return np.broadcast_to(~pad, (n, n)).copy()  # (n, n)


def combine_masks(*masks: ArrayLike) -> BoolArray:
    """Logical AND of boolean masks of one shape: a key is visible only if every mask allows it.

    Args:
        masks: one or more arrays of the same shape, (n, n) or (n_heads, n, n), bool.

    Returns:
        bool array of that shape.
    """
    if not masks:
        raise ValueError("combine_masks needs at least one mask")
    arrays = [as_bool_array(f"mask {i}", m, (2, 3), "(n, n)") for i, m in enumerate(masks)]
    for i, arr in enumerate(arrays[1:], start=1):
        if arr.shape != arrays[0].shape:
            raise ValueError(
                f"mask {i} has shape {shape_str(arr.shape)} but mask 0 has shape "
                f"{shape_str(arrays[0].shape)}: "
                "masks combined must have the same shape"
            )
    return np.logical_and.reduce(arrays)
