"""No chart title is cut: in Chromium, every chart's title and subtitle lie inside the chart's own drawing
(its SVG), on the pages a class sees with a real model at 1280x800, in Spanish (presenting at 1920x1080:
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

from explorer.lessons import routes
from explorer.ui import lesson_ui, lesson_view

pytestmark = pytest.mark.e2e

CAT = "The cat sat on the mat because it was warm."

# The pages with a real model at 1280 (path, model): the real-model pages, and the explorer's pages with a
# trained layer open.
LAPTOP_PAGES = (
    *((p, m) for p in ("model", "head", "ablation", "rollout") for m in ("minilm", "smollm2")),
    *((p, "smollm2") for p in ("next-token", "logit-lens", "induction")),
    *((p, m) for p in ("positional-encoding", "scores", "encoder") for m in ("minilm", "smollm2")),
)
REAL_LAYER = ("positional-encoding", "scores", "encoder")  # the explorer's pages, a trained layer open
# The pages of one session link (a model, or a trained layer) one after the other: one page load for them all.
LAPTOP_PAGES = tuple(sorted(LAPTOP_PAGES, key=lambda pm: (pm[0] in REAL_LAYER, pm[1])))


@pytest.mark.parametrize(("path", "model"), LAPTOP_PAGES, ids=[f"{p}-{m}" for p, m in LAPTOP_PAGES])
def test_no_chart_title_is_cut_on_a_laptop(shared_laptop_app: Any, path: str, model: str) -> None:
    need(model)
    real = path in REAL_LAYER
    query = {"real": model, "real_layer": LAYERS[model]} if real else {"model": model}
    # in Spanish: its titles run longer than English
    link = {"sentence": CAPITAL if model == "smollm2" else CAT, "lang": "es", **query}
    app = shared_laptop_app.visit(path, 1, link)
    no_title_cut(app, f"{path}-{model}-1280")
    # The page as a student's laptop shows it, for a person to look at (test-output/).
    app.screenshot(f"{'layer' if real else 'model'}-{path}-{model}-1280x800")


# A lesson step at 1280x800 (explorer.ui.lesson_view), in this module's laptop tab (a tab of its own costs a
# boot): the bar stays at the top and the page scrolls the step's chart to just under it, once, on arriving;
# when the bar grows (its answer revealed), the page moves down as much.
# The bar and the step's target: their top and bottom in the viewport, once the target is on the page.
_PLACES = """keys => {
  const bar = document.querySelector('.st-key-lesson-bar');
  const el = keys.map(k => document.querySelector(`.st-key-${k}`)).find(Boolean);
  if (!bar || !el) return null;
  const b = bar.getBoundingClientRect(), t = el.getBoundingClientRect();
  return {bar: [b.top, b.bottom], target: [t.top, t.bottom], height: innerHeight};
}"""


def test_a_steps_chart_starts_under_its_bar(shared_laptop_app) -> None:
    app = shared_laptop_app
    route = routes.ATTENTION
    # /scores's last chart (the weights, below the raw and the scaled scores), then its first (the raw ones)
    for k in (6, 4):
        step = route.steps[k - 1]
        keys = lesson_view.css_keys(step.part)
        app.open("", min_charts=3, lesson=route.name, step=str(k))
        got = app.poll(
            f"() => {{ const p = ({_PLACES})({keys!r}); "
            "return p && Math.abs(p.target[0] - p.bar[1]) < 24 ? p : null; }",
            what=f"step {k}'s chart ({keys}) just under the bar",
        )
        assert got["bar"][0] >= 0 and got["bar"][1] < got["height"] / 2, got  # the bar whole, on screen
        assert got["target"][0] < got["height"] - 300, got  # and most of the chart's first 300 px under it
    app.screenshot("lesson-view-attention-4")
    # Reveal makes the bar taller: the page moves down as much, and the chart still starts just under it
    app.page.locator(f".st-key-{lesson_ui.REVEAL} button").click()
    grown = app.poll(
        f"() => {{ const p = ({_PLACES})({keys!r}); "
        f"return p && p.bar[1] > {got['bar'][1] + 40} && Math.abs(p.target[0] - p.bar[1]) < 24 ? p : null; }}",
        what="the answer shown and the chart still just under the bar",
    )
    assert grown["bar"][0] >= 0, grown
    app.screenshot("lesson-view-attention-4-revealed")


# The bar at 1280x800, once its answer and the experiment are shown (its tallest: the last step): whole (nothing
# in it scrolled away), its way back on screen, the header above it as opaque as the page (nothing scrolled
# under it shows through) and, while it sticks, at most a third of the screen with the step's chart under it.
_WHOLE = """() => {
  const bar = document.querySelector('.st-key-lesson-bar');
  const back = document.querySelector('.st-key-lesson-bar .st-key-step-prev a');
  const header = document.querySelector('[data-testid="stHeader"]');
  const chart = [...document.querySelectorAll('.js-plotly-plot')].find(
    (c) => c.getBoundingClientRect().top >= bar.getBoundingClientRect().bottom - 2);
  const r = (e) => { const b = e.getBoundingClientRect(); return [b.top, b.bottom]; };
  return {bar: r(bar), inside: bar.scrollHeight - bar.clientHeight, back: back && r(back),
          sticks: getComputedStyle(bar.parentElement).position === 'sticky',
          header: getComputedStyle(header).backgroundColor, chart: chart && r(chart), height: innerHeight};
}"""


def test_a_lesson_bar_on_a_laptop_is_whole_and_leaves_its_chart_in_view(shared_laptop_app) -> None:
    app = shared_laptop_app
    route = routes.ATTENTION
    k = len(route.steps)
    app.open(route.steps[k - 1].page, min_charts=1, lesson=route.name, step=str(k))
    app.page.locator(f".st-key-{lesson_ui.REVEAL} button").click()
    app.poll(
        f"() => document.querySelector('.st-key-lesson-bar').innerText.includes({route.steps[k - 1].answer!r})",
        what="the answer shown",
    )
    app.settle(1)
    got = app.poll(f"() => {{ const g = ({_WHOLE})(); return g.chart && g; }}", what="the step's chart")
    app.screenshot("lesson-bar-laptop-attention-9-revealed")
    assert got["inside"] <= 1, got  # nothing of the bar hidden inside it
    assert got["back"] is not None and got["bar"][0] <= got["back"][0] < got["back"][1] <= got["bar"][1], got
    assert got["back"][0] >= 0 and got["back"][1] <= got["height"], got
    assert got["header"] not in ("transparent", "rgba(0, 0, 0, 0)"), got
    if got["sticks"]:
        assert got["bar"][1] - got["bar"][0] <= got["height"] / 3 + 1, got  # lesson_view.js FIT
        assert got["chart"][0] < got["height"] - 300, got  # most of the chart's first 300 px under it


_FIRST_ROW = """() => {
  const el = document.querySelector('.st-key-ablation-switches');
  if (!el) return null;
  const top = el.getBoundingClientRect().top;
  const row = [...el.querySelectorAll('[data-testid="stWidgetLabel"]')].find(
    (l) => l.getBoundingClientRect().top >= top - 2);
  return row ? row.innerText.trim() : null;
}"""


def test_the_copy_lessons_experiment_opens_the_switches_at_its_layers(shared_laptop_app) -> None:
    """At 1280x800 the copy lesson's last step opens /ablation's box of switches (30 layers, scrolling in it)
    at the first induction head's layer, the experiment's, not at layer 1."""
    need("smollm2")
    route = routes.COPY
    k = len(route.steps)
    app = shared_laptop_app.open(route.steps[k - 1].page, min_charts=1, lesson=route.name, step=str(k))
    want = f"layer {routes.FIRST_HEAD[0]}"
    app.poll(f"() => ({_FIRST_ROW})() === {want!r}", what=f"the switches' box showing {want} first")
