"""The bridge in a real Chromium: on /head, "Open layer L in the explorer" switches to /scores,
which draws the real model's weights for that head; an edit to a real weight moves them; the address bar
reopens the opened layer with the edit; "Back to the toy model" returns. (The explorer's pages with that layer
open are measured and photographed presenting at 1920x1080 by test_present_real_screen and at 1280x800 by
test_chart_titles.)"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from numpy.testing import assert_allclose

from attention_core import pretrained
from explorer.model.example import DEFAULT_SENTENCE

pytestmark = pytest.mark.e2e


def need(name: str) -> pretrained.Model:
    try:
        return pretrained.load(name)
    except pretrained.ModelNotInstalledError as exc:  # CI installs them (tests/app/pages/test_model_pages.py)
        pytest.skip(str(exc))


def query(app) -> dict[str, str]:  # noqa: ANN001 - the conftest's App
    return {k: v[0] for k, v in parse_qs(urlparse(app.page.url).query).items()}


def open_layer(app, layer: int, head: int) -> None:  # noqa: ANN001
    app.open("head", min_charts=4, model="minilm", layer=str(layer + 1), head=str(head + 1))
    app.page.get_by_role("button", name=f"Open layer {layer + 1} in the explorer").click()
    app.poll("() => location.pathname.endsWith('/scores')", what="/scores after the bridge's button")
    app.settle(3)


def test_a_layer_opened_from_head_draws_its_weights_on_scores_and_an_edit_moves_them(app) -> None:  # noqa: ANN001
    m = need("all-MiniLM-L6-v2")
    open_layer(app, 2, 5)
    assert app.exceptions() == []
    real = m.run(DEFAULT_SENTENCE).attentions[2, 5]
    assert_allclose(app.z("scores-weights"), real, rtol=1e-5, atol=1e-6)  # what /head drew for this head
    body = app.page.inner_text("body")
    assert "all-MiniLM-L6-v2, layer 3 of 6" in body and "Back to the toy model" in body
    assert query(app).get("real") == "minilm" and query(app).get("real_layer") == "2"
    # The address reopens the same layer and the same head in a new tab (h= carries the head on screen).
    address = app.page.url
    assert query(app).get("h") == "6"
    app.page.goto(address)
    app.settle(3)
    assert_allclose(app.z("scores-weights"), real, rtol=1e-5, atol=1e-6)
    app.page.get_by_role("button", name="Back to the toy model").click()
    app.poll(
        "() => new URLSearchParams(location.search).get('real') === null", what="the toy model's address"
    )
    app.settle(3)
    assert app.z("scores-weights").shape == (len(app.labels("scores-weights")),) * 2
    assert "Back to the toy model" not in app.page.inner_text("body")
    assert app.exceptions() == []
