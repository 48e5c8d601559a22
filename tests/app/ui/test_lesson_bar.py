"""A lesson on screen (explorer.ui.lesson_ui): a link opens it at its step, on the step's page, with the step's
settings; the bar says where the student is and its links lead to the next and previous steps; Reveal shows
the answer; the last step is the experiment; the menu lists the lessons first."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from explorer.lessons import routes
from explorer.model import glossary
from explorer.ui import clicker, lesson_ui, page_table
from explorer.ui.state import SETTING_KEYS

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT = 60
LESSON = routes.ATTENTION


def opened(params: dict[str, str]) -> AppTest:
    """app.py opened at its root address with these query parameters."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def links_of(at: AppTest) -> list[tuple[str, str, str]]:
    """(label, page, query) of every page link drawn, in order."""
    return [(p.proto.label, p.proto.page, p.proto.query_string) for p in at.get("page_link")]


def follow(at: AppTest, label_starts: str) -> AppTest:
    """Click the lesson link whose label starts so (AppTest: its page with its query parameters)."""
    (link,) = [p.proto for p in at.get("page_link") if p.proto.label.startswith(label_starts)][:1]
    at.query_params.clear()
    for part in link.query_string.split("&"):
        key, _, value = part.partition("=")
        at.query_params[key] = value
    at.switch_page(page_table.by_path(link.page).script)
    at.run()
    assert not at.exception, at.exception
    return at


def bar_text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_a_link_opens_the_lesson_at_its_step_with_the_way_on() -> None:
    k = 5
    step = LESSON.steps[k - 1]
    at = opened({"lesson": LESSON.name, "step": str(k)})  # the root address: the step's page opens
    assert f"**{lesson_ui.where(LESSON, k)}**" in bar_text(at)
    assert f"**Look:** {step.look}" in bar_text(at)
    # the next link leads to step 6 (the same page, its softmax), the previous one to step 4
    nxt = LESSON.steps[k]
    links = links_of(at)
    assert (f"Next: {nxt.title}", nxt.page, f"lesson={LESSON.name}&step={k + 1}") in links
    prev = LESSON.steps[k - 2]
    assert (f"Step {k - 1}: {prev.title}", prev.page, f"lesson={LESSON.name}&step={k - 1}") in links
    # the settings of the steps up to here: step 1's sentence, step 5's mask
    assert at.session_state[SETTING_KEYS["mask_kind"]] == "causal"
    assert at.session_state[SETTING_KEYS["sentence"]] == dict(LESSON.steps[0].settings)["sentence"]
    assert (at.query_params["lesson"], at.query_params["step"]) == (LESSON.name, str(k))
    # the answer waits for Reveal; the clicker's next key presses this button before moving on
    assert step.answer not in bar_text(at) + "".join(s.value for s in at.success)
    assert clicker.REVEAL[0] == lesson_ui.REVEAL.replace(".", "-")
    at.button(key=lesson_ui.REVEAL).click().run()
    assert any(step.answer in s.value and step.meaning in s.value for s in at.success)
    assert not [b for b in at.button if b.key == lesson_ui.REVEAL]
    # the words of the trade the step uses, in a popover beside its text (it floats over the page: the bar
    # stays as tall), from the glossary (answer included)
    (fold,) = [p for p in at.get("popover") if p.markdown and p.markdown[0].value == f"**{lesson_ui.WORDS}**"]
    shown = "\n".join(m.value for m in fold.markdown)
    used = glossary.terms_in(" ".join(routes.texts(step)))
    assert {t.key for t in used} >= {"mask", "token"}
    for t in used:
        assert f"**{t.word}**: {t.plain}" in shown, t.key


def test_the_next_link_walks_to_the_next_page_and_the_last_step_is_the_experiment() -> None:
    n = len(LESSON.steps)
    at = opened({"lesson": LESSON.name, "step": str(n - 1)})
    at = follow(at, "Next: ")
    assert f"**{lesson_ui.where(LESSON, n)}**" in bar_text(at)
    assert [i.value for i in at.info if LESSON.steps[-1].experiment in i.value]
    assert not [link for link in links_of(at) if link[0].startswith("Next: ")]  # the end: nothing further
    at = follow(at, f"Step {n - 1}: ")
    assert f"**{lesson_ui.where(LESSON, n - 1)}**" in bar_text(at)
    # a page of the reference list leaves the lesson; the lesson's button in the menu opens it where it was
    at.query_params.clear()
    at.switch_page(page_table.listed()[0].script).run()
    assert lesson_ui.where(LESSON, n - 1) not in bar_text(at)
    at.sidebar.button(key=f"lesson.open.{LESSON.name}").click().run()
    assert not at.exception, at.exception
    assert f"**{lesson_ui.where(LESSON, n - 1)}**" in bar_text(at)


def test_a_link_to_no_lesson_says_so_and_the_menu_lists_the_lessons_first() -> None:
    at = opened({"lesson": "nope", "step": "2"})
    assert any("There is no lesson called" in w.value for w in at.warning)
    assert "lesson" not in at.query_params
    assert not [b for b in at.button if b.key == lesson_ui.REVEAL]
    # the lessons first, then the pages; a lesson's button opens it at its first step, on its page
    assert [b.label for b in at.sidebar.button][: len(routes.ROUTES)] == [r.title for r in routes.ROUTES]
    first = at.sidebar.get("page_link")[0].proto.label
    assert first == page_table.listed()[0].title
    at.sidebar.button(key=f"lesson.open.{LESSON.name}").click().run()  # the toy's: no real model to load
    assert not at.exception, at.exception
    assert f"**{lesson_ui.where(LESSON, 1)}**" in bar_text(at)


def test_presenting_the_last_step_shows_the_answer_then_the_experiment_one_line_at_a_time() -> None:
    n = len(LESSON.steps)
    step = LESSON.steps[-1]
    at = opened({"lesson": LESSON.name, "step": str(n), "present": "1"})
    shown = bar_text(at)
    assert step.question in shown and step.answer not in shown and step.experiment not in shown
    assert not at.success and not [i for i in at.info if step.experiment in i.value]  # one line, no boxes
    at.button(key=lesson_ui.REVEAL).click().run()
    shown = bar_text(at)
    assert f"**Answer:** {step.answer} {step.meaning}" in shown and step.question not in shown
    assert at.button(key=lesson_ui.REVEAL).label == "Experiment"  # the clicker's next key presses it
    at.button(key=lesson_ui.REVEAL).click().run()
    shown = bar_text(at)
    assert f"**Your experiment:** {step.experiment}" in shown and step.answer not in shown
    assert not [b for b in at.button if b.key == lesson_ui.REVEAL]


def test_a_step_that_asks_the_pages_question_has_one_reveal_button() -> None:
    """A step whose settings ask the page's question (ask=): the bar's Reveal is the only one (it reveals the
    page's answer too); the page's card says where it is and, off the projector, names no arrow key."""
    k = next(i for i, s in enumerate(LESSON.steps, 1) if "ask" in dict(s.settings))
    at = opened({"lesson": LESSON.name, "step": str(k)})
    assert [b.key for b in at.button if b.key in (lesson_ui.REVEAL, "reveal")] == [lesson_ui.REVEAL]
    card = "\n".join(c.value for c in at.caption)
    assert "Reveal in the lesson's bar above" in card and "→" not in card, card
    assert "induction head" not in card  # the head's rule is the step's answer: no hint gives it away
    at.button(key=lesson_ui.REVEAL).click().run()
    assert not [b for b in at.button if b.key in (lesson_ui.REVEAL, "reveal")]
    assert not [c for c in at.caption if "Reveal" in c.value]  # the card gone: the weights are drawn
    # the same question off the lesson: the card's own button, and still no arrow key off the projector
    at = opened(routes.settings_at(LESSON, k))
    at.switch_page(page_table.by_path(LESSON.steps[k - 1].page).script).run()
    assert [b.key for b in at.button if b.key in (lesson_ui.REVEAL, "reveal")] == ["reveal"]
    assert not [c for c in at.caption if "→" in c.value]
    assert [c for c in at.caption if "induction head" in c.value]  # off a lesson, the rule is the hint


def test_the_clicker_runs_a_steps_patching_before_it_reveals() -> None:
    """Presenting the cause lesson with the clicker alone: on a /patching step, next presses the Run button
    first (the sweep the step's chart needs), then Reveal, then moves on (explorer.ui.clicker)."""
    from explorer.ui import patching_ui

    assert any(s.page == "patching" for s in routes.CAUSE.steps)
    assert patching_ui.RUN.replace(".", "-") in clicker.RUN
    assert not set(clicker.RUN) & set(clicker.REVEAL)
