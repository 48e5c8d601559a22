"""The class bar above the page: the teacher's code, students and live count; a student's class, whether they
follow, the question to answer and whether they were right; the first page's box to join a class."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial

import streamlit as st

from explorer.classroom import store as cs
from explorer.classroom.store import Question
from explorer.i18n import _, ngettext
from explorer.ui import class_keep, class_push, class_ui, state
from explorer.views.text import literal

POLL_S = 0.5  # how often the teacher's count reads the store: an answer shows within about this
# A student's page is run again when the teacher moves (explorer.ui.class_push, within a tenth of a second);
# its own poll is the fallback, should a run be missed.
FALLBACK_S = 5.0
BAR = "class-bar"  # the bar's container key (st-key-class-bar on the page)
# Static CSS (no user text): the bar redraws twice a second; Streamlit's fading of an element being redrawn
# would make it flicker on the projector.
CODE_CSS = (
    "<style>.st-key-class-code p { font-size: 5rem !important; text-align: center; margin: 0; "
    "letter-spacing: 0.05em; }</style>"
)
BAR_CSS = "<style>.st-key-class-bar [data-stale='true'] { opacity: 1 !important; transition: none; }</style>"


def _counts(q: Question, counts: Sequence[int], mine: int | None = None) -> None:
    """The answers to `q`, each choice someone chose (and the right one) with its count, most first."""
    total = sum(counts) or 1
    shown = sorted((i for i, c in enumerate(counts) if c or i == q.truth), key=lambda i: -counts[i])
    for i in shown:
        values = {"choice": literal(q.options[i]), "count": counts[i]}
        if i == q.truth:
            text = _("{choice}: {count} ✓ right answer (yours)", **values) if i == mine else _(
                "{choice}: {count} ✓ right answer", **values)  # fmt: skip
        else:
            text = (
                _("{choice}: {count} (yours)", **values) if i == mine else f"{values['choice']}: {counts[i]}"
            )
        st.progress(counts[i] / total, text=text)


# ---------------------------------------------------------------------------------------- the students


def bar() -> None:
    """Above the page, in a class: the teacher's code, students and answers; a student's class, whether they
    follow, and the question to answer. Nothing outside a class.

    What polls the store twice a second is small: the teacher's count (one session a class). A student's
    page is run again by the process's watcher when the teacher moved, asked or revealed (class_push), and
    a fragment that draws nothing polls every FALLBACK_S in case (`_watch`); the rest of the bar is drawn by
    the page's run."""
    class_keep.keep(class_ui.store)  # a teacher's tab: the key kept across a reload, never on the page
    if state.classroom.take_show_code() and state.classroom.teaching() is not None:
        st.html(CODE_CSS)  # outside the dialog: a <style> alone is not drawn inside one
        class_ui.code_dialog(state.classroom.teaching()[0])  # type: ignore[index]
    if state.classroom.class_code() is None:
        return
    st.html(BAR_CSS)
    if state.classroom.teaching() is not None:
        _teacher_bar()
    else:
        _student_bar()


def _pulse(code: str) -> cs.Pulse | None | bool:
    """The class's pulse, None when it has ended, False when the store does not answer (the next poll tries
    again)."""
    try:
        return class_ui.store().pulse(code)
    except Exception:  # noqa: BLE001 - the store is away for a moment (Redis restarting)
        return False


def _teacher_bar() -> None:
    code, key = state.classroom.teaching()  # type: ignore[misc]
    with st.container(key=BAR, border=True):
        left, right = st.columns([3, 2], vertical_alignment="center")
        with left:
            _teacher_count()
        with right, st.container(horizontal=True):
            st.button(_("Code and QR"), key="class.show", on_click=state.classroom.show_code,
                      icon=":material/qr_code_2:", help=_("The class's code and its QR code, large."))  # fmt: skip
            st.download_button(
                _("Answers (CSV)"), data=partial(class_ui.answers_csv_bytes, code, key), file_name="class-answers.csv",
                mime="text/csv", on_click="ignore", key="class.csv", icon=":material/download:",
                help=_("Every question asked, each choice and how many chose it. No names. The lesson's "
                       "notebook (the sidebar's Download as notebook) ends with them too."),
            )  # fmt: skip
            st.button(_("End the class"), key="class.end", on_click=class_ui.end, icon=":material/logout:",
                      help=_("Deletes the class and its answers: download them first."))  # fmt: skip


@st.fragment(run_every=POLL_S)
def _teacher_count() -> None:
    """The teacher's live line: students joined, answers to the question asked; after Reveal, each answer's
    count beside the truth."""
    got = state.classroom.teaching()
    if got is None:
        return
    code = got[0]
    pulse = _pulse(code)
    if pulse is False:
        st.caption(_("The class's store does not answer; trying again."))
        return
    if pulse is None:
        state.classroom.set_teaching(None)
        state.say("info", _("The class has ended (a class lasts a few hours) and its answers are deleted."))
        st.rerun(scope="app")
    assert isinstance(pulse, cs.Pulse)
    values = {"code": cs.shown_code(code), "answered": pulse.answered}
    if pulse.question:
        st.markdown(ngettext("**Class {code}**: {n} student joined. **{answered} of {n} answered.**",
                             "**Class {code}**: {n} students joined. **{answered} of {n} answered.**",
                             pulse.students, **values))  # fmt: skip
    else:
        st.markdown(ngettext("**Class {code}**: {n} student joined.", "**Class {code}**: {n} students joined.",
                             pulse.students, **values))  # fmt: skip
    q = pulse.question
    if q is not None and q.truth is not None:
        _counts(q, class_ui.store().counts(code, q.qid))


def _seen(pulse: cs.Pulse) -> tuple[object, ...]:
    """What makes a student's page change: the teacher's view (while following), the question, its truth."""
    return class_push.seen_of(pulse, state.classroom.following())


def student_pulse(code: str) -> cs.Pulse | None | bool:
    """The pulse a student's run draws (app.py's catch_up, the class bar): the one the watcher ran it again
    for, else the store's (`_pulse`)."""
    asked = class_push.asked_for(code)
    return _pulse(code) if asked is class_push.UNREAD else asked  # type: ignore[return-value]


@st.fragment(run_every=FALLBACK_S)
def _watch() -> None:
    """A student's fallback poll: draws nothing; reruns the page when the teacher moved, asked or revealed,
    or the class ended, and the watcher has not run it already."""
    got = state.classroom.joined()
    if got is None or not _fragment_run():
        return  # the page's run drew the bar from the pulse just now: reading the store again finds the same
    pulse = _pulse(got[0])
    if pulse is False:
        return
    moved = isinstance(pulse, cs.Pulse) and pulse.version != state.classroom.applied()
    if moved and pulse.view and state.classroom.following():  # type: ignore[union-attr]
        view = json.loads(pulse.view)  # type: ignore[union-attr]
        state.classroom.follow_view(pulse.version, view["page"], view["query"], view.get("part"))  # type: ignore[union-attr]
    if pulse is None or state.classroom.seen() != _seen(pulse):
        st.rerun(scope="app")


def _fragment_run() -> bool:
    """Whether this run is a fragment's own (its timer), not the page's."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx is None or bool(ctx.fragment_ids_this_run)


def _student_bar() -> None:
    code, student, nick = state.classroom.joined()  # type: ignore[misc]
    pulse = student_pulse(code)
    if pulse is None:
        state.classroom.set_joined(None)
        class_push.unregister()
        st.info(_("The class has ended. The explorer is yours to explore."), icon=":material/logout:")
        return
    if pulse is False:
        st.caption(_("The class's store does not answer; trying again."))
        _watch()
        return
    assert isinstance(pulse, cs.Pulse)
    view = json.loads(pulse.view) if pulse.view else None
    follows = state.classroom.following()
    if follows and view is not None and pulse.version != state.classroom.applied():
        state.classroom.follow_view(pulse.version, view["page"], view["query"], view.get("part"))
        st.rerun(scope="app")  # the run applies the view and opens its page (apply_pending, open_page)
    state.classroom.set_seen(_seen(pulse))
    class_push.register(code, follows, state.classroom.seen())  # type: ignore[arg-type]
    q = pulse.question if follows else None
    if q is not None and q.truth is not None:
        state.classroom.set_revealed(q.qid)  # a real-model page's question shows its answer (questions.py)
        if state.ask() is not None and not state.revealed():
            state.reveal()  # the page draws the answer the teacher revealed
    with st.container(key=BAR, border=True):
        left, right = st.columns([3, 2], vertical_alignment="center")
        values = {"code": cs.shown_code(code), "nick": literal(nick or "")}
        if follows:
            said = _("**Class {code}** as {nick}: you follow the teacher.", **values) if nick else _(
                "**Class {code}**: you follow the teacher.", **values)  # fmt: skip
        else:
            said = _("**Class {code}** as {nick}: you are exploring on your own.", **values) if nick else _(
                "**Class {code}**: you are exploring on your own.", **values)  # fmt: skip
        if view and view.get("step"):
            said = _("{said} The teacher is at {step}.", said=said, step=view["step"])
        left.markdown(said)
        with right, st.container(horizontal=True):
            if follows:
                st.button(_("Explore on my own"), key="class.explore", on_click=class_ui.explore, icon=":material/explore:",
                          help=_("Look around and change things; the teacher's moves wait for you."))  # fmt: skip
            else:
                st.button(_("Follow the teacher"), key="class.follow", on_click=class_ui.come_back, type="primary",
                          icon=":material/group:", help=_("Back to the teacher's page; what you changed is "
                          "kept for your next exploring."))  # fmt: skip
            st.button(_("Leave the class"), key="class.leave", on_click=_leave, icon=":material/logout:")
        if q is not None:
            _answer_box(code, student, q)
        _watch()


def _leave() -> None:
    class_push.unregister()  # the watcher runs this page no more
    class_ui.leave()


@st.fragment
def _answer_box(code: str, student: str, q: Question) -> None:
    """The question and the student's answer (choosing and sending rerun only this box)."""
    mine = class_ui.store().mine(code, student, q.qid)
    st.markdown(f"**{literal(q.prompt)}**")
    if q.truth is None:
        key = f"class.answer.{q.qid}"
        st.radio(_("Your answer"), range(len(q.options)), format_func=lambda i: q.options[i], key=key,
                 index=mine, horizontal=True, label_visibility="collapsed")  # fmt: skip
        st.button(_("Send my answer") if mine is None else _("Change my answer"), key="class.send", type="primary",
                  on_click=class_ui.send, args=(code, student, q.qid, key), icon=":material/send:")  # fmt: skip
        if mine is not None:
            st.caption(_("You answered “{choice}”. The teacher reveals the answer soon; you may change yours "
                         "until then.", choice=literal(q.options[mine])))  # fmt: skip
        return
    right = literal(q.options[q.truth])
    if mine == q.truth:
        st.success(_("Right: the answer is “{right}”.", right=right), icon=":material/check_circle:")
    elif mine is None:
        st.info(
            _("The answer is “{right}”. You did not answer this one.", right=right),
            icon=":material/lightbulb:",
        )
    else:
        st.info(
            _("The answer is “{right}”; you answered “{mine}”.", right=right, mine=literal(q.options[mine])),
            icon=":material/lightbulb:",
        )
    _counts(q, class_ui.store().counts(code, q.qid), mine)


def join_box() -> None:
    """The first page's box: type the teacher's code (and a nickname if you like) to join their class."""
    if state.classroom.class_code() is not None:
        return
    with st.expander(_("Join a class"), icon=":material/group:"), st.form("class.join", border=False):
        st.text_input(_("The class's code"), key=state.classroom.K_JOIN_CODE, max_chars=20,
                      placeholder="ABCD-EFGH", help=_("The code on the teacher's screen."))  # fmt: skip
        st.text_input(_("A nickname (optional)"), key=state.classroom.K_NICKNAME, max_chars=cs.MAX_NICK_CHARS,
                      help=_("Shown only to you; the class's answers carry no names."))  # fmt: skip
        st.form_submit_button(_("Join"), on_click=class_ui.join_typed, icon=":material/login:")
