"""numpy arrays as Python source that reads back bit for bit (pure: strings out).

Floats are written by Python's shortest round-trip repr, so `np.array(<literal>)` is the same float64 array
as the one written; booleans as True/False. Rows are wrapped to `width` characters with aligned indents.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

WIDTH = 100  # characters per line in a notebook cell


def number(x: float) -> str:
    """A float as Python source: repr (shortest round trip), with inf and nan spelled for numpy."""
    x = float(x)
    if math.isnan(x):
        return "np.nan"
    if math.isinf(x):
        return "np.inf" if x > 0 else "-np.inf"
    return repr(x)


def _row(values: NDArray, indent: int, width: int) -> str:
    """[a, b, c] starting at column `indent`, wrapped to `width`; continuation lines start at indent + 1."""
    items = [("True" if v else "False") if values.dtype == bool else number(v) for v in values]
    lines: list[list[str]] = [[]]
    col = indent + 1  # after "["
    for k, item in enumerate(items):
        piece = item + ("," if k < len(items) - 1 else "]")
        if lines[-1] and col + len(piece) + 1 > width:
            lines.append([])
            col = indent + 1
        lines[-1].append(piece)
        col += len(piece) + 1
    return "[" + ("\n" + " " * (indent + 1)).join(" ".join(parts) for parts in lines)


def _nested(a: NDArray, indent: int, width: int) -> str:
    if a.ndim == 1:
        return _row(a, indent, width)
    parts = [_nested(sub, indent + 1, width) for sub in a]
    sep = ",\n" + ("\n" if a.ndim > 2 else "") + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def array(a: NDArray, indent: int = 0, width: int = WIDTH) -> str:
    """`np.array([...])` source for a float64 or bool array of 1 to 3 dimensions (a 0-size array: zeros)."""
    a = np.asarray(a)
    a = a if a.dtype == bool else a.astype(np.float64)
    if a.size == 0:
        return f"np.zeros({a.shape})"
    body = _nested(a, indent + len("np.array("), width)
    return f"np.array({body}{', dtype=bool' if a.dtype == bool else ''})"
