"""axe-core over every page, in Chromium: no serious or critical violation of its WCAG rules; and the
charts' lines (3:1) and their own text (4.5:1) stand out from the chart's background in light and dark.

Every listed page of the page table in light and dark at 1280x800 (one tab, moving through the frame's menu;
dark is the system's scheme, which the app follows without a reload), and every step of the step-through
while presenting at 1920x1080 (one tab, following the "next" link). axe is the copy that
axe-playwright-python bundles (nothing is fetched). Its rules do not look inside charts: what the charts say
is tested in test_chart_text.py. benchmarks/axe_audit.py prints the counts of every impact.
"""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from explorer.ui import page_table, present
from explorer.views import colour as cv

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


def low_contrast(app, where: str) -> list[str]:  # noqa: ANN001 - the conftest's App
    """Chart lines under 3:1 and chart text under 4.5:1 against the chart's background (WCAG 1.4.11, 1.4.3)."""
    bad = set()
    for kind, key, colour, bg in app.page.evaluate(CHART_COLOURS):
        need = 3.0 if kind == "line" else 4.5
        ratio = cv.contrast(colour, bg)
        if ratio < need:
            bad.add(f"{where}: {kind} {colour} on {bg} in {key} ({ratio:.2f}:1)")
    return sorted(bad)


def settled(app) -> None:  # noqa: ANN001 - the conftest's App
    app.settle()
    app.poll(DRAWN, what="every chart drawn")


def serious(axe: Axe, app, where: str) -> list[str]:  # noqa: ANN001
    """The serious and critical violations on the page as it stands, one line per rule."""
    found = axe.run(app.page).response["violations"]
    return [
        f"{where}: {v['id']} ({v['impact']}) x{len(v['nodes'])}: {v['nodes'][0]['target']} "
        f"{v['nodes'][0]['html'][:160]}"
        for v in found
        if v["impact"] in BAD
    ]


@pytest.fixture(scope="module")
def axe() -> Axe:
    return Axe()


def test_every_page_in_light_and_dark(new_tab, axe: Axe) -> None:  # noqa: ANN001
    app = new_tab(viewport={"width": 1280, "height": 800}, color_scheme="light").open("", min_charts=0)
    bad, audited = [], []
    for p in page_table.listed():
        if p.url_path:
            app.go(p.url_path, min_charts=0)
        settled(app)
        bad += serious(axe, app, f"light /{p.url_path}") + low_contrast(app, f"light /{p.url_path}")
        app.page.emulate_media(color_scheme="dark")
        app.poll(f"() => ({BACKGROUND})() === {DARK_BG!r}", what="the dark theme")
        settled(app)
        bad += serious(axe, app, f"dark /{p.url_path}") + low_contrast(app, f"dark /{p.url_path}")
        if p.url_path in ("why-scale", "positional-encoding"):
            app.screenshot(f"dark-{p.url_path}")
        app.page.emulate_media(color_scheme="light")
        app.poll(f"() => ({BACKGROUND})() !== {DARK_BG!r}", what="the light theme")
        audited.append(p.url_path)
    assert audited == [p.url_path for p in page_table.listed()]
    assert bad == [], "\n".join(bad)


def test_every_step_while_presenting(new_tab, axe: Axe) -> None:  # noqa: ANN001
    app = new_tab().open("", min_charts=0, present="1")
    bad, seen = [], []
    for i, step in enumerate(present.STEPS):
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
        if i + 1 < len(present.STEPS):
            app.page.locator(".st-key-step-next a").click()
    assert seen == [s.name for s in present.STEPS]
    assert bad == [], "\n".join(bad)
