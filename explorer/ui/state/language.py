"""The language on screen: where it lives in the session, and the getter explorer.i18n reads (bound once per
process, so that every `_()` below ui/ translates into the session's language)."""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from explorer import i18n
from explorer.ui.state.keys import K_LANG


def language() -> str:
    """The session's language: an offered code (outside a script run, the source language)."""
    if get_script_run_ctx(suppress_warning=True) is None:
        return i18n.SOURCE
    code = st.session_state.get(K_LANG, i18n.SOURCE)
    return code if code in i18n.offered() else i18n.SOURCE


def init_language() -> None:
    """Once per session (state.init): the browser's language when it is offered, else the source language."""
    if K_LANG not in st.session_state:
        st.session_state[K_LANG] = i18n.from_browser(_browser_locale())


def set_language(code: str) -> None:
    """A link's language (before the picker is drawn); a code not offered is ignored (the link reader says so)."""
    if code in i18n.offered():
        st.session_state[K_LANG] = code


def _browser_locale() -> str | None:
    try:
        return st.context.locale  # navigator.language, e.g. "es-ES"
    except Exception:  # noqa: BLE001 (no browser: a bare or AppTest run)
        return None


i18n.bind(language)
