from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_core import embed

from .conftest import fast


def test_same_word_same_vector_anywhere() -> None:
    a = embed(["the", "cat", "sat", "on", "the", "mat"], 8)
    b = embed(["a", "mat", "the"], 8)
    np.testing.assert_array_equal(a[0], a[4])
    np.testing.assert_array_equal(a[0], b[2])
    np.testing.assert_array_equal(a[5], b[1])
    assert a.shape == (6, 8)
    assert a.dtype == np.float64


def test_different_words_and_seeds_differ() -> None:
    e = embed(["cat", "dog", "Cat"], 16)
    assert not np.allclose(e[0], e[1])
    assert not np.allclose(e[0], e[2])
    assert not np.allclose(embed(["cat"], 16, seed=0), embed(["cat"], 16, seed=1))


def test_deterministic_across_calls() -> None:
    np.testing.assert_array_equal(embed(["x", "y"], 5, seed=3), embed(["x", "y"], 5, seed=3))


@fast
@given(st.integers(1, 32), st.integers(1, 32), st.text(min_size=1, max_size=8))
def test_larger_d_model_keeps_smaller_values(d1: int, d2: int, token: str) -> None:
    small, large = sorted((d1, d2))
    np.testing.assert_array_equal(embed([token], large)[:, :small], embed([token], small))


def test_embed_validation() -> None:
    with pytest.raises(ValueError, match="tokens is empty"):
        embed([], 4)
    with pytest.raises(ValueError, match="d_model must be at least 1, got 0"):
        embed(["a"], 0)
    with pytest.raises(ValueError, match="d_model must be a whole number"):
        embed(["a"], 2.5)  # type: ignore[arg-type]
