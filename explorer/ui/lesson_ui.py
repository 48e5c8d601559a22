"""Lessons on screen (explorer.lessons.routes): the step a link opens, its settings applied on arrival, the
lesson bar above the page (where the student is, what to look at, the question and its reveal, the way on)
and the lessons at the top of the menu.

Which lesson and step are on screen is the address's (?lesson=copy&step=3, explorer.sharing.lesson_link):
the lesson's links carry it from step to step, the frame writes it back after each run, and a page opened
from the menu's reference list leaves the lesson. Presenting, the bar's links are the ones the clicker
follows (explorer.ui.clicker) and its Reveal button the one the clicker's next key presses first.
"""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from explorer.i18n import N_, _
from explorer.lessons import routes
from explorer.lessons.routes import Route, RouteStep
from explorer.model import glossary, pairs, patching
from explorer.sharing import lesson_link, model_link, picks, view_params
from explorer.sharing import url as links
from explorer.ui import clicker, lesson_view, page_table, state

BAR = "lesson-bar"  # the bar's container key (class st-key-lesson-bar: presenting styles it, explorer.ui.present)
WORDS = N_("Words in this step")  # the popover beside what to look at: the glossary's terms the step uses
WORDS_SHORT = N_("Words")  # its button
REVEAL = "lesson-reveal"  # the Reveal button's key; the clicker's next key presses it before moving on


def _params() -> dict[str, str | None]:
    return {k: st.query_params.get(k) for k in st.query_params}


def current() -> tuple[Route, int] | None:
    """The lesson on screen and its step number (from 1), or None: the address names a lesson whose step is
    on the page running."""
    got = lesson_link.read(_params())
    route = routes.by_name(got.name) if got.name else None
    if route is None or route.steps[got.step - 1].page != (state.page() or ""):
        return None
    return route, got.step


def reveal_in_bar() -> bool:
    """A lesson step is on screen and its bar shows its Reveal button (the answer not yet shown): the page's
    own question then draws none (explorer.ui.questions): one button reveals both."""
    on = current()
    return on is not None and not state.lesson_revealed(on[0].name, on[1])


def part() -> str | None:
    """The page part the lesson's step shows while presenting (a page_table step name), or None."""
    on = current()
    if on is None:
        return None
    step = on[0].steps[on[1] - 1]
    return step.part or None


def apply_link(params: dict[str, str | None]) -> None:
    """Apply a link's parameters, read by the readers every share link goes through: the example (settings,
    sentence, edited matrices, preset), presentation mode, the questions asked, the real model's choices,
    /patching's and the pairs' choices, the pages' display controls and the picks. Each part that cannot be
    read gives a message and keeps what was there."""
    got = links.read(params, state.current())
    if got.example is not None:
        state.apply_example(got.example, remember=False)
    if got.preset:
        state.set_preset(got.preset)
    if got.present is not None:
        state.set_present(got.present)
    if got.ask is not None:
        state.set_ask(got.ask)
    if got.ask_model is not None:
        state.set_model_questions(got.ask_model)
    if got.lang is not None:
        state.set_language(got.lang)
    for kind, text in got.messages:
        state.say(kind, text)
    state.apply_model_link(model_link.read(params, state.model_key(), state.picked_head()))
    state.apply_patch_link(patching.read_link(params))
    state.apply_pair_link(pairs.read_link(params))
    state.apply_view_link(view_params.read(params))
    # The head and tokens picked, read against the example the link opened (its heads, its tokens)
    state.apply_picks(picks.read(params, state.current().n_heads, len(state.tokens()), state.picks()))


def _script(url_path: str) -> str:
    page = page_table.by_path(url_path)
    assert page is not None, url_path  # the lesson table's test checks every step's page
    return page.script


def arrive(url_path: str) -> tuple[Route, int] | None:
    """On every run, before the page: the lesson step the address names. A step on another page opens that
    page (a link typed as ?lesson=copy&step=3 lands on the step's page); on arriving at a step its settings
    are applied (explorer.lessons.routes.settings_at), over a clean slate of heads switched off and questions
    asked."""
    got = lesson_link.read(_params())
    if got.name is None:
        for text in got.messages:
            state.say("warning", text)
        return None
    route = routes.BY_NAME[got.name]
    step = route.steps[got.step - 1]
    if step.page != url_path:
        for text in got.messages:
            state.say("warning", text)
        st.switch_page(_script(step.page), query_params=lesson_link.params(route.name, got.step))
    was = state.lesson_at()
    if was != (route.name, got.step):
        came_from = was[1] if was is not None and was[0] == route.name else None
        state.set_off_heads(())
        state.set_ask(None)
        state.set_model_questions(())
        apply_link(routes.settings_at(route, got.step, came_from))
        state.arrive(route.name, got.step)  # last: a run stopped half-way (explorer.ui.state) arrives again
        for text in got.messages:
            state.say("warning", text)
    return route, got.step


def _link(where, route: Route, k: int, label: str, key: str, icon: str, width: str = "stretch") -> None:  # noqa: ANN001
    """A link to step k of the lesson, in a keyed container (the clicker follows the keyed ones)."""
    step = route.steps[k - 1]
    where.container(key=key, width=width).page_link(
        _script(step.page),
        label=label,
        icon=icon,
        query_params=lesson_link.params(route.name, k),
        width=width,
    )


def where(route: Route, k: int) -> str:
    """The line that says where the student is: "How a model copies: step 3 of 5, Switch them off"."""
    step = route.steps[k - 1]
    return _(
        "{lesson}: step {k} of {n}, {step}",
        lesson=_(route.title),
        k=k,
        n=len(route.steps),
        step=_(step.title),
    )


# The way on, drawn as a button (a page link is plain text until hovered), in both themes: static CSS, ours.
CSS = """<style>
.st-key-step-next a, .st-key-lesson-next-bottom a {
  border: 1px solid rgba(128, 128, 128, 0.6); border-radius: 0.5rem; justify-content: center;
}
.st-key-step-next a p, .st-key-lesson-next-bottom a p { font-weight: 600; }
</style>"""
# On a laptop the bar is compact (one row for where the student is and the way back and on, one line each for
# what to look at and the question, their buttons at the right, the words of the step in a popover that floats
# over the page) and its layout wrapper (the bar's own box is exactly as tall) stays at the top while the page
# scrolls under it, under Streamlit's header (explorer.ui.lesson_view scrolls the step's chart to just under
# it, paints the bar and the header with the page's background and lets the bar scroll away with the page
# while it is taller than lesson_view.js's FIT of the screen: nothing of it is ever cut). Static CSS, ours.
STICKY_CSS = """<style>
html:not([data-lesson-bar="free"]) [data-testid="stLayoutWrapper"]:has(> .st-key-lesson-bar) {
  position: sticky; top: 3.75rem; z-index: 5;
}
.st-key-lesson-bar { padding: 0.6rem 1rem; gap: 0.45rem; }
.st-key-lesson-bar [data-testid="stVerticalBlock"] { gap: 0.45rem; }
.st-key-lesson-bar [data-testid="stAlertContainer"] { padding: 0.45rem 0.8rem; }
.st-key-lesson-bar [data-testid="stPageLink-NavLink"] { padding: 0.15rem 0.6rem; }
.st-key-lesson-bar [data-testid="stPopover"] button, .st-key-lesson-bar .st-key-lesson-reveal button {
  min-height: 2.1rem; padding: 0.15rem 0.75rem;
}
</style>"""
# The lessons in the menu look like its page links: left-aligned, as tall as a link.
MENU_CSS = """<style>
[class*="st-key-lesson-open-"] button {
  justify-content: flex-start; min-height: 2rem; padding: 0.25rem 0.5rem; border-radius: 0.5rem;
}
[class*="st-key-lesson-open-"] button div { justify-content: flex-start; }
[data-testid="stSidebar"] [data-testid="stElementContainer"]:has([class*="st-key-lesson-open-"]) { margin: 0; }
</style>"""


def bar(route: Route, k: int) -> DeltaGenerator:
    """Above the page: where the student is in the lesson, the way back and on, what to look at, the question
    with its Reveal button (then the answer and what it means) and, at the last step, the experiment. Returns
    the bar (presenting, the frame adds the QR code and the clicker to it)."""
    step, n, presenting = route.steps[k - 1], len(route.steps), state.present()
    box = st.container(key=BAR, border=not presenting)
    box.html(CSS if presenting else CSS + STICKY_CSS)
    revealed = state.lesson_revealed(route.name, k)
    with box:
        if presenting:  # one row for the way back and on and the Reveal button, one line for the text
            left, mid, button, right = st.columns([3, 8, 3, 5], vertical_alignment="center")
            if not revealed:
                _reveal_button(button, route, k, _("Reveal"), "answer")
            elif step.experiment and not state.lesson_revealed(route.name, k, "experiment"):
                _reveal_button(button, route, k, _("Experiment"), "experiment")
            mid.container(key="lesson-where").markdown(f"**{where(route, k)}**")
            _step_text(route, k, step, revealed)
            if k > 1:  # the number alone: the way on needs the room
                _link(
                    left, route, k - 1, _back(route, k - 1, True), clicker.BACK_LINK, ":material/arrow_back:"
                )
            if k < n:
                next_label = _("Next: {step}", step=_(route.steps[k].title))
                _link(right, route, k + 1, next_label, clicker.NEXT_LINK, ":material/arrow_forward:")
            return box
        # On a laptop, one row: where the student is, then the way back and on as the steps' numbers (the links
        # under the page name the steps whole)
        row = st.container(horizontal=True, vertical_alignment="center", gap="small")
        row.container(key="lesson-where", width="stretch").markdown(f"**{where(route, k)}**")
        if k > 1:
            _link(
                row,
                route,
                k - 1,
                _back(route, k - 1, True),
                clicker.BACK_LINK,
                ":material/arrow_back:",
                "content",
            )
        if k < n:
            _link(
                row,
                route,
                k + 1,
                _("Step {k}", k=k + 1),
                clicker.NEXT_LINK,
                ":material/arrow_forward:",
                "content",
            )
        _step_text(route, k, step, revealed)
        lesson_view.mount(route.name, k, step.part, step.page, routes.settings_at(route, k).get("layer"))
    return box


def _back(route: Route, k: int, number_only: bool) -> str:
    """The way back to step k: "Step 2" presenting (the way on needs the room), else with its title."""
    if number_only:
        return _("Step {k}", k=k)
    return _("Step {k}: {step}", k=k, step=_(route.steps[k - 1].title))


def _step_text(route: Route, k: int, step: RouteStep, revealed: bool) -> None:
    """What to look at and the question (with its Reveal button on a laptop); once revealed, the answer and
    what it means; at the last step, the experiment. Presenting, one line of a 1080 px screen, one thing at a
    time (the clicker's next key moves on): what to look at and the question, the answer and what it means,
    then the experiment (explorer.lessons.routes keeps each one line long)."""
    words = routes.words
    experiment = _("**Your experiment:** {text}", text=words(step.experiment)) if step.experiment else ""
    look = _("**Look:** {text}", text=words(step.look))
    predict = _("**Predict:** {text}", text=words(step.question))
    answer = _("**Answer:** {answer} {meaning}", answer=words(step.answer), meaning=words(step.meaning))
    if state.present():
        if experiment and state.lesson_revealed(route.name, k, "experiment"):
            st.markdown(experiment)
        elif revealed:
            st.markdown(answer)
        else:
            st.markdown(f"{look} {predict}")  # two whole sentences, each translated
        return
    used = routes.terms(step)
    look_col, words_col = st.columns([5, 1], vertical_alignment="center")
    look_col.markdown(look)
    if used:  # the words of the trade this step uses, in plain words (the glossary the pages read), floating
        with words_col.popover(_(WORDS_SHORT), icon=":material/menu_book:", width="stretch"):
            st.markdown(f"**{_(WORDS)}**")
            st.markdown(glossary.markdown(used))
    if revealed:
        st.markdown(predict)
        st.success(answer, icon=":material/lightbulb:")
    else:
        q, b = st.columns([5, 1], vertical_alignment="center")
        q.markdown(predict)
        _reveal_button(b, route, k, _("Reveal"), "answer", width="stretch")
    if experiment:
        st.info(experiment, icon=":material/science:")


def _reveal_button(where, route: Route, k: int, label: str, part: str, width: str = "content") -> None:  # noqa: ANN001
    where.button(
        label,
        key=REVEAL,
        icon=":material/visibility:" if part == "answer" else ":material/science:",
        type="primary",
        on_click=_reveal,
        args=(route.name, k, part),
        width=width,
    )  # no help: its (?) would be a second button in the key's box, the one the clicker presses


def _reveal(name: str, k: int, part: str) -> None:
    """The lesson's answer, and the page's own hidden answers (a question asked with ask=) with it; or,
    presenting the last step, its experiment."""
    state.reveal_lesson(name, k, part)
    if part == "answer":
        state.reveal_every_question()


def bottom(route: Route, k: int) -> None:
    """Under the page, off the projector: the way on (or, at the end, back to the first step)."""
    if state.present():
        return
    n = len(route.steps)
    box = st.container(key="lesson-bottom")
    box.divider()
    left, mid, right = box.columns([5, 4, 5], vertical_alignment="center")
    mid.caption(where(route, k))
    if k < n:
        step = route.steps[k]
        right.container(key="lesson-next-bottom").page_link(
            _script(step.page),
            label=_("Next: {step}", step=_(step.title)),
            icon=":material/arrow_forward:",
            query_params=lesson_link.params(route.name, k + 1),
            width="stretch",
        )
    if k > 1:
        step = route.steps[k - 2]
        left.container(key="lesson-prev-bottom").page_link(
            _script(step.page),
            label=_back(route, k - 1, False),
            icon=":material/arrow_back:",
            query_params=lesson_link.params(route.name, k - 1),
            width="stretch",
        )


def menu() -> None:
    """The lessons, first in the menu: each opens where this session left it (a page opened from the
    reference list leaves a lesson), else at its first step. Buttons, not page links: two lessons that start
    on the same page would both be marked as the page on screen."""
    st.html(MENU_CSS)
    st.caption(_("Lessons"))
    on, was = current(), state.lesson_at()
    for route in routes.ROUTES:
        here = on is not None and on[0].name == route.name
        k = was[1] if was is not None and was[0] == route.name and was[1] <= len(route.steps) else 1
        summary = _(route.summary)
        if st.button(
            _(route.title),
            key=f"lesson.open.{route.name}",
            icon=route.icon,
            type="secondary" if here else "tertiary",
            help=summary
            if k == 1
            else _("{summary} It opens at step {k}, where you left it.", summary=summary, k=k),
            width="stretch",
        ):
            st.switch_page(_script(route.steps[k - 1].page), query_params=lesson_link.params(route.name, k))
