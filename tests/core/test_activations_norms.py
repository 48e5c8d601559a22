"""Exact GELU, SiLU, RMSNorm, layer norm with gain and bias, and the feed-forward network's activations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_core import erf, feed_forward_trace, gelu, layer_norm, rms_norm, silu
from attention_core.activations import _erf, _gelu


def test_erf_is_exact_in_float64_and_within_float32_resolution_in_float32() -> None:
    x = np.linspace(-7, 7, 4001)
    exact = np.array([math.erf(v) for v in x])
    np.testing.assert_array_equal(erf(x), exact)
    x32 = x.astype(np.float32)
    exact32 = np.array([math.erf(float(v)) for v in x32])
    got = _erf(x32)
    assert got.dtype == np.float32
    assert np.abs(got - exact32).max() < 1.2e-7


def test_gelu_is_the_erf_form_not_the_tanh_estimate() -> None:
    x = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])
    expected = [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x]
    np.testing.assert_allclose(gelu(x), expected, rtol=1e-15, atol=1e-16)
    assert gelu(np.array([1.0]))[0] == pytest.approx(0.8413447460685429, abs=1e-15)
    tanh_estimate = 0.5 * (1 + math.tanh(math.sqrt(2 / math.pi) * (1 + 0.044715)))
    assert abs(gelu(np.array([1.0]))[0] - tanh_estimate) > 1e-5
    np.testing.assert_allclose(_gelu(x.astype(np.float32)), expected, atol=3e-7)


def test_silu() -> None:
    x = np.array([-2.0, 0.0, 1.0, 30.0])
    np.testing.assert_allclose(silu(x), x / (1 + np.exp(-x)), rtol=1e-15)
    assert silu(np.array([-800.0]))[0] == 0.0  # exp(800) overflows to inf: the exact limit, no warning


def test_rms_norm() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 8)) * 3
    g = rng.standard_normal(8)
    expected = x / np.sqrt(np.mean(x * x, axis=1, keepdims=True) + 1e-5) * g
    np.testing.assert_allclose(rms_norm(x, 1e-5, g), expected, rtol=1e-12)
    np.testing.assert_allclose(rms_norm(x * 1e300, 1e-5), x / np.sqrt(np.mean(x * x, axis=1, keepdims=True)))
    np.testing.assert_array_equal(rms_norm(np.zeros((2, 3))), 0.0)
    with pytest.raises(ValueError, match=r"gain has shape \(3,\) but x has 8 columns"):
        rms_norm(x, gain=np.ones(3))


def test_layer_norm_gain_and_bias() -> None:
    rng = np.random.default_rng(1)
    x, g, b = rng.standard_normal((4, 6)), rng.standard_normal(6), rng.standard_normal(6)
    centred = x - x.mean(axis=1, keepdims=True)
    expected = centred / np.sqrt(centred.var(axis=1, keepdims=True) + 1e-12) * g + b
    np.testing.assert_allclose(layer_norm(x, 1e-12, g, b), expected, rtol=1e-12)
    np.testing.assert_array_equal(layer_norm(x), layer_norm(x, 1e-5, None, None))


def test_feed_forward_activations() -> None:
    rng = np.random.default_rng(2)
    x, w1, w2, wu = (rng.standard_normal(s) for s in ((3, 4), (4, 6), (6, 4), (4, 6)))
    b1 = rng.standard_normal(6)
    t = feed_forward_trace(x, w1, w2, b1, activation="gelu")
    np.testing.assert_allclose(t.output, gelu(x @ w1 + b1) @ w2, rtol=1e-12)
    assert t.activation == "gelu" and t.up is None
    s = feed_forward_trace(x, w1, w2, activation="swiglu", w_up=wu)
    np.testing.assert_allclose(s.hidden, silu(x @ w1) * (x @ wu), rtol=1e-12)
    np.testing.assert_allclose(s.output, s.hidden @ w2, rtol=1e-12)
    np.testing.assert_allclose(s.up, x @ wu, rtol=1e-12)
    relu = feed_forward_trace(x, w1, w2, b1)
    np.testing.assert_allclose(relu.hidden, np.maximum(x @ w1 + b1, 0))
    with pytest.raises(ValueError, match="w_up"):
        feed_forward_trace(x, w1, w2, activation="swiglu")
    with pytest.raises(ValueError, match="activation must be one of 'relu', 'gelu', 'swiglu'"):
        feed_forward_trace(x, w1, w2, activation="tanh")
