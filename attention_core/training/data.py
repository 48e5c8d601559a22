"""What the tiny model learns from: random tokens in which a random stretch comes back, at a varied offset.

A sequence of T tokens drawn uniformly from the vocabulary, in which tokens o .. o + n - 1 (the first copy)
reappear as tokens o + n .. o + 2n - 1 (the second copy); n and the offset o vary from sequence to sequence.
A model can predict the second copy (after its first token) only by finding the earlier occurrence of the
current token and copying what followed it: an induction head. Were the copy always at the same place, the
model could find it by position alone, with no previous-token head (a shortcut that teaches nothing).

``repeated_runs`` makes the measuring sequences: n distinct tokens, then the same n again, as in
``attention_core.analysis.induction``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .._validate import as_int

__all__ = ["RepeatBatch", "repeat_targets", "repeated_halves", "repeated_runs"]

IntArray = NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class RepeatBatch:
    """B sequences of T tokens with one repeated stretch each.

    Fields:
        tokens: (B, T) int64 in 0 .. vocab - 1.
        starts: (B,) int64 o, where each first copy begins.
        lengths: (B,) int64 n, the length of each copy (the second copy begins at o + n).
    """

    tokens: IntArray
    starts: IntArray
    lengths: IntArray


def repeated_halves(
    rng: np.random.Generator,
    batch: int,
    n_ctx: int,
    vocab: int,
    min_len: int | None = None,
    short_share: float = 0.0,
) -> RepeatBatch:
    """B random sequences, each with a random stretch repeated at once (see the module's description).

    Per sequence: tokens uniform in 0 .. vocab - 1; n uniform in min_len .. n_ctx // 2 (min_len defaults to
    n_ctx // 2 - n_ctx // 8, at least 2), or, with probability short_share, uniform in 2 .. min_len - 1;
    o uniform in 0 .. n_ctx - 2n; then tokens[o + n + j] = tokens[o + j], j < n. Short stretches can sit
    late in the context: only there do the last positions' tokens have an earlier copy to be found by, which
    is what teaches a previous-token head at every position. Draws, in this order: the tokens (B, T), n
    (B,), then with short_share > 0 the short n (B,) and which sequences take it (B,), then o (B,).

    Args:
        rng: the generator every draw comes from (the caller's seed makes the batch).
        batch: B >= 1; n_ctx: T >= 4; vocab: >= 2.
        min_len: the shortest copy, 2 .. n_ctx // 2, or None.
        short_share: 0 .. 1, the share of sequences (in expectation) with a copy shorter than min_len.

    Returns:
        RepeatBatch with tokens (B, T), starts (B,), lengths (B,).
    """
    B, T, V = as_int("batch", batch, 1), as_int("n_ctx", n_ctx, 4), as_int("vocab", vocab, 2)
    longest = T // 2
    shortest = max(2, T // 2 - T // 8) if min_len is None else as_int("min_len", min_len, 2)
    if shortest > longest:
        raise ValueError(f"min_len must be at most n_ctx // 2 = {longest}, got {shortest}")
    share = float(short_share)
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"short_share must be between 0 and 1, got {short_share!r}")
    if share > 0 and shortest < 3:
        raise ValueError(
            f"short_share needs min_len of at least 3 (shorter copies are 2 .. min_len - 1), got {shortest}"
        )
    tokens = rng.integers(0, V, size=(B, T))  # (B, T)
    lengths = rng.integers(shortest, longest + 1, size=B)  # (B,)
    if share > 0:
        short = rng.integers(2, shortest, size=B)  # (B,)
        lengths = np.where(rng.random(B) < share, short, lengths)
    starts = rng.integers(0, T - 2 * lengths + 1)  # (B,) one bound per sequence
    pos = np.arange(T)[None, :]  # (1, T)
    second = (pos >= (starts + lengths)[:, None]) & (pos < (starts + 2 * lengths)[:, None])  # (B, T)
    source = np.where(second, pos - lengths[:, None], pos)  # (B, T) where each token is copied from
    tokens = np.take_along_axis(tokens, source, axis=1)
    return RepeatBatch(tokens.astype(np.int64), starts.astype(np.int64), lengths.astype(np.int64))


def repeat_targets(batch: RepeatBatch) -> NDArray[np.bool_]:
    """(B, T - 1) bool: True at position i when token i + 1 can be copied from the first copy.

    That is the second copy after its first token: o + n + 1 <= i + 1 <= o + 2n - 1. The model's loss there
    is the loss "on the repeated half".
    """
    B, T = batch.tokens.shape
    target = np.arange(1, T)[None, :]  # (1, T - 1) the position each prediction is of
    first = (batch.starts + batch.lengths + 1)[:, None]  # (B, 1)
    last = (batch.starts + 2 * batch.lengths - 1)[:, None]  # (B, 1)
    return (target >= first) & (target <= last)


def repeated_runs(rng: np.random.Generator, count: int, n: int, vocab: int) -> IntArray:
    """count sequences of n distinct random tokens followed by the same n: (count, 2n) int64.

    Each row's n tokens are the first n of a random permutation of 0 .. vocab - 1 (one ``rng.permuted`` call).
    """
    C, N, V = as_int("count", count, 1), as_int("n", n, 2), as_int("vocab", vocab, 2)
    if N > V:
        raise ValueError(f"n must be at most vocab = {V} to draw distinct tokens, got {N}")
    first = rng.permuted(np.tile(np.arange(V), (C, 1)), axis=1)[:, :N]  # (C, n)
    return np.concatenate([first, first], axis=1).astype(np.int64)
