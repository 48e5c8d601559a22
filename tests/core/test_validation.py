"""Bad input gives a ValueError whose message names the argument and the shapes (the app shows it)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention_core import (
    causal_mask,
    encoder_layer,
    multi_head_attention,
    scaled_dot_product_attention,
    weighted_value_contributions,
)

from .conftest import random_mha_inputs


def base() -> dict[str, np.ndarray]:
    return random_mha_inputs(0, 3, 4, 2, 2, 2)


def raises(message: str):
    return pytest.raises(ValueError, match=re.escape(message))


def test_w_k_d_k_mismatch_message() -> None:
    p = base()
    p["w_k"] = np.ones((2, 4, 3))
    with raises("w_k has shape (2, 4, 3) but w_q has shape (2, 4, 2): W_Q and W_K must have the same d_k"):
        multi_head_attention(**p)


def test_head_count_mismatches() -> None:
    p = base()
    with raises("w_k has shape (3, 4, 2) but w_q has shape (2, 4, 2): W_Q and W_K must have the same number"):
        multi_head_attention(**{**p, "w_k": np.ones((3, 4, 2))})
    with raises(
        "w_v has shape (1, 4, 2) but w_q has shape (2, 4, 2): W_V must have the same number of heads"
    ):
        multi_head_attention(**{**p, "w_v": np.ones((1, 4, 2))})


def test_d_model_mismatch() -> None:
    p = base()
    with raises("w_q has shape (2, 5, 2) but x has shape (3, 4): each head of W_Q needs d_model = 4 rows"):
        multi_head_attention(**{**p, "w_q": np.ones((2, 5, 2))})


def test_non_finite_values() -> None:
    p = base()
    p["x"][0, 2] = np.nan
    with raises("x contains 1 non-finite value (NaN or ±inf) at row 0, column 2"):
        multi_head_attention(**p)
    p = base()
    p["w_v"][1, 0, 1] = np.inf
    p["w_v"][1, 2, 0] = -np.inf
    with raises("w_v contains 2 non-finite values (NaN or ±inf), the first at head 1, row 0, column 1"):
        multi_head_attention(**p)


def test_empty_and_wrong_rank() -> None:
    p = base()
    with raises("x is empty (shape (0, 4))"):
        multi_head_attention(**{**p, "x": np.ones((0, 4))})
    with raises("x must be 2-D with shape (n, d_model), got shape (4,)"):
        multi_head_attention(**{**p, "x": np.ones(4)})
    with raises("w_q has shape (0, 4, 2), that is 0 heads: n_heads must be at least 1"):
        multi_head_attention(**{**p, "w_q": np.ones((0, 4, 2))})
    with raises("w_v is empty (shape (2, 4, 0))"):
        multi_head_attention(**{**p, "w_v": np.ones((2, 4, 0))})
    with raises("w_q must be 2-D or 3-D with shape (n_heads, d_model, d_k), got shape (1, 1, 4, 2)"):
        multi_head_attention(**{**p, "w_q": np.ones((1, 1, 4, 2))})


def test_not_numbers() -> None:
    p = base()
    with raises("x must contain real numbers with shape (n, d_model), got an array of dtype <U1"):
        multi_head_attention(**{**p, "x": [["a", "b"]]})
    with raises("x must be a rectangular array of numbers"):
        multi_head_attention(**{**p, "x": [[1.0, 2.0], [3.0]]})
    with raises("x must contain real numbers"):
        multi_head_attention(**{**p, "x": np.ones((3, 4), complex)})


def test_w_o_shape() -> None:
    with raises("w_o has shape (5, 4) but expected (4, 4) = (n_heads * d_v, d_model) = (2 * 2, 4)"):
        multi_head_attention(**base(), w_o=np.ones((5, 4)))


def test_mask_shape_and_dtype() -> None:
    p = base()
    with raises("mask has shape (4, 4) but expected (3, 3) or (2, 3, 3) for 3 tokens and 2 heads"):
        multi_head_attention(**p, mask=causal_mask(4))
    with raises(
        "mask must be a boolean array (True = may attend) with shape (3, 3) or (2, 3, 3), got an array"
    ):
        multi_head_attention(**p, mask=np.tril(np.ones((3, 3))))
    with raises("bias has shape (3, 3, 3) but expected (3, 3) or (2, 3, 3)"):
        multi_head_attention(**p, bias=np.zeros((3, 3, 3)))
    with raises("bias contains 3 non-finite values (NaN or ±inf), the first at row 1, column 0: to stop"):
        multi_head_attention(**p, bias=np.where(causal_mask(3), 0.0, -np.inf).T)


def test_scale_and_flags() -> None:
    p = base()
    with raises("scale must be finite, got nan"):
        multi_head_attention(**p, scale=float("nan"))
    with raises("scale must be a real number, got '2'"):
        multi_head_attention(**p, scale="2")  # type: ignore[arg-type]
    with raises("use_rope must be True or False, got 'yes'"):
        multi_head_attention(**p, use_rope="yes")  # type: ignore[arg-type]


def test_sdpa_messages() -> None:
    q, k, v = np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 5))
    with raises(
        "k has shape (4, 2) but q has shape (2, 3): q and k must have the same number of columns d_k"
    ):
        scaled_dot_product_attention(q, np.ones((4, 2)), v)
    with raises("v has shape (3, 5) but k has shape (4, 3): v needs one row per key"):
        scaled_dot_product_attention(q, k, np.ones((3, 5)))
    with raises("mask has shape (4, 2) but expected (2, 4) for (n_q, n_k) queries by keys"):
        scaled_dot_product_attention(q, k, v, mask=np.ones((4, 2), bool))


def test_weighted_value_contributions_messages() -> None:
    with raises("v has shape (3, 2) but weights has shape (2, 4): v needs one row per key, 4"):
        weighted_value_contributions(np.ones((2, 4)), np.ones((3, 2)))
    with raises("give both per head (3-D, same n_heads) or both for one head (2-D)"):
        weighted_value_contributions(np.ones((2, 2, 4)), np.ones((4, 2)))


def test_encoder_messages() -> None:
    p = base()
    with raises("w1 has shape (5, 8) but expected (4, d_ff): d_model = 4"):
        encoder_layer(**p, w_o=None, w1=np.ones((5, 8)), w2=np.ones((8, 4)))
    with raises("eps must be greater than 0, got -1.0"):
        encoder_layer(**p, w_o=None, w1=np.ones((4, 8)), w2=np.ones((8, 4)), eps=-1.0)


def test_messages_do_not_mutate_inputs() -> None:
    p = base()
    before = {k: v.copy() for k, v in p.items()}
    with pytest.raises(ValueError):
        multi_head_attention(**p, mask=causal_mask(4))
    for key, value in before.items():
        np.testing.assert_array_equal(p[key], value)


def test_huge_finite_values_are_accepted_even_when_their_sum_overflows() -> None:
    x = np.full((2, 3), 1e308)
    out = multi_head_attention(x, np.full((1, 3, 2), 1e-300), np.full((1, 3, 2), 1e-300), np.eye(3)[None])
    assert np.isfinite(out.output).all()
