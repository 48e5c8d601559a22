"""The seeded matrices, scheme 1: what "reset" returns to, and what every link and JSON file is written
against. Pure numpy, no Streamlit.

A link or a file lists only the matrices (or cells) that differ from these (explorer.sharing), so what a
saved link opens depends on every number drawn here: this module is frozen. The app's defaults are scheme 1
today (explorer.model.example.default_matrices); to give the app other defaults, change that function and leave
this module as it is, so that links and files saved before still open the same example
(tests/app/sharing/test_saved_links.py opens links and files saved at commit 0ee9514, with other defaults in place).

Every matrix is *shape-stable*: the value in a cell depends only on (seed, matrix name, head, row, column,
draw), never on the matrix's size, so growing d_k from 4 to 5 adds one column and leaves the other values
untouched. That is what lets the app "keep the values that still fit and fill only the new cells" when a
dimension changes. The blocks are drawn at the sizes below and sliced: they are part of the scheme (the
settings' upper bounds may not exceed them).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

import attention_core as ac
from explorer.model.arrays import F64

SCHEME = 1
BLOCK_D_MODEL = 64
BLOCK_D_K = 64
BLOCK_D_FF = 256


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
    heads = [_block(seed, name, h, d_model, d_k, BLOCK_D_MODEL, BLOCK_D_K, draw) for h in range(n_heads)]
    return np.stack(heads) * std  # (n_heads, d_model, d_k)


def output_projection(seed: int, n_heads: int, d_k: int, d_model: int, draw: int = 0) -> F64:
    """W_O: (n_heads * d_k, d_model); head h owns rows h*d_k .. (h+1)*d_k - 1 (the concat order)."""
    std = 1.0 / np.sqrt(n_heads * d_k)
    blocks = [_block(seed, "w_o", h, d_k, d_model, BLOCK_D_K, BLOCK_D_MODEL, draw) for h in range(n_heads)]
    return np.concatenate(blocks, axis=0) * std  # (n_heads*d_k, d_model)


def ffn_in(seed: int, d_model: int, d_ff: int, draw: int = 0) -> F64:
    """W1: (d_model, d_ff), N(0, 1/d_model)."""
    return _block(seed, "w1", 0, d_model, d_ff, BLOCK_D_MODEL, BLOCK_D_FF, draw) / np.sqrt(d_model)


def ffn_out(seed: int, d_ff: int, d_model: int, draw: int = 0) -> F64:
    """W2: (d_ff, d_model), N(0, 1/d_ff)."""
    return _block(seed, "w2", 0, d_ff, d_model, BLOCK_D_FF, BLOCK_D_MODEL, draw) / np.sqrt(d_ff)


def embeddings(tokens: list[str], d_model: int, seed: int) -> F64:
    """Seeded per-word vectors (n, d_model): the same word gets the same vector anywhere."""
    if not tokens:
        return np.zeros((0, d_model))
    return ac.embed(tokens, d_model, seed=seed)


def matrices(ex: object, tokens: list[str], draws: Mapping[str, int] | None = None) -> dict[str, NDArray]:
    """Every matrix of an example with these settings (ex: an Example) and tokens, at its shape; each
    weight at its draw (0 = the seed's first, k = the k-th re-randomize)."""
    draws = draws or {}
    n, d, h, k, s, f = len(tokens), ex.d_model, ex.n_heads, ex.d_k, ex.seed, ex.d_ff
    pe = ac.positional_encoding(n, d, kind="sinusoidal") if n else np.zeros((0, d))
    return {
        "emb": embeddings(tokens, d, s),
        "pe_table": pe,
        "w_q": projection(s, "w_q", h, d, k, draws.get("w_q", 0)),
        "w_k": projection(s, "w_k", h, d, k, draws.get("w_k", 0)),
        "w_v": projection(s, "w_v", h, d, k, draws.get("w_v", 0)),
        "w_o": output_projection(s, h, k, d, draws.get("w_o", 0)),
        "w1": ffn_in(s, d, f, draws.get("w1", 0)),
        "w2": ffn_out(s, f, d, draws.get("w2", 0)),
        "custom_mask": np.tril(np.ones((n, n), dtype=bool)),
    }
