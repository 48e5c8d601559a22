"""For element_cost.py: K heatmaps drawn by the app's chart element, under a sentence box, and N other
elements in the sidebar that never change (a mix of number inputs, select boxes, Markdown and check boxes,
as the app's sidebar has).

    streamlit run benchmarks/element_cost_app.py -- ; then open /?charts=3&extra=60&sentence=...
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _sentence_heatmaps import heatmaps  # noqa: E402

from explorer.ui import (
    boot,
    chart,  # noqa: E402
)

boot.freeze_imports()  # as the app does
st.set_page_config(page_title="element cost", layout="wide")
charts = max(1, min(int(st.query_params.get("charts", "3")), 30))
extra = max(0, min(int(st.query_params.get("extra", "0")), 300))
with st.sidebar:
    for i in range(extra):
        kind = i % 4
        if kind == 0:
            st.number_input(f"number {i}", value=i, key=f"n{i}")
        elif kind == 1:
            st.selectbox(f"choice {i}", ["a", "b", "c"], key=f"s{i}")
        elif kind == 2:
            st.markdown(f"Some **Markdown** text, number {i}, with `code`.")
        else:
            st.checkbox(f"box {i}", key=f"c{i}")
for i, fig in enumerate(heatmaps(charts, "chart")):
    chart.draw(fig, f"cost.{i}")
