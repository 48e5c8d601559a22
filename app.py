"""The Attention Explorer: the frame around every page.

Page config, state init, the shared controls (sentence, model size), messages, then st.navigation.
Run with: streamlit run app.py
"""

from __future__ import annotations

import streamlit as st

from explorer import frame, present, state

PAGES = [
    st.Page("pages/sentence.py", title="Sentence", icon=":material/edit_note:", url_path="", default=True),
    st.Page(
        "pages/positional-encoding.py",
        title="Positional encoding",
        icon=":material/waves:",
        url_path="positional-encoding",
    ),
    st.Page(
        "pages/projections.py",
        title="Q, K, V projections",
        icon=":material/calculate:",
        url_path="projections",
    ),
    st.Page("pages/scores.py", title="Scores, mask, softmax", icon=":material/grid_on:", url_path="scores"),
    st.Page("pages/heads.py", title="Heads and W_O", icon=":material/view_module:", url_path="heads"),
    st.Page("pages/token.py", title="One token's view", icon=":material/person_search:", url_path="token"),
    st.Page("pages/encoder.py", title="Encoder block", icon=":material/layers:", url_path="encoder"),
    st.Page(
        "pages/why-scale.py", title="Why divide by √d_k?", icon=":material/straighten:", url_path="why-scale"
    ),
]

state.init()
frame.read_url()
st.set_page_config(
    page_title="Attention Explorer",
    page_icon=":material/visibility:",
    layout="wide",
    initial_sidebar_state=present.sidebar_state(state.present()),
)
page = st.navigation(PAGES, position="sidebar")
frame.presentation_css()
frame.sidebar()
if state.present():
    frame.step_controls(PAGES, page, top=True)
frame.sentence_box()
frame.show_messages()
page.run()
frame.step_controls(PAGES, page)
