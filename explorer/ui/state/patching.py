"""/patching's choices: the corrupt sentence, the two answers (each for the sentence it was picked for), and
the lock that keeps a session to one sweep at a time."""

from __future__ import annotations

import threading
from typing import Any

import streamlit as st

from explorer.ui.state.core import say, sentence
from explorer.ui.state.keys import _PATCH_ASKED, _PATCH_IDS, _PATCH_LOCK, K_PATCH_CORRUPT


def patch_id(which: str, text: str) -> int | None:
    """The answer ("answer") or wrong token ("wrong") picked for this sentence, or None (not picked for it)."""
    picked = st.session_state.get(_PATCH_IDS, {}).get(which)
    return int(picked[1]) if picked is not None and picked[0] == text else None


def set_patch_id(which: str, text: str, token_id: int) -> None:
    st.session_state.setdefault(_PATCH_IDS, {})[which] = (text, int(token_id))


def set_patch_pair(clean: str, corrupt: str) -> None:
    """Both sentences of a patching experiment (a callback: before the sentence boxes are drawn); the clean one
    replaces the student's sentence, said and one Undo away."""
    from explorer.ui.state.actions import replace_sentence

    replace_sentence(clean)
    st.session_state[K_PATCH_CORRUPT] = corrupt


def apply_patch_link(link: Any) -> None:
    """What a link asked of /patching (explorer.model.patching.PatchLink): the corrupt sentence, and the answers
    for the link's sentences, with its messages."""
    ss = st.session_state
    if link.corrupt is not None:
        ss[K_PATCH_CORRUPT] = link.corrupt
    texts = (sentence().strip(), str(ss.get(K_PATCH_CORRUPT, "")).strip())
    for which, value, text in zip(("answer", "wrong"), (link.answer, link.wrong), texts, strict=True):
        if value is not None:
            set_patch_id(which, text, value)
    for text in link.messages:
        say("warning", text)


def patch_link_state() -> tuple[str, int | None, int | None]:
    """(corrupt sentence, answer, wrong) as a link carries them: an answer only while its sentence is there."""
    corrupt = str(st.session_state.get(K_PATCH_CORRUPT, ""))
    return corrupt, patch_id("answer", sentence().strip()), patch_id("wrong", corrupt.strip())


def sweep_lock() -> threading.Lock:
    """This session's lock for patching sweeps: a second sweep is refused while one runs (a rerun may start
    while a stopped run still computes)."""
    return st.session_state.setdefault(_PATCH_LOCK, threading.Lock())


def sweeps_asked(experiment: tuple[Any, ...]) -> bool:
    """This session asked for this experiment's sweeps (pressed Run) and has not seen them drawn yet: a run
    stopped meanwhile (the clicker's next key) left the job running, and the page takes it up on return."""
    return st.session_state.get(_PATCH_ASKED) == experiment


def set_sweeps_asked(experiment: tuple[Any, ...] | None) -> None:
    st.session_state[_PATCH_ASKED] = experiment
