"""Streamlit: everything that draws or touches the session.

state/       the only package that touches st.session_state (keys, init and reading, actions, models)
frame.py     the frame around every page (URL, sidebar, sentence box, messages); page_table/ the pages
widgets.py   page helpers (a setting's widget, the opening, charts in a row, pickers, the banner)
token_rows.py  matrices with one row per token, drawn in rows of charts
questions.py predict, then reveal: a page's question, its Reveal button and the answer said
editors.py, grid_guard.py   the data editors and the script that keeps every typed edit
chart/       the one chart element; present.py, clicker.py  presenting and the clicker's keys
model_ui.py, preset_ui.py, export_ui.py, share_panel.py   the real-model, lesson and sharing controls
waiting.py   a page waiting for heavy work: what runs, its place in the workers' queue, its progress
interp_ui.py the logit lens's and the induction run's controls, the line view with its token picker
boot.py      a server's start-up work; patches.py  every change made inside Streamlit (and asyncio)
class_ui.py, class_bar.py, class_keep.py, class_push.py   a class: its actions, its bar, the teacher's key,
             the watcher that runs the students' pages again when the teacher moves
"""
