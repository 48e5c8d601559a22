"""The Attention Explorer: the frame around every page.

Page config, state init, the shared controls (sentence, model size), messages, then st.navigation.
Run with: streamlit run app.py
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from explorer.compute import heavy
from explorer.ui import boot, frame, page_table, present, state, warm

PAGES = {
    section: [
        st.Page(p.script, title=p.title, icon=p.icon, url_path=p.url_path, default=p.url_path == "")
        for p in rows
    ]
    for section, rows in page_table.sections().items()
}

boot.send_writes_at_once()  # once per process: no 40 ms wait on a kept-alive connection
boot.quick_switching()  # once per process: the event loop gets the GIL back quickly under load
boot.freeze_imports()  # once per process: Streamlit's collection after every run skips what imports made
boot.keep_collections_short()  # once per process: and every 10 s, what sessions have made and still hold
boot.bound_memory()  # once per process: freed memory goes back to the system
boot.note_run()  # the next refreeze has objects to look at
warm.from_env()  # once per process, with ATTENTION_EXPLORER_WARM=1: the real models start loading now
# The run takes its turn: a few runs compute at once, the others queue (explorer.compute.heavy.RUNS); heavy
# work inside steps out of it meanwhile.
with heavy.script_run():
    state.init()
    frame.read_url()
    st.set_page_config(
        page_title="Attention Explorer",
        # A file of the app's own (served from /media): a :material/ icon is fetched from fonts.gstatic.com.
        page_icon=str(Path(__file__).with_name("explorer") / "assets" / "favicon.png"),
        layout="wide",
        initial_sidebar_state=present.sidebar_state(state.present()),
    )
    page = st.navigation(PAGES, position="hidden")  # the menu is the frame's own (frame.navigation)
    frame.presentation_css()
    frame.navigation()
    frame.sidebar(page_table.by_path(page.url_path))
    if state.present():
        frame.step_controls(page, top=True)
    frame.model_bar(page_table.by_path(page.url_path))
    frame.sentence_box()
    note = st.empty()  # filled after the page when the address bar cannot hold the edits
    frame.show_messages()
    state.set_page(page.url_path)
    with heavy.page_run():  # a turn at heavy work (a new real-model sentence) lasts the page's run
        page.run()
    frame.step_controls(page)
    frame.sync_url(note)  # after the page: the address bar holds the state the run ended with
