"""The Attention Explorer: the frame around every page.

Page config, state init, the shared controls (sentence, model size), messages, then st.navigation.
Run with: streamlit run app.py
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from explorer import i18n
from explorer.compute import heavy
from explorer.i18n import _
from explorer.ui import (
    class_bar,
    class_ui,
    frame,
    lesson_ui,
    page_table,
    patches,
    present,
    state,
    waiting,
    warm,
)


def _pages() -> dict[str, list[st.Page]]:
    return {
        section: [
            st.Page(p.script, title=_(p.title), icon=p.icon, url_path=p.url_path, default=p.url_path == "")
            for p in rows
        ]
        for section, rows in page_table.sections().items()
    }


# Made once per session and language (twenty st.Page objects were a millisecond or two of every run of a
# class's students); not shared between sessions: st.navigation marks the page it returns, its run unmarks it.
PAGES = state.made("pages", i18n.current(), _pages)

# How a server serves a class (the collector, the GIL, memory, the models' loads) is set where it starts:
# server.py (explorer.ui.warm.lifespan). `streamlit run app.py` serves one visitor without it; a host that
# runs app.py for a class sets ATTENTION_EXPLORER_WARM=1 and gets it at the first run. What stays here is
# what one visitor waits for: without it every response after a connection's first waits 40 ms.
patches.send_writes_at_once()  # once per process
patches.one_run_per_session()  # once per process: a rerun waits for the session's running script
patches.stopped_runs_delivered()  # once per process: an ended run's messages are sent before the next run
warm.from_env()  # once per process, with ATTENTION_EXPLORER_WARM=1
# The run takes its turn: a few runs compute at once, the others queue (explorer.compute.heavy.RUNS); heavy
# work inside steps out of it meanwhile.
with patches.session_turn(), heavy.script_run(waiting.visitor()):  # one run per session, a few per process
    state.init()
    # A student following the teacher: the teacher's view, applied before any widget is drawn
    class_ui.catch_up(class_bar.student_pulse)
    class_ui.apply_pending(lesson_ui.apply_link)
    frame.read_url()
    class_ui.join_from_url()
    st.set_page_config(
        page_title="Attention Explorer",
        # A file of the app's own (served from /media): a :material/ icon is fetched from fonts.gstatic.com.
        page_icon=str(Path(__file__).with_name("explorer") / "assets" / "favicon.png"),
        layout="wide",
        initial_sidebar_state=present.sidebar_state(state.present()),
    )
    page = st.navigation(PAGES, position="hidden")  # the menu is the frame's own (frame.navigation)
    class_ui.open_page(page.url_path)  # a student following the teacher: the teacher's page
    frame.presentation_css()
    state.set_page(page.url_path)
    frame.navigation()
    lesson = lesson_ui.arrive(page.url_path)  # ?lesson=&step=: its page opened, its settings applied once
    frame.sidebar(page_table.by_path(page.url_path))
    if lesson is not None:
        frame.lesson_bar(*lesson)  # where the student is in the lesson, the question, the way on
    elif state.present():
        frame.step_controls(page, top=True)
    class_bar.bar()  # in a class: the teacher's count of answers, or a student's following and answering
    frame.model_bar(page_table.by_path(page.url_path))
    frame.sentence_box(page_table.by_path(page.url_path))
    note = st.empty()  # filled after the page when the address bar cannot hold the edits
    frame.show_messages()
    if state.classroom.teaching() is not None:  # teaching: students move meanwhile
        class_ui.publish(page.url_path, frame.wanted()[0], early=True)
    with heavy.page_run():  # a turn at heavy work (a new real-model sentence) lasts the page's run
        page.run()
    if lesson is not None:
        lesson_ui.bottom(*lesson)
    else:
        frame.step_controls(page)
    frame.sync_url(note)  # after the page: the address bar holds the state the run ended with
    class_ui.publish(page.url_path, {k: st.query_params.get(k) for k in st.query_params})  # and its question
