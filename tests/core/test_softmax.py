from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import softmax

from .conftest import fast

finite = st.floats(-1e308, 1e308, allow_nan=False, allow_infinity=False)


def test_known_values() -> None:
    np.testing.assert_allclose(softmax([2.0, 4.0, 4.0]), [0.06337894, 0.46831053, 0.46831053], atol=1e-8)


@fast
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 6)), elements=finite))
def test_rows_sum_to_one_even_for_huge_logits(x: np.ndarray) -> None:
    w = softmax(x)
    assert np.isfinite(w).all()
    assert (w >= 0).all() and (w <= 1).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)


@fast
@given(
    arrays(np.float64, st.integers(1, 8), elements=st.floats(-100, 100)),
    st.floats(-1e3, 1e3),
)
def test_shift_invariance(x: np.ndarray, c: float) -> None:
    np.testing.assert_allclose(softmax(x + c), softmax(x), atol=1e-12)


def test_extremes() -> None:
    np.testing.assert_allclose(softmax([1e308, -1e308, 1e308]), [0.5, 0.0, 0.5])
    np.testing.assert_allclose(softmax([-1e308, -1e308]), [0.5, 0.5])


def test_minus_inf_is_masked_and_a_full_row_gives_zeros() -> None:
    w = softmax([[0.0, -np.inf, 0.0], [-np.inf, -np.inf, -np.inf]])
    np.testing.assert_array_equal(w, [[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]])


def test_axis() -> None:
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(softmax(x, axis=0), softmax(x.T).T)
    np.testing.assert_allclose(softmax(x, axis=0).sum(axis=0), 1.0)


def test_does_not_modify_input() -> None:
    x = np.array([1.0, 2.0, 3.0])
    softmax(x)
    np.testing.assert_array_equal(x, [1.0, 2.0, 3.0])


@pytest.mark.parametrize("bad", [[1.0, np.nan], [np.inf, 0.0]])
def test_rejects_nan_and_plus_inf(bad: list[float]) -> None:
    with pytest.raises(ValueError, match="NaN or \\+inf"):
        softmax(bad)


def test_rejects_empty_and_bad_axis() -> None:
    with pytest.raises(ValueError, match="x is empty"):
        softmax([])
    with pytest.raises(ValueError, match="axis must be in -1 .. 0"):
        softmax([1.0, 2.0], axis=1)
