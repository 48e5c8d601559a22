"""/head: one head of the real model, large, with the numbers of one cell and its Q, K, V."""

import numpy as np
import streamlit as st

from attention_core import analysis
from explorer.compute import model_compute
from explorer.i18n import _
from explorer.model import head_rules, models
from explorer.ui import interp_ui, model_ui, waiting
from explorer.ui import widgets as ui
from explorer.views import chart_specs as charts
from explorer.views import figures as fg
from explorer.views import formulas
from explorer.views.model_figures import token_labels

WEIGHTS_PX, QKV_PX = 580, 480  # presenting: the heights that fit the steps on a 1080 px screen

ui.opening(
    _("One head"),
    _(
        "One head's attention weights, large: each row is a query and says how much it takes from each key. "
        "Below, one cell worked out with this head's real query and key vectors, and the head's Q, K and V."
    ),
    r"A = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}} + M\right)",
)
# Presenting: three steps, each one screen: the weights, one cell's numbers (the pickers and buttons in a
# narrow column beside them), then Q, K and V.
SIDE, WIDE = 2, 3  # the two columns' shares of the width
WIDE_PX = fg.FULL_PX * WIDE // (SIDE + WIDE)  # the wide column, in heatmap's width_px
got = model_ui.begin()
if got is not None:
    key, trace = got
    cfg = models.model(key).config
    presenting = ui.step() is not None
    split = ui.step() in ("head", "head-cell")
    side, wide = st.columns([SIDE, WIDE]) if split else (st.container(), st.container())
    with side:
        layer, head = model_ui.head_pickers(cfg.n_layers, cfg.n_heads, "head")
    att, sty = trace.layers[layer].attention, ui.style()
    lab = token_labels(trace.tokens)
    with waiting.working(_("Measuring what each head does on your sentence…"), key):
        labels = model_compute.labels(key, trace.text)
    side.markdown(
        _(
            "**Layer {layer}, head {head}: {label}** (score {score:.2f}; see *How the labels are measured* on "
            "the grid page).",
            layer=layer + 1,
            head=head + 1,
            label=head_rules.label(labels.rules[layer, head]),
            score=float(labels.scores[layer, head]),
        )  # fmt: skip
    )
    blocked = model_compute.blocked(key, trace.n_tokens)
    w = np.asarray(att.weights[head], dtype=np.float64)
    if ui.shows("head"):
        with side:
            model_ui.open_in_explorer(key, layer, head)
            compare = st.toggle(_("Compare with the toy model's head on the same sentence"), key="head.toy",
                                persist_state="session")  # fmt: skip
            view = st.segmented_control(_("Show the weights as"), ["heatmap", "lines"], key="head.view",
                                        format_func={"heatmap": _("heatmap"), "lines": _("lines")}.__getitem__,
                                        required=True, persist_state="session")  # fmt: skip
        with wide:
            real, toy = st.columns(2) if compare else (st.container(), None)
        with real:
            title = (
                _(charts.HEAD_WEIGHTS_BESIDE, layer=layer + 1, head=head + 1)
                if compare
                else charts.HEAD_WEIGHTS.titled(layer=layer + 1, head=head + 1)
            )
            if view == "lines":  # the same weights: a line from each query to each key
                interp_ui.lines_chart(w[None], lab, [_("head {n}", n=head + 1)], "head.lines", title, [head])
            else:
                width = (WIDE_PX if presenting else fg.FULL_PX) // (2 if compare else 1)
                fig = fg.drawn_heatmap(
                    w,
                    lab,
                    lab,
                    style=sty,
                    title=title,
                    cells=fg.Cells(weights=True, row_sums=True, masked=blocked),
                    axes=fg.Axes(width_px=width, height_px=WEIGHTS_PX if presenting else None),
                )
                ui.chart(fig, charts.HEAD_WEIGHTS.key)
        if toy is not None:
            with toy:
                model_ui.toy_head(trace.text, head, sty)
    if cfg.n_kv_heads < cfg.n_heads and ui.shows("head-cell"):
        groups = analysis.kv_groups(cfg.n_heads, cfg.n_kv_heads)
        g = int(analysis.kv_head_of(cfg.n_heads, cfg.n_kv_heads)[head])
        (side if presenting else st).info(
            _(
                "Grouped-query attention: query heads {heads} of this layer share key/value head {kv}: the same "
                "K and V, each with its own Q. RoPE rotates q and k by their positions before the scores; the "
                "causal mask hides every later token (grey).",
                heads=", ".join(str(h + 1) for h in groups[g]),
                kv=g + 1,
            ),
            icon=":material/link:",
        )
    if ui.shows("head-cell"):
        with side if presenting else st.container():
            st.subheader(_("One cell, with its numbers"), anchor=False)
            a, b = st.columns(2)
            for picker in ("head.query", "head.key"):  # a link's cell, or one of a sentence now shorter
                ui.keep_among(picker, range(len(lab)), _("tokens"))
            i = a.selectbox(_("query (row)"), range(len(lab)), format_func=lambda t: f"{t}: {lab[t]}",
                            key="head.query", persist_state="session")  # fmt: skip
            j = b.selectbox(_("key (column)"), range(len(lab)), format_func=lambda t: f"{t}: {lab[t]}",
                            key="head.key", persist_state="session")  # fmt: skip
        row = np.asarray(att.masked[head, i], dtype=np.float64)
        q, k = np.asarray(att.q[head, i], dtype=np.float64), np.asarray(att.k[head, j], dtype=np.float64)
        lines = formulas.score_cell(
            q, k, float(att.scores[head, i, j]), float(att.scale), None,
            bool(blocked is not None and blocked[i, j]), float(w[i, j]), row, i, j, cfg.d_k,
        )  # fmt: skip
        with wide if presenting else st.container():
            for line in lines:
                st.latex(line)
    if ui.shows("head-qkv"):
        dims = [str(d) for d in range(cfg.d_k)]
        ui.charts_in_row(
            [  # their plots level, whether or not a chart has a note on values beyond its range
                (
                    fg.drawn_heatmap(
                        np.asarray(arr[head], dtype=np.float64),
                        lab,
                        dims,
                        style=sty,
                        title=charts.HEAD_VECTORS.titled(out=name, head=head + 1),
                        axes=fg.Axes(
                            **charts.HEAD_VECTORS.axes,
                            width_px=ui.THIRD,
                            height_px=QKV_PX if presenting else None,
                        ),
                    ),
                    charts.HEAD_VECTORS.key.format(name=name.lower()),
                )
                for name, arr in (("Q", att.q), ("K", att.k), ("V", att.v))
            ]
        )
