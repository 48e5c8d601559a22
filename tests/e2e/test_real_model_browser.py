"""The real-model pages in a real Chromium, as a student uses them: the grid of every head on each
model, a head picked, a head switched off on /ablation moving the next word's probability, " Paris" on
/next-token and a token added, and links that reopen the same view. (Every real-model page is opened at
1280x800 by test_chart_titles and every step of each presenting at 1920x1080 by test_present_real_screen; their
screenshots go to test-output/.)
"""

from __future__ import annotations

import base64
import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from numpy.testing import assert_allclose

from attention_core import pretrained
from explorer.model import settings_table
from explorer.model.example import DEFAULT_SENTENCE
from explorer.views import model_figures

OUT = Path(__file__).resolve().parents[2] / "test-output"

pytestmark = pytest.mark.e2e

ENGINE = {"minilm": "all-MiniLM-L6-v2", "smollm2": "SmolLM2-135M"}
CAPITAL = "The capital of France is"


def need(key: str) -> pretrained.Model:
    try:
        return pretrained.load(ENGINE[key])
    except pretrained.ModelNotInstalledError as exc:  # CI installs them (tests/app/pages/test_model_pages.py)
        pytest.skip(str(exc))


def query(app) -> dict[str, str]:  # noqa: ANN001 - the conftest's App
    return {k: v[0] for k, v in parse_qs(urlparse(app.page.url).query).items()}


def pick(app, key: str, option: str) -> None:  # noqa: ANN001
    """Choose ``option`` in the selectbox whose widget key is ``key`` (dots as dashes)."""
    box = app.page.locator(f".st-key-{key} input[role=combobox]")
    box.scroll_into_view_if_needed()
    wanted = app.page.get_by_role("option", name=option, exact=True)
    for _attempt in range(3):  # a click while the page still moves (a chart drawn above) leaves it closed
        box.click()
        try:
            wanted.wait_for(state="visible", timeout=10_000)
            break
        except Exception:  # noqa: BLE001 - Playwright's TimeoutError: open it again
            app.page.keyboard.press("Escape")
    wanted.click()


def wait_query(app, **want: str) -> None:  # noqa: ANN001
    js = """want => { const q = new URLSearchParams(location.search);
      return Object.entries(want).every(([k, v]) => q.get(k) === v); }"""
    app.poll(js, want, what=f"the address to carry {want}")
    app.settle()


def bar_probs(app, key: str, trace: int = 0) -> dict[str, float]:  # noqa: ANN001
    """A token-bars chart as {label: probability}: labels read '1. “␣Paris”'."""
    data = app.chart(key)["data"][trace]
    labels = app.chart(key)["layout"]["yaxis"]["ticktext"]
    xs = data["x"]
    if isinstance(xs, dict) and "bdata" in xs:  # a typed array as Plotly sends it
        xs = np.frombuffer(base64.b64decode(xs["bdata"]), dtype=np.dtype(xs["dtype"])).tolist()
    elif isinstance(xs, dict):
        xs = [xs[str(i)] for i in range(len(xs))]
    return {re.sub(r"^\d+\. “(.*)”$", r"\1", lab): float(x) for lab, x in zip(labels, xs, strict=True)}


def coloured_share(app, key: str) -> float:  # noqa: ANN001
    """The share of the grid's first row of panels (layer 1's heads, from the first panel's left edge to the
    last one's right edge, gaps included) that is coloured, as a person sees it: pixels neither white nor grey
    (the heatmaps), from a screenshot of the element. Where the panels are is read from layout.meta.grid."""
    from PIL import Image

    el = app.page.locator(f".st-key-{key} .js-plotly-plot")
    el.scroll_into_view_if_needed()
    box = app.page.evaluate(
        """key => { const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);
          const fl = gd._fullLayout, [L, H, n, gap, band] = fl.meta.grid, xa = fl.xaxis, ya = fl.yaxis;
          const x = (c) => xa._offset + xa.l2p(c), y = (r) => ya._offset + ya.l2p(r);  // px in the figure
          return {x0: x(-0.5), x1: x(H * (n + gap) - gap - 0.5), y0: y(band - 0.5), y1: y(band + n - 0.5)}; }""",
        key,
    )
    png = OUT / f"element-{key}.png"
    el.screenshot(path=str(png))
    img = np.asarray(Image.open(png).convert("RGB"), dtype=np.int16)
    y0, y1 = int(box["y0"]) + 2, int(box["y1"]) - 2  # the first row of panels
    x0, x1 = int(box["x0"]) + 2, int(box["x1"]) - 2
    part = img[y0:y1, x0:x1]
    grey = (part.max(axis=-1) - part.min(axis=-1)) < 12  # white, grey and black text alike
    return float(1.0 - grey.mean())


@pytest.mark.parametrize("key", ["minilm", "smollm2"])
def test_model_grid_on_each_model_and_a_head_picked(app, key: str) -> None:  # noqa: ANN001
    """The grid draws the model's numbers; a head picked opens on /head; back on /model (in the same session),
    a click on a head's panel opens that head."""
    m = need(key)
    app.visit("model", 1, {"model": key})
    assert app.exceptions() == []
    trace = m.run(DEFAULT_SENTENCE)
    n = trace.n_tokens
    grid = app.chart("model-grid")
    assert len(grid["data"]) == 2  # one heatmap of every panel, one text trace of labels
    drawn = model_figures.panels(app.z("model-grid"), grid["layout"]["meta"]["grid"])  # (L, H, n, n)
    assert_allclose(drawn, trace.attentions, rtol=1e-5, atol=1e-6)
    labels = [str(w).removesuffix("<br>induction") for w in grid["data"][-1]["text"]]  # a second line
    assert all(w in model_figures.SHORT_LABELS.values() for w in labels)  # on heads of the induction run
    app.screenshot(f"model-{key}-grid")
    assert coloured_share(app, "model-grid") > 0.4  # the panels are drawn, not only their labels
    # Pick layer 2, head 3: the grid frames it, the link to /head names it, the address carries it.
    pick(app, "model-layer", "layer 2")
    wait_query(app, model=key, layer="2")
    pick(app, "model-head", "head 3")
    wait_query(app, model=key, layer="2", head="3")
    link = app.page.locator('[data-testid="stPageLink"] a', has_text="Open layer 2, head 3")
    assert link.count() == 1
    link.click()
    app.poll("() => location.pathname.endsWith('/head')", what="/head")
    app.settle(min_charts=4)
    w, want = app.z("head-w"), trace.attentions[1, 2]
    drawn_cells = np.isfinite(w)  # a decoder's later tokens are masked (grey, not drawn)
    assert drawn_cells[np.tril_indices(n)].all()
    assert_allclose(w[drawn_cells], want[drawn_cells], rtol=1e-5, atol=1e-6)
    assert_allclose(want[~drawn_cells], 0.0)
    assert query(app)["model"] == key and query(app)["layer"] == "2" and query(app)["head"] == "3"
    assert app.exceptions() == []
    app.visit("model", 1, {"model": key})
    a_click_on_a_heads_panel_in_the_grid_opens_that_head(app, key)


def test_next_token_paris_and_a_token_added(app) -> None:  # noqa: ANN001
    m = need("smollm2")
    app.open("next-token", min_charts=2, model="smollm2", sentence=CAPITAL)
    assert app.exceptions() == []
    probs = bar_probs(app, "next-bars")
    assert list(probs)[0] == "␣Paris"
    want = m.run(CAPITAL).next_token_probs()
    assert probs["␣Paris"] == pytest.approx(0.77, abs=0.01)
    assert probs["␣Paris"] == pytest.approx(float(want.max()), abs=5e-4)
    n = m.run(CAPITAL).n_tokens
    assert app.z("next-mask").shape == (n, n)
    app.screenshot("model-next-token")
    # "Add it": the sentence grows by " Paris", the model runs again, the causal mask has one more row.
    app.page.locator(".st-key-next-add-0 button").click()
    app.poll(
        'want => document.querySelector(\'[data-testid="stTextInput"] input[aria-label="Sentence"]\')'
        ".value === want",
        CAPITAL + " Paris",
        what="the sentence to end with Paris",
    )
    app.poll(
        "n => { const el = document.querySelector('.st-key-next-mask .js-plotly-plot');"
        " return !!el && !!el.layout.yaxis.ticktext && el.layout.yaxis.ticktext.length === n; }",
        n + 1,
        what="the causal mask to grow by one row",
    )
    app.settle()
    assert query(app)["sentence"] == CAPITAL + " Paris"
    after = bar_probs(app, "next-bars")
    want_after = m.run(CAPITAL + " Paris").next_token_probs()
    assert max(after.values()) == pytest.approx(float(want_after.max()), abs=5e-4)
    assert app.exceptions() == []


def test_a_head_switched_off_moves_the_next_word_and_the_link_reopens_it(app, browser) -> None:  # noqa: ANN001
    m = need("smollm2")
    app.open("ablation", min_charts=2, model="smollm2", sentence=CAPITAL)
    assert app.exceptions() == []
    before = bar_probs(app, "ablation-next", 0)
    assert before["␣Paris"] == pytest.approx(0.77, abs=0.01)
    # Switch off layer 1, head 1 by its pill; the "after" bars change and the address carries off=1.1.
    shift = "() => JSON.stringify(document.querySelector('.st-key-ablation-shift .js-plotly-plot').data[0].x)"
    untouched = app.page.evaluate(shift)
    pills = app.page.locator(".st-key-ablation-switch-0 button")
    pills.filter(has_text=re.compile(r"^1$")).click()
    app.poll(f"old => ({shift})() !== old", untouched, what="the hidden-state shifts to change")
    wait_query(app, model="smollm2", off="1.1")
    mask = np.ones((m.config.n_layers, m.config.n_heads))
    mask[0, 0] = 0.0
    want = m.run(CAPITAL, mask).next_token_probs()
    after = bar_probs(app, "ablation-next", 1)
    paris = m.tokenizer.encode(" Paris")[-1]
    assert after["␣Paris"] == pytest.approx(float(want[paris]), abs=5e-4)
    assert abs(after["␣Paris"] - before["␣Paris"]) > 1e-3  # the head mattered to the next word
    assert "Heads switched on (269 of 270)" in app.page.inner_text("body")
    app.screenshot("model-ablation")
    # The address reopens the same view in a new tab: same model, sentence, heads off, same numbers.
    url = app.page.url
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        other = type(app)(ctx.new_page(), app.server)
        other.page.goto(url)
        other.settle(min_charts=2)
        assert other.exceptions() == []
        assert bar_probs(other, "ablation-next", 1)["␣Paris"] == pytest.approx(after["␣Paris"], abs=1e-6)
        assert "Heads switched on (269 of 270)" in other.page.inner_text("body")
    finally:
        ctx.close()


def test_a_link_with_layer_head_and_off_reopens_the_head(app) -> None:  # noqa: ANN001
    m = need("minilm")
    app.open("head", min_charts=4, model="minilm", layer="4", head="7", off="2.3,6.12")
    assert app.exceptions() == []
    # The address bar keeps the real model's view as opened, beside the explorer's own state (its settings and
    # the sentence: the whole state), and nothing else.
    opened = {"model": "minilm", "layer": "4", "head": "7", "off": "2.3,6.12"}
    address = query(app)
    assert {k: address.get(k) for k in opened} == opened
    explorer_state = {s.param for s in settings_table.SETTINGS} | {"sentence"}
    assert set(address) - set(opened) <= explorer_state, sorted(set(address) - set(opened) - explorer_state)
    assert_allclose(app.z("head-w"), m.run(DEFAULT_SENTENCE).attentions[3, 6], rtol=1e-5, atol=1e-6)
    assert "Layer 4, head 7" in app.page.inner_text("body")
    # The switched-off heads came along: /ablation counts them.
    app.go("ablation", min_charts=1)
    assert "Heads switched on (70 of 72)" in app.page.inner_text("body")
    assert query(app).get("off") == "2.3,6.12"
    assert app.exceptions() == []


CELL_XY = """([l, h]) => {
  const gd = document.querySelector('.st-key-model-grid .js-plotly-plot');
  const fl = gd._fullLayout, [L, H, n, gap, band] = fl.meta.grid;
  const xa = fl.xaxis, ya = fl.yaxis;  // one heatmap: layer l's panels are rows l (band + n) + band ...
  const col = h * (n + gap) + Math.floor(n / 2), row = l * (band + n) + band + Math.floor(n / 2);
  const box = gd.getBoundingClientRect();  // the figure: axes' _offset are px from its top left corner
  return [box.left + xa._offset + xa.l2p(col), box.top + ya._offset + ya.l2p(row)];
}"""


def a_click_on_a_heads_panel_in_the_grid_opens_that_head(app, key: str) -> None:  # noqa: ANN001
    """On /model at 1920x1080 (the test above: its session), a click on a panel opens that head."""
    m = need(key)
    layer, head = (2, 5) if key == "minilm" else (15, 4)
    assert app.page.viewport_size == {"width": 1920, "height": 1080}
    locator = app.page.locator(".st-key-model-grid .js-plotly-plot")
    locator.scroll_into_view_if_needed()
    app.page.evaluate("() => window.scrollTo(0, 0)")
    x, y = app.page.evaluate(CELL_XY, [layer, head])
    if not 100 < y < 980:  # below the fold (SmolLM2's 30 layers): scroll the page to the panel
        app.page.mouse.move(960, 540)
        app.page.mouse.wheel(0, y - 540)
        app.poll(
            f"lh => {{ const y = ({CELL_XY})(lh)[1]; return 100 < y && y < 980; }}",
            [layer, head],
            what="the panel scrolled into view",
        )
        app.settle()  # (the scroll has stopped: the page's blocks sit still for two frames)
        x, y = app.page.evaluate(CELL_XY, [layer, head])
    app.page.mouse.move(x, y)  # hover first: Plotly reports the click of the point under the pointer
    app.page.mouse.click(x, y)
    app.poll("() => location.pathname.endsWith('/head')", what="/head after a click on the grid")
    app.settle(min_charts=4)
    wait_query(app, model=key, layer=str(layer + 1), head=str(head + 1))
    w = app.z("head-w")
    want = m.run(DEFAULT_SENTENCE).attentions[layer, head]
    drawn = np.isfinite(w)
    assert_allclose(w[drawn], want[drawn], rtol=1e-5, atol=1e-6)
    assert f"Layer {layer + 1}, head {head + 1}" in app.page.inner_text("body")
    assert app.exceptions() == []


LINE_XY = """([side, t]) => {
  const gd = document.querySelector('.st-key-head-lines .js-plotly-plot');
  const fl = gd._fullLayout, box = gd.getBoundingClientRect();
  return [box.left + fl.xaxis._offset + fl.xaxis.l2p(side === 'query' ? 0 : 1),
          box.top + fl.yaxis._offset + fl.yaxis.l2p(t)];
}"""
LINES_DRAWN = """() => {
  const gd = document.querySelector('.st-key-head-lines .js-plotly-plot');
  if (!gd || !gd.data) return null;
  const out = [];
  for (const t of gd.data) {
    if (t.mode !== 'lines' || t.showlegend !== false) continue;
    for (let a = 0; a < t.y.length; a += 3) out.push([t.y[a], t.y[a + 1]]);
  }
  return out;
}"""


def test_a_click_on_a_token_in_the_line_view_keeps_its_lines(app) -> None:  # noqa: ANN001
    m = need("minilm")
    app.page.set_viewport_size({"width": 1280, "height": 800})
    app.open("head", min_charts=4, model="minilm", layer="5", head="11")
    app.page.get_by_text("lines", exact=True).first.click()
    app.poll("() => !!document.querySelector('.st-key-head-lines .js-plotly-plot')", what="the line view")
    app.settle()
    w = m.run(DEFAULT_SENTENCE).attentions[4, 10]
    every = {(int(i), int(j)) for i, j in np.argwhere(w >= 0.02)}
    assert {tuple(p) for p in app.page.evaluate(LINES_DRAWN)} == every
    app.page.locator(".st-key-head-lines .js-plotly-plot").scroll_into_view_if_needed()
    x, y = app.page.evaluate(LINE_XY, ["query", 3])
    app.page.mouse.move(x, y)  # hover first: Plotly reports the click of the point under the pointer
    app.page.mouse.click(x, y)
    one = {(3, int(j)) for j in np.flatnonzero(w[3] >= 0.02)}
    app.poll("want => { const d = (" + LINES_DRAWN + ")(); return d && d.length === want && d.every(p => p[0] === 3); }",
             len(one), what="only query 3's lines")  # fmt: skip
    assert {tuple(p) for p in app.page.evaluate(LINES_DRAWN)} == one
    assert app.exceptions() == []


@pytest.mark.parametrize("path", ["head", "scores"])
def test_one_cells_sum_fits_the_page_at_1280(app, path: str) -> None:  # noqa: ANN001
    """A real head's q·k (64 products) is written on lines that fit the main column at 1280 px: its result
    is on screen, not past the right edge."""
    need("smollm2")
    app.page.set_viewport_size({"width": 1280, "height": 800})
    query = {"model": "smollm2", "sentence": CAPITAL}
    if path == "scores":  # a layer of the model opened in the explorer
        query = {"real": "smollm2", "real_layer": "4", "sentence": CAPITAL}
    app.open(path, min_charts=1, **query)
    assert app.exceptions() == []
    sizes = app.poll(
        """() => { const el = [...document.querySelectorAll('.katex-display')]
                     .find(e => e.textContent.includes('\\cdot k_'));  // its LaTeX source (q_i cdot k_j)
                   if (!el) return null;
                   const box = el.closest('[data-testid="stElementContainer"]').getBoundingClientRect();
                   const k = el.querySelector('.katex-html').getBoundingClientRect();
                   return {left: k.left, right: k.right, from: box.left, to: box.right,
                           hidden: el.scrollWidth - el.clientWidth}; }""",
        what="the cell's sum to be written",
    )
    # Inside the column, nothing behind a scroll bar (an aligned block's edges may stick out a px or two).
    assert sizes["from"] <= sizes["left"] and sizes["right"] <= sizes["to"] and sizes["hidden"] <= 4, sizes
