from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_core import (
    alibi_bias,
    alibi_slopes,
    notebook_positional_encoding,
    positional_encoding,
    rope,
)

from .conftest import fast


def test_sinusoidal_paper_values() -> None:
    pe = positional_encoding(2, 4)
    np.testing.assert_allclose(pe[0], [0.0, 1.0, 0.0, 1.0])
    np.testing.assert_allclose(pe[1], [0.84147098, 0.54030231, 0.00999983, 0.99995], atol=1e-8)


def test_sinusoidal_formula() -> None:
    n, d, base = 7, 10, 10000.0
    pe = positional_encoding(n, d, base=base)
    for pos in range(n):
        for i in range(d // 2):
            angle = pos / base ** (2 * i / d)
            assert pe[pos, 2 * i] == pytest.approx(np.sin(angle), abs=1e-14)
            assert pe[pos, 2 * i + 1] == pytest.approx(np.cos(angle), abs=1e-14)


def test_odd_d_model_ends_on_sin() -> None:
    pe = positional_encoding(5, 5)
    np.testing.assert_allclose(pe[:, 4], np.sin(np.arange(5) / 10000 ** (4 / 5)))


def test_none_is_zeros() -> None:
    np.testing.assert_array_equal(positional_encoding(3, 4, kind="none"), np.zeros((3, 4)))


@fast
@given(st.integers(1, 20), st.integers(1, 16))
def test_split_is_a_column_permutation(n: int, d: int) -> None:
    inter = positional_encoding(n, d)
    split = positional_encoding(n, d, kind="sinusoidal_split")
    order = [*range(0, d, 2), *range(1, d, 2)]  # sin columns, then cos columns
    np.testing.assert_array_equal(split, inter[:, order])


def test_notebook_mistake_values() -> None:
    pe = notebook_positional_encoding(2, 4)
    np.testing.assert_allclose(pe[0], [0.0, 1.0, 0.0, 1.0])
    np.testing.assert_allclose(pe[1], [0.84147098, 0.99995, 0.0001, 1.0], atol=1e-8)
    assert not np.allclose(pe, positional_encoding(2, 4))


def test_positional_validation() -> None:
    with pytest.raises(ValueError, match="kind must be one of 'sinusoidal', 'sinusoidal_split', 'none'"):
        positional_encoding(3, 4, kind="learned")
    with pytest.raises(ValueError, match="n_positions must be at least 1, got 0"):
        positional_encoding(0, 4)
    with pytest.raises(ValueError, match="base must be greater than 0"):
        positional_encoding(3, 4, base=0)


def _rope_matrix_reference(x: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    """RoFormer eq. 13-15 written with explicit 2x2 rotation matrices, one position and pair at a time."""
    out = x.copy()
    d = x.shape[1]
    for row, pos in enumerate(positions):
        for i in range(d // 2):
            t = pos * base ** (-2 * i / d)
            rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
            out[row, 2 * i : 2 * i + 2] = rot @ x[row, 2 * i : 2 * i + 2]
    return out


@fast
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 9))
def test_rope_matches_rotation_matrices_and_keeps_norms(seed: int, n: int, d: int) -> None:
    x = np.random.default_rng(seed).standard_normal((n, d))
    out = rope(x)
    np.testing.assert_allclose(out, _rope_matrix_reference(x, np.arange(n), 10000.0), atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), np.linalg.norm(x, axis=1), rtol=1e-12)


@fast
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(-50, 50), st.integers(-50, 50))
def test_rope_dot_depends_only_on_relative_position(seed: int, half_d: int, m: int, shift: int) -> None:
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((1, 2 * half_d)), rng.standard_normal((1, 2 * half_d))
    n = 3

    def dot(pos_q: float, pos_k: float) -> float:
        return float(rope(q, positions=[pos_q])[0] @ rope(k, positions=[pos_k])[0])

    assert dot(m, n) == pytest.approx(dot(m + shift, n + shift), abs=1e-9)


def test_rope_position_zero_is_identity_and_heads_supported() -> None:
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    out = rope(x)
    np.testing.assert_array_equal(out[:, 0], x[:, 0])
    np.testing.assert_allclose(out[1], rope(x[1]))


def test_rope_validation() -> None:
    with pytest.raises(ValueError, match=r"positions has shape \(2,\) but x has 3 rows"):
        rope(np.ones((3, 4)), positions=[0, 1])


def test_alibi() -> None:
    np.testing.assert_allclose(alibi_slopes(8), 2.0 ** -np.arange(1, 9))
    np.testing.assert_allclose(alibi_slopes(2), [2.0**-4, 2.0**-8])
    bias = alibi_bias(4, 2)
    assert bias.shape == (2, 4, 4)
    np.testing.assert_allclose(bias[0], -(2.0**-4) * np.abs(np.subtract.outer(np.arange(4), np.arange(4))))
    np.testing.assert_array_equal(np.diagonal(bias, axis1=1, axis2=2), 0.0)
    with pytest.raises(ValueError, match="n_heads must be at least 1, got 0"):
        alibi_slopes(0)
