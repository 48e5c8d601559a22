"""The language on screen: where it lives in the session, and the getter explorer.i18n reads (bound once per
process, so that every `_()` below ui/ translates into the session's language)."""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from explorer import i18n
from explorer.ui.state.keys import K_LANG

_RUN_LANG = "_explorer_language"  # on the run's context: (the run's cursors, its language)


def language() -> str:
    """The session's language: an offered code (outside a script run, the source language).

    Read once per run and kept on the run's context (every `_()` asks: a page's run asks hundreds of times,
    and each read of the session's state takes its lock); a new run has new cursors, so it reads again."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return i18n.SOURCE
    kept = getattr(ctx, _RUN_LANG, None)
    if kept is not None and kept[0] is ctx.cursors:
        return kept[1]
    code = st.session_state.get(K_LANG, i18n.SOURCE)
    code = code if code in i18n.offered() else i18n.SOURCE
    setattr(ctx, _RUN_LANG, (ctx.cursors, code))
    return code


def _forget() -> None:
    """The language changed during the run: the next `_()` reads it again."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is not None and hasattr(ctx, _RUN_LANG):
        delattr(ctx, _RUN_LANG)


def init_language() -> None:
    """Once per session (state.init): the browser's language when it is offered, else the source language."""
    if K_LANG not in st.session_state:
        st.session_state[K_LANG] = i18n.from_browser(_browser_locale())
        _forget()


def set_language(code: str) -> None:
    """A link's language (before the picker is drawn); a code not offered is ignored (the link reader says so)."""
    if code in i18n.offered():
        st.session_state[K_LANG] = code
        _forget()


def _browser_locale() -> str | None:
    try:
        return st.context.locale  # navigator.language, e.g. "es-ES"
    except Exception:  # noqa: BLE001 (no browser: a bare or AppTest run)
        return None


i18n.bind(language)
