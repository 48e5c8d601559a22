"""Why attention divides the scores by sqrt(d_k): two seeded experiments the app runs live."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._validate import FloatArray, IntArray, as_int

__all__ = ["ScoreVariance", "SoftmaxSaturation", "score_variance_experiment", "softmax_saturation"]


@dataclass(frozen=True, eq=False)
class ScoreVariance:
    """Variance of q.k for random q, k ~ N(0, I_dk), one entry per d_k (m values of d_k).

    Fields:
        d_k: (m,) the dimensions, as given.
        unscaled: (m,) var(q.k), about d_k.
        scaled: (m,) var(q.k / sqrt(d_k)), about 1.
    """

    d_k: IntArray
    unscaled: FloatArray
    scaled: FloatArray


@dataclass(frozen=True, eq=False)
class SoftmaxSaturation:
    """How peaked softmax gets over n_keys random scores, with and without 1/sqrt(d_k) (m values of d_k).

    Fields:
        d_k: (m,) the dimensions, as given.
        max_weight_unscaled, max_weight_scaled: (m,) mean over samples of the largest weight (1/n_keys = flat,
            1 = one-hot).
        entropy_unscaled, entropy_scaled: (m,) mean entropy of the weights in nats (log(n_keys) = flat, 0 =
            one-hot).
        max_entropy: log(n_keys).
    """

    d_k: IntArray
    max_weight_unscaled: FloatArray
    max_weight_scaled: FloatArray
    entropy_unscaled: FloatArray
    entropy_scaled: FloatArray
    max_entropy: float


def _check_d_ks(d_ks: Sequence[int]) -> IntArray:
    try:
        values = [as_int("each d_k", d, 1) for d in d_ks]
    except TypeError:
        raise ValueError(f"d_ks must be a list of whole numbers, got {d_ks!r}") from None
    if not values:
        raise ValueError("d_ks is empty: give at least one d_k, e.g. [4, 16, 64]")
    if max(values) > 65536:
        raise ValueError(f"each d_k must be at most 65536, got {max(values)}")
    return np.array(values)


def score_variance_experiment(d_ks: Sequence[int], n_samples: int = 2000, seed: int = 0) -> ScoreVariance:
    """Draw n_samples pairs q, k ~ N(0, I) and measure var(q.k) and var(q.k / sqrt(d_k)) for each d_k.

    q.k = sum_i q_i k_i is a sum of d_k independent products of variance 1, so var(q.k) = d_k and
    var(q.k / sqrt(d_k)) = 1. One (n_samples, max d_k) draw is shared: the d_k-dimensional vectors are the
    first d_k coordinates of the same random vectors, so every d_k sees the same samples (a cumulative sum).

    Args:
        d_ks: sequence of m ints >= 1.
        n_samples: int >= 2, pairs per d_k.
        seed: int, for np.random.default_rng.

    Returns:
        ScoreVariance with (m,) arrays.
    """
    dims = _check_d_ks(d_ks)
    n_samples = as_int("n_samples", n_samples, 2)
    rng = np.random.default_rng(as_int("seed", seed, 0))
    d_max = int(dims.max())
    q = rng.standard_normal((n_samples, d_max))  # (n_samples, d_max)
    k = rng.standard_normal((n_samples, d_max))  # (n_samples, d_max)
    np.multiply(q, k, out=q)  # (n_samples, d_max): the products q_i k_i
    ends, which = np.unique(dims, return_inverse=True)  # (u,) increasing distinct d_k, (m,) positions
    starts = np.concatenate([[0], ends[:-1]])  # segment j sums coordinates starts[j] .. ends[j]-1
    segments = np.add.reduceat(q, starts, axis=1)  # (n_samples, u)
    dots = np.cumsum(segments, axis=1)[:, which]  # (n_samples, m): q.k over the first d_k coordinates
    unscaled = dots.var(axis=0)  # (m,)
    return ScoreVariance(d_k=dims, unscaled=unscaled, scaled=unscaled / dims)


def _peak_and_entropy(scores: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Mean over samples of max_j p_j and of H(p) = -sum_j p_j log p_j, p = softmax(scores), per d_k.

    scores: (m, n_samples, n_keys). With s = scores - max and S = sum_j exp(s_j): max_j p_j = 1 / S and
    H = log S - sum_j exp(s_j) s_j / S (no log of a zero weight is ever taken).
    """
    shifted = scores - scores.max(axis=-1, keepdims=True)  # (m, n_samples, n_keys), max 0
    e = np.exp(shifted)
    total = e.sum(axis=-1)  # (m, n_samples)
    entropy = np.log(total) - np.einsum("msk,msk->ms", e, shifted) / total
    return (1.0 / total).mean(axis=1), entropy.mean(axis=1)


def softmax_saturation(
    d_ks: Sequence[int], n_keys: int = 16, n_samples: int = 2000, seed: int = 0
) -> SoftmaxSaturation:
    """Mean largest weight and mean entropy of softmax(q.k_j) and softmax(q.k_j / sqrt(d_k)) over n_keys keys.

    For q, k_j ~ N(0, I_dk), given q the scores q.k_j are independent N(0, |q|^2), and |q|^2 is chi-square
    with d_k degrees of freedom: the scores are drawn exactly so, as |q| * z_j with z ~ N(0, 1), which
    costs the same for any d_k. Unscaled scores spread as sqrt(d_k), so softmax saturates towards one-hot.

    Args:
        d_ks: sequence of m ints >= 1.
        n_keys: int >= 2, keys per query.
        n_samples: int >= 1, queries per d_k.
        seed: int, for np.random.default_rng.

    Returns:
        SoftmaxSaturation with (m,) arrays.
    """
    dims = _check_d_ks(d_ks)
    n_keys = as_int("n_keys", n_keys, 2)
    n_samples = as_int("n_samples", n_samples, 1)
    rng = np.random.default_rng(as_int("seed", seed, 0))
    z = rng.standard_normal((n_samples, n_keys))  # (n_samples, n_keys), shared by every d_k
    q_norm = np.sqrt(rng.chisquare(dims[:, None], size=(len(dims), n_samples)))  # (m, n_samples)
    unscaled = q_norm[:, :, None] * z  # (m, n_samples, n_keys)
    max_u, ent_u = _peak_and_entropy(unscaled)
    max_s, ent_s = _peak_and_entropy(unscaled / np.sqrt(dims)[:, None, None])
    return SoftmaxSaturation(dims, max_u, max_s, ent_u, ent_s, float(np.log(n_keys)))
