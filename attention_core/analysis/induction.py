"""Induction heads (Olsson et al. 2022, "In-context Learning and Induction Heads"): heads that copy what came
after the last time.

The test: n random tokens, then the same n again. At position n + j of the second copy (token t_j), an
induction head attends to position j + 1 of the first copy, the token that came after t_j last time, and the
model can then predict the next token by copying it. A head's induction score is the mean of that weight
over the n queries of the second copy: score = (1/n) sum_{i=n}^{2n-1} A[i, i - n + 1], the stripe n - 1
below the diagonal. Its previous-token score, on the same run, is the mean weight on the key just before
the query: (1/(2n - 1)) sum_{i=1}^{2n-1} A[i, i - 1] (an induction head needs a previous-token head in an
earlier layer to find "the position after t_j"). A head that spreads its weight evenly scores about
(1/n) sum_i 1 / (i + 1) on either.

The loss per position, -log p(t_(i+1) | t_0..t_i), shows what the heads buy: random tokens cannot be guessed
in the first copy, and a model with induction heads predicts most of the second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import FloatArray, IntArray, all_finite, as_float_array, as_int, shape_str
from ..masks import causal_mask
from ..transformer import check_head_mask, embed_tokens, output_logits, transformer_layer

__all__ = [
    "MAX_INDUCTION_TOKENS",
    "InductionRun",
    "induction_scores",
    "induction_stripe",
    "next_token_losses",
    "previous_token_scores",
    "random_tokens",
    "run_induction",
]

MAX_INDUCTION_TOKENS = 100  # n at most: the run is 2n tokens (200), about 3 s and 0.3 GB traced for SmolLM2


@dataclass(frozen=True, eq=False)
class InductionRun:
    """The repeated-tokens run of a decoder. L = n_layers, H = n_heads, n = tokens in one copy.

    Fields:
        token_ids: (2n,) int64, the tokens run: n tokens, then the same n again.
        attentions: (L, H, 2n, 2n) the softmax weights, in the model's dtype; rows are queries.
        induction: (L, H) float64, each head's induction score (``induction_stripe``).
        previous: (L, H) float64, each head's previous-token score (``previous_token_scores``).
        losses: (2n - 1,) float64, losses[i] = -log p(token_ids[i + 1] | token_ids[0..i]) in nats: the loss
            of predicting position i + 1 (the first copy's tokens 1..n-1 are losses[0..n-2], the second
            copy's tokens 0..n-1 are losses[n-1..2n-2]).
    """

    token_ids: IntArray
    attentions: np.ndarray
    induction: FloatArray
    previous: FloatArray
    losses: FloatArray


def random_tokens(seed: int, n: int, low: int, high: int) -> IntArray:
    """n distinct token ids drawn uniformly from low..high - 1 with numpy's default generator (PCG64) seeded
    with ``seed``: the same seed gives the same tokens on every machine.

    Args:
        seed: 0 or more.
        n: how many, 1..high - low.
        low: the smallest id allowed (past a model's special tokens).
        high: one past the largest (the vocabulary size).

    Returns:
        (n,) int64.
    """
    s, lo, hi = as_int("seed", seed, 0), as_int("low", low, 0), as_int("high", high, 1)
    count = as_int("n", n, 1)
    if count > hi - lo:
        raise ValueError(f"n must be at most high - low = {hi - lo} to draw distinct tokens, got {count}")
    return np.random.default_rng(s).choice(hi - lo, size=count, replace=False).astype(np.int64) + lo


def _attentions(attentions: ArrayLike) -> FloatArray:
    A = as_float_array("attentions", attentions, (4,), "(n_layers, n_heads, m, m)")
    if A.shape[2] != A.shape[3]:
        raise ValueError(f"attentions must be square in queries and keys, got {shape_str(A.shape)}")
    return A


def induction_stripe(attentions: ArrayLike, n: int) -> FloatArray:
    """Each head's induction score on n tokens repeated: (1/n) sum_{i=n}^{2n-1} A[i, i - n + 1].

    Args:
        attentions: (L, H, 2n, 2n) softmax weights of the repeated run, rows are queries.
        n: tokens in one copy, at least 1.

    Returns:
        (L, H) float64, 0..1.
    """
    A = _attentions(attentions)
    count = as_int("n", n, 1)
    if A.shape[2] != 2 * count:
        raise ValueError(f"attentions must cover 2 n = {2 * count} tokens, got {shape_str(A.shape)}")
    queries = np.arange(count, 2 * count)  # (n,) the second copy
    return A[:, :, queries, queries - count + 1].mean(axis=2)


def previous_token_scores(attentions: ArrayLike) -> FloatArray:
    """Each head's mean weight on the previous token: (1/(m - 1)) sum_{i=1}^{m-1} A[i, i - 1].

    Args:
        attentions: (L, H, m, m) softmax weights, m >= 2, rows are queries.

    Returns:
        (L, H) float64, 0..1.
    """
    A = _attentions(attentions)
    if A.shape[2] < 2:
        raise ValueError(f"attentions must cover at least 2 tokens, got {shape_str(A.shape)}")
    queries = np.arange(1, A.shape[2])  # (m - 1,)
    return A[:, :, queries, queries - 1].mean(axis=2)


def next_token_losses(logits: ArrayLike, token_ids: ArrayLike) -> FloatArray:
    """loss_i = -log softmax(logits_i)[t_(i+1)] = log sum_v exp(logits_i,v) - logits_i,t_(i+1), in nats.

    float32 logits stay float32 for the exponentials (sums in float64): a vocabulary-wide pass per row.

    Args:
        logits: (m, vocab) the next-token scores after each position, float32 or float64, finite.
        token_ids: (m,) the tokens run.

    Returns:
        (m - 1,) float64: the loss of predicting each position from the ones before it.
    """
    z = np.asarray(logits)
    if z.dtype not in (np.float32, np.float64) or not all_finite(z):
        z = as_float_array("logits", logits, (2,), "(m, vocab)")
    ids = np.asarray(token_ids)
    if z.ndim != 2 or ids.shape != (z.shape[0],) or ids.dtype.kind not in "iu" or z.shape[0] < 2:
        raise ValueError(
            f"logits (m, vocab) and token_ids (m,) with m >= 2 are needed, got {shape_str(z.shape)} and "
            f"{shape_str(ids.shape)}"
        )
    m, V = z.shape
    if ids.min() < 0 or ids.max() >= V:
        raise ValueError(f"token_ids must lie in 0..{V - 1}")
    z = z[:-1]  # (m - 1, V): position m - 1 predicts a token that is not there
    peak = z.max(axis=1, keepdims=True)  # (m - 1, 1)
    total = np.exp(z - peak).sum(axis=1, dtype=np.float64)  # (m - 1,)
    picked = z[np.arange(m - 1), ids[1:]].astype(np.float64) - peak[:, 0]  # (m - 1,)
    return np.log(total) - picked


def _check_tokens(model: Any, token_ids: ArrayLike) -> IntArray:
    c = model.config
    if not c.causal or not c.has_logits:
        raise ValueError(
            f"{c.name} is an encoder: induction heads are measured on a decoder, which predicts each next "
            "token from the ones before it"
        )
    ids = np.asarray(token_ids)
    if ids.ndim != 1 or ids.size == 0 or ids.dtype.kind not in "iu":
        raise ValueError(f"token_ids must be a non-empty list of token ids, got shape {shape_str(ids.shape)}")
    limit = min(MAX_INDUCTION_TOKENS, c.max_positions // 2)
    if ids.size > limit or ids.min() < 0 or ids.max() >= c.vocab_size:
        raise ValueError(
            f"token_ids must be at most {limit} ids in 0..{c.vocab_size - 1}, got {ids.size} "
            f"in {int(ids.min())}..{int(ids.max())}"
        )
    return ids.astype(np.int64)


def run_induction(model: Any, token_ids: ArrayLike, head_mask: ArrayLike | None = None) -> InductionRun:
    """Run a decoder on token_ids repeated twice and measure every head (see the module's formulas).

    Args:
        model: a loaded decoder (its config and weights are read; the run is not cached).
        token_ids: (n,) token ids, 1 <= n <= MAX_INDUCTION_TOKENS; distinct ids make the stripe the only
            earlier occurrence of each token (``random_tokens`` draws them so).
        head_mask: (n_layers, n_heads) or None: each head's output scaled by it (0: switched off, its
            weights still computed and scored), as run_transformer's.

    Returns:
        InductionRun: the 2n ids, attentions (L, H, 2n, 2n), induction and previous (L, H), losses (2n - 1,).
    """
    ids = _check_tokens(model, token_ids)
    seq = np.concatenate([ids, ids])  # (2n,)
    A, logits = _run(model, seq, head_mask)
    A.flags.writeable = False
    return InductionRun(
        token_ids=seq,
        attentions=A,
        induction=induction_stripe(A, ids.size),
        previous=previous_token_scores(A),
        losses=next_token_losses(logits, seq),
    )


def _run(model: Any, seq: IntArray, head_mask: ArrayLike | None) -> tuple[np.ndarray, np.ndarray]:
    """run_transformer's arithmetic on seq (m,), keeping of each layer only its attention weights and its
    output (one layer's whole trace alive at a time): attentions (L, H, m, m) and logits (m, vocab)."""
    c, w = model.config, model.weights
    weights = check_head_mask(head_mask, c)  # (L, H) or None
    x = embed_tokens(seq, w.embeddings, c).output  # (m, d_model)
    mask, attentions = causal_mask(seq.size), []
    for i, layer_weights in enumerate(w.layers):  # layer after layer: each needs the one before
        layer = transformer_layer(x, layer_weights, c, mask, None if weights is None else weights[i])
        attentions.append(layer.attention.weights)
        x = layer.output
    return np.stack(attentions), output_logits(x, w, c)


def induction_scores(model: Any, token_ids: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Every head's induction score on token_ids repeated twice, and its previous-token score on the same run.

    induction[l, h] = (1/n) sum_{i=n}^{2n-1} A_lh[i, i - n + 1]; previous[l, h] = (1/(2n - 1))
    sum_{i=1}^{2n-1} A_lh[i, i - 1], with A_lh the weights of layer l, head h on the 2n tokens.

    Args:
        model: a loaded decoder (its config and weights are read).
        token_ids: (n,) token ids, 1 <= n <= MAX_INDUCTION_TOKENS.

    Returns:
        induction (n_layers, n_heads) and previous (n_layers, n_heads), float64 in 0..1.
    """
    run = run_induction(model, token_ids)
    return run.induction, run.previous
