"""No chart title is cut: in Chromium, every chart's title and subtitle lie inside the chart's own drawing
(its SVG), on the pages a class sees with a real model at 1280x800 (presenting at 1920x1080:
test_present_real_screen checks the same on every step it measures). The title builders wrap to the width a
page gives them (style._title); a page that draws a chart in a narrower column than it tells the builder runs
the title off the chart's right edge, where nothing shows it.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_present_real_screen import LAYERS
from test_present_screen import no_title_cut
from test_real_model_browser import CAPITAL, need

pytestmark = pytest.mark.e2e

CAT = "The cat sat on the mat because it was warm."

# The pages with a real model at 1280 (path, model): the real-model pages, and the explorer's pages with a
# trained layer open.
LAPTOP_PAGES = (
    *((p, m) for p in ("model", "head", "ablation", "rollout") for m in ("minilm", "smollm2")),
    *((p, "smollm2") for p in ("next-token", "logit-lens", "induction")),
    *((p, m) for p in ("positional-encoding", "scores", "encoder") for m in ("minilm", "smollm2")),
)


@pytest.mark.parametrize(("path", "model"), LAPTOP_PAGES, ids=[f"{p}-{m}" for p, m in LAPTOP_PAGES])
def test_no_chart_title_is_cut_on_a_laptop(shared_laptop_app: Any, path: str, model: str) -> None:
    need(model)
    real = path in ("positional-encoding", "scores", "encoder")
    query = {"real": model, "real_layer": LAYERS[model]} if real else {"model": model}
    app = shared_laptop_app.open(path, min_charts=1, sentence=CAPITAL if model == "smollm2" else CAT, **query)
    no_title_cut(app, f"{path}-{model}-1280")
    # The page as a student's laptop shows it, for a person to look at (test-output/).
    app.screenshot(f"{'layer' if real else 'model'}-{path}-{model}-1280x800")
