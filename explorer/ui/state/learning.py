"""/learn's "Train it yourself": its settings' first values, and the visitor's place at their training run's
job with what it reported last, kept across reruns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from explorer.model import learning
from explorer.ui.state.keys import _LEARN_RUN

SETTING_KEYS = {"seed": "learn.seed", "lr": "learn.lr", "heads": "learn.heads", "steps": "learn.steps"}


@dataclass
class LiveSlot:
    """The session's run: its job's key, its place at the job (a jobs.Handle), the run as last reported (a
    learn_live.LiveRun, or None before the first report) and how it ended ("" while it trains, "done",
    "stopped", or the message of its failure)."""

    key: str
    handle: Any
    last: Any = None
    outcome: str = ""


def init_live_settings() -> None:
    """The controls' first values (a link's, read by the frame, stay)."""
    for name, key in SETTING_KEYS.items():
        st.session_state.setdefault(key, learning.LIVE_DEFAULTS[name])


def live_run() -> LiveSlot | None:
    return st.session_state.get(_LEARN_RUN)


def set_live_run(key: str, handle: Any) -> None:
    st.session_state[_LEARN_RUN] = LiveSlot(key, handle)


def keep_live_partial(run: Any) -> None:
    slot = live_run()
    if slot is not None:
        slot.last = run


def end_live_run(outcome: str) -> None:
    slot = live_run()
    if slot is not None:
        slot.outcome = outcome


def drop_live_run() -> LiveSlot | None:
    """Forget the session's run; returns it (its place to cancel), or None."""
    return st.session_state.pop(_LEARN_RUN, None)


STEP_KEY = "learn.step"  # the checkpoint slider's key (explorer.sharing.view_params: learn_step=)


def learn_step(default: int) -> int:
    return int(st.session_state.get(STEP_KEY, default))


def set_learn_step(step: int) -> None:
    """A callback (before the slider is drawn): the slider's checkpoint becomes `step`."""
    st.session_state[STEP_KEY] = int(step)
