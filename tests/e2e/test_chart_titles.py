"""No chart title is cut: in Chromium, every chart's title and subtitle lie inside the chart's own drawing
(its SVG), on the pages a class sees with a real model, at 1280x800 and presenting at 1920x1080. The title
builders wrap to the width a page gives them (style._title); a page that draws a chart in a narrower column
than it tells the builder runs the title off the chart's right edge, where nothing shows it.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_present_real_screen import LAYERS, REAL
from test_real_model_browser import CAPITAL, need

pytestmark = pytest.mark.e2e

LAPTOP = {"width": 1280, "height": 800}
CAT = "The cat sat on the mat because it was warm."

# Each title's (and subtitle's) box beside the box of its chart's SVG: the ones that run past it.
_CUT = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap((el) => {
  const holder = el.closest('[class*="st-key-"]');
  const key = holder ? [...holder.classList].find((c) => c.startsWith('st-key-')).slice(7) : '?';
  const svg = el.querySelector('svg.main-svg').getBoundingClientRect();
  return [...el.querySelectorAll('.gtitle, .gtitle-subtitle')].flatMap((t) => {
    const r = t.getBoundingClientRect();
    return r.width && (r.right > svg.right + 1 || r.left < svg.left - 1)
      ? [{key, text: t.textContent.slice(0, 60), right: Math.round(r.right), svg: Math.round(svg.right)}] : [];
  });
})"""
_TITLES = "() => document.querySelectorAll('.js-plotly-plot .gtitle').length"

# The pages with a real model at 1280 (path, model): the real-model pages, and the explorer's pages with a
# trained layer open.
LAPTOP_PAGES = (
    *((p, m) for p in ("model", "head", "ablation", "rollout") for m in ("minilm", "smollm2")),
    *((p, "smollm2") for p in ("next-token", "logit-lens", "induction")),
    *((p, m) for p in ("positional-encoding", "scores", "encoder") for m in ("minilm", "smollm2")),
)


def _no_title_cut(app: Any, what: str) -> None:
    assert app.page.evaluate(_TITLES), f"{what}: no chart title drawn"
    cut = app.page.evaluate(_CUT)
    if cut:
        app.screenshot(f"title-cut-{what}")
    assert not cut, f"{what}: titles past their chart's edge: {cut}"
    assert app.exceptions() == []


@pytest.mark.parametrize(("path", "model"), LAPTOP_PAGES, ids=[f"{p}-{m}" for p, m in LAPTOP_PAGES])
def test_no_chart_title_is_cut_on_a_laptop(new_tab: Any, path: str, model: str) -> None:
    need(model)
    real = path in ("positional-encoding", "scores", "encoder")
    query = {"real": model, "real_layer": LAYERS[model]} if real else {"model": model}
    app = new_tab(viewport=LAPTOP).open(
        path, min_charts=1, sentence=CAPITAL if model == "smollm2" else CAT, **query
    )
    _no_title_cut(app, f"{path}-{model}-1280")


SHOWN = [r for r in REAL if r[3] and r[1] != "ablation-ranking"]  # the steps that draw a chart at once


@pytest.mark.parametrize(("path", "step", "model", "keys"), SHOWN, ids=[f"{s}-{m}" for _, s, m, _ in SHOWN])
def test_no_chart_title_is_cut_presenting(
    shared_app: Any, path: str, step: str, model: str, keys: Any
) -> None:
    need(model)
    sentence = CAPITAL if model == "smollm2" else CAT
    shared_app.open(path, min_charts=len(keys), present="1", step=step, model=model, sentence=sentence)
    _no_title_cut(shared_app, f"{step}-{model}-present")


@pytest.mark.parametrize("model", list(LAYERS))
@pytest.mark.parametrize("path", ["positional-encoding", "encoder", "scores"])
def test_no_chart_title_is_cut_presenting_a_real_layer(shared_app: Any, path: str, model: str) -> None:
    need(model)
    shared_app.open(path, min_charts=1, present="1", real=model, real_layer=LAYERS[model])
    _no_title_cut(shared_app, f"{path}-{model}-layer-present")
