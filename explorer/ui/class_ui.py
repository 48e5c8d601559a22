"""A class: the teacher's screen on every student's laptop, and the class's answers on the projector.

The teacher (presenting) starts a class: a join code and its QR code (the app's address with ?join=CODE);
after every run of theirs the page and its address (the share link's parameters: the example, the pickers,
the real model's choices, the question) are published to the class store (explorer.classroom). A student
joins by the code (the first page's box, or ?join=), and a fragment polls the store every class_bar.POLL_S: a new view
is applied at the start of the next run (apply_pending) on the teacher's page. "Explore on my own" stops
following; "Follow the teacher" comes back and keeps where the student was for the next "explore".

A question the page asks (predict, then reveal: widgets.question_hides) is the class's: each student
answers in their class bar, the teacher's bar counts the answers, and Reveal sends the truth to everyone.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from urllib.parse import parse_qsl

import streamlit as st

from explorer.classroom import answers_csv, open_store
from explorer.classroom import store as cs
from explorer.classroom.store import ClassError, Question
from explorer.export import class_notebook, qr
from explorer.i18n import _
from explorer.sharing import url as links
from explorer.ui import boot, page_table, present, state
from explorer.views.text import literal

TEACHER_ONLY = ("present", "step", "lang")  # a student's own: a laptop, the whole page, their language


@functools.lru_cache(maxsize=1)
def store() -> cs.Store:
    """The process's class store ($ATTENTION_EXPLORER_CLASSES: SQLite by default, Redis with replicas).

    A process that serves a class is tuned as server.py tunes one from its start (explorer.ui.boot): every
    student's poll is a run, and Streamlit collects garbage after each; with the imports frozen that walk
    takes a few milliseconds instead of tens."""
    boot.freeze_imports()
    boot.tune_server()
    return open_store()


def _address() -> str:
    """Who is guessing codes, for the store's bound: the first forwarded address (behind a proxy), else the
    connection's; only its hash is kept, for a minute."""
    try:
        forwarded = (st.context.headers.get("X-Forwarded-For") or "").split(",")[0].strip()
        return cs.address_tag(forwarded or st.context.ip_address or "")
    except Exception:  # noqa: BLE001 - no browser context (a bare run)
        return cs.address_tag("")


# ---------------------------------------------------------------------------------------- the teacher


def start() -> None:
    """ "Start a class" (a callback): a new class, its code shown with its QR code."""
    try:
        opened = store().create()
    except Exception as e:  # noqa: BLE001 - the store is unreachable (Redis down): say so, keep presenting
        state.say(
            "error",
            _("The class could not start: its store did not answer ({error}).", error=type(e).__name__),
        )
        return
    state.classroom.set_teaching(opened.code, opened.key)
    state.classroom.show_code()


def end() -> None:
    """ "End the class" (a callback): everything the class stored is deleted."""
    got = state.classroom.teaching()
    if got is not None:
        with contextlib.suppress(ClassError):  # already ended (or expired): nothing left to delete
            store().end(*got)
        state.say("info", _("The class has ended and its answers are deleted."))
    state.classroom.set_teaching(None)


def join_link(code: str) -> str:
    """The app's own address (as the browser shows it) with ?join=CODE: what the QR code opens."""
    try:
        base = st.context.url or ""
    except Exception:  # noqa: BLE001 - no browser context (a bare run): a relative link
        base = ""
    return f"{base.split('?', 1)[0]}?join={code}"


def code_dialog(code: str) -> None:
    """The code, large, and its QR code, in a dialog titled in the language on screen."""
    st.dialog(_("Join the class"), width="large")(_code_dialog)(code)


def _code_dialog(code: str) -> None:
    """The code, large, and its QR code: students scan it or type the code on the first page."""
    link = join_link(code)
    with st.container(key="class-code"):
        st.markdown(f"**{literal(cs.shown_code(code))}**")
    image = qr.svg(link)
    if image is not None:
        with st.container(key="class-qr", horizontal_alignment="center"):
            st.image(image, width=420)
    st.caption(_("Scan the code with a phone or laptop camera, or open the explorer and type the code in the "
                 "box on its first page."))  # fmt: skip
    st.code(link, language=None)


def question_id(page: str, parts: str, digest: str) -> str:
    """A question's id: the page, what is asked and the example (a new sentence asks again)."""
    return hashlib.sha256(f"{page}|{parts}|{digest}".encode()).hexdigest()[:16]


def role() -> str | None:
    """ "teacher", "student" (following the teacher), or None (not in a class, or exploring)."""
    if state.classroom.teaching() is not None:
        return "teacher"
    return "student" if state.classroom.following() else None


def ask(parts: str, prompt: str, options: Sequence[str], truth: int) -> str:
    """The teacher's page asks this question on this run (told to the store at the run's end); its id."""
    qid = question_id(state.page() or "", parts, state.current().digest())
    state.classroom.ask_class(Question(qid, prompt, tuple(str(o) for o in options), truth))
    return qid


def reveal(qid: str, truth: int) -> None:
    """The teacher's Reveal (a callback): the page shows the answer, and every student sees the truth."""
    state.reveal()
    state.classroom.set_revealed(qid)
    got = state.classroom.teaching()
    if got is not None:
        try:
            store().reveal(got[0], got[1], qid, truth)
        except ClassError as e:
            state.say("warning", str(e))


def revealed(qid: str) -> bool:
    """The teacher revealed question `qid` (the page's own flag says whether any answer is shown)."""
    return state.classroom.revealed_qid() == qid


def publish(url_path: str, address: dict[str, str], *, early: bool = False) -> None:
    """The teacher's page and its address (frame.wanted: the share link's parameters) to the store, and the
    question the page asked. Twice a run (app.py): `early`, before the page draws (students start moving
    while the teacher's page runs; the question is not known yet), and after it."""
    asked = None if early else state.classroom.take_asked()
    got = state.classroom.teaching()
    if got is None:
        return
    params = {k: v for k, v in address.items() if k not in TEACHER_ONLY}
    view = json.dumps(
        {
            "page": url_path,
            "query": links.query_of_params(params),
            "step": _step(url_path),
            "part": _part(url_path),
        }
    )
    was = state.classroom.told()
    told = (view, (was[1] if was else None) if early else (None if asked is None else asked.qid))
    if was == told:
        return
    try:
        store().publish(got[0], got[1], view)
        if not early:
            q = None if asked is None else Question(asked.qid, asked.prompt, asked.options)
            store().ask(got[0], got[1], q)
    except ClassError as e:  # the class ended (expired): the teacher is told once, the class bar goes
        state.classroom.set_teaching(None)
        state.say("warning", str(e))
        return
    state.classroom.set_told(told)


def _part(url_path: str) -> str | None:
    """The part of its page the teacher's projector shows (a step's name), None off the step-through or
    off presenting (the whole page)."""
    if not state.present():
        return None
    i = present.step_index(url_path, st.query_params.get("step"))
    return None if i is None else present.STEPS[i].name


def _step(url_path: str) -> str:
    """The teacher's step as the student's bar says it ("Step 4 of 8: ..."), or "" off the step-through."""
    i = present.step_index(url_path, st.query_params.get("step") if state.present() else None)
    if i is None:
        return _(page_table.by_path(url_path).title) if page_table.by_path(url_path) else ""
    return present.caption(i, with_part=state.present())


def answers(code: str, key: str) -> list[tuple[Question, tuple[int, ...]]]:
    """The class's questions in the order asked, each with its counts (none once the class has ended)."""
    try:
        return store().export(code, key)
    except ClassError:
        return []


def answers_csv_bytes(code: str, key: str) -> bytes:
    return answers_csv.to_csv(answers(code, key)).encode("utf-8")


def with_answers(teaching: tuple[str, str] | None, make: Callable[..., bytes], *args: object) -> bytes:
    """The lesson's notebook made by `make`, then, when its maker teaches a class, the class's answers."""
    made = make(*args)
    return made if teaching is None else class_notebook.appended(made, answers(*teaching))


# ---------------------------------------------------------------------------------------- the students


def join(text: str, nickname: str = "") -> bool:
    """Join the class of code `text`; False (and a message) when the store refuses."""
    code = cs.typed_code(text)
    if not code:
        state.say("warning", _("A class code has {n} letters and digits, as the teacher's screen shows it (for "
                               "example ABCD-EFGH).", n=cs.CODE_LEN))  # fmt: skip
        return False
    mine = state.classroom.student_id()  # made before the store is asked: a repeated join is this student
    try:
        student = store().join(code, _address(), nickname, student=mine)
    except ClassError as e:
        state.say("warning", str(e))
        return False
    state.classroom.set_teaching(None)
    state.classroom.set_joined(code, student, cs.nickname(nickname))
    return True


def join_typed() -> None:
    """The first page's Join button (a callback)."""
    join(
        str(state.value(state.classroom.K_JOIN_CODE) or ""),
        str(state.value(state.classroom.K_NICKNAME) or ""),
    )


def join_from_url() -> None:
    """Once per session (app.py): ?join=CODE joins that class (the QR code's link); with &me=ID, a student's
    own address after a reload or a replica's death, the same student again (their answers kept).

    Read is marked last. The browser's second request of a new page (a replica's death brings two) stops
    the first run at its next touch of the session's state, which may be the very write that records the
    join; the next run then reads the address again, and joins as the same student."""
    if state.classroom.join_read():
        return
    _join_from_url()
    state.classroom.set_join_read()


def _join_from_url() -> None:
    code, me = (
        cs.typed_code(str(st.query_params.get("join") or "")),
        str(st.query_params.get("me") or "")[: cs.MAX_STUDENT_CHARS],
    )
    if code and me and state.classroom.class_code() is None:
        try:
            if store().rejoin(code, me):
                state.classroom.set_joined(code, me)
                return
        except Exception:  # noqa: BLE001 - the store is away for a moment: join as a new student below
            pass
    if st.query_params.get("join") and state.classroom.class_code() is None:
        join(str(st.query_params.get("join"))[:40])


def catch_up(read: Callable[[str], object]) -> None:
    """At the start of a run (app.py, before apply_pending): a following student whose page is behind the
    teacher's takes the teacher's view in this run (the watcher ran it for that: class_push), not in a
    second one. `read`: the class's pulse as the student's run reads it (class_bar.student_pulse; False
    while the store does not answer: the class bar says so)."""
    got = state.classroom.joined()
    if got is None or not state.classroom.following():
        return
    pulse = read(got[0])
    if not isinstance(pulse, cs.Pulse):
        return
    if pulse.view and pulse.version != state.classroom.applied():
        view = json.loads(pulse.view)
        state.classroom.follow_view(pulse.version, view["page"], view["query"], view.get("part"))


def apply_pending(apply_url: Callable[[dict[str, str]], None]) -> None:
    """At the start of a run, before any widget (app.py, with lesson_ui.apply_link): the view a student follows (or
    the place they were exploring), applied over the defaults; its page opens after st.navigation."""
    got = state.classroom.pending()
    if got is None:
        return
    page, query = got
    # A move to another page or step keeps the example: a state that still holds what this view left when it
    # was applied last needs nothing again (sixty following students' runs at each move of the teacher)
    if not state.classroom.view_applied(query):
        state.classroom.reset_view()
        apply_url(dict(parse_qsl(query, keep_blank_values=True)))
        state.classroom.set_view_applied(query)
    state.classroom.set_goto(page)
    state.classroom.drop_pending()  # last: a run stopped half-way through the view applies it again


def open_page(url_path: str) -> None:
    """After st.navigation (app.py): the page of the view applied this run, when the run is on another."""
    page = state.classroom.goto()
    if page is None:
        return
    target = page_table.by_path(page)
    if target is not None and page != url_path:
        st.switch_page(target.script)  # the run on that page lets go of it (a run stopped here goes again)
    state.classroom.drop_goto()


def leave() -> None:
    state.classroom.set_joined(None)
    state.say("info", _("You left the class. The explorer is yours again."))


def explore() -> None:
    state.classroom.explore(state.classroom.explored())


def come_back() -> None:
    here = {k: st.query_params.get(k) for k in st.query_params if k not in ("join", "me")}
    state.classroom.come_back((state.page() or "", links.query_of_params(here)))


def send(code: str, student: str, qid: str, key: str) -> None:
    choice = state.value(key)
    if choice is None:
        return
    try:
        store().answer(code, student, qid, int(choice))
    except ClassError as e:
        state.say("warning", str(e))
