"""A link brings the class to the teacher's screen: the head, the query token and the cell picked on /scores,
and presenting, the step, come back from the Share link and from the address bar, each opened in a fresh
browser context (a student's laptop), read from the pickers and the page as a student sees them."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from explorer.ui import present
from tests.e2e.test_real_model_browser import pick, wait_query

pytestmark = pytest.mark.e2e

LAPTOP = {"width": 1280, "height": 800}
PROJECTOR = {"width": 1920, "height": 1080}
PICKED = ("head 2", "3: on", "1: cat")  # head 2, query 3, key 1 of the default sentence

_SHOWN = """() => {
  const head = document.querySelector('.st-key-ui-head [role=radio][aria-checked=true]');
  const box = k => { const i = document.querySelector(`.st-key-ui-${k} input[role=combobox]`); return i ? i.value : null; };
  return [head ? head.innerText.trim() : null, box('query'), box('key')];
}"""
# Every formula on the page as KaTeX wrote it (its TeX source): the cell's numbers are those of the picks
_FORMULAS = "() => [...document.querySelectorAll('.katex-mathml annotation')].map(a => a.textContent)"
_STEP = (
    "() => { const s = document.querySelector('.st-key-step-top strong'); return s ? s.innerText : null; }"
)


def shown(app) -> tuple[str | None, str | None, str | None]:  # noqa: ANN001 - the conftest's App
    """The head, query and key the pickers show (None: not on the page)."""
    return tuple(app.page.evaluate(_SHOWN))


def make_picks(app) -> None:  # noqa: ANN001
    """On /scores: head 2, then the cell (query 3, key 1) below the chart, as a teacher clicks them."""
    app.page.locator(".st-key-ui-head [role=radio]", has_text="head 2").click()
    wait_query(app, h="2")
    pick(app, "ui-query", PICKED[1])
    wait_query(app, h="2", q="3")
    pick(app, "ui-key", PICKED[2])
    wait_query(app, h="2", q="3", k="1")
    assert shown(app) == PICKED


def show_sidebar(app) -> None:  # noqa: ANN001
    """Open the sidebar if it is collapsed (presenting collapses it)."""
    menu = app.page.locator('[data-testid="stSidebar"]').get_by_text("Share and export")
    if not menu.is_visible():
        app.page.get_by_test_id("stExpandSidebarButton").click()
        menu.wait_for()


def share_link(app) -> str:  # noqa: ANN001
    """The link "Share and export" shows (the panel opened as a person opens it)."""
    sidebar = app.page.locator('[data-testid="stSidebar"]')
    show_sidebar(app)
    sidebar.get_by_text("Share and export").click()
    code = sidebar.locator('[data-testid="stCode"]', has_text="sentence=")
    code.wait_for()
    return code.inner_text().strip()


def toggle_presenting(app) -> None:  # noqa: ANN001
    """The sidebar's "Presentation mode" switch, by the keyboard (its label lies over the hidden input)."""
    switch = app.page.get_by_role("switch", name="Presentation mode")
    switch.focus()
    app.page.keyboard.press("Space")


# CI opens the Share link in a fresh context and checks the address bar holds the same parameters (it writes
# a space as "+", the link as "%20": the app reads both alike); `pytest -m load` opens the address bar's too.
OPENED = (
    pytest.param(("link",), id="link"),
    pytest.param(("link", "address"), id="link-and-address", marks=pytest.mark.load),
)


def same_parameters(link: str, address: str) -> bool:
    a, b = urlsplit(link), urlsplit(address)
    return (a.path, parse_qs(a.query)) == (b.path, parse_qs(b.query))


def open_fresh(new_tab, url: str, viewport: dict[str, int]):  # noqa: ANN001, ANN201
    """`url` in a new browser context: no cookie, no session, nothing of the teacher's."""
    student = new_tab(viewport=viewport)
    student.page.goto(url)
    student.settle(min_charts=1)
    return student


@pytest.mark.parametrize("opened", OPENED)
def test_the_share_link_and_the_address_bar_reopen_the_head_query_and_cell(new_tab, opened) -> None:  # noqa: ANN001
    teacher = new_tab(viewport=LAPTOP).open("scores", min_charts=3)
    assert shown(teacher) == ("head 1", "0: The", "0: The")
    make_picks(teacher)
    formulas, weights = teacher.page.evaluate(_FORMULAS), teacher.chart("scores-weights")
    assert "Softmax weights A (head 2;" in weights["layout"]["title"]["text"]
    address, link = teacher.page.url, share_link(teacher)
    assert address.startswith(teacher.server.url + "/scores?") and link.startswith(
        teacher.server.url + "/scores?"
    )
    assert same_parameters(link, address), (link, address)
    for url in [{"link": link, "address": address}[k] for k in opened]:
        student = open_fresh(new_tab, url, LAPTOP)
        assert shown(student) == PICKED, url
        assert student.page.evaluate(_FORMULAS) == formulas  # the same cell, its numbers from head 2
        assert student.chart("scores-weights")["layout"]["title"] == weights["layout"]["title"]
        student.screenshot(f"links-student-{'share' if url == link else 'address'}")
        assert student.exceptions() == [] and not student.page.locator('[data-testid="stAlert"]').count()


@pytest.mark.parametrize("opened", OPENED)
def test_presenting_the_link_reopens_the_step_and_the_picks(new_tab, opened) -> None:  # noqa: ANN001
    teacher = new_tab(viewport=PROJECTOR).open("scores", min_charts=3)
    make_picks(teacher)
    toggle_presenting(teacher)
    masking = present.step_index("scores", "masking")
    teacher.poll(_STEP, what="presenting")
    teacher.settle()  # the page of the run before (its links at the bottom) gone
    teacher.page.locator(
        ".st-key-step-top .st-key-step-next a"
    ).click()  # the step after the first of /scores
    teacher.poll(f"() => ({_STEP})() === {present.caption(masking)!r}", what="the masking step")
    wait_query(teacher, present="1", step="masking", h="2", q="3", k="1")
    address, link = teacher.page.url, share_link(teacher)
    assert same_parameters(link, address), (link, address)
    for url in [{"link": link, "address": address}[k] for k in opened]:
        student = open_fresh(new_tab, url, PROJECTOR)
        assert student.page.evaluate(_STEP) == present.caption(masking), url
        assert shown(student) == ("head 2", None, None)  # presenting this step: the head, no cell picker
        student.screenshot(f"links-presenting-{'share' if url == link else 'address'}")
        # Presentation off (the sidebar's switch): the whole page, and the cell picked is the teacher's
        show_sidebar(student)
        toggle_presenting(student)
        student.poll("() => !!document.querySelector('.st-key-ui-key input')", what="the cell's pickers")
        student.settle()
        assert shown(student) == PICKED, url
        assert student.exceptions() == []
