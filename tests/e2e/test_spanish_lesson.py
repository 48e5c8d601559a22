"""A whole lesson in Spanish, presenting on a 1920x1080 screen, driven by the clicker alone: every step's
lesson bar (where the class is, the way on, the question, the answer) in Spanish, and the page declares `<html lang="es">`.

The expected words come from the catalog (explorer.i18n.using("es")), and each is checked to differ from the
English, so a string left in English, or a page that fell back to English, fails.
"""

from __future__ import annotations

import re

import pytest

from explorer import i18n
from explorer.lessons import routes
from explorer.ui import lesson_ui

pytestmark = pytest.mark.e2e

ROUTE = routes.ATTENTION  # the first lesson: the toy model and the tiny trained one, quick to draw

WHERE = """() => {
  const el = document.querySelector('.st-key-lesson-where strong');
  return el ? el.innerText : '';
}"""
BAR = "() => { const el = document.querySelector('.st-key-lesson-bar'); return el ? el.innerText : ''; }"


def plain(text: str) -> str:
    """A Markdown text as the page reads it: no emphasis marks, one space between words."""
    return re.sub(r"\s+", " ", text.replace("**", "").replace("*", "").replace("`", "")).strip()


def both(make) -> tuple[str, str]:  # noqa: ANN001 - a function of no arguments that words a text
    """(Spanish, English) of one text of the app."""
    with i18n.using("es"):
        es = make()
    with i18n.using(i18n.SOURCE):
        return es, make()


def press(app, key: str) -> None:  # noqa: ANN001 - the conftest's App
    """A key as a clicker sends it: nothing focused (the body)."""
    app.page.evaluate("() => document.activeElement && document.activeElement.blur()")
    app.page.keyboard.press(key)


def test_a_whole_lesson_in_spanish_with_the_clicker(app) -> None:  # noqa: ANN001
    n = len(ROUTE.steps)
    first = ROUTE.steps[0]
    app.open(first.page, min_charts=0, present="1", lesson=ROUTE.name, step="1", lang="es")
    for k, step in enumerate(ROUTE.steps, 1):
        where, where_en = both(lambda k=k: lesson_ui.where(ROUTE, k))
        assert where != where_en
        app.poll(f"() => ({WHERE})() === {where!r}", what=f"the lesson bar to read {where!r}")
        app.settle()
        app.poll("() => !!window.__aeClicker", what="the clicker's keys to be listened for")
        assert app.page.evaluate("() => document.documentElement.lang") == "es"
        if k < n:  # the way on: the next step's title (presenting, the bar stands in for the page's heading)
            on, on_en = both(lambda k=k: i18n._("Next: {step}", step=i18n._(ROUTE.steps[k].title)))
            assert on != on_en and on in app.page.evaluate(BAR), (k, on)
        question, question_en = both(lambda step=step: routes.words(step.question))
        assert question != question_en
        assert plain(question) in plain(app.page.evaluate(BAR)), (k, question)
        if k == n:
            break
        answer, answer_en = both(lambda step=step: routes.words(step.answer))
        assert answer != answer_en
        press(app, "ArrowRight")  # the clicker's next: first the answer, on the same step
        app.poll(
            f"b => ({BAR})().replace(/\\s+/g, ' ').includes(b)", plain(answer), what=f"step {k}'s answer"
        )
        app.settle()
        app.poll("() => !!window.__aeClicker", what="the clicker's keys to be listened for")
        press(app, "ArrowRight")  # then the next step
    query = app.page.evaluate("() => Object.fromEntries(new URLSearchParams(location.search))")
    assert (query["lesson"], query["step"], query["present"], query["lang"]) == (
        ROUTE.name,
        str(n),
        "1",
        "es",
    )
    assert app.exceptions() == []
