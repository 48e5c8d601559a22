"""The language picker, at the top of the sidebar on every page, shown once more than one language is
offered (explorer.i18n.offered). Picking reruns the page in that language: every control keeps its key, so
the example, the step and the edits stay as they were."""

from __future__ import annotations

import streamlit as st

from explorer import i18n
from explorer.ui import state


def picker() -> None:
    codes = i18n.offered()
    if len(codes) < 2:  # one language: nothing to choose
        return
    st.selectbox(
        # Both the language on screen's word and the English one: someone who cannot read the page finds it
        i18n._("Language") if state.language() == i18n.SOURCE else i18n._("Language") + " · Language",
        codes,
        key=state.K_LANG,
        format_func=lambda c: i18n.BY_CODE[c].name,
        persist_state="session",
    )
