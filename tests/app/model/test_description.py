"""explorer.model.description: what is on screen, described once, and the formulas, titles and settings the
pages draw from it (the toy's own, or the trained layer's: RMSNorm, SwiGLU, pre-norm, GELU, biases, RoPE)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from explorer.compute import pipeline
from explorer.model import bridge, description, models
from explorer.model.example import Example
from explorer.model.layer import describe
from explorer.ui import state
from explorer.views import formulas
from tests.app import fixtures
from tests.app.fixtures import CAPITAL, CAT, layer_example, need, opened_in_explorer


def test_the_toy_is_described_by_its_settings() -> None:
    d = describe(Example(norm_first=True, pe_kind="learned"))
    assert (d.norm, d.norm_first, d.activation, d.positions, d.biases, d.drawn, d.banner) == (
        "layer_norm", True, "relu", "learned", False, True, "",
    )  # fmt: skip
    assert not d.fixes("d_model") and not d.fixes("rope")
    block = formulas.block(d)
    assert (
        r"\text{pre-norm: } H = X + \operatorname{MHA}(\operatorname{LN}(X))" in block
        and r"\max(0,\, h W_1)" in block
    )
    assert r"\gamma" not in block  # the toy's layer norm has no trained gain
    post = formulas.block(describe(Example(norm_first=False)))
    assert r"\text{post-norm: } H = \operatorname{LN}(X + \operatorname{MHA}(X))" in post
    assert formulas.embeddings(d).startswith("E = ") and d.input_title == "Embeddings E"


def test_a_smollm2_layer_is_described_as_the_model_computes_it() -> None:
    m = need("smollm2")
    d = describe(layer_example("smollm2", 15, CAPITAL))
    assert (d.norm, d.norm_first, d.activation, d.positions, d.rope_base) == (
        "rms_norm", True, "swiglu", "rope", m.config.rope_base,
    )  # fmt: skip
    assert (d.n_heads, d.n_kv_heads, d.biases, d.causal) == (9, 3, False, True)
    assert d.title == "SmolLM2-135M, layer 16 of 30"
    block = formulas.block(d)
    assert r"H = X + \operatorname{MHA}(\operatorname{RMSNorm}(X))" in block
    assert (
        r"\operatorname{silu}(h W_1) \odot h W_{up}" in block
        and r"\max(0" not in block
        and "b_1" not in block
    )
    assert r"\operatorname{RMSNorm}(x) = \gamma \odot" in block
    assert r"\tilde Q \tilde K^\top" in formulas.scores(d) and "100{,}000" in formulas.scores(d)
    assert r"K_{g(h)}" in formulas.projections(d)  # nine query heads read three key/value heads
    # settings the layer fixes are said in words, never as True/False
    assert d.fixed["rope"] == "base 100,000, applied inside the layer (as trained)"
    assert d.fixed["norm_first"] == "RMSNorm, before attention and the feed-forward (as trained)"
    assert not any(v in ("True", "False") for v in d.fixed.values())
    assert d.input_title.startswith("X: the input of layer 16")
    assert not d.drawn and d.banner.startswith("SmolLM2-135M, layer 16 of 30: X is that layer's input")
    assert d.notebook == "layer" and "RoPE (base 100,000) rotates q and k" in d.banner


def test_a_minilm_layer_is_described_as_the_model_computes_it() -> None:
    need("minilm")
    d = describe(layer_example("minilm", 2))
    assert (d.norm, d.norm_first, d.activation, d.positions, d.biases, d.shares_kv) == (
        "layer_norm", False, "gelu", "in_x", True, False,
    )  # fmt: skip
    block = formulas.block(d)
    assert r"\operatorname{GELU}(h W_1 + b_1)\, W_2 + b_2" in block
    assert r"\gamma \odot \frac{x - \operatorname{mean}(x)}" in block and r"+ \beta" in block
    assert "post-norm" in block and "+ b_O" in formulas.heads(d) and "+ b_Q" in formulas.projections(d)
    assert "RoPE" not in formulas.scores(d)


def test_one_way_of_writing_a_token() -> None:
    need("smollm2")
    tokens, _ = bridge.tokens_of("smollm2", CAPITAL)
    assert tokens[1] == "␣capital" and description.show_token(" capital") == "␣capital"


def test_an_untouched_layer_shares_the_models_weights_and_an_edit_is_float64_and_exact() -> None:
    """Every session that opens a layer reads the model's own float32 arrays (nothing copied per session),
    the explorer's run of the untouched layer is the model's, and an edited matrix holds the typed number."""
    m = need("smollm2")
    ex = layer_example("smollm2", 7, CAPITAL)
    lw = m.layer_weights(7)
    for name in ("w_q", "w_o", "w1", "w2", "w_up"):
        assert np.shares_memory(getattr(ex, name), getattr(lw, name)), name
    assert np.shares_memory(
        layer_example("smollm2", 7, "Another sentence entirely.").w_q, ex.w_q
    )  # a second session, another sentence: the same array
    res = pipeline.run(ex)
    assert_allclose(res.attention.weights, m.run(CAPITAL).attentions[7], rtol=1e-5, atol=1e-6)

    at = opened_in_explorer("smollm2", CAPITAL, 7, 0)
    fixtures.go(at, "app_pages/projections.py")
    key = next(e.key for e in at.data_editor if e.key.startswith("ed.w_q.0."))
    fixtures.edit_cells(at, key, {"0": {"c0": 0.1}})
    w_q = fixtures.matrix(at, "w_q")
    assert w_q.dtype == np.float64 and w_q[0, 0, 0] == 0.1  # not 0.10000000149 (float32)
    assert_allclose(w_q[0, 1:], lw.w_q[0, 1:], rtol=0, atol=0)  # every other cell untouched


@pytest.mark.parametrize(
    ("page", "key", "formula_has", "formula_lacks"),
    [
        (
            "app_pages/encoder.py",
            "smollm2",
            [r"\operatorname{RMSNorm}", r"\operatorname{silu}", "pre-norm"],
            [r"\max(0"],
        ),
        (
            "app_pages/encoder.py",
            "minilm",
            [r"\operatorname{GELU}", "post-norm", r"\beta"],
            [r"\max(0", "RMSNorm"],
        ),
        ("app_pages/scores.py", "smollm2", [r"\tilde Q", "RoPE"], []),
        ("app_pages/heads.py", "minilm", ["+ b_O"], []),
        ("app_pages/sentence.py", "smollm2", [r"X = \text{the residual stream}"], ["E = "]),
    ],
)
def test_the_page_sends_the_formula_of_the_layer_it_shows(page, key, formula_has, formula_lacks) -> None:  # noqa: ANN001
    need(key)
    at = fixtures.go(opened_in_explorer(key, CAPITAL if key == "smollm2" else CAT, 3, 0), page)
    sent = " ".join(str(e.value) for e in at.latex)
    assert all(part in sent for part in formula_has), sent
    assert not any(part in sent for part in formula_lacks), sent
    fixed = " ".join(md.value for md in at.markdown).replace("\\", "")  # as shown: Markdown escapes gone
    assert "False" not in fixed and "True" not in fixed
    if page.endswith("scores.py"):
        assert (
            "**RoPE:** base 100,000, applied inside the layer (as trained)" in fixed
        )  # not a greyed "False"


def test_the_toy_pages_send_the_toys_formulas() -> None:
    at = fixtures.open_app(CAT)
    fixtures.go(at, "app_pages/encoder.py")
    sent = " ".join(str(e.value) for e in at.latex)
    assert r"\max(0,\, h W_1)" in sent and "RMSNorm" not in sent
    fixtures.go(at, "app_pages/sentence.py")
    assert any(r"E = \operatorname{embed}" in str(e.value) for e in at.latex)


def test_the_sidebar_describes_the_real_model_a_real_model_page_shows() -> None:
    need("smollm2")
    at = fixtures.open_app(CAPITAL)
    at.session_state[state.K_MODEL] = "smollm2"
    fixtures.go(at, "app_pages/model.py")
    sizes = " ".join(md.value for md in at.sidebar.markdown).replace("\\", "")  # as shown
    assert "30 layers · d_model 576 · 9 heads (3 key/value heads) · d_k 64 · d_ff 1536" in sizes
    assert models.choice("smollm2").shape == (30, 9)
