"""What only a browser shows: typing a sentence, links that carry an example, the data editor, navigation."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attention_core as ac
from explorer.model.example import Example, conform

pytestmark = pytest.mark.e2e

REPEATED = "the cat sat on the mat"
REPEATED_LABELS = ["the ·0", "cat", "sat", "on", "the ·4", "mat"]


def core_trace(sentence: str | None = None, w_q: np.ndarray | None = None) -> ac.AttentionTrace:
    ex = conform(Example() if sentence is None else Example(sentence=sentence))
    tokens = ac.tokenize(ex.sentence)
    x = ac.embed(tokens, ex.d_model, seed=ex.seed) + ac.positional_encoding(len(tokens), ex.d_model)
    wq = ex.w_q if w_q is None else w_q
    return ac.multi_head_attention(x, wq, ex.w_k, ex.w_v, ex.w_o, scale=1 / np.sqrt(ex.d_k))


def test_typing_a_sentence_updates_every_heatmap(app) -> None:
    app.open("scores", min_charts=3)
    app.type_sentence(REPEATED)
    app.wait_labels("scores-weights", REPEATED_LABELS)
    for key in ("scores-raw", "scores-scaled", "scores-weights"):
        assert app.labels(key) == REPEATED_LABELS, key  # a repeated word keeps its own row
        assert app.labels(key, "xaxis") == REPEATED_LABELS, key
        assert app.z(key).shape == (6, 6), key
    assert_allclose(app.z("scores-weights"), core_trace(REPEATED).weights[0], rtol=1e-12, atol=1e-15)
    assert parse_qs(urlparse(app.page.url).query).get("sentence") == [REPEATED]  # the link follows
    assert app.exceptions() == []
    app.screenshot("flow-typed-sentence")


def test_sentence_link_opens_that_example(app) -> None:
    sentence = "Attention is all you need"
    app.open("heads", min_charts=3, sentence=sentence)
    assert app.sentence_box().input_value() == sentence
    assert app.labels("heads-grid") == ["Attention", "is", "all", "you", "need"]
    assert_allclose(app.z("heads-grid", 1), core_trace(sentence).weights[1], rtol=1e-12, atol=1e-15)
    app.go("scores", min_charts=3)  # the sentence stays with the session, and in the address bar
    assert app.labels("scores-weights") == ["Attention", "is", "all", "you", "need"]
    assert parse_qs(urlparse(app.page.url).query).get("sentence") == [sentence]


def test_preset_link_opens_the_preset(app) -> None:
    from explorer.compute import pipeline
    from explorer.lessons import PRESETS

    ex = PRESETS["three-inputs"].build()
    res = pipeline.run(ex)
    app.open("scores", min_charts=3, preset="three-inputs")
    assert app.exceptions() == []
    assert app.sentence_box().input_value() == ex.sentence
    assert app.labels("scores-weights") == res.labels
    assert_allclose(app.z("scores-weights"), res.attention.weights[0], rtol=1e-12, atol=1e-15)
    assert_allclose(app.z("scores-raw"), res.attention.scores[0], rtol=1e-12, atol=1e-14)
    app.screenshot("flow-preset-three-inputs")


def test_editing_w_q_changes_the_weights_and_survives_navigation(app) -> None:
    ex = conform(Example())
    edited = ex.w_q.copy()
    edited[0, 0, 0] = 2.5  # head 1, row d0, column q0
    want = core_trace(w_q=edited)
    assert not np.allclose(want.weights[0], core_trace().weights[0])

    app.open("projections", min_charts=3)
    app.edit_until_chart_changes(0, row=0, col=0, text="2.5", key="projections-w_q")
    assert_allclose(app.z("projections-w_q"), want.q[0], rtol=1e-12, atol=1e-14)
    assert app.exceptions() == []

    app.go("scores", min_charts=3)  # the attention weights chart follows the edit
    assert_allclose(app.z("scores-weights"), want.weights[0], rtol=1e-12, atol=1e-15)
    assert_allclose(app.z("scores-raw"), want.scores[0], rtol=1e-12, atol=1e-14)

    app.go("projections", min_charts=3)  # back again: the edit is still there
    assert_allclose(app.z("projections-w_q"), want.q[0], rtol=1e-12, atol=1e-14)
    cell = app.editor(0).locator("#glide-cell-1-0").inner_text()
    assert float(cell) == 2.5
    app.screenshot("flow-edited-w_q")


def test_causal_mask_is_drawn_grey_zero_weights(app) -> None:
    """The mask control reruns the page; masked weights are a grey layer marked 0, not a colour of the scale
    (and -inf only on the softmax's input).

    The screenshot test-output/readme-scores.png (scrolled to the controls and the three heatmaps) is the
    README's picture, docs/screenshot.png.
    """
    app.open("scores", min_charts=3, sentence=REPEATED)
    app.remember("scores-weights")
    app.page.locator('[data-testid="stRadio"] label', has_text="causal").first.click()
    weights = app.wait_chart_change("scores-weights")
    blocked = ~np.tril(np.ones((6, 6), dtype=bool))
    z = app.z("scores-weights")
    assert np.isnan(z[blocked]).all() and not np.isnan(z[~blocked]).any()
    grey = weights["data"][1]
    assert np.array_equal(np.array(grey["text"]) == "0", blocked)
    assert np.array_equal(np.array(app.chart("scores-scaled")["data"][1]["text"]) == "-inf", blocked)
    trace = ac.multi_head_attention(
        *_inputs(REPEATED), mask=ac.causal_mask(6), scale=1 / np.sqrt(conform(Example()).d_k)
    )
    assert_allclose(z[~blocked], trace.weights[0][~blocked], rtol=1e-12, atol=1e-15)
    app.page.mouse.move(100, 1000)  # no hover toolbar in the picture
    app.page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollBy(0, 410)")
    app.poll(
        "() => document.querySelector('[data-testid=\"stMain\"]').scrollTop > 0", what="the page scrolled"
    )
    app.settle()  # (the scroll has stopped: the page's blocks sit still for two frames)
    app.screenshot("readme-scores")


def _inputs(sentence: str) -> tuple[np.ndarray, ...]:
    ex = conform(Example(sentence=sentence))
    tokens = ac.tokenize(sentence)
    x = ac.embed(tokens, ex.d_model, seed=ex.seed) + ac.positional_encoding(len(tokens), ex.d_model)
    return x, ex.w_q, ex.w_k, ex.w_v, ex.w_o


def test_reload_keeps_the_whole_state(app) -> None:
    """F5 in class: the address bar carries every setting and edit, not just the sentence."""
    app.open("scores", min_charts=3, mask="causal", alibi="1")
    app.type_sentence("the cat sat on the mat")
    app.wait_labels("scores-weights", ["the ·0", "cat", "sat", "on", "the ·4", "mat"])
    before = app.z("scores-weights")
    app.page.reload()
    app.settle(3)
    params = app.page.evaluate("() => Object.fromEntries(new URLSearchParams(location.search))")
    assert params["sentence"] == "the cat sat on the mat" and params["mask"] == "causal", params
    assert params["alibi"] == "1", params
    assert_allclose(app.z("scores-weights"), before, rtol=0, atol=0)
    assert app.exceptions() == []
