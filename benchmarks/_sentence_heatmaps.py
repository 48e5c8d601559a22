"""Shared by the bare pages the browser benchmarks compare with (floor_app.py, element_cost_app.py): a sentence
box as the app's, and K heatmaps of n x n random numbers whose rows and columns are the sentence's tokens,
each made by the app's own builder (explorer.views.figures.heatmap: same labels, cell text, margins, template)."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import numpy as np
import plotly.graph_objects as go
import streamlit as st

import attention_core as ac
from explorer.views import figures


def heatmaps(charts: int, title: str) -> Iterator[go.Figure]:
    """Draw the sentence box; then the `charts` figures to draw, titled "<title> <i>"."""
    sentence = st.text_input(
        "Sentence", st.query_params.get("sentence", "The cat sat on the mat."), max_chars=500
    )
    labels = ac.token_labels(ac.tokenize(sentence)[:64])
    rng = np.random.default_rng(zlib.crc32(sentence.encode()))
    style = figures.Style()
    for i in range(charts):
        z = rng.normal(size=(len(labels), len(labels)))
        yield figures.heatmap(z, labels, labels, title=f"{title} {i}", style=style)
