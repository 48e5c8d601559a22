"""The pages' display controls (explorer.sharing.view_params): what a link set of them, their values for the
link, and a position kept among its page's options."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from explorer.i18n import _
from explorer.sharing import view_params
from explorer.ui.state.core import say
from explorer.ui.state.keys import _VIEWS_ASKED


def apply_view_link(link: view_params.ViewsRead) -> None:
    """What a link set of the display controls, before their widgets are drawn, with its messages. A position
    (a token, a head) is checked against its page's options when the page draws it (keep_among)."""
    ss = st.session_state
    for key, value in link.values.items():
        ss[key] = value
        if not view_params.BY_KEY[key].values:
            ss.setdefault(_VIEWS_ASKED, {})[key] = value
    for text in link.messages:
        say("warning", text)


def view_values() -> dict[str, Any]:
    """Every display control's value (widget key -> value), as view_params.params takes them."""
    ss = st.session_state
    return {v.key: ss.get(v.key, v.default) for v in view_params.VIEWS}


def keep_among(key: str, options: Sequence[Any], said: str = "") -> str:
    """Before the picker of a position is drawn: its value is one of `options` (else the first). Returns the
    message for a link that asked for one past them ("" otherwise; `said`: how the page names the options)."""
    ss = st.session_state
    asked = ss.get(_VIEWS_ASKED, {}).pop(key, None)
    if ss.get(key) in options or not options:
        return ""
    ss[key] = options[0]
    if asked is None:
        return ""
    view = view_params.BY_KEY[key]
    return _(
        "The link's {what} ({param}={value}) is not one of this page's {options}: showing the first.",
        what=_(view.label), param=view.param, value=asked, options=said,
    )  # fmt: skip
