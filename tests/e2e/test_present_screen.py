"""A step of the presentation fits the projector's screen, in Chromium at 1920x1080, in Spanish: its words run
20 to 30% longer than English, so a step that fits in Spanish fits in English.

Each step's page is one screen: its charts are in view without scrolling; the three steps of /scores show
three different charts; tables and data editors grow with the rest of the text; axis labels, ticks and
titles are dark enough for a projector (contrast at least 4.5:1 against the background).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

# (url path, step, the chart keys the step shows)
STEPS = (
    ("", "", ["sentence-embeddings"]),
    ("positional-encoding", "", ["pe-e", "pe-p", "pe-x"]),
    ("projections", "", ["projections-w_q", "projections-w_k", "projections-w_v"]),
    ("scores", "scores", ["scores-raw"]),
    ("scores", "masking", ["scores-mask", "scores-scaled"]),
    ("scores", "softmax", ["scores-weights"]),
    ("heads", "", ["heads-grid"]),
    ("token", "", ["token-weights", "token-stack"]),
    ("encoder", "", None),  # four stages
    ("why-scale", "", ["why-variance", "why-maxweight"]),
)

GEOMETRY = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const charts = [...document.querySelectorAll('.js-plotly-plot')].map((el) => {
    const holder = el.closest('[class*="st-key-"]');
    const key = [...holder.classList].find((c) => c.startsWith('st-key-')).slice(7);
    const r = el.getBoundingClientRect();
    return {key, top: r.top, bottom: r.bottom};
  });
  return {height: main.scrollHeight, view: window.innerHeight, charts};
}"""

CONTRAST = """() => {
  const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = (c) => {
    const [r, g, b] = rgb(c).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const out = [];
  document.querySelectorAll('.js-plotly-plot').forEach((plot) => {
    const bg = getComputedStyle(plot.querySelector('.main-svg')).backgroundColor;
    plot.querySelectorAll('.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .cbaxis text').forEach((t) => {
      const [a, b] = [lum(getComputedStyle(t).fill), lum(bg)].sort((x, y) => y - x);
      out.push([(a + 0.05) / (b + 0.05), t.textContent]);
    });
  });
  return out;
}"""


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


def no_title_cut(app, what: str) -> None:  # noqa: ANN001 - the conftest's App
    """No chart title is cut: every chart's title and subtitle lie inside the chart's own drawing (its SVG).
    The title builders wrap to the width a page gives them (style._title); a page that draws a chart in a
    narrower column than it tells the builder runs the title off the chart's right edge, where nothing
    shows it."""
    assert app.page.evaluate(_TITLES), f"{what}: no chart title drawn"
    cut = app.page.evaluate(_CUT)
    if cut:
        app.screenshot(f"title-cut-{what}")
    assert not cut, f"{what}: titles past their chart's edge: {cut}"
    assert app.exceptions() == []


def wait_charts(app, n: int) -> None:  # noqa: ANN001 - the conftest's App
    app.poll(f"() => document.querySelectorAll('.js-plotly-plot .xtick, .js-plotly-plot .xtick text').length && "
             f"document.querySelectorAll('.js-plotly-plot').length >= {n}", what=f"{n} charts drawn")  # fmt: skip
    app.settle()


@pytest.mark.parametrize(("path", "step", "keys"), STEPS, ids=[f"{p or 'sentence'}-{s}" for p, s, _ in STEPS])
def test_each_step_fits_one_screen_with_its_charts_in_view(shared_app, path: str, step: str, keys) -> None:  # noqa: ANN001
    app = shared_app  # one session in Spanish, each step visited in it
    app.visit(path, len(keys or [1] * 4), {"present": "1", "lang": "es"}, **({"step": step} if step else {}))
    wait_charts(app, len(keys or [1] * 4))
    assert app.page.evaluate("() => document.documentElement.lang") == "es"
    got = app.page.evaluate(GEOMETRY)
    app.page.screenshot(path=str(app_output(f"present-{path or 'sentence'}{'-' + step if step else ''}")))
    assert got["view"] == 1080
    assert got["height"] <= 1080 + 4, f"the step is {got['height']} px tall"
    drawn = [c["key"] for c in got["charts"]]
    if keys is not None:
        assert drawn == keys, drawn  # the step's own charts, nothing else
    else:
        assert len(drawn) == 4, drawn  # four stages: input, attention, H, output
    for c in got["charts"]:
        assert c["top"] >= 0 and c["bottom"] <= 1080, c
    low = [(round(r, 2), t) for r, t in app.page.evaluate(CONTRAST) if r < 4.5]
    assert not low, f"axis text below 4.5:1 contrast: {low[:5]}"


def app_output(name: str):  # noqa: ANN201
    from conftest import OUT

    OUT.mkdir(exist_ok=True)
    return OUT / f"{name}.png"


def test_tables_and_editors_grow_with_the_text_and_still_take_clicks(app) -> None:  # noqa: ANN001
    """The grids draw on a canvas in px: zoomed as much as the page's text grows (22/16), and a click lands
    on the cell drawn under the pointer (the same cell as at the same place of the grid unzoomed)."""
    app.open("", min_charts=1, present="1")
    holder = "document.querySelector('[data-testid=\"stDataFrame\"]').closest('[data-testid=\"stElementContainer\"]')"
    assert float(app.page.evaluate(f"() => getComputedStyle({holder}).zoom")) == pytest.approx(
        22 / 16, abs=0.01
    )
    grid = app.editor(0)
    selected = "e => { const c = e.querySelector('td[aria-selected=\"true\"]'); return c ? c.id : null; }"
    cells = []
    for zoom in (22 / 16, 1.0):
        if zoom == 1.0:  # the same grid unzoomed, clicked at the same place of the grid
            app.page.evaluate(f"() => {{ const h = {holder}; h.style.setProperty('zoom', '1', 'important'); "
                              "h.style.setProperty('width', '100%', 'important'); }")  # fmt: skip
            app.page.wait_for_timeout(1000)
        box = grid.bounding_box()
        assert box is not None
        app.page.mouse.click(box["x"] + box["width"] * 0.62, box["y"] + box["height"] * 0.5)
        app.poll_locator(grid, selected, what="a selected cell")
        cells.append(grid.evaluate(selected))
        app.page.keyboard.press("Escape")
    assert cells[0] == cells[1], cells
    assert app.exceptions() == []


LEVEL = """() => [...document.querySelectorAll('.js-plotly-plot')].map((el) => {
  const top = el.getBoundingClientRect().top;
  const title = el.querySelector('.gtitle');
  const first = title.querySelector('tspan.line') || title;  // a wrapped title: its first line
  return {title: first.getBoundingClientRect().top - top, lines: title.querySelectorAll('tspan.line').length || 1,
          plot: el.querySelector('.nsewdrag').getBoundingClientRect().top - top,
          chart: top};
})"""


def test_the_encoder_steps_four_charts_stand_level_though_one_title_wraps(shared_app) -> None:  # noqa: ANN001
    """Presenting, /encoder's four stages share one row; "Output = LN(H + FFN(H))" takes two lines there. The
    four plots start at one height and the four titles' first lines too (Plotly draws a title of several
    lines 0.7 em higher than one of one line: explorer.views.style._pin_title)."""
    app = shared_app.visit("encoder", 4, {"present": "1"})
    wait_charts(app, 4)
    got = app.page.evaluate(LEVEL)
    assert len(got) == 4 and max(g["lines"] for g in got) > 1 == min(g["lines"] for g in got), got
    for what in ("chart", "plot", "title"):
        tops = [g[what] for g in got]
        assert max(tops) - min(tops) <= 1, (what, got)
    assert all(-2 <= g["title"] <= 12 for g in got), got  # at the top of the chart


# Lesson steps presenting: the bar's line in place of the step-through's (the first step, a step of /scores, and
# the last with its answer and then its experiment shown: its longest lines).
LESSON_STEPS = ((1, 0), (6, 0), (9, 2))


@pytest.mark.parametrize(("k", "reveals"), LESSON_STEPS, ids=[f"attention-{k}" for k, _ in LESSON_STEPS])
def test_a_lesson_step_fits_one_screen_presenting(shared_app, k: int, reveals: int) -> None:  # noqa: ANN001
    from explorer.lessons import routes
    from explorer.ui import lesson_ui

    app = shared_app.visit("", 1, {"present": "1"}, lesson=routes.ATTENTION.name, step=str(k))
    for _ in range(reveals):  # Reveal, then Experiment: the same key, each shows the next line
        label = app.page.locator(f".st-key-{lesson_ui.REVEAL} button").inner_text()
        app.page.locator(f".st-key-{lesson_ui.REVEAL} button").click()
        app.poll(
            f"() => !document.querySelector('.st-key-{lesson_ui.REVEAL} button') || "
            f"document.querySelector('.st-key-{lesson_ui.REVEAL} button').innerText !== {label!r}",
            what="the bar's next line",
        )
        app.settle(1)
    got = app.page.evaluate(GEOMETRY)
    app.page.screenshot(path=str(app_output(f"present-lesson-attention-{k}-{reveals}")))
    assert got["height"] <= 1080 + 4, f"lesson step {k} is {got['height']} px tall"
    for c in got["charts"]:
        assert c["top"] >= 0 and c["bottom"] <= 1080, c
