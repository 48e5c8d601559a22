"""Bad input in a real Chromium: a hostile sentence is shown as literal text in chart labels,
hover text and messages (no link, image, bold, maths or colour appears, no script runs); the data editor
keeps the last good value of a cell typed or pasted wrong, and says which cell and why when the app refuses it.

What the grid itself does (Streamlit 1.67's number cells), found here: letters typed into a number cell are
not taken, "1e300" typed becomes 1300 (the "e" is not taken); pasted text or a pasted 1e300 is refused by the
grid before it reaches the app. A pasted number past the app's limit (±1e6, e.g. 1e7) reaches the app, which
keeps the last good value and names the cell and the reason.
"""

from __future__ import annotations

import html

import numpy as np
import pytest

import attention_core as ac
from explorer.compute import pipeline
from explorer.model import settings_table as table
from explorer.model.example import Example, conform
from explorer.views.figures import esc

pytestmark = pytest.mark.e2e

HOSTILE = (
    "<b>x</b> <script>alert(1)</script> [x](javascript:alert(1)) $x^2$ :red[hi] **bold** "
    "<img src=x onerror=alert(1)> %{y} 😀 中文 שלום"
)
# What the DOM of the page must never contain once HOSTILE is typed: interpreted markup.
_INTERPRETED = r"""() => ({
  js_links: document.querySelectorAll('a[href^="javascript"]').length,
  imgs_in_charts: document.querySelectorAll('.js-plotly-plot img, [data-testid="stAlert"] img').length,
  // Bold outside the charts' own titles (a title is bold, wraps where its chart's width puts it and may
  // name a token, so its pieces are not counted): a tick label, hover or note interpreted as markup.
  bold_in_charts: document.querySelectorAll('.js-plotly-plot tspan[style*="bold"]:not(.gtitle tspan)').length,
  maths_from_text: Array.from(document.querySelectorAll('.katex annotation'))
    .filter(a => /x\^2|alert|script|javascript|bold/.test(a.textContent)).length,
  colored_text: document.querySelectorAll('[data-testid="stMarkdownContainer"] span[class*="color"]').length,
})"""
_TICKS = """key => Array.from(document.querySelectorAll(`.st-key-${key} .js-plotly-plot .ytick text`))
  .map(t => t.textContent)"""


def labels_of(sentence: str) -> list[str]:
    return ac.token_labels([pipeline.short(t) for t in ac.tokenize(sentence)[: table.MAX_TOKENS]])


@pytest.fixture
def watched(app):  # noqa: ANN001, ANN201 - the conftest's App
    """The app, with any alert()/confirm() a script might open recorded (and dismissed)."""
    app.dialogs = []
    app.listen("dialog", lambda d: (app.dialogs.append(d.message), d.dismiss()))
    return app


def test_hostile_sentence_is_literal_text(watched) -> None:  # noqa: ANN001
    """Three pages in one session (App.visit): each read with the default sentence, the hostile one typed,
    then each read again."""
    app = watched
    labels = labels_of(HOSTILE)
    pages = (("", "sentence-embeddings"), ("scores", "scores-weights"), ("token", "token-weights"))
    before = {}
    for path, _chart in pages:
        before[path] = app.visit(path, 1).page.evaluate(_INTERPRETED)
    app.type_sentence(HOSTILE)
    for path, chart in pages:
        app.visit(path, 1)
        if chart != "token-weights":
            app.wait_labels(chart, [esc(lab) for lab in labels])
            shown = app.page.evaluate(_TICKS, chart)  # the SVG text Plotly drew: the tokens, literally
            assert sorted(shown) == sorted(labels), shown
        else:
            app.settle(2)
            ticks = app.chart(chart)["layout"]["xaxis"]["ticktext"]
            assert [html.unescape(t) for t in ticks] == labels
        after = app.page.evaluate(_INTERPRETED)
        assert after == before[path], (path, before, after)  # no link, image, bold, maths or colour appeared
        assert app.sentence_box().input_value() == HOSTILE
        assert app.exceptions() == []
        app.screenshot(f"hostile-sentence-{path or 'sentence'}")
    assert app.dialogs == []


def test_hover_text_is_literal(watched) -> None:  # noqa: ANN001
    app = watched
    app.open("scores", min_charts=3)
    app.type_sentence("<b>x</b> $y$")
    labels = labels_of("<b>x</b> $y$")
    app.wait_labels("scores-weights", [esc(lab) for lab in labels])
    plot = app.page.locator(".st-key-scores-weights .js-plotly-plot .nsewdrag").first
    plot.scroll_into_view_if_needed()
    app.settle()  # (the scroll has stopped: the page's blocks sit still for two frames)
    box = plot.bounding_box()
    assert box is not None
    n = len(labels)
    x, y = box["x"] + box["width"] * 0.5 / n, box["y"] + box["height"] * 0.5 / n  # the middle of cell (0, 0)
    app.page.mouse.move(x - 5, y - 5)
    app.page.mouse.move(x, y, steps=5)
    app.poll("() => !!document.querySelector('.hoverlayer .hovertext')", what="the hover label")
    hover = app.page.evaluate("() => document.querySelector('.hoverlayer .hovertext').textContent")
    assert f"query {labels[0]}" in hover and f"key {labels[0]}" in hover, hover
    assert (
        app.page.evaluate("() => document.querySelectorAll('.hoverlayer tspan[style*=\"bold\"]').length") == 0
    )
    app.screenshot("hostile-hover")


def test_a_message_quoting_the_url_is_literal(watched) -> None:  # noqa: ANN001
    app = watched
    name = "**bold** [x](javascript:alert(1)) $x^2$ :red[hi] <b>b</b>"
    app.open("", min_charts=1, preset=name)
    alerts = app.page.locator('[data-testid="stAlert"]')
    text = " ".join(alerts.all_inner_texts())
    assert "**bold** [x](javascript:alert(1)) $x^2$ :red[hi] <b>b</b>" in text, text
    for sel in ("a", ".katex", "strong", "b", "span[class*='color']"):
        assert alerts.locator(sel).count() == 0, sel
    assert app.dialogs == []
    app.screenshot("hostile-url-message")


# Refused cells are toasts (they do not push the page down); other messages alerts.
MESSAGES = '[data-testid="stAlert"], [data-testid="stToast"]'
ALERT_HAS = """m => Array.from(document.querySelectorAll('[data-testid="stAlert"], [data-testid="stToast"]'))
  .some(a => a.innerText.includes(m))"""


def test_editor_keeps_the_last_good_value(app) -> None:  # noqa: ANN001
    """Click, double-click, Ctrl+A, type, Enter, as a person does, in head 1's W_Q on /projections."""
    ex = conform(Example())
    first = float(ex.w_q[0, 0, 0])
    app.open("", min_charts=1)
    app.go("projections", min_charts=3)

    def cell() -> float:
        return float(app.editor(0).locator("#glide-cell-1-0").inner_text())

    # letters: the number cell takes none of them. What the cell editor holds at Enter decides what follows:
    # the old number (nothing is sent, nothing changes), or nothing once Ctrl+A selected it (the app is told the
    # cell was cleared, keeps the last good value and says so).
    held = type_into(app, 0, 0, "abc")
    if held.strip():
        app.settle(3)
        assert not app.page.locator(MESSAGES).count()
    else:
        app.poll(
            ALERT_HAS, f"row 'd0', column 'q0': the cell was cleared; kept {first:.6g}", what="the message"
        )
        app.settle(3)
    assert cell() == pytest.approx(first, abs=1e-4)
    assert app.exceptions() == []

    type_into(app, 0, 0, "1e300")  # typed: the grid drops the "e" and keeps 1300, a good number
    app.poll(
        "() => (document.querySelector('#glide-cell-1-0')?.innerText ?? '').startsWith('1300')", what="1300"
    )
    app.settle(3)
    assert cell() == 1300.0
    assert app.exceptions() == []

    w_q = np.array(ex.w_q, copy=True)
    w_q[0, 0, 0] = 1300.0
    q = np.asarray(app.z("projections-w_q"))  # the chart follows the number the grid kept
    assert np.isfinite(q).all()
    np.testing.assert_allclose(q, pipeline.run(ex.with_(w_q=w_q)).attention.q[0], rtol=1e-12, atol=1e-9)
    # a number past the app's limit is refused with a message: test_pasted_text_and_huge_numbers_keep_the_cell
    app.screenshot("editor-typed-cell")


def select_cell(app, row: int, col: int) -> tuple[float, float]:  # noqa: ANN001
    """Click cell (row, col) of the first data editor until the grid has selected it; its centre (x, y).

    The grid is a canvas (App.cell_centre finds a cell). A click on the cell that is already selected
    would open its editor, so only cells the grid's accessible table does not mark as selected are
    clicked: a neighbour, then the cell.
    """
    ed = app.editor(0)
    selected = """e => { const c = e.querySelector('td[aria-selected="true"]'); return c ? c.id : null; }"""

    def pick(r: int, c: int) -> bool:
        """Click a cell that is not selected (a first click only selects) and wait for the grid to say so."""
        want = f"glide-cell-{c + 1}-{r}"
        app.page.mouse.click(*app.cell_centre(0, r, c))
        for _ in range(100):  # a loaded machine can take seconds to move the selection
            if ed.evaluate(selected) == want:
                return True
            app.page.wait_for_timeout(100)
        return False

    app.page.keyboard.press("Escape")  # close any open cell editor
    for _ in range(3):
        # first a neighbour that is not selected, then the cell: two first clicks, the grid focused
        current = ed.evaluate(selected)
        other = (row + 1, col) if current != f"glide-cell-{col + 1}-{row + 1}" else (row + 2, col)
        if pick(*other) and pick(row, col):
            return app.cell_centre(0, row, col)
    raise AssertionError(f"the grid selected {ed.evaluate(selected)}: its geometry changed")


def type_into(app, row: int, col: int, text: str) -> str:  # noqa: ANN001
    """Select the cell, double-click to open its editor, replace what it holds with `text`, press Enter, and
    wait for the grid to take it (its cell editor closes). What the cell editor held at Enter."""
    x, y = select_cell(app, row, col)
    app.page.mouse.dblclick(x, y)
    app.poll(
        "() => document.activeElement && document.activeElement.classList.contains('gdg-input')",
        what="the cell editor to open",
    )
    app.page.keyboard.press("Control+A")
    app.page.keyboard.type(text)
    held = app.page.evaluate("() => document.activeElement.value")
    app.page.keyboard.press("Enter")
    app.poll(
        "() => !(document.activeElement && document.activeElement.classList.contains('gdg-input'))",
        what="the grid to take the edit",
    )
    return str(held)


def test_pasted_text_and_huge_numbers_keep_the_cell(app) -> None:  # noqa: ANN001
    app.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    app.open("", min_charts=1)
    app.go("projections", min_charts=3)
    ed = app.editor(0)

    def paste(text: str) -> None:
        select_cell(app, row=1, col=0)
        app.page.evaluate("t => navigator.clipboard.writeText(t)", text)
        app.page.keyboard.press("Control+v")

    paste("0.25")  # a good paste goes through: pasting works
    app.poll(
        "() => parseFloat((document.querySelector('#glide-cell-1-1')?.innerText ?? '')) === 0.25",
        what="the paste",
    )
    app.settle(3)
    for text in ("[x](javascript:alert(1))", "1e300"):  # refused by the grid itself
        paste(text)
    app.after_a_marker_run()  # the pastes were handled (and a rerun since): the cell kept its number
    assert float(ed.locator("#glide-cell-1-1").inner_text()) == 0.25
    assert app.exceptions() == []
    paste("1e7")  # reaches the app, which refuses it and says where and why
    app.poll(ALERT_HAS, "row 'd1', column 'q0'", what="the refusal message")
    app.settle(3)
    alerts = " ".join(app.page.locator(MESSAGES).all_inner_texts())
    assert "too large" in alerts and "kept 0.25" in alerts, alerts
    assert float(ed.locator("#glide-cell-1-1").inner_text()) == 0.25
    assert app.exceptions() == []
    app.screenshot("editor-pasted")
