from __future__ import annotations

import numpy as np
import pytest

from attention_core import score_variance_experiment, softmax_saturation

D_KS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


def test_score_variance_grows_with_d_k_and_scaling_fixes_it() -> None:
    r = score_variance_experiment(D_KS, n_samples=2000, seed=0)
    np.testing.assert_array_equal(r.d_k, D_KS)
    np.testing.assert_allclose(r.unscaled / r.d_k, 1.0, rtol=0.15)
    np.testing.assert_allclose(r.scaled, 1.0, rtol=0.15)
    np.testing.assert_allclose(r.scaled, r.unscaled / np.array(D_KS))


def test_score_variance_is_seeded_and_consistent_across_orders() -> None:
    a = score_variance_experiment([4, 1, 4, 2], n_samples=500, seed=3)
    b = score_variance_experiment([1, 2, 4], n_samples=500, seed=3)
    np.testing.assert_allclose(a.unscaled, b.unscaled[[2, 0, 2, 1]])
    c = score_variance_experiment([1, 2, 4], n_samples=500, seed=4)
    assert not np.allclose(b.unscaled, c.unscaled)


def test_score_variance_matches_a_direct_computation() -> None:
    rng = np.random.default_rng(5)
    q, k = rng.standard_normal((300, 16)), rng.standard_normal((300, 16))
    r = score_variance_experiment([3, 16], n_samples=300, seed=5)
    np.testing.assert_allclose(r.unscaled, [np.var((q[:, :3] * k[:, :3]).sum(1)), np.var((q * k).sum(1))])


def test_softmax_saturation() -> None:
    r = softmax_saturation(D_KS, n_keys=16, n_samples=2000, seed=0)
    assert r.max_entropy == pytest.approx(np.log(16))
    assert np.all(np.diff(r.max_weight_unscaled) > 0)  # unscaled softmax gets more peaked with d_k
    assert r.max_weight_unscaled[-1] > 0.9
    assert np.ptp(r.max_weight_scaled) < 0.1  # scaled stays about the same
    assert np.all(r.entropy_scaled <= r.max_entropy) and np.all(r.entropy_unscaled >= 0)
    assert r.entropy_unscaled[-1] < 0.5 * r.entropy_scaled[-1]
    np.testing.assert_allclose(r.max_weight_unscaled[0], r.max_weight_scaled[0])  # d_k = 1: same


def test_experiment_validation() -> None:
    with pytest.raises(ValueError, match="d_ks is empty"):
        score_variance_experiment([], 10, 0)
    with pytest.raises(ValueError, match="each d_k must be at least 1, got 0"):
        softmax_saturation([0, 4])
    with pytest.raises(ValueError, match="n_keys must be at least 2"):
        softmax_saturation([4], n_keys=1)
