"""Seeded default matrices and shape changes that keep what the person edited.

Pure numpy, no Streamlit. Every default is *shape-stable*: the value in a cell depends only on
(seed, matrix name, head, row, column), never on the matrix's size, so growing d_k from 4 to 5 adds one
column and leaves the other values untouched. That is what lets the app "keep the values that still fit
and fill only the new cells" when a dimension changes.
"""

from __future__ import annotations

import zlib

import numpy as np
from numpy.typing import NDArray

import attention_core as ac
from explorer.arrays import F64

# The upper bounds of the dimension settings (explorer.settings_table): the stable blocks are drawn at these
# sizes and sliced.
from explorer.settings_table import (  # noqa: F401
    MAX_D_FF,
    MAX_D_K,
    MAX_D_MODEL,
    MAX_HEADS,
    MAX_SENTENCE_CHARS,
    MAX_TOKENS,
)


def _rng(seed: int, name: str, head: int = 0, draw: int = 0) -> np.random.Generator:
    """A generator for one (seed, matrix, head, draw); draw > 0 is a "re-randomize" press."""
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, zlib.crc32(name.encode()), head, draw])


def _block(
    seed: int, name: str, head: int, rows: int, cols: int, max_rows: int, max_cols: int, draw: int
) -> F64:
    """Slice (rows, cols) of a (max_rows, max_cols) standard-normal block: shape-stable by construction."""
    return _rng(seed, name, head, draw).standard_normal((max_rows, max_cols))[:rows, :cols]


def projection(seed: int, name: str, n_heads: int, d_model: int, d_k: int, draw: int = 0) -> F64:
    """W_Q, W_K or W_V: (n_heads, d_model, d_k), entries N(0, 1/d_model) so that q has unit-ish variance."""
    std = 1.0 / np.sqrt(d_model)
    heads = [_block(seed, name, h, d_model, d_k, MAX_D_MODEL, MAX_D_K, draw) for h in range(n_heads)]
    return np.stack(heads) * std  # (n_heads, d_model, d_k)


def output_projection(seed: int, n_heads: int, d_k: int, d_model: int, draw: int = 0) -> F64:
    """W_O: (n_heads * d_k, d_model); head h owns rows h*d_k .. (h+1)*d_k - 1 (the concat order)."""
    std = 1.0 / np.sqrt(n_heads * d_k)
    blocks = [_block(seed, "w_o", h, d_k, d_model, MAX_D_K, MAX_D_MODEL, draw) for h in range(n_heads)]
    return np.concatenate(blocks, axis=0) * std  # (n_heads*d_k, d_model)


def ffn_in(seed: int, d_model: int, d_ff: int, draw: int = 0) -> F64:
    """W1: (d_model, d_ff), N(0, 1/d_model)."""
    return _block(seed, "w1", 0, d_model, d_ff, MAX_D_MODEL, MAX_D_FF, draw) / np.sqrt(d_model)


def ffn_out(seed: int, d_ff: int, d_model: int, draw: int = 0) -> F64:
    """W2: (d_ff, d_model), N(0, 1/d_ff)."""
    return _block(seed, "w2", 0, d_ff, d_model, MAX_D_FF, MAX_D_MODEL, draw) / np.sqrt(d_ff)


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


def embeddings(tokens: list[str], d_model: int, seed: int) -> F64:
    """Seeded per-word vectors (n, d_model): the same word gets the same vector anywhere."""
    if not tokens:
        return np.zeros((0, d_model))
    return ac.embed(tokens, d_model, seed=seed)
