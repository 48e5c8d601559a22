"""explorer.lessons (pure): every notebook's printed digits come out of pipeline.run(preset.build()).

The assertions spell the printed numbers out again (not only through lessons.checks), at the precision the
notebook printed them: atol = half a unit of the last printed decimal.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attention_core as ac
from explorer import lessons as ls
from explorer.compute import pipeline
from explorer.lessons import PRESETS, seed000, seed001, seed002, seed003, seed004


def run(name: str) -> pipeline.Result:
    res = pipeline.run(PRESETS[name].build())
    assert res.error is None and res.attention is not None
    return res


def at(decimals: int) -> dict[str, float]:
    """Tolerance of a number printed with `decimals` digits after the point."""
    return {"rtol": 0.0, "atol": 0.5 * 10.0**-decimals + 1e-12}


@pytest.mark.parametrize("name", [n for n, lesson in ls.PRESETS.items() if lesson.notebook])
def test_every_printed_line_agrees(name: str) -> None:
    checks = ls.checks(name, run(name))
    assert len(checks) >= 3
    bad = [(c.label, c.cell, c.max_diff) for c in checks if not c.agrees]
    assert not bad, bad
    assert all(r.agrees for r in ls.rows(checks))


def test_seed_000_hello_world() -> None:
    res = run("hello-world")
    assert res.tokens == ["Hello", "World"]
    assert_allclose(res.emb, [[1, 2, 3, 4], [2, 3, 4, 5]], rtol=0, atol=0)
    nb = ac.notebook_positional_encoding(2, 4)
    assert_allclose(nb, [[0, 1, 0, 1], [0.84147098, 0.99995, 0.0001, 1.0]], **at(8))
    assert_allclose(res.emb + nb, [[1, 3, 3, 5], [2.84147098, 3.99995, 4.0001, 6]], **at(8))
    # The app uses the paper's encoding: the same column 0, a different column 1 onwards.
    assert_allclose(res.pe[1], [0.84147098, 0.54030231, 0.00999983, 0.99995], **at(8))
    assert abs(res.pe[1, 1] - nb[1, 1]) > 0.4
    # Two heads with the integer matrices: K1 = X WK1 exactly.
    assert res.attention.n_heads == 2
    assert_allclose(res.attention.k[0], res.x @ np.array(seed000.W["WK1"]), rtol=1e-15)
    assert_allclose(res.attention.q[1], res.x @ np.array(seed000.W["WQ2"]), rtol=1e-15)


def test_seed_001_me_gusta() -> None:
    res = run("me-gusta")
    t = res.attention
    assert res.scale == 1.0  # softmax(Q K^T), no sqrt(d_k)
    assert_allclose(res.pe, seed001.POS, rtol=0, atol=0)  # pos_1 .. pos_5 as the learned table
    assert_allclose(res.x, seed001.X.values, **at(4))
    assert_allclose(t.q[0], seed001.Q.values, **at(4))
    assert_allclose(t.k[0], seed001.K.values, **at(4))
    assert_allclose(t.weights[0], seed001.ALPHAS.values, **at(4))
    assert_allclose(t.weights[0, 0], [0.1981, 0.1992, 0.1963, 0.2039, 0.2024], **at(4))
    assert_allclose(t.head_outputs[0], seed001.OUTPUT.values, **at(4))
    assert_allclose(t.head_outputs[0, 0], [-0.078, 0.0809, 0.0652], **at(4))
    assert_allclose(t.head_outputs[0, 1], [-0.0767, 0.0809, 0.0647], **at(4))


def test_seed_001_least_squares_recovers_the_weights() -> None:
    """Without the seed: W_q, W_k from the printed X, Q, K; the printed alphas still come out."""
    x = seed001.X.values
    w_q = seed001.least_squares_projection(x, seed001.Q.values)
    w_k = seed001.least_squares_projection(x, seed001.K.values)
    assert_allclose(x @ w_q, seed001.Q.values, **at(4))
    assert_allclose(x @ w_k, seed001.K.values, **at(4))
    alphas = ac.softmax((x @ w_q) @ (x @ w_k).T, axis=-1)
    assert_allclose(alphas, seed001.ALPHAS.values, **at(4))
    seeded = seed001.draws()
    assert_allclose(w_q, seeded["w_q"], atol=2e-4)
    assert_allclose(w_k, seeded["w_k"], atol=2e-4)


def test_seed_001_two_runs_printed_two_me_alphas() -> None:
    earlier, later = seed001.EARLIER["me_alphas"].values, seed001.ME_ALPHAS.values
    assert np.abs(earlier - later).max() > 1e-3
    assert_allclose(run("me-gusta").attention.weights[0, 0], later, **at(4))
    table = ls.extras("me-gusta", PRESETS["me-gusta"].build(), run("me-gusta"))[0]
    assert table.values.shape == (3, 5)
    assert_allclose(table.values[0], earlier)
    assert_allclose(table.values[1], later)


def test_seed_001_loop_equals_matrix_form() -> None:
    res = run("me-gusta")
    t = res.attention
    w, out = seed001.token_by_token(t.q[0], t.k[0], t.v[0], res.scale)
    assert_allclose(w, t.weights[0], rtol=1e-13, atol=1e-15)
    assert_allclose(out, t.head_outputs[0], rtol=1e-13, atol=1e-15)
    assert_allclose(out[0], [-0.078, 0.0809, 0.0652], **at(4))  # me_attention, In [42]


def test_token_by_token_is_attention_for_random_inputs() -> None:
    rng = np.random.default_rng(5)
    q, k, v = rng.standard_normal((6, 4)), rng.standard_normal((6, 4)), rng.standard_normal((6, 3))
    w, out = seed001.token_by_token(q, k, v, 0.5)
    ref_out, ref_w = ac.scaled_dot_product_attention(q, k, v, scale=0.5)
    assert_allclose(w, ref_w, rtol=1e-12)
    assert_allclose(out, ref_out, rtol=1e-12, atol=1e-14)


def test_seed_002_three_inputs() -> None:
    res = run("three-inputs")
    t = res.attention
    assert res.scale == 1.0 and res.tokens == ["input-1", "input-2", "input-3"]
    assert_allclose(t.scaled[0], [[2, 4, 4], [4, 16, 12], [4, 12, 10]], rtol=0, atol=0)
    assert_allclose(t.weights[0, 0], [0.06337894, 0.46831053, 0.46831053], **at(8))
    assert_allclose(t.head_outputs[0, 0], [1.93662106, 6.68310531, 1.59506841], **at(8))
    assert_allclose(res.contributions(0, 0), seed002.TERMS.values, **at(8))
    # The notebook prints row 0 three times; the real rows 1 and 2 are different (almost one-hot).
    assert t.weights[0, 1, 1] > 0.98 and t.weights[0, 2, 1] > 0.85
    real = ls.extras("three-inputs", PRESETS["three-inputs"].build(), res)[0]
    assert_allclose(real.values, t.weights[0])


def test_seed_003_causal_mask() -> None:
    res = run("causal-mask")
    t = res.attention
    assert_allclose(res.x, np.eye(4))  # one-hot tokens: W_Q = q, W_K = k, W_V = v
    assert_allclose(t.q[0], seed003.Q, rtol=0, atol=0)
    assert res.scale == pytest.approx(1 / np.sqrt(8))
    # q, k, v reach us rounded to 8 decimals: their products agree to 7.
    assert_allclose(t.scores[0], seed003.SCORES.values, **at(7))
    assert_allclose(t.scaled[0], seed003.SCALED.values, **at(7))
    assert_allclose(t.weights[0], seed003.ATTENTION.values, **at(8))
    assert_allclose(t.head_outputs[0], seed003.NEW_V.values, **at(7))
    assert np.array_equal(np.isneginf(t.masked[0]), np.isneginf(seed003.MASKED.values))
    assert np.isneginf(t.masked[0]).sum() == 6
    assert_allclose([t.scores[0].var(), t.scaled[0].var()], [7.96814250921233, 0.9960178136515412], **at(7))


def test_seed_004_its_snowing_and_its_todo() -> None:
    res = run("its-snowing")
    t = res.attention
    assert res.tokens == ["It's", "snowing", "outside"]
    assert_allclose(t.q[0], [[0.105, -0.138], [-0.267, -0.135], [0.39, 0.374]], **at(8))
    assert_allclose(t.k[0], [[0.061, 0.708], [-0.128, -0.684], [0.297, 0.567]], **at(8))
    assert_allclose(
        t.scores[0],
        [[-0.091299, 0.080952, -0.047061], [-0.111867, 0.126516, -0.155844], [0.288582, -0.305736, 0.327888]],
        **at(8),
    )
    tables = {tb.title: tb for tb in ls.extras("its-snowing", PRESETS["its-snowing"].build(), res)}
    weights = next(tb for title, tb in tables.items() if "weights" in title).values
    output = next(tb for title, tb in tables.items() if "output" in title).values
    v = seed004.COMBINED.values @ seed004.WV
    e = np.exp(t.scores[0] / np.sqrt(2))
    assert_allclose(weights, e / e.sum(axis=1, keepdims=True), rtol=1e-12)
    assert_allclose(output, weights @ v, rtol=1e-12)
    assert_allclose(output, t.head_outputs[0], rtol=1e-12)  # the preset itself scales by 1/sqrt(2)


def test_check_marks_a_wrong_number() -> None:
    printed = ls.Printed("x", "In [1]", np.array([[1.25, -np.inf]]), 2, 2)
    assert ls.Check(printed, np.array([[1.254, -np.inf]]), "").agrees
    assert not ls.Check(printed, np.array([[1.256, -np.inf]]), "").agrees
    assert not ls.Check(printed, np.array([[1.25, 0.0]]), "").agrees  # -inf only matches -inf
    assert not ls.Check(printed, np.array([1.25, -np.inf]), "").agrees  # shape differs
    assert not ls.Check(printed, None, "").agrees
    assert [r.verdict for r in ls.rows([ls.Check(printed, np.array([[9.0, -np.inf]]), "")])] == ["✗"]


def test_fmt_prints_as_numpy_does() -> None:
    assert ls.fmt([0.1981, 0.199, 0.2012], 4) == "[0.1981 0.199  0.2012]"
    assert ls.fmt([1.0, 0.0, 2.0], 8) == "[1. 0. 2.]"


def test_checks_follow_an_edited_example() -> None:
    ex = PRESETS["three-inputs"].build()
    w_v = ex.w_v.copy()
    w_v[0, 0, 0] += 1.0
    checks = {c.label: c for c in ls.checks("three-inputs", pipeline.run(ex.with_(w_v=w_v)))}
    assert checks["Q = x w_query"].agrees
    assert not checks["V = x w_value"].agrees
    assert not checks["attention_input1 (output of input 1)"].agrees


def test_pronoun_head_finds_the_noun() -> None:
    ex = PRESETS["pronoun"].build()
    res = pipeline.run(ex)
    it, animal, street = (res.tokens.index(w) for w in ("it", "animal", "street"))
    w = res.attention.weights[0, it]
    assert w.argmax() == animal and w[animal] > 0.8
    emb = ex.emb.copy()
    emb[it, 4], emb[it, 5] = 0.0, 1.0  # "about an object": "...because it was too wide"
    w2 = pipeline.run(ex.with_(emb=emb)).attention.weights[0, it]
    assert w2.argmax() == street and w2[street] > 0.8


def test_causal_vs_bidirectional_tables() -> None:
    ex = PRESETS["causal-vs-bidirectional"].build()
    res = pipeline.run(ex)
    free, causal, text = ls.extras("causal-vs-bidirectional", ex, res)
    assert_allclose(causal.values, res.attention.weights[0])
    assert_allclose(causal.values[0], np.eye(res.n)[0])
    assert_allclose(causal.values[-1], free.values[-1], rtol=1e-12)
    assert not np.allclose(causal.values[1], free.values[1])
    assert text.caption.count("✓") == 2


def test_row_stats_and_largest_difference() -> None:
    rs = pipeline.row_stats(ac.layer_norm(np.arange(12.0).reshape(3, 4) ** 2))
    assert rs.max_abs_mean < 1e-12 and 0.99 < rs.min_var <= rs.max_var < 1.0
    assert pipeline.largest_difference(np.zeros(3), np.array([0.0, -2.0, 1.0])) == 2.0
    assert pipeline.largest_difference(np.zeros(3), np.zeros(4)) == np.inf
