"""A class's side of the session: the teacher's code and key (only this session holds the key), or a
student's code and id, following the teacher or exploring, the teacher's view applied last, and where a
student was exploring when they came back to follow."""

from __future__ import annotations

from typing import Any

import streamlit as st

from explorer.classroom.store import new_student
from explorer.ui.state.core import current, init
from explorer.ui.state.keys import (
    _BUILT,
    _MATRICES,
    _PRESET_AT,
    _REVEALED,
    _REVEALED_FOR,
    K_ASK,
    K_ASK_HEADS,
    K_ASK_INDUCTION,
    K_ASK_LENS,
    K_ASK_NEXT,
    K_ASK_PREV,
    K_HEAD,
    K_KEY,
    K_PRESET,
    K_QUERY,
    MODEL_DEFAULTS,
    SETTING_KEYS,
    VIEW_DEFAULTS,
)

K_JOIN_CODE = "class.code"  # the first page's box: a code typed
K_NICKNAME = "class.nickname"  # and an optional nickname
_TEACH = "class.teach"  # (code, key): this session drives the class
_DROP_KEPT = "class.drop_kept"  # the tab forgets the key it kept (the class ended): explorer.ui.class_keep
_JOINED = "class.joined"  # (code, student id, nickname): this session is a student of the class
_FOLLOW = "class.following"  # the student follows the teacher (False: exploring on their own)
_APPLIED = "class.applied"  # the version of the teacher's view applied last
_PENDING = "class.pending"  # (page, query): a view to apply at the start of the next run
_PART = "class.part"  # (page, step name): the part of its page the teacher shows (presenting), or None
_EXPLORED = "class.explored"  # (page, query): where the student was exploring when they came back
_ASKED = "class.asked"  # (Question, truth) the teacher's page asks on this run (None: nothing)
_TOLD = "class.told"  # what the store was last told: (view, qid or None)
_REVEALED_QID = "class.revealed"  # the question the teacher revealed last
_SEEN = "class.seen"  # what a student's page last drew of the class (class_bar._seen)
_GOTO = "class.goto"  # the page of the view applied on this run (opened once st.navigation has run)
_CODE_SHOWN = "class.code_shown"  # the dialog with the code and its QR code opens on this run
_URL_JOINED = "class.url_joined"  # ?join= was read (once per session)
_STUDENT = "class.student"  # the id this tab joins a class with (made before it asks the store)
_VIEW_MARK = "class.view_mark"  # (query, what each key of a view held right after that view was applied)

# What a view sets: the example, the pickers, the real model's choices, the pages' display controls and the
# question (a student's own display choices, presentation mode, colours and tables, stay theirs).
VIEW_KEYS = (
    *SETTING_KEYS.values(), *MODEL_DEFAULTS, *VIEW_DEFAULTS,
    K_HEAD, K_QUERY, K_KEY, K_PRESET, _PRESET_AT, K_ASK, K_ASK_NEXT, K_ASK_HEADS, K_ASK_INDUCTION, K_ASK_LENS, K_ASK_PREV, _REVEALED, _REVEALED_FOR, _MATRICES, _BUILT,
)  # fmt: skip


def teaching() -> tuple[str, str] | None:
    return st.session_state.get(_TEACH)


def set_teaching(code: str | None, key: str = "") -> None:
    ss = st.session_state
    ss[_DROP_KEPT] = code is None and ss.get(_TEACH) is not None  # the class ended: the tab forgets its key
    ss[_TEACH] = None if code is None else (code, key)
    st.session_state.pop(_TOLD, None)


def drop_kept() -> bool:
    return bool(st.session_state.get(_DROP_KEPT, False))


def set_drop_kept() -> None:
    st.session_state[_DROP_KEPT] = True


def joined() -> tuple[str, str, str] | None:
    return st.session_state.get(_JOINED)


def set_joined(code: str | None, student: str = "", nickname: str = "") -> None:
    """Joined (following the teacher) or, with None, left. Joined is written last: a run stopped at one of
    these writes (any read or write of the session's state may stop it: explorer.ui.state) is either not a
    student yet, and joins again, or a whole one."""
    ss = st.session_state
    if code is None:
        ss[_JOINED] = None
    ss[_FOLLOW], ss[_APPLIED] = code is not None, -1
    ss.pop(_EXPLORED, None)
    if code is not None:
        ss[_JOINED] = (code, student, nickname)


def student_id() -> str:
    """The id this tab joins a class with, made once: a join that a stopped run repeats is the same student
    (explorer.classroom.store)."""
    got = st.session_state.get(_STUDENT)
    if not got:
        got = st.session_state[_STUDENT] = new_student()
    return str(got)


def class_code() -> str | None:
    """The code of the class this session teaches or takes part in."""
    got = teaching() or joined()
    return None if got is None else got[0]


def following() -> bool:
    return joined() is not None and bool(st.session_state.get(_FOLLOW, False))


def applied() -> int:
    return int(st.session_state.get(_APPLIED, -1))


def follow_view(version: int, page: str, query: str, part: str | None = None) -> None:
    """Apply the teacher's view (`page`, `query`) at the start of the next run; `part`: the step of the page
    the teacher shows (presenting), the part a following student's page draws."""
    st.session_state[_PENDING] = (page, query)
    st.session_state[_PART] = None if not part else (page, part)
    st.session_state[_APPLIED] = version  # last: a run stopped before it is asked to follow again


def part_shown(page: str | None) -> str | None:
    """The step of page `page` a following student's page draws (the teacher's, presenting), else None."""
    got = st.session_state.get(_PART) if following() else None
    return got[1] if got is not None and got[0] == page else None


def pending() -> tuple[str, str] | None:
    return st.session_state.get(_PENDING)


def drop_pending() -> None:
    st.session_state.pop(_PENDING, None)


def explore(back_to: tuple[str, str] | None) -> None:
    """Stop following; `back_to` (page, query) is where the student was last exploring (None: stay here)."""
    st.session_state[_FOLLOW] = False
    if back_to is not None:
        st.session_state[_PENDING] = back_to


def come_back(here: tuple[str, str]) -> None:
    """Follow the teacher again; `here` (page, query) is kept for the next "explore"."""
    ss = st.session_state
    ss[_EXPLORED], ss[_FOLLOW], ss[_APPLIED] = here, True, -1


def explored() -> tuple[str, str] | None:
    return st.session_state.get(_EXPLORED)


def reset_view() -> None:
    """Every part of the state a view sets back to its default (then the view's link is read over it): what
    the teacher's link leaves out is the default, not what the student had before."""
    from explorer.ui.state.actions import apply_example

    for key in VIEW_KEYS:
        st.session_state.pop(key, None)
    init()
    apply_example(current(), remember=False)  # the editors' versions move on: no old edit is replayed


def _marks() -> tuple[object, ...]:
    """What every key a view sets holds now: a plain value itself, anything else (a dict of matrices, an
    Example) by identity, its matrices each by identity (a matrix changes only by being replaced)."""
    ss = st.session_state  # _BUILT is left out: it is made from the rest
    return tuple(_mark(ss.get(key, _NOTHING)) for key in VIEW_KEYS if key != _BUILT)


_NOTHING = object()


def _mark(value: object) -> object:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return tuple((k, _mark(v)) for k, v in value.items())
    if isinstance(value, (tuple, list)):  # a list by its items: one changed in place is another mark
        return (type(value).__name__, *(_mark(v) for v in value))
    if isinstance(value, (set, frozenset)):
        return frozenset(value)
    return _Same(value)


class _Same:
    """An object compared by identity (kept alive with the mark, so no other object takes its id)."""

    __slots__ = ("held",)

    def __init__(self, held: object) -> None:
        self.held = held

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.held is self.held

    __hash__ = None  # type: ignore[assignment]


def set_view_applied(query: str) -> None:
    """The view `query` was just applied over the defaults: what every key of a view holds now is its mark."""
    st.session_state[_VIEW_MARK] = (query, _marks())


def view_applied(query: str) -> bool:
    """Whether the state still holds, key by key, what applying the view `query` left there (nothing changed
    since by the student or another view): applying it again would change nothing."""
    got = st.session_state.get(_VIEW_MARK)
    return got is not None and got[0] == query and got[1] == _marks()


def ask_class(asked: Any) -> None:
    st.session_state[_ASKED] = asked


def take_asked() -> Any:
    return st.session_state.pop(_ASKED, None)


def told() -> Any:
    return st.session_state.get(_TOLD)


def set_told(what: Any) -> None:
    st.session_state[_TOLD] = what


def show_code() -> None:
    st.session_state[_CODE_SHOWN] = True


def take_show_code() -> bool:
    return bool(st.session_state.pop(_CODE_SHOWN, False))


def join_read() -> bool:
    """Whether this session has read ?join= (once per session, done when set_join_read says so)."""
    return bool(st.session_state.get(_URL_JOINED))


def set_join_read() -> None:
    st.session_state[_URL_JOINED] = True


def revealed_qid() -> str | None:
    return st.session_state.get(_REVEALED_QID)


def set_revealed(qid: str) -> None:
    st.session_state[_REVEALED_QID] = qid


def set_goto(page: str) -> None:
    st.session_state[_GOTO] = page


def goto() -> str | None:
    return st.session_state.get(_GOTO)


def drop_goto() -> None:
    st.session_state.pop(_GOTO, None)


def seen() -> object:
    return st.session_state.get(_SEEN)


def set_seen(what: object) -> None:
    st.session_state[_SEEN] = what
