"""The tiny trained model in a real browser: a lesson's link opens its layer 2 on /scores, and the heatmap a
student sees holds the induction head's weights as training's own forward pass computes them."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import training as tr
from explorer.model import tiny

pytestmark = pytest.mark.e2e

SENTENCE = "The cat sat on the mat because the cat was warm."


def test_a_link_opens_the_trained_induction_head_in_the_browser(app) -> None:  # noqa: ANN001
    head = tiny.lead_head(1)
    app.open("scores", min_charts=3, real="tiny", real_layer="1", sentence=SENTENCE, h=str(head + 1))
    z = app.z("scores-weights")
    t = tiny.trained()
    ids = np.array(tiny.token_ids_of(tiny.tokens_of(SENTENCE)[0]))
    want = tr.run(t.cfg, t.params, ids).attentions[0, 1, head]
    np.testing.assert_allclose(np.nan_to_num(z), want, atol=1e-9)
    assert "Trained model: the tiny trained model, layer 2 of 2" in app.page.inner_text("body")
