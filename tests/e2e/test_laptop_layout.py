"""At 1280 x 800 (a laptop, the sidebar open), what the page lays out is whole: the step links at the bottom
are not cut, E + P = X gives each of its three charts the same plot width (the token labels once), and a
table's toolbar, shown on hover, does not cover the heading above the table. The tests only look: they share
the module's laptop tab, each page visited in one session (App.visit)."""

from __future__ import annotations

from typing import Any

from explorer import i18n
from explorer.ui import page_table, present

LAPTOP = {"width": 1280, "height": 800}

# Every step link at the bottom of the page: (its text as drawn, the width it needs, the width it has).
_LINKS = """() => ['step-prev', 'step-next'].flatMap(k => {
  const a = document.querySelector(`.st-key-${k} a`);
  if (!a) return [];
  const texts = [...a.querySelectorAll('*')].filter(e => e.children.length === 0 && e.textContent.trim());
  return texts.map(e => [e.textContent.trim(), e.scrollWidth, e.clientWidth]);
})"""

# The plot area (Plotly's drag layer) of each chart in the st-key-pe-* containers, in page order.
_PLOTS = """keys => keys.map(k => {
  const drag = document.querySelector(`.st-key-${k} .nsewdrag`);
  return drag ? drag.getBoundingClientRect().width : null;
})"""


def _longest_neighbour() -> tuple[str, str]:
    """The page (url path) whose previous or next page has the longest title in Spanish (longer than English),
    and that title (off the projector the links at the bottom lead to the pages around it)."""
    best = ("", "", -1)
    for i, step in enumerate(present.STEPS):
        if present.step_index(step.url_path) != i:
            continue
        for other in present.page_neighbours(i):
            with i18n.using("es"):
                title = None if other is None else i18n._(page_table.by_path(other.url_path).title)
            if title is not None and len(title) > best[2]:
                best = (step.url_path, title, len(title))
    return best[0], best[1]


def test_the_step_links_at_the_bottom_are_not_cut(shared_laptop_app: Any) -> None:
    path, title = _longest_neighbour()
    app = shared_laptop_app.visit(path, 0, {"lang": "es"})
    links = app.poll(_LINKS, what="the step links")
    assert any(title in text for text, _, _ in links), (title, links)
    cut = [(text, need, has) for text, need, has in links if need > has + 1]
    assert not cut, f"step links cut at 1280 px (text, px needed, px shown): {cut}"


def test_e_plus_p_is_x_gives_every_chart_the_same_plot_width(shared_laptop_app: Any) -> None:
    app = shared_laptop_app.visit("positional-encoding", 5)
    widths = app.poll(
        "keys => { const w = (" + _PLOTS + ")(keys); return w.every(v => v) && w; }",
        ["pe-e", "pe-p", "pe-x"],
        what="the three plots of E + P = X",
    )
    labels = app.page.evaluate(
        "k => document.querySelectorAll(`.st-key-${k} .ytick`).length", "pe-p"
    )  # the tokens are named once, left of E
    assert labels == 0
    assert max(widths) - min(widths) <= 0.1 * max(widths), widths
    assert min(widths) >= 170, f"plots of {widths} px: slivers"


def test_a_tables_toolbar_leaves_the_heading_above_it_alone(shared_laptop_app: Any) -> None:
    app = shared_laptop_app.visit("projections", 1)
    table = app.page.locator('[data-testid="stDataFrame"]').first
    table.evaluate("e => e.scrollIntoView({block: 'center', behavior: 'instant'})")  # the heading in view too
    table.hover()
    bar = app.page.locator('[data-testid="stElementToolbar"]').first
    bar.wait_for(state="visible")
    # Read once the layout holds still (the bar and the page's height the same for 5 frames in a row): the
    # page's folds and the sidebar's lines may still be moving things when the bar first shows.
    hit = app.page.evaluate(
        """bar => new Promise(done => {
          let last = '', same = 0;
          const tick = () => {
            const b = bar.getBoundingClientRect();
            const now = [b.top, b.left, document.body.scrollHeight].join();
            same = now === last ? same + 1 : 0;
            last = now;
            if (same < 5) { requestAnimationFrame(tick); return; }
            // Each text's own line boxes (a Range over it), not its element's box with its padding.
            const lines = e => { const r = document.createRange(); r.selectNodeContents(e); return [...r.getClientRects()]; };
            done([...document.querySelectorAll('h1, h2, h3, h4, p')]
              .filter(e => !bar.contains(e) && !e.closest('[data-testid="stDataFrame"]') && e.textContent.trim())
              .filter(e => lines(e).some(r => r.bottom > b.top && r.top < b.bottom && r.right > b.left && r.left < b.right))
              .map(e => e.textContent.trim()));
          };
          tick();
        })""",
        bar.element_handle(),
    )
    assert not hit, f"the table's toolbar covers {hit}"


# The line that names the model on screen (explorer.ui.model_ui.bar): its box and its words.
_BAR = """() => { const b = document.querySelector('[data-testid="stMain"] .st-key-model-bar');
  if (!b) return null; const r = b.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, text: b.innerText}; }"""


def test_the_model_on_screen_is_named_above_the_fold(shared_laptop_app: Any) -> None:
    app = shared_laptop_app.visit("heads", 1)
    for path, words in (("heads", "the toy model"), ("model", "MiniLM")):
        if path != "heads":
            app.go(path, min_charts=1)
        bar = app.poll(f"() => {{ const b = ({_BAR})(); return b && b.text.includes({words!r}) && b; }}",
                       what=f"/{path}'s model bar naming {words}")  # fmt: skip
        assert bar["top"] >= 0 and bar["bottom"] <= LAPTOP["height"] / 4, (path, bar)
