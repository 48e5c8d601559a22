"""A grid of attention maps (layers x heads) drawn three ways through the app's chart element, for grid.py.

    streamlit run benchmarks/grid_app.py ; then /?mode=charts&layers=12&heads=12&n=16&sentence=...

mode=charts: one chart per head (layers x heads charts, each a small heatmap);
mode=rows:   one chart per layer (its heads side by side as subplots: figures.head_grid);
mode=mosaic: one chart for the whole grid (grid.mosaic: one heatmap, the maps tiled with gaps);
mode=model:  one chart, the /model page's own figure (explorer.views.model_figures.model_grid: one heatmap of every panel,
             each head's label above its panel; the labels here are all "broad").
The maps are random (seeded by the sentence), n x n, labelled with the sentence's first n tokens; every chart's
title carries the sentence's first word, so a browser can tell when every chart shows the new sentence.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import numpy as np
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grid import mosaic  # noqa: E402

import attention_core as ac  # noqa: E402
from explorer.ui import chart
from explorer.views import figures  # noqa: E402

st.set_page_config(page_title="grid", layout="wide")
q = st.query_params
mode = q.get("mode", "charts")
layers, heads, n = (
    max(1, min(int(q.get(k, d)), lim)) for k, d, lim in (("layers", 12, 40), ("heads", 12, 16), ("n", 16, 64))
)
sentence = st.text_input("Sentence", q.get("sentence", "the cat sat on the mat"), max_chars=500)
tokens = ac.tokenize(sentence) or ["?"]
labels = ac.token_labels([tokens[i % len(tokens)] for i in range(n)])
mark = tokens[0]
rng = np.random.default_rng(zlib.crc32(sentence.encode()))
att = rng.random((layers, heads, n, n))
att /= att.sum(axis=-1, keepdims=True)  # (layers, heads, n, n), rows sum to 1
style = figures.Style()
if mode == "mosaic":
    chart.draw(mosaic(att, labels, title=f"every head · {mark}"), "grid.all")
elif mode == "model":
    from explorer.views import model_figures

    fig = model_figures.model_grid(
        att,
        labels,
        np.full((layers, heads), "broad", dtype=object),
        np.full((layers, heads), 0.5),
        style=style,
        title=f"every head · {mark}",
    )
    chart.draw(fig, "grid.model")
elif mode == "rows":
    for layer in range(layers):
        fig = figures.head_grid(att[layer], labels, style=style, title=f"layer {layer + 1} · {mark}")
        chart.draw(fig, f"grid.layer{layer}")
else:
    for layer in range(layers):
        cols = st.columns(min(heads, 6))
        for h in range(heads):
            with cols[h % len(cols)]:
                fig = figures.heatmap(
                    att[layer, h],
                    labels,
                    labels,
                    title=f"L{layer + 1} H{h + 1} · {mark}",
                    style=style,
                    axes=figures.Axes(width_px=280),
                )
                chart.draw(fig, f"grid.l{layer}h{h}")
