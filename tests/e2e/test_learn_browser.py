"""/learn in a real Chromium: moving the training-step slider redraws every head's attention at that
checkpoint (the engine's weights of the shipped run)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from attention_core import training as tr
from explorer.compute import learning as lc

pytestmark = pytest.mark.e2e


def test_scrubbing_the_slider_redraws_the_attention_of_that_checkpoint(app) -> None:  # noqa: ANN001
    app.open("learn", min_charts=4)
    run = lc.shipped()
    app.remember("learn-patterns")
    thumb = app.page.locator(".st-key-learn-step input[type=range]")
    thumb.focus()
    thumb.press("Home")  # the first checkpoint: the untrained model
    grid = app.wait_chart_change("learn-patterns")
    assert "step 0," in grid["layout"]["title"]["text"]
    expected = tr.run(run.recipe.cfg, run.params_at(0), lc.display_tokens()).attentions[0]
    z = app.z("learn-patterns")
    drawn = z[~np.isnan(z)]
    assert_allclose(np.sort(drawn), np.sort(expected.astype(np.float32).ravel()), rtol=1e-5)
    app.remember("learn-patterns")
    thumb.press("ArrowRight")  # one checkpoint on
    grid = app.wait_chart_change("learn-patterns")
    assert f"step {int(run.checkpoints[1])}," in grid["layout"]["title"]["text"]
    assert app.exceptions() == []
