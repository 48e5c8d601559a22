"""The lesson pages /token, /encoder, /why-scale (AppTest): on every preset and on a typed sentence.

/token states, with numbers, that the weighted sum of the values is the query's row of A V; /encoder draws
post-norm and pre-norm, which differ; /why-scale measures var(q.k) growing as d_k and the scale undoing it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose
from streamlit.testing.v1 import AppTest

import attention_core as ac
from explorer.compute import pipeline
from explorer.lessons import PRESETS

APP = str(Path(__file__).resolve().parents[3] / "app.py")
LESSON_PAGES = {
    "app_pages/token.py": ("token.weights", "token.stack"),
    "app_pages/encoder.py": ("encoder.X (input)",),
    "app_pages/why-scale.py": ("why.variance", "why.maxweight", "why.entropy"),
}
TYPED = "Hello there, General Kenobi! It's 4 o'clock."


def open_app(preset: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if preset:
        at.query_params["preset"] = preset
    at.run()
    assert not at.exception, at.exception
    return at


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception, (page, at.exception)
    return at


def token_statement(at: AppTest) -> str:
    return next(s.value for s in at.success if s.value.startswith("Equal"))


@pytest.mark.parametrize("name", list(PRESETS))
def test_lesson_pages_run_on_every_preset(kit, name: str) -> None:
    at = open_app(name)
    res = pipeline.run(PRESETS[name].build())
    for page, keys in LESSON_PAGES.items():
        go(at, page)
        cs = kit.charts(at)
        assert set(keys) <= set(cs), (page, sorted(cs))
        if page == "app_pages/token.py":
            assert_allclose(kit.array(cs["token.stack"]["data"][-1]["y"]), res.attention.head_outputs[0, 0])
            assert "Equal" in token_statement(at)
        elif page == "app_pages/encoder.py":
            out = next(v for k, v in cs.items() if k.startswith("encoder.Output"))
            assert_allclose(kit.z(out), res.encoder.output, rtol=1e-10, atol=1e-12)
        else:
            assert len(at.dataframe[0].value) == res.attention.n_heads


def test_lesson_pages_on_a_typed_sentence(kit) -> None:
    at = open_app()
    at.text_input(key="sentence").set_value(TYPED).run()
    ref = kit.reference(TYPED)
    for page in LESSON_PAGES:
        go(at, page)
    # /why-scale, last: the sentence's table per head, from the core's scores
    raw = ref.trace.scores
    table = at.dataframe[0].value
    assert_allclose(table["var(QKᵀ)"], raw.var(axis=(1, 2)), rtol=1e-10)
    assert_allclose(table["var(QKᵀ/√d_k)"], (raw / np.sqrt(ref.ex.d_k)).var(axis=(1, 2)), rtol=1e-10)
    go(at, "app_pages/token.py")
    bars = kit.charts(at)["token.weights"]
    assert kit.labels(bars, "xaxis")[:3] == ["Hello", "there", ","]
    assert_allclose(kit.array(bars["data"][0]["y"]), ref.trace.weights[0, 0], rtol=1e-12)


def test_token_page_states_the_equality_with_numbers(kit) -> None:
    at = go(open_app("three-inputs"), "app_pages/token.py")
    assert "largest difference 0.0e+00" in token_statement(at)
    formulas = [e.value for e in at.latex]
    assert any("(A V)_{0} = [1.936621, 6.683105, 1.595068]" in f for f in formulas)
    assert any(r"\sum_j a_{0,j}\, v_j = [1.936621, 6.683105, 1.595068]" in f for f in formulas)
    note = next(i.value for i in at.info if "by hand, in a loop" in i.value)
    assert "[1.93662106 6.68310531 1.59506841]" in note and "the same" in note
    at.selectbox(key="ui.query").set_value(1).run()  # input 2: the row the notebook never printed
    res = pipeline.run(PRESETS["three-inputs"].build())
    cs = kit.charts(at)
    assert_allclose(kit.array(cs["token.weights"]["data"][0]["y"]), res.attention.weights[0, 1], rtol=1e-12)
    assert_allclose(kit.array(cs["token.stack"]["data"][-1]["y"]), res.attention.head_outputs[0, 1])
    assert not any("by hand, in a loop" in i.value for i in at.info)


def test_encoder_pre_and_post_norm_differ(kit) -> None:
    at = go(open_app(), "app_pages/encoder.py")
    ref = kit.reference()
    post = kit.z(kit.charts(at)["encoder.Output = LN(H + FFN(H))"])
    assert_allclose(post, ref.encoder.output, rtol=1e-10, atol=1e-12)
    assert_allclose(post.mean(axis=1), 0.0, atol=1e-12)  # post-norm ends on a layer norm
    assert any(m.value.startswith("**Post-norm:**") for m in at.markdown)
    at.radio(key="encoder.norm_first").set_value(True).run()
    assert not at.exception, at.exception
    cs = kit.charts(at)
    pre_key = next(k for k in cs if k.startswith("encoder.Output"))
    pre = kit.z(cs[pre_key])
    e = ref.ex
    want = ac.encoder_layer(
        ref.x, e.w_q, e.w_k, e.w_v, e.w_o, e.w1, e.w2, norm_first=True, scale=1 / np.sqrt(e.d_k)
    )
    assert_allclose(pre, want.output, rtol=1e-10, atol=1e-12)
    assert np.abs(pre - post).max() > 0.1
    assert "encoder.LN(X): what attention reads" in cs
    assert any(m.value.startswith("**Pre-norm:**") for m in at.markdown)


def test_why_scale_variance_grows_as_d_k(kit) -> None:
    at = go(open_app(), "app_pages/why-scale.py")
    curves = kit.charts(at)["why.variance"]["data"]
    d_k = kit.array(curves[0]["x"])
    raw, scaled = kit.array(curves[0]["y"]), kit.array(curves[1]["y"])
    assert d_k[0] == 1 and d_k[-1] == 512
    assert_allclose(raw / d_k, 1.0, atol=0.15)  # var(q.k) ~ d_k
    assert_allclose(scaled, 1.0, atol=0.15)  # var(q.k / sqrt(d_k)) ~ 1
    assert raw[-1] / raw[0] > 300
    peaks = kit.charts(at)["why.maxweight"]["data"]
    unscaled_peak = kit.array(peaks[0]["y"])
    assert unscaled_peak[-1] > 0.9 > kit.array(peaks[1]["y"])[-1]  # saturated without the scale


def test_why_scale_sets_notebook_003_beside_the_app(kit) -> None:
    at = go(open_app("causal-mask"), "app_pages/why-scale.py")
    note = next(i.value for i in at.info if "source measured it" in i.value)
    assert "7.9681" in note and "0.9960" in note and "(the same)" in note
    table = at.dataframe[0].value
    assert table["var(QKᵀ)"][0] == pytest.approx(7.96814250921233, abs=5e-8)


def test_two_digit_subscripts_are_comma_separated() -> None:
    """a₇₁₀ was printed for a₇,₁₀."""
    from explorer.views import formulas

    lines = formulas.score_cell(
        np.ones(4), np.ones(4), 4.0, 0.5, None, False, 0.3, np.array([1.0, 2.0]), 7, 10, 4
    )
    text = " ".join(lines)
    assert "s_{7,10}" in text and "a_{7,10}" in text and "_{710}" not in text
    masked = " ".join(
        formulas.score_cell(np.ones(4), np.ones(4), 4.0, 0.5, 0.1, True, 0.0, np.ones(2), 7, 10, 4)
    )
    assert "a_{7,10} = 0" in masked
