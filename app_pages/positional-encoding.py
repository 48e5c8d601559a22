"""/positional-encoding: where each token stands, added to its embedding."""

import streamlit as st

from explorer.compute import cached as compute
from explorer.i18n import _
from explorer.ui import editors, state, token_rows
from explorer.ui import widgets as ui
from explorer.views import chart_specs as charts
from explorer.views import figures as fg
from explorer.views import formulas

# Presenting a trained layer: the one-line note on the values beyond the charts' colour range (a massive
# activation) takes this much height above them.
NOTES_PX = 30

ui.opening(
    _("Positional encoding"),
    _(
        "Attention by itself ignores word order: shuffle the tokens and each one sees the same set of keys. "
        "So every position gets its own vector **P**, added to the embedding. The paper uses sines and cosines "
        "of different frequencies: low dimensions change quickly from one position to the next, high ones slowly."
    ),
    formulas.positions(state.description()),
)
c1, c2, c3 = st.columns([3, 2, 3])  # wide enough for "scale E by √d_model first" at 1280 px
ui.setting("pe_kind", c1)
ui.setting("pe_base", c2, disabled=not state.current().pe_kind.startswith("sinusoidal"))
ui.setting("pe_scale", c3)
ex, res = ui.result()
described = state.description()
if res is not None and not described.adds_positions:
    # A trained layer adds no P of its own: its positions are already in X (learned vectors added before the
    # first layer) or rotate q and k inside attention (RoPE); a chart of P would be all zeros.
    st.info(
        _(
            "**{model}** adds no position vector P here. Its positions rotate each query and key inside "
            "attention (RoPE): see them on Scores, mask, softmax.",
            model=described.title,
        )
        if described.rope
        else _(
            "**{model}** adds no position vector P here. Its learned position vectors were added to the token "
            "embeddings before layer 1, so the input X below already holds them.",
            model=described.title,
        )
    )
    token_rows.token_matrices(
        [(described.input_title, res.x, fg.dims("d", ex.d_model), "pe.x")],
        res.labels,
        per_row=1,
        height_px=ui.chart_px(NOTES_PX),
    )
elif res is not None:
    sty, dims = ui.style(), fg.dims("d", ex.d_model)
    presenting = ui.part() is not None  # the step: E + P = X, on one screen (a following laptop too)
    if ex.pe_kind == "learned" and not presenting:
        st.caption(
            _("Edit the position vectors (one row per position; they start from the sinusoidal values).")
            if described.drawn
            else _("Edit the position vectors (one row per position; they start from the trained ones).")
        )
        editors.matrix_editor(
            "pe_table",
            title=_("Positional table"),
            row_labels=[f"pos {i}" for i in range(res.n)],
            col_labels=dims,
        )
    if ex.pe_kind.startswith("sinusoidal") and not presenting:
        t, curves = compute.pe_curves(ex.pe_kind, ex.d_model, float(ex.pe_base), max(res.n, 2))
        ui.chart_of(fg.drawn_encoding_curves, t, curves, res.pe, dims, style=sty, key="pe.curves")
    if not presenting:
        ui.charts_in_row(
            [
                (
                    fg.drawn_heatmap(
                        res.pe,
                        res.labels,
                        dims,
                        title=charts.PE_MATRIX.titled(),
                        style=sty,
                        axes=fg.Axes(**charts.PE_MATRIX.axes, width_px=ui.HALF),
                    ),
                    charts.PE_MATRIX.key,
                ),
                (
                    fg.drawn_heatmap(
                        res.pe_gram,
                        res.labels,
                        res.labels,
                        title=charts.PE_SIMILARITY.titled(),
                        style=sty,
                        axes=fg.Axes(**charts.PE_SIMILARITY.axes, width_px=ui.HALF),
                    ),
                    charts.PE_SIMILARITY.key,
                ),
            ]
        )
    e_title = "E" + (" × √d_model" if ex.pe_scale else "")
    token_rows.token_matrices(
        [(e_title, res.emb, dims, "pe.e"), ("+ P", res.pe, dims, "pe.p"), ("= X", res.x, dims, "pe.x")],
        res.labels,
        zrange=fg.shared_range(res.emb, res.pe, res.x),  # one colour per number: E + P = X reads off
        height_px=ui.chart_px(NOTES_PX),
    )
