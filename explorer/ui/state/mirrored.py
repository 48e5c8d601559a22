"""Widgets mirrored into shared keys: a page's own picker (a layer, a head, a word, a token) shows what the
session holds in a shared key, and a change to it goes back there, so every page that shows the same choice
agrees. The pages call these instead of touching st.session_state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from explorer.ui.state.models import set_picked


def show(widget: str, value: object) -> str:
    """Put `value` (what a shared key holds) in `widget` before it is drawn; the widget's key."""
    st.session_state[widget] = value
    return widget


def value(widget: str, default: object = None) -> Any:
    """What `widget` holds (`default` before it was drawn)."""
    return st.session_state.get(widget, default)


def pick_back(widget: str, shared: str) -> None:
    """An on_change: the shared picked key `shared` (a layer, a head) takes the widget's choice."""
    set_picked(shared, int(st.session_state[widget]))


def keep_within(widget: str, options: Sequence[object], default: object) -> None:
    """`widget` back to `default` when what it holds is no longer one of `options` (a shorter sentence)."""
    if st.session_state.get(widget, default) not in options:
        st.session_state[widget] = default


def take_pending(widget: str, pending: str) -> None:
    """A choice made by a click in the last run (`pending`) moves into `widget`, before it is drawn: copied,
    then dropped (a run stopped between the two copies it again, explorer.ui.state; popped first, the
    choice was lost)."""
    if pending in st.session_state:
        st.session_state[widget] = st.session_state[pending]
        st.session_state.pop(pending, None)


def set_pending(pending: str, choice: object) -> None:
    """Keep a click's choice for the next run (a widget cannot change once drawn): take_pending reads it."""
    st.session_state[pending] = choice
