"""axe-core over every page, in Chromium: no serious or critical violation of its WCAG rules; the charts'
lines (3:1) and their own text (4.5:1) stand out from the chart's background in light and dark; the page
declares its language and every formula can be read aloud (MathML); every chart says what it shows and can
be drawn as tables; so does the HTML export.

One page of each layout in light and dark at 1280x800 (one tab, moving through the frame's menu; dark is the
system's scheme, which the app follows without a reload), and one step of each layout while presenting at
1920x1080, in the module's one tab (conftest's `app`: the frontend's files come from its cache); under `pytest -m load`, every listed page of the page table and every step of the step-through
(one tab, following the "next" link). axe is the copy that
axe-playwright-python bundles (nothing is fetched). Its rules do not look inside charts: what the charts say
is also checked in tests/app/views/test_chart_text.py. benchmarks/axe_audit.py prints the counts of every impact.
"""

from __future__ import annotations

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from conftest import LAPTOP

from explorer.ui import page_table, present
from explorer.views import colour as cv
from explorer.views import describe

pytestmark = pytest.mark.e2e

BAD = ("serious", "critical")
DRAWN = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="explorerChart"]')]
  .every((c) => c.querySelector('.main-svg'))"""
BACKGROUND = """() => getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor"""
DARK_BG = "rgb(14, 17, 23)"  # .streamlit/config.toml [theme.dark] backgroundColor


# The colours every chart draws its lines and its own text with (axis ticks and titles, the title, the
# legend, the colour bar, a text trace such as the row sums), and the chart's background; not the text on
# heatmap cells or on an annotation's own box (those sit on their own colours).
CHART_COLOURS = """() => {
  const out = [];
  document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot').forEach((gd, i) => {
    const holder = gd.closest('[class*="st-key-"]');
    const key = holder ? [...holder.classList].find((c) => c.startsWith('st-key-')).slice(7) : `chart-${i}`;
    const bg = gd._fullLayout.paper_bgcolor;
    gd.querySelectorAll('.scatterlayer .trace .js-line').forEach((p) => {
      const css = getComputedStyle(p);
      if (css.strokeOpacity !== '0' && css.stroke !== 'none') out.push(['line', key, css.stroke, bg]);
    });
    gd.querySelectorAll('.xtick text, .ytick text, .g-gtitle text, .g-xtitle text, .g-ytitle text, '
      + '.legendtext, .cbaxis text, .cbtitle text, .scatterlayer .textpoint text').forEach((t) => {
      if (t.textContent.trim()) out.push(['text', key, getComputedStyle(t).fill, bg]);
    });
  });
  return out;
}"""


# The page declares its language, and every formula has text a screen reader can say: KaTeX's MathML (with
# the LaTeX source as its annotation), its HTML hidden from the reader, no word spelled letter by letter.
SPOKEN = """() => {
  const out = [];
  if (document.documentElement.lang !== 'en') out.push(`the page's language is ${document.documentElement.lang}`);
  const formulas = [...document.querySelectorAll('[data-testid="stMain"] .katex')];
  formulas.forEach((k, i) => {
    const math = k.querySelector('.katex-mathml math');
    const tex = math && math.querySelector('annotation[encoding="application/x-tex"]');
    const seen = k.querySelector('.katex-html');
    if (!math || !tex || !tex.textContent.trim()) out.push(`formula ${i}: no MathML`);
    if (seen && seen.getAttribute('aria-hidden') !== 'true') out.push(`formula ${i}: its HTML is read as well`);
    (math ? [...math.querySelectorAll('mrow')] : []).forEach((row) => {
      const kids = [...row.children];
      const letters = kids.length > 1 && kids.every((e) => e.tagName.toLowerCase() === 'mi'
        && e.getAttribute('mathvariant') === 'normal' && /^[A-Za-z]$/.test(e.textContent));
      if (letters) out.push(`formula ${i}: "${kids.map((e) => e.textContent).join('')}" spelled letter by letter`);
    });
  });
  return {problems: out, formulas: formulas.length};
}"""


def low_contrast(app, where: str) -> list[str]:  # noqa: ANN001 - the conftest's App
    """Chart lines under 3:1 and chart text under 4.5:1 against the chart's background (WCAG 1.4.11, 1.4.3)."""
    bad = set()
    for kind, key, colour, bg in app.page.evaluate(CHART_COLOURS):
        need = 3.0 if kind == "line" else 4.5
        ratio = cv.contrast(colour, bg)
        if ratio < need:
            bad.add(f"{where}: {kind} {colour} on {bg} in {key} ({ratio:.2f}:1)")
    return sorted(bad)


# The page as a visitor meets it: its fonts in, and the frame's fixes (explorer/ui/a11y.js: a formula wider
# than its column takes the focus) applied to the page as it now stands, not to the one before a redraw.
FIXED = """() => document.fonts.status === 'loaded' && document.documentElement.dataset.aeA11y === 'done'"""

# axe's rules that can report a serious or critical violation (the only ones counted here), read from axe's own
# rule and check table; the rest (region and the landmark rules walk the whole page) say moderate or minor.
AXE_RUN = """async (bad) => {
  const audit = axe._audit, rules = {};
  for (const r of audit.rules) {
    const checks = [...r.any, ...r.all, ...r.none].map((c) => (typeof c === 'string' ? c : c.id));
    const impacts = [r.impact, ...checks.map((id) => (audit.data.checks[id] || {}).impact)];
    if (!impacts.some((i) => bad.includes(i))) rules[r.id] = {enabled: false};
  }
  return (await axe.run(document, {resultTypes: ['violations'], rules})).violations;
}"""


def settled(app) -> None:  # noqa: ANN001 - the conftest's App
    app.settle()
    app.poll(DRAWN, what="every chart drawn")
    app.poll(FIXED, what="the fonts and the page's accessibility fixes")


def serious(axe: Axe, app, where: str) -> list[str]:  # noqa: ANN001
    """The serious and critical violations on the page as it stands, one line per rule. axe's script (570 kB)
    goes into the tab once per page load: moving between pages keeps it."""
    if not app.page.evaluate("() => !!window.axe"):
        app.page.evaluate(axe.axe_script)
    found = app.page.evaluate(AXE_RUN, list(BAD))
    return [
        f"{where}: {v['id']} ({v['impact']}) x{len(v['nodes'])}: {v['nodes'][0]['target']} "
        f"{v['nodes'][0]['html'][:160]}"
        for v in found
        if v["impact"] in BAD
    ]


@pytest.fixture(scope="module")
def axe() -> Axe:
    return Axe()


# CI audits one page of each layout in light and dark: the sentence and its editor, a toy step's formulas,
# editors and charts, the encoder's four stages in a row, training's checkpoints, a real model's grid of heads,
# one of its heads with its formulas, the switches' toolbars, a job's run button and its sweep; `pytest -m load`
# audits every listed page.
ONE_OF_EACH = ("", "scores", "encoder", "learn", "model", "head", "ablation", "patching")
EVERY_PAGE = tuple(p.url_path for p in page_table.listed())


@pytest.mark.parametrize(
    "paths",
    [
        pytest.param(ONE_OF_EACH, id="one-of-each-layout"),
        pytest.param(EVERY_PAGE, id="every-page", marks=pytest.mark.load),
    ],
)
def test_pages_in_light_and_dark(app, axe: Axe, paths: tuple[str, ...]) -> None:  # noqa: ANN001
    app.page.set_viewport_size(LAPTOP)  # (the module's tab comes in light colours: App.forget)
    app.open("", min_charts=0)
    bad, audited, formulas = [], [], 0
    for path in paths:
        if path:
            app.go(path, min_charts=0)
        settled(app)
        bad += serious(axe, app, f"light /{path}") + low_contrast(app, f"light /{path}")
        spoken = app.page.evaluate(SPOKEN)
        bad += [f"/{path}: {problem}" for problem in spoken["problems"]]
        formulas += spoken["formulas"]
        app.page.emulate_media(color_scheme="dark")
        app.poll(f"() => ({BACKGROUND})() === {DARK_BG!r}", what="the dark theme")
        settled(app)
        bad += serious(axe, app, f"dark /{path}") + low_contrast(app, f"dark /{path}")
        if path in ("why-scale", "positional-encoding"):
            app.screenshot(f"dark-{path}")
        app.page.emulate_media(color_scheme="light")
        app.poll(f"() => ({BACKGROUND})() !== {DARK_BG!r}", what="the light theme")
        audited.append(path)
    assert audited == list(paths)
    assert formulas >= 10  # (the pages show formulas; a change of KaTeX's markup must not pass unnoticed)
    assert bad == [], "\n".join(bad)


# CI audits one step of each layout while presenting (each step visited in one session); `pytest -m load`
# walks every step of the step-through, following its "next" link.
STEPS_OF_EACH = (
    "sentence",
    "masking",
    "encoder",
    "learn-patterns",
    "model",
    "head-cell",
    "ablation",
    "patching",
)


@pytest.mark.parametrize(
    "names",
    [
        pytest.param(STEPS_OF_EACH, id="one-of-each-layout"),
        pytest.param(tuple(s.name for s in present.STEPS), id="every-step", marks=pytest.mark.load),
    ],
)
def test_steps_while_presenting(app, axe: Axe, names: tuple[str, ...]) -> None:  # noqa: ANN001
    walk = len(names) == len(present.STEPS)  # every step: by the step-through's own "next" link
    if walk:
        app.open("", min_charts=0, present="1")
    bad, seen = [], []
    for i, step in enumerate(present.STEPS):
        if step.name not in names:
            continue
        if not walk:
            app.visit(step.url_path, 0, {"present": "1"}, step=step.name)
        caption = present.caption(i)
        app.poll(
            "want => { const s = document.querySelector('.st-key-step-top strong'); "
            "return !!s && s.innerText === want; }",
            caption,
            what=caption,
        )
        settled(app)
        bad += serious(axe, app, f"presenting {caption}")
        seen.append(step.name)
        if walk and i + 1 < len(present.STEPS):
            app.page.locator(".st-key-step-next a").click()
    assert seen == list(names)
    assert bad == [], "\n".join(bad)


# ------------------------------------------------------------------------------- what the charts say

FIGURES = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="explorerChart"]')].map((c) => {
  const gd = c.querySelector('.ae-chart-plot');
  const desc = gd && document.getElementById(gd.getAttribute('aria-describedby'));
  const svgs = [...gd.querySelectorAll('svg.main-svg')];
  return {role: gd.getAttribute('role'), label: gd.getAttribute('aria-label'), desc: desc ? desc.textContent : null,
          svgHidden: svgs.length > 0 && svgs.every((s) => s.getAttribute('aria-hidden') === 'true')};
})"""


def test_charts_say_what_they_show_and_turn_into_tables(app, axe: Axe) -> None:  # noqa: ANN001
    import attention_core as ac
    from explorer.model.example import DEFAULT_SENTENCE, Example, conform

    app.page.set_viewport_size(LAPTOP)
    app.open("scores", min_charts=3)
    settled(app)
    figures = app.page.evaluate(FIGURES)
    assert len(figures) >= 3
    for f in figures:  # a figure named by its title, described by a sentence from its numbers
        assert f["role"] == "figure" and f["label"] and f["desc"].startswith(f["label"] + ". "), f
        assert f["svgHidden"], f"{f['label']}: Plotly's SVG text would be read piece by piece"
    switch = app.page.locator('[data-testid="stSidebar"] label:has-text("Show charts as tables")')
    switch.click()
    app.poll("() => document.querySelectorAll('.ae-chart-tables table').length >= 3", what="the tables")
    app.settle()
    app.poll(FIXED, what="the fonts and the page's accessibility fixes")
    assert serious(axe, app, "tables on /scores") == []
    app.screenshot("charts-as-tables")
    ex = conform(Example())
    tokens = ac.tokenize(DEFAULT_SENTENCE)
    x = ac.embed(tokens, ex.d_model, seed=ex.seed) + ac.positional_encoding(len(tokens), ex.d_model)
    weights = ac.multi_head_attention(x, ex.w_q, ex.w_k, ex.w_v, ex.w_o, scale=1 / np.sqrt(ex.d_k)).weights[0]
    table = app.page.locator(".st-key-scores-weights table")
    labels = ac.token_labels(tokens)
    heads = table.locator("thead th").all_inner_texts()
    assert heads == ["query by key", *labels]  # column headers: the keys
    rows = table.locator("tbody tr")
    assert rows.count() == len(labels)
    for i in range(len(labels)):
        row = rows.nth(i)
        assert row.locator('th[scope="row"]').inner_text() == labels[i]  # row headers: the queries
        assert row.locator("td").all_inner_texts() == [describe.fixed(v, 2) for v in weights[i]]


def test_the_html_export_says_what_its_charts_show(browser, axe: Axe, tmp_path) -> None:  # noqa: ANN001
    from explorer.compute import pipeline
    from explorer.export import html, walkthrough
    from explorer.model.example import Example, conform

    ex = conform(Example(mask_kind="causal"))
    w = walkthrough.from_example(ex, pipeline.run(ex), query=2, head=0, link="https://example.org/app")
    path = tmp_path / "export.html"
    path.write_text(html.page(w), encoding="utf-8")
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = ctx.new_page()
        page.goto(path.as_uri())
        page.wait_for_function("() => document.body.dataset.chartsDrawn", timeout=120_000)
        weights = page.locator('figure:has([data-key="scores.weights"])')
        weights.locator("details summary").first.click()  # "Show as a table": built from the chart's numbers
        first_row = weights.locator("table tbody tr").first.locator("td")
        first_row.first.wait_for(timeout=60_000)  # the table is built when its fold first opens
        cells = first_row.all_inner_texts()
        fig = dict(html.charts_of(w))["scores"]
        spec = next(c for c in fig if c.key == "scores.weights").variants[0][1]
        (want,) = describe.describe(spec)[1]
        assert (
            cells == want.rows[0][1]
        )  # the same rounding in the page as in the app: "1.00", "0 (masked)", ...
        found = Axe().run(page).response["violations"]
        assert [v["id"] for v in found if v["impact"] in BAD] == []
        plot = weights.locator(".plot")
        assert plot.get_attribute("role") == "figure" and plot.get_attribute(
            "aria-label"
        ) == describe.title_of(spec)
        said = page.locator(f"#{plot.get_attribute('aria-describedby')}").inner_text()
        assert said.startswith(describe.describe(spec, tables=False)[0])
    finally:
        ctx.close()
