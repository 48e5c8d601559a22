"""Embeddings: a fixed pseudo-random vector per word, the same in every sentence and at every position."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from ._validate import FloatArray, as_int
from .tokens import _check_tokens

__all__ = ["embed", "token_seed"]


def token_seed(token: str, seed: int = 0) -> int:
    """The 64-bit seed of ``token``'s vector: blake2b(f"{seed}:{token}") read as an unsigned integer.

    Stable across processes and platforms (unlike ``hash``), so a word keeps its vector between runs.

    Args:
        token: str.
        seed: int.

    Returns:
        int in 0 .. 2^64 - 1.
    """
    digest = hashlib.blake2b(f"{seed}:{token}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def embed(tokens: Sequence[str], d_model: int, seed: int = 0) -> FloatArray:
    """Look up a deterministic embedding for each token.

    E[i] = standard_normal(d_model) drawn from np.random.default_rng(token_seed(tokens[i], seed)).
    The same (token, seed) always gives the same vector, whatever the sentence or position; different words
    get (almost surely) different vectors. A larger d_model keeps the smaller one's values as its first
    columns, so changing d_model in the app does not reshuffle the numbers.

    Args:
        tokens: sequence of n strings (n >= 1).
        d_model: int >= 1, the width of each vector.
        seed: int, selects another "vocabulary" of vectors.

    Returns:
        E: (n, d_model) float64.
    """
    tokens = _check_tokens(tokens)
    d_model = as_int("d_model", d_model, 1)
    seed = as_int("seed", seed, -(2**63))
    if not tokens:
        raise ValueError("tokens is empty (0 tokens): embed needs at least one token, e.g. tokenize('Hello')")
    vectors = {
        tok: np.random.default_rng(token_seed(tok, seed)).standard_normal(d_model) for tok in set(tokens)
    }
    return np.stack([vectors[tok] for tok in tokens])  # (n, d_model)
