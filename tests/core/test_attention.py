from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_core import (
    AttentionTrace,
    _parallel,
    alibi_bias,
    causal_mask,
    multi_head_attention,
    padding_mask,
    rope,
    scaled_dot_product_attention,
    softmax,
    weighted_value_contributions,
)

from .conftest import fast, random_mha_inputs

seeds = st.integers(0, 2**32 - 1)
sizes = st.tuples(
    st.integers(1, 6), st.integers(1, 5), st.integers(1, 3), st.integers(1, 4), st.integers(1, 4)
)


def naive_mha(x, w_q, w_k, w_v, w_o=None, mask=None, scale=None, bias=None):
    """Attention written head by head and query by query, straight from the formula."""
    heads = []
    for h in range(w_q.shape[0]):
        q, k, v = x @ w_q[h], x @ w_k[h], x @ w_v[h]
        s = (q @ k.T) * (1 / np.sqrt(q.shape[1]) if scale is None else scale)
        if bias is not None:
            s = s + (bias[h] if bias.ndim == 3 else bias)
        out = np.zeros((x.shape[0], v.shape[1]))
        for i in range(x.shape[0]):
            allowed = np.ones(x.shape[0], bool) if mask is None else (mask[h] if mask.ndim == 3 else mask)[i]
            if allowed.any():
                e = np.exp(s[i, allowed] - s[i, allowed].max())
                out[i] = (e / e.sum()) @ v[allowed]
        heads.append(out)
    concat = np.concatenate(heads, axis=1)
    return concat if w_o is None else concat @ w_o


@fast
@given(seeds, sizes, st.booleans(), st.booleans(), st.booleans())
def test_matches_naive_loops(seed, size, use_mask, use_bias, use_w_o) -> None:
    n, d_model, h, d_k, d_v = size
    inputs = random_mha_inputs(seed, n, d_model, h, d_k, d_v)
    rng = np.random.default_rng(seed + 1)
    mask = rng.random((h, n, n)) < 0.6 if use_mask else None
    bias = rng.standard_normal((n, n)) if use_bias else None
    w_o = rng.standard_normal((h * d_v, d_model)) if use_w_o else None
    trace = multi_head_attention(**inputs, w_o=w_o, mask=mask, bias=bias)
    expected = naive_mha(**inputs, w_o=w_o, mask=mask, bias=bias)
    np.testing.assert_allclose(trace.output, expected, rtol=1e-10, atol=1e-12)


@fast
@given(seeds, sizes)
def test_trace_shapes_and_stages(seed, size) -> None:
    n, d_model, h, d_k, d_v = size
    inputs = random_mha_inputs(seed, n, d_model, h, d_k, d_v)
    t = multi_head_attention(**inputs)
    assert t.q.shape == t.k.shape == (h, n, d_k)
    assert t.v.shape == (h, n, d_v)
    for m in (t.scores, t.scaled, t.masked, t.weights):
        assert m.shape == (h, n, n) and m.dtype == np.float64
    assert t.head_outputs.shape == (h, n, d_v)
    assert t.concat.shape == (n, h * d_v)
    assert t.output is t.concat or np.array_equal(t.output, t.concat)
    np.testing.assert_allclose(t.q, np.einsum("nd,hde->hne", inputs["x"], inputs["w_q"]), atol=1e-12)
    np.testing.assert_allclose(t.scores, t.q @ t.k.transpose(0, 2, 1), atol=1e-12)
    np.testing.assert_allclose(t.scaled, t.scores / np.sqrt(d_k), atol=1e-12)
    np.testing.assert_allclose(t.weights, softmax(t.masked), atol=1e-15)
    np.testing.assert_allclose(t.head_outputs, t.weights @ t.v, atol=1e-12)
    np.testing.assert_array_equal(t.concat[:, :d_v], t.head_outputs[0])
    assert (t.n_heads, t.n_tokens, t.d_k, t.d_v) == (h, n, d_k, d_v)
    assert t.scale == pytest.approx(1 / np.sqrt(d_k))


@fast
@given(seeds, sizes, st.sampled_from(["none", "causal", "random", "padding"]))
def test_weight_rows_sum_to_one_or_zero_and_masked_weights_are_zero(seed, size, kind) -> None:
    n, d_model, h, d_k, d_v = size
    rng = np.random.default_rng(seed)
    mask = {
        "none": None,
        "causal": causal_mask(n),
        "random": rng.random((h, n, n)) < 0.5,
        "padding": padding_mask(rng.random(n) < 0.5),
    }[kind]
    t = multi_head_attention(**random_mha_inputs(seed, n, d_model, h, d_k, d_v), mask=mask)
    full = np.ones((h, n, n), bool) if mask is None else np.broadcast_to(mask, (h, n, n))
    sums = t.weights.sum(axis=-1)
    np.testing.assert_allclose(sums, np.where(full.any(axis=-1), 1.0, 0.0), atol=1e-12)
    assert (t.weights[~full] == 0).all()
    assert (t.masked[~full] == -np.inf).all()
    np.testing.assert_array_equal(t.masked[full], t.scaled[full])
    rows_closed = ~full.any(axis=-1)
    assert (t.head_outputs[rows_closed] == 0).all()


@fast
@given(seeds, sizes)
def test_causal_weights_are_lower_triangular(seed, size) -> None:
    n, d_model, h, d_k, d_v = size
    t = multi_head_attention(**random_mha_inputs(seed, n, d_model, h, d_k, d_v), mask=causal_mask(n))
    np.testing.assert_array_equal(np.triu(t.weights, k=1), 0.0)
    np.testing.assert_allclose(t.weights[:, 0, 0], 1.0)


@fast
@given(seeds, sizes, st.randoms(use_true_random=False), st.booleans())
def test_permuting_tokens_permutes_outputs(seed, size, rnd, use_w_o) -> None:
    n, d_model, h, d_k, d_v = size
    inputs = random_mha_inputs(seed, n, d_model, h, d_k, d_v)
    w_o = np.random.default_rng(seed).standard_normal((h * d_v, d_model)) if use_w_o else None
    perm = np.array(rnd.sample(range(n), n))
    base = multi_head_attention(**inputs, w_o=w_o)
    permuted = multi_head_attention(**{**inputs, "x": inputs["x"][perm]}, w_o=w_o)
    np.testing.assert_allclose(permuted.output, base.output[perm], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(permuted.weights, base.weights[:, perm][:, :, perm], rtol=1e-10, atol=1e-14)


@fast
@given(seeds, st.integers(1, 6), st.integers(1, 5), st.integers(1, 4), st.integers(1, 4), st.booleans())
def test_one_head_equals_scaled_dot_product_attention(seed, n, d_model, d_k, d_v, use_mask) -> None:
    inputs = random_mha_inputs(seed, n, d_model, 1, d_k, d_v)
    mask = causal_mask(n) if use_mask else None
    t = multi_head_attention(**inputs, mask=mask)
    x = inputs["x"]
    out, weights = scaled_dot_product_attention(
        x @ inputs["w_q"][0], x @ inputs["w_k"][0], x @ inputs["w_v"][0], mask=mask
    )
    np.testing.assert_allclose(t.output, out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(t.weights[0], weights, rtol=1e-12, atol=1e-15)


def test_two_dimensional_weights_mean_one_head() -> None:
    inputs = random_mha_inputs(0, 4, 3, 1, 2, 2)
    flat = {k: (v[0] if k != "x" else v) for k, v in inputs.items()}
    np.testing.assert_array_equal(multi_head_attention(**flat).output, multi_head_attention(**inputs).output)


def test_sdpa_cross_attention_shapes_and_scale() -> None:
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((2, 3)), rng.standard_normal((5, 3)), rng.standard_normal((5, 4))
    out, w = scaled_dot_product_attention(q, k, v, scale=0.5)
    assert out.shape == (2, 4) and w.shape == (2, 5)
    np.testing.assert_allclose(w, softmax(q @ k.T * 0.5))


def test_fully_masked_query_gets_zero_weights_and_output() -> None:
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((3, 2)), rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    mask = np.array([[True, False, True], [False, False, False], [True, True, True]])
    out, w = scaled_dot_product_attention(q, k, v, mask=mask)
    np.testing.assert_array_equal(w[1], 0.0)
    np.testing.assert_array_equal(out[1], 0.0)
    np.testing.assert_allclose(w.sum(axis=1), [1.0, 0.0, 1.0])


def test_all_padding_sentence_gives_zeros() -> None:
    t = multi_head_attention(**random_mha_inputs(3, 3, 4, 2, 2, 2), mask=padding_mask([True, True, True]))
    np.testing.assert_array_equal(t.weights, 0.0)
    np.testing.assert_array_equal(t.output, 0.0)


def test_bias_and_per_head_mask() -> None:
    inputs = random_mha_inputs(4, 4, 4, 2, 3, 3)
    bias = alibi_bias(4, 2)
    mask = np.stack([causal_mask(4), np.ones((4, 4), bool)])
    t = multi_head_attention(**inputs, bias=bias, mask=mask)
    expected = naive_mha(**inputs, bias=bias, mask=mask)
    np.testing.assert_allclose(t.output, expected, rtol=1e-10)
    np.testing.assert_allclose(t.masked[1], t.scaled[1] + bias[1])
    assert t.bias is not None and t.mask is not None


def test_use_rope_rotates_q_and_k_per_head() -> None:
    inputs = random_mha_inputs(5, 5, 6, 2, 4, 3)
    t = multi_head_attention(**inputs, use_rope=True)
    plain = multi_head_attention(**inputs)
    assert t.use_rope and t.q_pre_rope is not None and t.k_pre_rope is not None
    np.testing.assert_allclose(t.q_pre_rope, plain.q)
    for h in range(2):
        np.testing.assert_allclose(t.q[h], rope(plain.q[h]), atol=1e-12)
        np.testing.assert_allclose(t.k[h], rope(plain.k[h]), atol=1e-12)
    np.testing.assert_array_equal(t.v, plain.v)
    assert not np.allclose(t.weights, plain.weights)
    assert plain.q_pre_rope is None


def test_scale_one_shares_scores_and_no_mask_shares_masked() -> None:
    t = multi_head_attention(**random_mha_inputs(6, 3, 4, 2, 2, 2), scale=1.0)
    np.testing.assert_array_equal(t.scaled, t.scores)
    np.testing.assert_array_equal(t.masked, t.scaled)


def test_trace_is_frozen_and_read_only() -> None:
    inputs = random_mha_inputs(7, 3, 4, 2, 2, 2)
    x_before = inputs["x"].copy()
    t = multi_head_attention(**inputs)
    assert isinstance(t, AttentionTrace)
    with pytest.raises(AttributeError):
        t.weights = None  # type: ignore[misc]
    with pytest.raises(ValueError, match="read-only"):
        t.weights[0, 0, 0] = 1.0
    inputs["x"][0, 0] = 99.0  # the caller's array stays writeable, and the trace keeps its own copy
    np.testing.assert_array_equal(t.x, x_before)
    assert t.nbytes > 0


def test_large_but_finite_inputs_give_no_nan() -> None:
    q = np.array([[1e150, 0.0], [0.0, 1.0]])
    out, w = scaled_dot_product_attention(q, q, q, scale=1.0)
    assert np.isfinite(w).all() and np.isfinite(out).all()
    np.testing.assert_allclose(w[0], [1.0, 0.0])


def test_score_overflow_is_a_clear_error() -> None:
    q = np.array([[1e300, 1e300]])
    with pytest.raises(ValueError, match="scores overflow"):
        scaled_dot_product_attention(q, q, q)
    x = np.array([[1e300, 1e300]])
    with pytest.raises(ValueError, match="q, k, v overflows"):
        multi_head_attention(x, np.full((1, 2, 2), 1e10), np.ones((1, 2, 2)), np.ones((1, 2, 2)))
    with pytest.raises(ValueError, match="scores overflow"):
        multi_head_attention(np.array([[1e200, 0.0], [0.0, 1.0]]), np.eye(2), np.eye(2), np.eye(2))


def test_overflow_in_a_masked_position_is_harmless() -> None:
    q = np.array([[1.0, 0.0], [1e300, 1e300]])
    k = np.array([[1.0, 0.0], [1e300, 1e300]])
    v = np.ones((2, 2))
    mask = np.array([[True, False], [True, False]])
    out, w = scaled_dot_product_attention(q, k, v, mask=mask, scale=1.0)
    np.testing.assert_allclose(w, [[1.0, 0.0], [1.0, 0.0]])


def test_weighted_value_contributions() -> None:
    t = multi_head_attention(**random_mha_inputs(8, 4, 3, 2, 2, 3))
    contrib = weighted_value_contributions(t.weights, t.v)
    assert contrib.shape == (2, 4, 4, 3)
    np.testing.assert_allclose(contrib.sum(axis=-2), t.head_outputs, atol=1e-12)
    one = weighted_value_contributions(t.weights[0], t.v[0])
    assert one.shape == (4, 4, 3)
    np.testing.assert_allclose(one[1, 2], t.weights[0, 1, 2] * t.v[0, 2])


def test_the_row_blocks_threads_keep_to_the_cores_a_process_is_told_to_use(monkeypatch) -> None:  # noqa: ANN001
    cores = len(os.sched_getaffinity(0))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # a pool's worker (explorer.compute.jobs.local.ONE_CORE)
    assert _parallel.n_workers() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "64")
    assert _parallel.n_workers() == min(8, cores)
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert _parallel.n_workers() == min(8, cores)


def test_large_input_uses_row_blocks_and_matches_naive(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("OMP_NUM_THREADS", "8")  # (the tests' one thread: conftest.py) the pool's threads too
    inputs = random_mha_inputs(9, 160, 16, 8, 4, 4)  # 8 * 160 * 160 entries: split into blocks and threads
    rng = np.random.default_rng(9)
    mask = rng.random((160, 160)) < 0.7
    mask[5] = False
    bias = rng.standard_normal((8, 160, 160))
    t = multi_head_attention(**inputs, mask=mask, bias=bias)
    np.testing.assert_allclose(t.output, naive_mha(**inputs, mask=mask, bias=bias), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(t.weights[:, 5], 0.0)


@fast
@given(seeds, sizes, st.booleans(), st.booleans())
def test_large_scores_take_the_shifted_softmax_and_still_match(seed, size, use_mask, use_bias) -> None:
    n, d_model, h, d_k, d_v = size
    inputs = random_mha_inputs(seed, n, d_model, h, d_k, d_v)
    inputs["x"] = inputs["x"] * 40.0  # scores of several thousands: the bound is far above 600
    rng = np.random.default_rng(seed + 2)
    mask = rng.random((n, n)) < 0.5 if use_mask else None
    bias = rng.standard_normal((h, n, n)) * 100 if use_bias else None
    trace = multi_head_attention(**inputs, mask=mask, bias=bias, scale=1.0)
    expected = naive_mha(**inputs, mask=mask, bias=bias, scale=1.0)
    np.testing.assert_allclose(
        trace.output, expected, rtol=1e-9, atol=1e-9 * np.abs(expected).max(initial=1.0)
    )
    assert np.isfinite(trace.weights).all()


def test_works_in_a_forked_child_after_the_thread_pool_started() -> None:
    import multiprocessing

    inputs = random_mha_inputs(10, 200, 8, 4, 2, 2)  # large enough for the thread pool
    expected = multi_head_attention(**inputs).output
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        result = pool.apply_async(_child_output, (inputs,)).get(timeout=30)
    np.testing.assert_allclose(result, expected)


def _child_output(inputs: dict[str, np.ndarray]) -> np.ndarray:
    return np.array(multi_head_attention(**inputs).output)
