"""The logit lens (nostalgebraist 2020): what a decoder would predict if it stopped after each layer.

Row 0 reads the embeddings, row l (1..L) the residual stream after layer l, each through the model's own
final norm and output matrix: logits_l = N(h_l) W_U, with N the final RMSNorm (with its gain) and W_U the
output matrix (the token embeddings transposed when they are tied). The last row is the model's own output:
``ModelTrace.hidden_states[-1]`` is already after the final norm and ``ModelTrace.logits`` already holds its
logits, so they are read as they are (the norm is applied once, never twice) and the last row's top tokens
are ``Model.top_next``'s.

The vocabulary product is the cost (31 rows x 32 tokens x 576 x 49,152 for SmolLM2: 56 GFLOP; every cell's
normaliser needs every token's logit), so it runs in the model's float32, every row at once against a block
of the vocabulary at a time (``BLOCK_BYTES`` of logits per block, one block per CPU at once): the output
matrix is read once, each block's logits while they are still in the cache. Each block gives its rows' top k
(exact, ties to the lower id) and its softmax sum below its own peak, accumulated in float64; the blocks'
top k are merged and their sums rescaled to the row's peak: log sum_v exp(z_v) = M + log sum_b e^(m_b - M)
sum_{v in b} e^(z_v - m_b). Ties at equal logits go to the lower token id, as ``Model.top_next`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._parallel import for_row_blocks
from .._validate import FloatArray, IntArray, all_finite, as_int, shape_str
from ..transformer.layer import _norm

__all__ = ["BLOCK_BYTES", "MAX_LENS_K", "LensReading", "lens_token_probs", "logit_lens", "read_lens"]

MAX_LENS_K = 50  # top tokens kept per cell at most: the page shows 5, hover lists them
BLOCK_BYTES = 32 * 2**20  # logits of one block (float32): 960 rows (32 tokens) x 8,738 tokens of SmolLM2's
_MIN_COLUMNS = 1024  # vocabulary columns of a block at least (many rows: a block past BLOCK_BYTES)
_BLOCKS = 128  # blocks per row when finding the top k (see _top_k)


@dataclass(frozen=True, eq=False)
class LensReading:
    """The logit lens of one run. L = n_layers, n = tokens, k = top tokens kept, d = d_model.

    Fields:
        ids: (L + 1, n, k) int64, the top k next tokens read at each layer (row 0: the embeddings) and
            position, most probable first.
        probs: (L + 1, n, k) float64, their softmax probabilities over the whole vocabulary.
        normed: (L + 1, n, d) the residual stream after the final norm, in the model's dtype: what the
            output matrix reads (row L is the model's own final hidden state).
        log_norm: (L + 1, n) float64, log sum_v exp(logit_v) of each cell: p(t) = exp(logit_t - log_norm).
    """

    ids: IntArray
    probs: FloatArray
    normed: np.ndarray
    log_norm: FloatArray


def _output_matrix(model: Any) -> np.ndarray:
    """W_U (d_model, vocab_size): the output layer, or the token embeddings transposed when they are tied."""
    w = model.weights
    return w.embeddings.token.T if w.lm_head is None else w.lm_head


def _check(model: Any, trace: Any) -> tuple[int, int]:
    """(L, n) after checking that the model has an output layer and the trace is its run."""
    c = model.config
    if not c.has_logits or trace.logits is None:
        raise ValueError(
            f"{c.name} is an encoder: it has no output layer that predicts a next token, so there is no "
            "logit lens to read (it needs a decoder such as SmolLM2)"
        )
    if trace.model != c.name:
        raise ValueError(f"the trace is a run of {trace.model}, not of {c.name}")
    L, n = c.n_layers, len(trace.token_ids)
    want = (L + 1, n, c.d_model)
    if tuple(trace.hidden_states.shape) != want or tuple(trace.logits.shape) != (n, c.vocab_size):
        raise ValueError(
            f"the trace's hidden_states {shape_str(trace.hidden_states.shape)} and logits "
            f"{shape_str(trace.logits.shape)} do not fit {c.name}: expected {shape_str(want)} and "
            f"{shape_str((n, c.vocab_size))}"
        )
    return L, n


def _top_k(z: np.ndarray, k: int) -> tuple[IntArray, np.ndarray]:
    """(m, k) ids of the k largest entries of each row of z (m, V), largest first, ties to the lower id; and
    each row's largest entry (m, 1).

    The rows are cut into ``_BLOCKS`` blocks; the k-th largest block maximum tau is at most the k-th largest
    entry (k blocks each hold an entry >= tau), so the top k are among the few entries >= tau: two passes over
    z instead of a selection per row.
    """
    m, V = z.shape
    starts = np.arange(0, V, -(-V // max(_BLOCKS, k)))  # at least k blocks
    block_max = np.maximum.reduceat(z, starts, axis=1)  # (m, blocks)
    tau = -np.partition(-block_max, k - 1, axis=1)[:, k - 1 : k]  # (m, 1)
    rows, cols = np.divmod(np.flatnonzero(z >= tau), V)  # candidates: at least k per row, row-major
    order = np.lexsort((cols, -z[rows, cols], rows))  # by row, then logit (largest first), then id
    first = np.searchsorted(rows[order], np.arange(m))  # (m,) where each row's candidates start
    top = cols[order][first[:, None] + np.arange(k)]  # (m, k)
    return top.astype(np.int64), block_max.max(axis=1, keepdims=True)


def _read_block(z: np.ndarray, k: int) -> tuple[IntArray, np.ndarray, FloatArray, np.ndarray]:
    """Of each row of logits z (m, V): the ids of its top k, their logits, sum_v exp(z_v - peak) (float64)
    and its peak (m, 1); z is overwritten."""
    ids, peak = _top_k(z, k)  # (m, k), (m, 1)
    zt = np.take_along_axis(z, ids, axis=1)  # (m, k)
    z -= peak
    np.exp(z, out=z)
    return ids, zt, z.sum(axis=1, dtype=np.float64), peak


def _read_rows(x: np.ndarray, W: np.ndarray, k: int) -> tuple[IntArray, FloatArray, FloatArray]:
    """Top ids, their probabilities and log sum exp of each row of x W (x (m, d), W (d, V)), a block of the
    vocabulary at a time (see the module's docstring)."""
    m, V = x.shape[0], W.shape[1]
    width = min(V, max(_MIN_COLUMNS, BLOCK_BYTES // (4 * max(1, m))))
    starts = list(range(0, V, width))
    ids, zs = [np.empty(0)] * len(starts), [np.empty(0)] * len(starts)
    sums, peaks = np.empty((m, len(starts))), np.empty((m, len(starts)))

    def work(blocks: slice) -> None:
        for j in range(*blocks.indices(len(starts))):
            z = x @ W[:, starts[j] : starts[j] + width]  # (m, width) or fewer columns in the last block
            top, zs[j], sums[:, j], peak = _read_block(z, min(k, z.shape[1]))
            ids[j], peaks[:, j] = top + starts[j], peak[:, 0]

    for_row_blocks(work, len(starts), m * width, block_rows=1)
    top_peak = peaks.max(axis=1, keepdims=True)  # (m, 1)
    log_norm = top_peak[:, 0] + np.log((sums * np.exp(peaks - top_peak)).sum(axis=1))  # (m,)
    cand, cand_z = np.concatenate(ids, axis=1), np.concatenate(zs, axis=1)  # (m, blocks k)
    order = np.lexsort((cand, -cand_z), axis=1)[:, :k]  # by logit (largest first), then id
    best = np.take_along_axis(cand_z, order, axis=1).astype(np.float64)  # (m, k)
    return np.take_along_axis(cand, order, axis=1), np.exp(best - log_norm[:, None]), log_norm


def read_lens(model: Any, trace: Any, k: int = 5) -> LensReading:
    """The logit lens of a decoder's run: the top k next tokens after every layer at every position.

    logits_l = N(h_l) W_U for l = 0..L (h_0 the embeddings, h_l the residual stream after layer l, N the final
    norm); p_l = softmax(logits_l). Row L is the model's own output (its logits are the trace's).

    Args:
        model: a loaded decoder (``pretrained.load("SmolLM2-135M")``): its config and weights are read.
        trace: a ModelTrace of that model (``model.run(text)``), n tokens.
        k: top tokens kept per cell, 1..MAX_LENS_K (fewer when the vocabulary is smaller).

    Returns:
        LensReading: ids and probs (L + 1, n, k), normed (L + 1, n, d_model), log_norm (L + 1, n).
    """
    L, n = _check(model, trace)
    k = as_int("k", k, 1)
    if k > MAX_LENS_K:
        raise ValueError(f"k must be 1..{MAX_LENS_K}, got {k}")
    c, hidden = model.config, trace.hidden_states
    k = min(k, int(c.vocab_size))
    gain = model.weights.final_norm_gain
    inner = hidden[:L] if gain is None else _norm(c, hidden[:L], gain, None)  # (L, n, d), norm applied here
    if not all_finite(inner):
        raise ValueError("the residual stream overflowed: use head_mask values closer to 0 and 1")
    normed = np.concatenate([inner, hidden[L:]])  # (L + 1, n, d); row L: already normed by the model
    W = _output_matrix(model)  # (d, V)
    flat = inner.reshape(L * n, c.d_model)  # (L n, d)
    ids = np.empty(((L + 1) * n, k), dtype=np.int64)
    probs, log_norm = np.empty(((L + 1) * n, k)), np.empty((L + 1) * n)
    ids[: L * n], probs[: L * n], log_norm[: L * n] = _read_rows(flat, W, k)
    last = slice(L * n, (L + 1) * n)  # row L: the model's own logits, read as they are
    top, zt, total, peak = _read_block(np.array(trace.logits), k)
    log_norm[last] = peak[:, 0] + np.log(total)
    ids[last], probs[last] = top, np.exp(zt.astype(np.float64) - log_norm[last, None])
    return LensReading(
        ids.reshape(L + 1, n, k), probs.reshape(L + 1, n, k), normed, log_norm.reshape(L + 1, n)
    )


def logit_lens(model: Any, trace: Any, k: int = 5) -> tuple[IntArray, FloatArray]:
    """The top k next tokens read after every layer at every position, and their probabilities.

    logits_l = N(h_l) W_U for l = 0..L (row 0 the embeddings, row l the residual stream after layer l, N the
    final RMSNorm with its gain, W_U the tied output matrix), p_l = softmax(logits_l). The last row equals the
    model's own prediction (``Model.top_next``).

    Args:
        model: a loaded decoder (its config and weights are read).
        trace: a ModelTrace of that model, n tokens.
        k: top tokens kept per cell, 1..MAX_LENS_K.

    Returns:
        ids (L + 1, n, k) int64, most probable first, and probs (L + 1, n, k) float64.
    """
    reading = read_lens(model, trace, k)
    return reading.ids, reading.probs


def lens_token_probs(model: Any, reading: LensReading, token_ids: Sequence[int]) -> FloatArray:
    """The probability of given tokens at every layer and position: p_l,i(t) = exp(N(h_l,i) . W_U[:, t] -
    log_norm_l,i), without another product with the whole vocabulary.

    Args:
        model: the decoder the reading was made with.
        reading: LensReading (``read_lens``).
        token_ids: m token ids, each 0..vocab_size - 1.

    Returns:
        (m, L + 1, n) float64 probabilities.
    """
    V = int(model.config.vocab_size)
    ids = np.asarray(token_ids)
    if ids.ndim != 1 or ids.dtype.kind not in "iu" or (ids.size and (ids.min() < 0 or ids.max() >= V)):
        raise ValueError(f"token_ids must be a list of token ids 0..{V - 1}, got {shape_str(ids.shape)}")
    if reading.normed.shape[2] != model.config.d_model:
        raise ValueError(f"the reading was made with another model (d_model {reading.normed.shape[2]})")
    cols = _output_matrix(model)[:, ids].astype(np.float64)  # (d, m)
    z = np.einsum("lid,dm->mli", reading.normed.astype(np.float64), cols)  # (m, L + 1, n)
    return np.exp(z - reading.log_norm[None])
