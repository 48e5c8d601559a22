"""At 1280 x 800 a lesson step's chart is on screen with the bar that talks about it (explorer.ui.lesson_view):
the bar stays at the top and the page scrolls the step's chart to just under it, once, on arriving; when the
bar grows (its answer revealed), the page moves down as much."""

from __future__ import annotations

from explorer.lessons import routes
from explorer.ui import lesson_ui, lesson_view

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
