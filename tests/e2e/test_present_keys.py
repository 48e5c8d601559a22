"""A presentation a clicker can drive, in Chromium.

A presenter's clicker sends → / PageDown / Space ("next") and ← / PageUp ("back"). While presenting, the
step-through follows them; keys typed into the sentence box or a data editor stay there.
"""

from __future__ import annotations

import pytest

from explorer.lessons import routes
from explorer.ui import lesson_ui, page_table

N = len(page_table.listed())  # the step count: one number per page

pytestmark = pytest.mark.e2e

CAPTION = """() => {
  const top = document.querySelector('.st-key-step-top [data-testid="stMarkdownContainer"] strong');
  return top ? top.innerText : '';
}"""


def wait_caption(app, want: str) -> None:  # noqa: ANN001 - the conftest's App
    app.poll(f"() => ({CAPTION})().startsWith({want!r})", what=f"the step bar to read {want!r}")
    app.settle()


def press(app, key: str) -> None:  # noqa: ANN001
    """A key sent to the page, as a clicker sends it: nothing focused (the body)."""
    app.page.evaluate("() => document.activeElement && document.activeElement.blur()")
    app.page.keyboard.press(key)


def test_clicker_keys_walk_the_steps(shared_app) -> None:  # noqa: ANN001
    app = shared_app.visit("scores", 1, {"present": "1"})  # (one session with the checkpoints' test below)
    wait_caption(app, f"Step 4 of {N}: Scores, mask, softmax (part 1 of 3: Scores)")
    assert app.page.locator(".st-key-step-bottom").count() == 0  # one set of controls while presenting
    for key, want in (
        ("ArrowRight", f"Step 4 of {N}: Scores, mask, softmax (part 2 of 3: Masking)"),
        ("Space", f"Step 4 of {N}: Scores, mask, softmax (part 3 of 3: Softmax)"),
        ("PageDown", f"Step 5 of {N}: Heads and W_O"),
        ("ArrowLeft", f"Step 4 of {N}: Scores, mask, softmax (part 3 of 3: Softmax)"),
        ("PageUp", f"Step 4 of {N}: Scores, mask, softmax (part 2 of 3: Masking)"),
    ):
        press(app, key)
        wait_caption(app, want)
    assert app.page.evaluate("() => new URLSearchParams(location.search).get('step')") == "masking"
    assert app.exceptions() == []


def test_keys_typed_in_a_box_or_an_editor_stay_there(app) -> None:  # noqa: ANN001
    # While presenting, the masking step keeps its data editor (a custom mask) one click away, in an expander.
    app.open("scores", min_charts=1, present="1", step="masking", mask="custom")
    wait_caption(app, f"Step 4 of {N}: Scores, mask, softmax (part 2 of 3: Masking)")
    app.page.locator('[data-testid="stMain"] [data-testid="stExpander"] summary').first.click()
    # A data editor: arrows move its selection, Space and PageDown are its own, not the presentation's.
    ed = app.editor(0)
    ed.wait_for(state="visible")
    ed.scroll_into_view_if_needed()
    settled, box = 0, None  # the grid drawn and still (the expander's content moves while it settles)
    for _ in range(150):
        now = ed.bounding_box()
        settled = settled + 1 if now and now == box and now["height"] > 60 else 0
        if settled >= 3:
            break
        box = now
        app.page.wait_for_timeout(200)
    focused = (
        "() => !!document.activeElement && !!document.activeElement.closest('[data-testid=\"stDataFrame\"]')"
    )
    for attempt in range(5):  # a click on the row labels (disabled cells: nothing toggles) focuses the grid
        bb = ed.bounding_box()
        assert bb is not None
        app.page.mouse.click(bb["x"] + 12, bb["y"] + bb["height"] / 2)
        try:
            app.poll(focused, timeout=10, what="the grid's focus")
            break
        except AssertionError:
            if attempt == 4:
                raise
            app.page.wait_for_timeout(500)
    for key in ("ArrowRight", "ArrowLeft", "PageDown", "Space"):
        app.page.keyboard.press(key)
    app.page.keyboard.press("Escape")
    app.after_a_marker_run("zzgrid")  # every key above has been handled by the time this run shows
    assert app.page.evaluate(CAPTION).startswith(f"Step 4 of {N}: Scores, mask, softmax (part 2 of 3")
    assert app.page.evaluate("() => location.pathname").rstrip("/").endswith("scores")
    # The sentence box: the keys edit the text.
    box = app.sentence_box()
    box.click()
    box.press("End")
    for key in ("Space", "ArrowLeft", "ArrowRight", "PageDown", "PageUp"):
        box.press(key)
    assert box.input_value().endswith(" ")  # the space went into the box
    app.after_a_marker_run("zzbox")
    assert app.page.evaluate(CAPTION).startswith(f"Step 4 of {N}: Scores, mask, softmax (part 2 of 3")
    assert app.exceptions() == []


def test_no_key_listener_outside_presentation_mode(app) -> None:  # noqa: ANN001
    app.open("scores", min_charts=1)
    app.poll("() => window.__aeA11y === true", what="the frame's own scripts (explorer/ui/a11y.js)")
    press(app, "ArrowRight")
    app.after_a_marker_run()  # a second run drawn: a key listener the frame mounted would be there by now
    assert app.page.evaluate("() => !window.__aeClicker")
    assert app.page.evaluate("() => new URLSearchParams(location.search).get('step')") is None
    assert app.page.evaluate("() => location.pathname").rstrip("/").endswith("scores")


def test_the_clicker_steps_through_a_training_runs_checkpoints_then_on(shared_app) -> None:  # noqa: ANN001
    from explorer.compute import learning as lc

    stops = lc.tour([int(s) for s in lc.shipped().checkpoints], lc.moments())
    app = shared_app.visit("learn", 1, {"present": "1"}, step="learn-patterns")
    label = "(k) => { const b = document.querySelector(`.st-key-${k} button`); return b ? b.innerText : ''; }"
    app.poll(
        f"() => ({label})('clicker-next').includes('Step {stops[1]}')", what="the first checkpoint's Later"
    )
    for at in stops[1:3]:
        press(app, "ArrowRight")
        app.poll(f"() => ({label})('clicker-back').includes('Step {stops[stops.index(at) - 1]}')",
                 what=f"checkpoint {at} shown")  # fmt: skip
    press(app, "ArrowLeft")
    app.poll(f"() => ({label})('clicker-next').includes('Step {stops[2]}')", what="one checkpoint back")
    assert app.exceptions() == []


LESSON_WHERE = """() => {
  const el = document.querySelector('.st-key-lesson-where strong');
  return el ? el.innerText : '';
}"""


def test_clicker_presents_a_lesson_across_pages(app) -> None:  # noqa: ANN001
    """The clicker's next key reveals a lesson step's answer first, then opens the next step, on its page;
    back returns. The address says the lesson and its step throughout. A key pressed while the page still
    draws what the key before asked for acts once it is drawn: pressed twice at once, next opens the next
    step, then reveals its answer (mid-run the page still shows the links of the step being left, or the
    Reveal button already pressed: a key acting on those would be lost)."""
    route = routes.ATTENTION
    k = next(
        i for i, s in enumerate(route.steps, 1) if route.steps[i].page != s.page
    )  # the next is elsewhere
    here, there = route.steps[k - 1], route.steps[k]
    app.open(here.page, min_charts=1, present="1", lesson=route.name, step=str(k))

    def wait_where(step: int) -> None:
        want = lesson_ui.where(route, step)
        app.poll(f"() => ({LESSON_WHERE})() === {want!r}", what=f"the lesson bar to read {want!r}")
        app.settle()
        app.poll("() => !!window.__aeClicker", what="the clicker's keys to be listened for")

    wait_where(k)
    assert app.page.locator(".st-key-step-top").count() == 0  # the lesson's bar in place of the step-through
    press(app, "ArrowRight")  # first: the answer
    app.poll(f"() => document.querySelector('.st-key-lesson-bar').innerText.includes({here.answer!r})")
    press(app, "ArrowRight")  # then: the next step, on the next page
    wait_where(k + 1)
    assert app.page.evaluate("() => location.pathname.replace(/^\\/+/, '')") == there.page
    query = "() => Object.fromEntries(new URLSearchParams(location.search))"
    got = app.page.evaluate(query)
    assert (got["lesson"], got["step"], got.get("present")) == (route.name, str(k + 1), "1")
    assert there.question in app.page.locator(".st-key-lesson-bar").inner_text()
    press(app, "ArrowLeft")
    wait_where(k)
    assert app.page.evaluate("() => location.pathname.replace(/^\\/+/, '')") == here.page
    assert here.answer in app.page.locator(".st-key-lesson-bar").inner_text()  # revealed stays revealed
    press(app, "ArrowRight")  # twice at once: the next step, then its answer
    press(app, "ArrowRight")
    app.poll(
        f"() => document.querySelector('.st-key-lesson-bar').innerText.includes({there.answer!r})",
        what="the next step's answer",
    )
    assert app.page.evaluate(f"({LESSON_WHERE})") == lesson_ui.where(route, k + 1)
    assert app.exceptions() == []
