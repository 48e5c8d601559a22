"""The floor for browser.py: a bare page that redraws K heatmaps of n x n with st.plotly_chart.

A sentence box (as the app's) and K charts whose rows and columns are the sentence's tokens; each heatmap is
the app's own builder (explorer.views.figures.heatmap: same labels, cell text, margins, template), drawn the way
every page drew before explorer.ui.chart (st.plotly_chart, keyed, full width, the same config), and its imports
frozen out of the garbage collector as the app does (explorer.ui.boot.freeze_imports). Nothing else
runs: the time from Enter to every chart updated is what st.plotly_chart itself costs for that many charts.

    streamlit run benchmarks/floor_app.py -- ; then open /?charts=3&sentence=...
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _sentence_heatmaps import heatmaps  # noqa: E402

from explorer.ui import boot  # noqa: E402

boot.freeze_imports()  # as the app does: Streamlit's collection after every run skips what imports made
st.set_page_config(page_title="floor", layout="wide")
charts = max(1, min(int(st.query_params.get("charts", "3")), 300))
for i, fig in enumerate(heatmaps(charts, "floor")):
    st.plotly_chart(
        fig,
        key=f"floor.{i}",
        width="stretch",
        config={
            "displaylogo": False,
            "toImageButtonOptions": {"format": "png", "scale": 2, "filename": f"f{i}"},
        },
    )
