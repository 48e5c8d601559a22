"""The lesson a session follows (explorer.lessons.routes): the step whose settings were last applied, and
the steps whose answers were revealed. Which lesson and step are on screen is the address's (?lesson=,
?step=): a page of the menu opened outside the lesson leaves it."""

from __future__ import annotations

import streamlit as st

_AT = "lesson.at"  # (lesson name, step number from 1) whose settings were applied last
_REVEALED = "lesson.revealed"  # {(lesson name, step number, part)}: the answers (and experiments) shown
MAX_REVEALED = 200  # every step of every lesson, with room: a session cannot grow this set past it


def lesson_at() -> tuple[str, int] | None:
    """The lesson step this session arrived at last (its settings applied), or None."""
    at = st.session_state.get(_AT)
    return None if at is None else (str(at[0]), int(at[1]))


def arrive(name: str, step: int) -> None:
    """Mark a lesson step as arrived at (its settings are being applied on this run)."""
    st.session_state[_AT] = (name, int(step))


def lesson_revealed(name: str, step: int, part: str = "answer") -> bool:
    """This step's answer (part "answer") or, presenting the last step, its experiment ("experiment") is shown."""
    return (name, int(step), part) in st.session_state.get(_REVEALED, set())


def reveal_lesson(name: str, step: int, part: str = "answer") -> None:
    """A Reveal button's callback: this step's answer (or experiment) is shown, and stays shown on a return."""
    seen = set(st.session_state.get(_REVEALED, set()))
    if len(seen) < MAX_REVEALED:
        seen.add((name, int(step), part))
    st.session_state[_REVEALED] = seen
