from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_core import (
    EncoderTrace,
    causal_mask,
    encoder_layer,
    feed_forward,
    feed_forward_trace,
    layer_norm,
    multi_head_attention,
)

from .conftest import fast


def layer_inputs(seed: int, n: int = 4, d_model: int = 6, h: int = 2, d_ff: int = 8) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    d = d_model // h
    return {
        "x": rng.standard_normal((n, d_model)),
        "w_q": rng.standard_normal((h, d_model, d)),
        "w_k": rng.standard_normal((h, d_model, d)),
        "w_v": rng.standard_normal((h, d_model, d)),
        "w_o": rng.standard_normal((h * d, d_model)),
        "w1": rng.standard_normal((d_model, d_ff)),
        "w2": rng.standard_normal((d_ff, d_model)),
        "b1": rng.standard_normal(d_ff),
        "b2": rng.standard_normal(d_model),
    }


def ln(x: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)


@fast
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(2, 8))
def test_layer_norm(seed: int, n: int, d: int) -> None:
    x = np.random.default_rng(seed).standard_normal((n, d)) * 10
    y = layer_norm(x)
    np.testing.assert_allclose(y, ln(x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(y.mean(axis=1), 0.0, atol=1e-12)


def test_layer_norm_edge_cases() -> None:
    np.testing.assert_array_equal(layer_norm([[3.0, 3.0, 3.0]]), [[0.0, 0.0, 0.0]])
    huge = layer_norm([[1e308, -1e308, 0.0]])
    np.testing.assert_allclose(huge, ln(np.array([[1.0, -1.0, 0.0]]), eps=0.0), rtol=1e-12)
    np.testing.assert_allclose(layer_norm([1.0, 3.0]), [-1.0, 1.0], rtol=1e-5)
    with pytest.raises(ValueError, match="eps must be greater than 0"):
        layer_norm([[1.0, 2.0]], eps=0)


def test_feed_forward() -> None:
    p = layer_inputs(0)
    expected = np.maximum(p["x"] @ p["w1"] + p["b1"], 0) @ p["w2"] + p["b2"]
    np.testing.assert_allclose(feed_forward(p["x"], p["w1"], p["w2"], p["b1"], p["b2"]), expected)
    t = feed_forward_trace(p["x"], p["w1"], p["w2"])
    np.testing.assert_allclose(t.hidden_pre, p["x"] @ p["w1"])
    np.testing.assert_array_equal(t.hidden, np.maximum(t.hidden_pre, 0))
    np.testing.assert_allclose(t.output, t.hidden @ p["w2"])


@fast
@given(st.integers(0, 2**32 - 1))
def test_post_norm_stages(seed: int) -> None:
    p = layer_inputs(seed)
    t = encoder_layer(**p)
    assert isinstance(t, EncoderTrace) and not t.norm_first
    attn = multi_head_attention(p["x"], p["w_q"], p["w_k"], p["w_v"], p["w_o"]).output
    np.testing.assert_array_equal(t.attn_input, p["x"])
    np.testing.assert_allclose(t.sum1, p["x"] + attn, rtol=1e-12)
    np.testing.assert_allclose(t.norm1, ln(t.sum1), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(t.ffn_hidden_pre, t.norm1 @ p["w1"] + p["b1"], rtol=1e-12)
    np.testing.assert_array_equal(t.ffn_hidden, np.maximum(t.ffn_hidden_pre, 0))
    np.testing.assert_allclose(t.ffn_out, t.ffn_hidden @ p["w2"] + p["b2"], rtol=1e-12)
    np.testing.assert_allclose(t.sum2, t.norm1 + t.ffn_out, rtol=1e-12)
    assert t.norm2 is not None
    np.testing.assert_allclose(t.norm2, ln(t.sum2), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(t.output, t.norm2)
    assert t.ffn_input is t.norm1


@fast
@given(st.integers(0, 2**32 - 1))
def test_pre_norm_stages(seed: int) -> None:
    p = layer_inputs(seed)
    t = encoder_layer(**p, norm_first=True)
    np.testing.assert_allclose(t.attn_input, ln(p["x"]), rtol=1e-9, atol=1e-12)
    attn = multi_head_attention(ln(p["x"]), p["w_q"], p["w_k"], p["w_v"], p["w_o"]).output
    np.testing.assert_allclose(t.sum1, p["x"] + attn, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(t.norm1, ln(t.sum1), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(t.sum2, t.sum1 + t.ffn_out, rtol=1e-12)
    assert t.norm2 is None
    np.testing.assert_array_equal(t.output, t.sum2)


def test_mask_reaches_attention_and_w_o_none() -> None:
    p = layer_inputs(1, h=2, d_model=6)
    t = encoder_layer(**{**p, "w_o": None}, mask=causal_mask(4))
    np.testing.assert_array_equal(np.triu(t.attention.weights, 1), 0.0)
    np.testing.assert_array_equal(t.attention.output, t.attention.concat)


def test_w_o_none_with_wrong_width_is_explained() -> None:
    p = layer_inputs(2)
    p["w_v"] = p["w_v"][:, :, :2]
    with pytest.raises(ValueError, match=r"n_heads \* d_v = 4, but the residual x \+ attention needs"):
        encoder_layer(**{**p, "w_o": None})


def test_ffn_shapes_are_checked_first() -> None:
    p = layer_inputs(3)
    with pytest.raises(ValueError, match=r"w2 has shape \(7, 6\) but expected \(8, 6\) = \(d_ff, d_model\)"):
        encoder_layer(**{**p, "w2": np.ones((7, 6))})
    with pytest.raises(ValueError, match=r"b1 has shape \(6,\) but expected \(8,\)"):
        encoder_layer(**{**p, "b1": np.ones(6)})
