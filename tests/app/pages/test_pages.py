"""AppTest of every page: alone and reached through app.py; the numbers drawn equal attention_core's.

Each page is checked on the default example (the seeded matrices) against a reference computed with the
core directly; then a control is changed (sentence, heads, mask, head, d_model) and the page must follow.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attention_core as ac
from explorer.model.example import DEFAULT_SENTENCE
from explorer.ui import state
from explorer.ui import widgets as ui
from explorer.views import figures as fg

URL_PATHS = ("", "positional-encoding", "projections", "scores", "heads", "token", "encoder", "why-scale")
LABELLED = tuple(u for u in URL_PATHS if u != "why-scale")  # pages whose charts are labelled by token
REPEATED = "the cat sat on the mat"
REPEATED_LABELS = ["the ·0", "cat", "sat", "on", "the ·4", "mat"]


def check_page_numbers(kit, url: str, at, ref) -> None:  # noqa: ANN001 - fixtures and AppTest objects
    """The values that matter on each page, compared with the core's (and the token labels)."""
    cs = kit.charts(at)
    missing = [k for k in kit.page_charts[url] if k not in cs]
    assert not missing, f"/{url} lacks charts {missing}; it drew {sorted(cs)}"
    lab = ref.labels
    if url == "":
        spec = cs["sentence.embeddings"]
        assert kit.labels(spec) == lab
        assert_allclose(kit.z(spec), ref.emb, rtol=1e-12)
    elif url == "positional-encoding":
        assert kit.labels(cs["pe.x"]) == lab
        assert_allclose(kit.z(cs["pe.matrix"]), ref.pe, rtol=1e-12, atol=1e-15)
        assert_allclose(kit.z(cs["pe.x"]), ref.x, rtol=1e-12, atol=1e-15)
        assert_allclose(kit.z(cs["pe.similarity"]), ref.pe @ ref.pe.T, rtol=1e-12, atol=1e-12)
    elif url == "projections":
        for name, arr in (("w_q", ref.trace.q), ("w_k", ref.trace.k), ("w_v", ref.trace.v)):
            spec = cs[f"projections.{name}"]
            assert kit.labels(spec) == lab
            assert_allclose(kit.z(spec), arr[0], rtol=1e-12, atol=1e-14)
    elif url == "scores":
        weights = cs["scores.weights"]
        assert kit.labels(weights) == lab and kit.labels(weights, "xaxis") == lab
        assert_allclose(kit.z(cs["scores.raw"]), ref.trace.scores[0], rtol=1e-12, atol=1e-14)
        assert_allclose(kit.z(weights), ref.trace.weights[0], rtol=1e-12, atol=1e-15)
        assert fg.row_sums_of(weights) == ["Σ 1.000"] * len(lab)
    elif url == "heads":
        grid = cs["heads.grid"]
        assert len(grid["data"]) == ref.ex.n_heads
        for h in range(ref.ex.n_heads):
            assert_allclose(kit.z(grid, h), ref.trace.weights[h], rtol=1e-12, atol=1e-15)
        assert kit.labels(grid) == lab
        assert_allclose(kit.z(cs["heads.concat"]), ref.trace.concat, rtol=1e-12, atol=1e-14)
        assert_allclose(kit.z(cs["heads.output"]), ref.trace.output, rtol=1e-12, atol=1e-14)
    elif url == "token":
        bars = cs["token.weights"]
        assert kit.labels(bars, "xaxis") == lab
        assert_allclose(kit.array(bars["data"][0]["y"]), ref.trace.weights[0, 0], rtol=1e-12, atol=1e-15)
        total = cs["token.stack"]["data"][-1]  # the marker trace: the query's output row
        assert_allclose(kit.array(total["y"]), ref.trace.head_outputs[0, 0], rtol=1e-12, atol=1e-14)
    elif url == "encoder":
        assert kit.labels(cs["encoder.X (input)"]) == lab
        out = cs["encoder.Output = LN(H + FFN(H))"]
        assert_allclose(kit.z(out), ref.encoder.output, rtol=1e-10, atol=1e-12)
    elif url == "why-scale":
        from explorer.compute.cached import D_KS

        var = ac.score_variance_experiment(list(D_KS), n_samples=2000, seed=ref.ex.seed)
        curves = cs["why.variance"]["data"]
        assert_allclose(kit.array(curves[0]["y"]), var.unscaled, rtol=1e-12)
        assert_allclose(kit.array(curves[1]["y"]), var.scaled, rtol=1e-12)
        assert np.all(np.abs(kit.array(curves[1]["y"]) - 1.0) < 0.25)  # the scale brings it back to ~1
        table = at.dataframe[0].value
        assert len(table) == ref.ex.n_heads


@pytest.mark.parametrize("url", URL_PATHS)
def test_page_alone(kit, url: str) -> None:
    at = kit.open(url, via_app=False)
    assert not at.exception, at.exception
    check_page_numbers(kit, url, at, kit.reference())


@pytest.mark.parametrize("url", URL_PATHS)
def test_page_after_navigation(kit, url: str) -> None:
    at = kit.open(url, via_app=True)
    assert not at.exception, at.exception
    # The frame is drawn around the page: the sentence box above it, the model size in the sidebar.
    boxes = [t for t in at.text_input if t.key == "sentence"]
    assert boxes and boxes[0].value == DEFAULT_SENTENCE, "the sentence box of the frame is missing"
    assert {n.label for n in at.sidebar.number_input} >= {"d_model", "heads", "d_k = d_v", "seed"}
    check_page_numbers(kit, url, at, kit.reference())


@pytest.mark.parametrize("url", LABELLED)
def test_sentence_typed_then_navigated(kit, url: str) -> None:
    """Type a sentence with a repeated word on the first page, go to the page: 6 distinct rows everywhere."""
    at = kit.app()
    at.text_input(key="sentence").set_value(REPEATED).run()
    assert not at.exception, at.exception
    at.switch_page(kit.scripts()[url]).run()
    assert not at.exception, at.exception
    ref = kit.reference(REPEATED)
    assert ref.labels == REPEATED_LABELS
    check_page_numbers(kit, url, at, ref)


@pytest.mark.parametrize("url", LABELLED)
def test_sentence_in_state_page_alone(kit, url: str) -> None:
    at = kit.open(url, via_app=False, state={"sentence": REPEATED})
    assert not at.exception, at.exception
    check_page_numbers(kit, url, at, kit.reference(REPEATED))


def test_typing_a_sentence_updates_the_page(kit) -> None:
    at = kit.open("scores", via_app=True)
    before = kit.labels(kit.charts(at)["scores.weights"])
    at.text_input(key="sentence").set_value("Attention is all you need").run()
    assert not at.exception, at.exception
    after = kit.labels(kit.charts(at)["scores.weights"])
    assert before != after
    assert after == ["Attention", "is", "all", "you", "need"]
    check_page_numbers(kit, "scores", at, kit.reference("Attention is all you need"))


def test_more_heads_more_panels(kit) -> None:
    at = kit.open("heads", via_app=True)
    assert len(kit.charts(at)["heads.grid"]["data"]) == 2
    at.sidebar.number_input(key="cfg.n_heads").set_value(3).run()
    assert not at.exception, at.exception
    ref = kit.reference(n_heads=3, changed=True)
    check_page_numbers(kit, "heads", at, ref)
    concat = kit.charts(at)["heads.concat"]
    # Each head's output is its own block of d_v columns, named above it and divided from the next by a line.
    assert [a["text"] for a in concat["layout"]["annotations"]] == ["head 1", "head 2", "head 3"]
    d_v = ref.trace.head_outputs.shape[2]
    assert [s["x0"] for s in concat["layout"]["shapes"] if s["type"] == "line"] == [d_v - 0.5, 2 * d_v - 0.5]
    for h in range(3):
        assert_allclose(kit.z(concat)[:, h * d_v : (h + 1) * d_v], ref.trace.head_outputs[h], rtol=1e-12)


def test_causal_mask_is_drawn_and_applied(kit) -> None:
    at = kit.open("scores", via_app=True)
    at.radio(key="scores.mask_kind").set_value("causal").run()
    assert not at.exception, at.exception
    ref = kit.reference(mask_kind="causal")
    cs = kit.charts(at)
    n = len(ref.labels)
    upper = ~np.tril(np.ones((n, n), dtype=bool))
    weights = cs["scores.weights"]
    z = kit.z(weights)
    assert np.isnan(z[upper]).all(), "masked cells must not be drawn as a colour of the scale"
    assert_allclose(z[~upper], ref.trace.weights[0][~upper], rtol=1e-12, atol=1e-15)
    assert_allclose(ref.trace.weights[0][upper], 0.0)
    grey = weights["data"][1]  # the masked overlay: grey cells marked 0 (their weight) where the mask forbids
    assert np.array_equal(np.array(grey["text"]) == "0", upper)
    assert "masked" in grey["hovertemplate"]
    scaled_grey = cs["scores.scaled"]["data"][1]  # -inf only on the scores, before the softmax
    assert scaled_grey["meta"]["masked_value"] == "-inf" and weights["data"][1]["meta"]["masked_value"] == "0"
    assert np.array_equal(kit.z(cs["scores.scaled"], 1) == 1, upper)
    assert kit.z(cs["scores.scaled"]).shape == (n, n)
    assert_allclose(kit.z(cs["scores.raw"]), ref.trace.scores[0], rtol=1e-12, atol=1e-14)


def test_head_picker_switches_the_head(kit) -> None:
    at = kit.open("scores", via_app=False)
    ref = kit.reference()
    assert not np.allclose(ref.trace.weights[0], ref.trace.weights[1])
    at.button_group(key="ui.head").set_value(1).run()
    assert not at.exception, at.exception
    assert_allclose(kit.z(kit.charts(at)["scores.weights"]), ref.trace.weights[1], rtol=1e-12, atol=1e-15)


def test_dimensions_change_the_projections(kit) -> None:
    at = kit.open("projections", via_app=True)
    at.sidebar.number_input(key="cfg.d_model").set_value(6).run()
    at.sidebar.number_input(key="cfg.d_k").set_value(3).run()
    assert not at.exception, at.exception
    ref = kit.reference(d_model=6, d_k=3, changed=True)
    check_page_numbers(kit, "projections", at, ref)
    assert kit.z(kit.charts(at)["projections.w_q"]).shape == (len(ref.labels), 3)


def test_empty_sentence_prompts_instead_of_charts(kit) -> None:
    at = kit.open("scores", via_app=True)
    at.text_input(key="sentence").set_value("   ").run()
    assert not at.exception, at.exception
    assert not kit.charts(at)
    assert any("type a few words" in i.value.lower() or "type a sentence" in i.value.lower() for i in at.info)


def test_long_sentence_is_cut_with_a_warning(kit) -> None:
    at = kit.open("scores", via_app=True)
    at.text_input(key="sentence").set_value(" ".join(f"w{i}" for i in range(70))).run()
    assert not at.exception, at.exception
    assert any("64" in w.value for w in at.warning)
    assert len(kit.labels(kit.charts(at)["scores.weights"])) == 64


def _terms(at):  # noqa: ANN001, ANN202 - the page's fold of the sum term by term (not its words' fold)
    return next(e for e in at.expander if e.label != ui.WORDS)


def test_token_terms_are_formulas_for_short_sentences_and_a_table_for_long_ones(kit) -> None:
    at = kit.open("token", via_app=True)
    assert len(_terms(at).latex) == 0  # closed: nothing is typeset
    at.session_state[state.K_TERMS] = True  # the expander opened
    at.run()
    n = len(kit.reference().labels)
    assert len(_terms(at).latex) == n  # one formula a_ij v_j = ... per key
    long = " ".join(f"w{j}" for j in range(20))
    at.text_input(key="sentence").set_value(long).run()
    assert not at.exception, at.exception
    expander = _terms(at)
    assert len(expander.latex) == 0
    (table,) = expander.dataframe
    df = table.value
    assert list(df["key j"]) == [f"w{j}" for j in range(20)]
    out = kit.charts(at)["token.stack"]["data"][-1]  # the query's output row, from the stacked chart
    contrib = df[[c for c in df.columns if "· v_j[" in c]].to_numpy()
    assert_allclose(contrib.sum(axis=0), kit.array(out["y"]), rtol=1e-12, atol=1e-14)  # the terms add up
    assert_allclose(df.iloc[:, 1].sum(), 1.0, rtol=1e-12)  # the query's weights over the keys
