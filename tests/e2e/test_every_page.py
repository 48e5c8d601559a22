"""Every page in a real Chromium: it loads with its charts, no exception, the token labels; a screenshot
of each at 1920x1080 goes to test-output/."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import attention_core as ac
from explorer.model.example import DEFAULT_SENTENCE, Example, conform
from explorer.views import figures as fg

pytestmark = pytest.mark.e2e

LABELS = ac.token_labels(ac.tokenize(DEFAULT_SENTENCE))

# url path -> (screenshot name, charts the default example draws, a chart whose rows are the tokens)
PAGES = {
    "": ("sentence", ["sentence-embeddings"], "sentence-embeddings"),
    "positional-encoding": ("positional-encoding", ["pe-curves", "pe-matrix", "pe-x"], "pe-x"),
    "projections": (
        "projections",
        ["projections-w_q", "projections-w_k", "projections-w_v"],
        "projections-w_q",
    ),
    "scores": ("scores", ["scores-raw", "scores-scaled", "scores-weights"], "scores-weights"),
    "heads": ("heads", ["heads-grid", "heads-concat", "heads-output"], "heads-grid"),
    "token": ("token", ["token-weights", "token-stack"], None),
    "encoder": ("encoder", [], None),
    "why-scale": ("why-scale", ["why-variance", "why-maxweight", "why-entropy"], None),
}
MIN_CHARTS = {"": 1, "positional-encoding": 6, "projections": 3, "scores": 3, "heads": 3, "token": 2,
              "encoder": 8, "why-scale": 3}  # fmt: skip


def default_trace() -> ac.AttentionTrace:
    """The core's attention on the default example (seeded embeddings and weights, sinusoidal P)."""
    ex = conform(Example())
    tokens = ac.tokenize(ex.sentence)
    x = ac.embed(tokens, ex.d_model, seed=ex.seed) + ac.positional_encoding(len(tokens), ex.d_model)
    return ac.multi_head_attention(x, ex.w_q, ex.w_k, ex.w_v, ex.w_o, scale=1 / np.sqrt(ex.d_k))


@pytest.mark.parametrize("url", list(PAGES))
def test_page_loads_with_its_charts(shared_app, url: str) -> None:
    """Each page, reached from the sidebar in one session (links straight to a page: test_flows.py and
    test_fresh_server.py)."""
    app = shared_app
    name, keys, labelled = PAGES[url]
    app.go(url, min_charts=MIN_CHARTS[url])
    app.screenshot(f"page-{name}")
    assert app.exceptions() == []
    charts = app.charts()
    assert len(charts) >= MIN_CHARTS[url]
    missing = [k for k in keys if k not in charts]
    assert not missing, f"/{url} lacks {missing}; it drew {sorted(charts)}"
    assert app.sentence_box().input_value() == DEFAULT_SENTENCE, "the frame's sentence box is missing"
    if labelled:
        assert app.labels(labelled) == LABELS
    if url == "token":
        assert list(charts["token-weights"]["layout"]["xaxis"]["ticktext"]) == LABELS
    if url == "scores":  # what the browser draws is the core's numbers (float64 all the way)
        tr = default_trace()
        weights = charts["scores-weights"]
        y_range = weights["layout"]["yaxis"]["range"]  # Plotly resolves autorange="reversed" to a range
        assert y_range[0] > y_range[1], "the first token must be the top row"
        assert_allclose(app.z("scores-weights"), tr.weights[0], rtol=1e-12, atol=1e-15)
        assert_allclose(app.z("scores-raw"), tr.scores[0], rtol=1e-12, atol=1e-14)
        assert fg.row_sums_of(weights) == ["Σ 1.000"] * len(LABELS)
    if url == "heads":
        tr = default_trace()
        for h in range(2):
            assert_allclose(app.z("heads-grid", h), tr.weights[h], rtol=1e-12, atol=1e-15)
        assert_allclose(app.z("heads-output"), tr.output, rtol=1e-12, atol=1e-14)
        # Each head's output is its named block of the concatenation, as drawn in the browser.
        assert_allclose(app.z("heads-concat"), tr.concat, rtol=1e-12, atol=1e-14)
        concat = app.chart("heads-concat")
        assert [a["text"] for a in concat["layout"]["annotations"]] == ["head 1", "head 2"]


def test_the_pipeline_maps_titles_are_whole_at_1280(app) -> None:  # noqa: ANN001
    """No step's title in the pipeline map on / is cut short ("13. Attention through the laye…")."""
    app.page.set_viewport_size({"width": 1280, "height": 800})
    app.open("", min_charts=1)
    cut = app.poll(
        """() => { const links = [...document.querySelectorAll('[data-testid="stPageLink"] p')];
                   if (links.length < 8) return null;
                   return {cut: links.filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.textContent)}; }""",
        what="the pipeline map's links",
    )["cut"]
    assert cut == [], cut
