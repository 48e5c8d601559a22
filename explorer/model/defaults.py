"""Shape changes that keep what the person edited: a matrix resized or its rows realigned to a new sentence.

Pure numpy, no Streamlit. The new cells come from the seeded defaults (explorer.model.seeding), whose values do
not depend on a matrix's size, so the cells that still fit keep their values.
"""

from __future__ import annotations

from numpy.typing import NDArray

from explorer.model.arrays import F64


def resize(old: NDArray, new_default: NDArray) -> NDArray:
    """The new default with the overlapping block (every axis) copied from `old`.

    Works for any rank; shapes may grow or shrink independently along each axis.
    """
    if old.ndim != new_default.ndim:
        return new_default.copy()
    out = new_default.copy()
    overlap = tuple(slice(0, min(a, b)) for a, b in zip(old.shape, new_default.shape, strict=True))
    out[overlap] = old[overlap]
    return out


def realign_rows(old_tokens: list[str], old: F64, new_tokens: list[str], fill: F64) -> F64:
    """Rows for `new_tokens`, reusing the row of the same word where the old sentence had it.

    old (n_old, d), fill (n_new, d) -> (n_new, d). A word keeps its row if it stays at the same position;
    otherwise it takes the first unused row of the same word; a new word gets its row from `fill`.
    """
    out = fill.copy()
    d = min(old.shape[1], fill.shape[1]) if old.size else 0
    used: set[int] = set()
    pending: list[int] = []
    for i, tok in enumerate(new_tokens):
        if i < len(old_tokens) and old_tokens[i] == tok:
            out[i, :d] = old[i, :d]
            used.add(i)
        else:
            pending.append(i)
    for i in pending:
        for j, tok in enumerate(old_tokens):
            if j not in used and tok == new_tokens[i]:
                out[i, :d] = old[j, :d]
                used.add(j)
                break
    return out
