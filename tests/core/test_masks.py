from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_core import causal_mask, combine_masks, padding_mask, sliding_window_mask

from .conftest import fast


def test_causal_mask() -> None:
    m = causal_mask(3)
    assert m.dtype == np.bool_
    np.testing.assert_array_equal(m, [[True, False, False], [True, True, False], [True, True, True]])


@fast
@given(st.integers(1, 12), st.integers(1, 14))
def test_sliding_window(n: int, window: int) -> None:
    m = sliding_window_mask(n, window)
    for i in range(n):
        assert [j for j in range(n) if m[i, j]] == list(range(max(0, i - window + 1), i + 1))
    if window >= n:
        np.testing.assert_array_equal(m, causal_mask(n))


def test_window_one_is_diagonal() -> None:
    np.testing.assert_array_equal(sliding_window_mask(4, 1), np.eye(4, dtype=bool))


def test_padding_mask() -> None:
    m = padding_mask([False, False, True])
    np.testing.assert_array_equal(m, [[True, True, False]] * 3)
    assert not padding_mask([True, True]).any()


def test_combine_masks() -> None:
    m = combine_masks(causal_mask(3), padding_mask([False, True, False]))
    np.testing.assert_array_equal(m, [[True, False, False], [True, False, False], [True, False, True]])


def test_mask_validation() -> None:
    with pytest.raises(ValueError, match="window must be at least 1, got 0"):
        sliding_window_mask(3, 0)
    with pytest.raises(ValueError, match="n must be at least 1, got 0"):
        causal_mask(0)
    with pytest.raises(ValueError, match="is_pad must be a boolean array"):
        padding_mask([0, 1])
    with pytest.raises(ValueError, match=r"mask 1 has shape \(2, 2\) but mask 0 has shape \(3, 3\)"):
        combine_masks(causal_mask(3), causal_mask(2))
