"""Nothing typed into a data editor is lost, in a real Chromium.

Streamlit's grid loses an edit when Enter comes before the timers of the keys typed just before it (often, on
a loaded machine), and when a click on another page comes within its 150 ms send delay (every time). explorer/ui/grid_guard.py explains both; here 10 edits (40 under -m load) are typed as fast as the
keyboard goes, Enter straight after the last digit, every fifth followed at once by a click on another page, and
every one must reach the app: the Q chart, computed on the server from W_Q, equals the engine's Q after each edit.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np
import pytest
from conftest import VIEWPORT, App, _shared_tab
from numpy.testing import assert_allclose

from explorer.compute import pipeline
from explorer.model.example import Example, conform

pytestmark = pytest.mark.e2e

ROWS, COLS = 8, 4  # head 1's W_Q at the default example: d_model 8 x d_k 4
# Each edit is checked on its own, every fifth followed at once by navigation: CI types 10, `pytest -m load` 40.
EDITS = (10, pytest.param(40, marks=pytest.mark.load))


def q_of(w_q: np.ndarray) -> np.ndarray:
    """Head 1's Q as the engine computes it with these weights (what the /projections chart must show)."""
    return pipeline.run(conform(Example()).with_(w_q=w_q)).attention.q[0]


@pytest.mark.parametrize("edits", EDITS)
def test_fast_edits_some_followed_at_once_by_navigation_lose_none(app, edits: int) -> None:  # noqa: ANN001
    w_q = np.array(conform(Example()).w_q, copy=True)
    app.open("projections", min_charts=3)
    cells = [(i % ROWS, (i // ROWS) % COLS) for i in range(edits)]
    for i, (row, col) in enumerate(cells):
        value = round(-2.4 + 0.1 * i + 0.0007 * (i % 7), 4)  # distinct numbers the cell shows exactly
        text = f"{value:.4f}"
        w_q[0, row, col] = float(text)
        app.remember("projections-w_q")
        if i % 5 == 4:  # Enter, then at once a click on another page
            app.edit_cell(0, row, col, text, at_once=True, wait=False)
            app.go("scores", min_charts=3)
            app.go("projections", min_charts=3)
        else:
            app.edit_cell(0, row, col, text, at_once=True)
            app.wait_chart_change("projections-w_q")
            # The chart is redrawn before the run ends; the grid re-renders when the run's last messages
            # arrive and closes a cell editor opened in the meantime (its first keys would go nowhere: "2.4042"
            # would become "42"). The next cell is opened once the run is over, as a typist's next click comes.
            app.wait_run_over()
        got = app.z("projections-w_q")
        if not np.allclose(got, q_of(w_q), rtol=1e-12, atol=1e-13):  # what the editor shows, only to explain
            shown = [
                [app.editor(0).locator(f"#glide-cell-{c + 1}-{r}").inner_text() for c in range(COLS)]
                for r in range(ROWS)
            ]
            assert_allclose(
                got,
                q_of(w_q),
                rtol=1e-12,
                atol=1e-13,
                err_msg=f"edit {i}: the editor shows {shown}, want {w_q[0].tolist()}",
            )
        print(f"edit {i} ok", flush=True)
    assert app.exceptions() == []
    guard = app.page.evaluate("() => window.__attentionGridGuardState")
    assert guard["deferredEnters"] >= edits and guard["delayedClicks"] >= 1, guard


REFUSED = "() => window.__attentionGridGuardState?.pastesRefused ?? 0"


@pytest.fixture(scope="module")
def paste_tab(browser, server) -> Iterator[App]:  # noqa: ANN001
    """One tab on /projections for the refused pastes: a refused paste changes nothing, so each case starts
    from the default weights as the first did (and a tab's boot is paid once, not per case)."""
    for app in _shared_tab(browser, server, VIEWPORT):
        app.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        app.open("projections", min_charts=3)
        yield app


def paste_into(app, row: int, col: int, text: str) -> None:  # noqa: ANN001
    """Select cell (row, col) of head 1's W_Q editor and paste `text` with Ctrl+V (the system clipboard)."""
    ed = app.editor(0)
    want = f"glide-cell-{col + 1}-{row}"
    selected = "e => { const c = e.querySelector('td[aria-selected=\"true\"]'); return c ? c.id : null; }"
    if ed.evaluate(selected) == want:  # (left selected by the case before) a click would open its editor
        app.page.mouse.click(*app.cell_centre(0, row + 1, col))
        other = (
            "(e, w) => { const c = e.querySelector('td[aria-selected=\"true\"]'); return !!c && c.id !== w; }"
        )
        until = time.monotonic() + 5
        while not ed.evaluate(other, want) and time.monotonic() < until:
            app.page.wait_for_timeout(100)
    for _ in range(3):
        app.page.mouse.click(*app.cell_centre(0, row, col))
        # A click on a cell already selected opens its text editor (and the paste would go there): click
        # again only once this one has clearly not selected it.
        deadline = time.monotonic() + 5
        while ed.evaluate(selected) != want and time.monotonic() < deadline:
            app.page.wait_for_timeout(100)
        if ed.evaluate(selected) == want:
            break
    assert ed.evaluate(selected) == want
    assert app.page.locator(".gdg-input").count() == 0, "the cell's text editor is open"
    app.page.evaluate("t => navigator.clipboard.writeText(t)", text)
    app.page.keyboard.press("Control+v")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("abc", "'abc' is not a number"),
        ("NaN", "'NaN' is not a number"),
        ("=1+1", "'=1+1' is a formula"),
        ("1,5", "'1,5' has a decimal comma"),
        ("1e309", "'1e309' is too large to be a number"),
        ("Infinity", "'Infinity' is not a number"),
        ("0.5\tabc", "column 'q1': 'abc' is not a number"),
    ],
)
def test_a_pasted_cell_that_is_not_a_number_is_refused_with_a_message_naming_it(
    paste_tab: App, text: str, why: str
) -> None:
    """The grid alone drops these without a word (or reads 1,5 as 15): nothing is pasted and a message
    names the cell and says why."""
    app = paste_tab
    app.settle(3)
    before, refused = app.z("projections-w_q"), app.page.evaluate(REFUSED)
    paste_into(app, 1, 0, text)
    app.poll(f"() => ({REFUSED})() > {refused}", what="the paste to be refused")
    got = app.page.locator("#attention-paste-message").inner_text()
    assert why in got and "Nothing was pasted" in got and "row 'd1', column 'q" in got, got
    app.settle(3)
    assert np.array_equal(app.z("projections-w_q"), before)  # nothing reached the app
    assert app.page.evaluate(REFUSED) == refused + 1
    assert app.exceptions() == []


def test_a_pasted_unicode_minus_is_read_as_a_minus(app) -> None:  # noqa: ANN001
    app.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    app.open("projections", min_charts=3)
    app.remember("projections-w_q")
    paste_into(app, 1, 0, "\u22122")
    app.wait_chart_change("projections-w_q")
    w_q = np.array(conform(Example()).w_q, copy=True)
    w_q[0, 1, 0] = -2.0
    assert_allclose(app.z("projections-w_q"), q_of(w_q), rtol=1e-12, atol=1e-13)
    cell = app.editor(0).locator("#glide-cell-1-1")  # the grid redraws its cells once the run's end arrives
    app.poll_locator(cell, "e => parseFloat(e.innerText) === -2", what="the cell to show -2")
    assert app.exceptions() == []
