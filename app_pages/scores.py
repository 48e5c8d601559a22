"""/scores: raw scores, scale, bias, mask, softmax, for one head."""

import streamlit as st

from explorer.i18n import _
from explorer.model import settings_table as table
from explorer.ui import editors, questions, state
from explorer.ui import widgets as ui
from explorer.views import chart_specs as charts
from explorer.views import figures as fg
from explorer.views import formulas
from explorer.views.drawn import Drawn

ui.opening(
    _("Scores, mask and softmax"),
    _(
        "Each query is compared with every key by a dot product: a large score means *this key answers what "
        "the query looks for*. The scores are scaled (so they do not grow with d_k), positions that may not be "
        "seen are **masked** to −∞, and a **softmax** turns each row into weights that are ≥ 0 and sum to 1."
    ),
    formulas.scores(state.description()),
)
# While presenting, each of the page's three steps shows its own controls and chart (ui.shows), in one row.
c1, c2, c3 = st.columns([2, 2, 1]) if ui.step() is None else (lambda a, b: (a, a, b))(*st.columns([3, 1]))
with c1:
    if ui.shows("scores") and ui.setting("scale_mode") == "custom":
        ui.setting("scale_custom")
with c2:
    if ui.shows("masking") and ui.setting("mask_kind") == "window":
        ui.setting("window")
with c3:
    if ui.shows("scores"):
        ui.setting("alibi")
        ui.setting("rope")
ex, res = ui.result()
if res is not None:
    if ex.mask_kind == "padding" and "[PAD]" not in res.tokens:
        st.info(
            _(
                "Padding masks keys written as `[PAD]`: add some to the sentence, e.g. *I like tea [PAD] [PAD]*."
            )
        )
    if ex.mask_kind == "custom" and ui.shows("masking"):
        what = _("Custom mask: tick = may attend (rows are queries, columns keys)")
        with st.expander(what, expanded=ui.step() is None):
            editors.matrix_editor(
                "custom_mask", title="Custom mask", row_labels=res.labels, col_labels=res.labels
            )
    h = ui.head_picker(ex.n_heads)
    tr, sty, lab, blocked = res.attention, ui.style(), res.labels, res.blocked
    q = min(state.query(), res.n - 1)  # the query picked below: its labels stay
    keep = {"keep_rows": [q], "keep_cols": [res.strongest_key(h, q)], "height_px": ui.chart_px()}
    # Presenting the masking step: the mask beside the softmax input, each in half the width.
    width = ui.HALF if ui.step() == "masking" else ui.pair_width(res.n, sty)

    # Each chart is built only when its step shows it: presenting, and a class following the projector, draw
    # one step of three.
    def raw() -> Drawn:
        title = charts.RAW_SCORES.titled(head=_("head {n}", n=h + 1))
        return fg.drawn_heatmap(
            tr.scores[h], lab, lab, title=title, style=sty, axes=fg.Axes(**keep, width_px=width)
        )

    def scaled() -> Drawn:
        title = charts.scaled_title(res.scale, ex.alibi, blocked is not None)
        cells, axes = fg.Cells(masked=blocked), fg.Axes(**keep, width_px=width)
        return fg.drawn_heatmap(tr.masked[h], lab, lab, style=sty, title=title, cells=cells, axes=axes)

    if ui.step() == "masking":  # presenting: the mask itself beside the scores it masks
        kind = table.row("mask_kind").titles[ex.mask_kind]
        mask = fg.drawn_mask_matrix(blocked, lab, mask_title=kind, style=sty, width_px=width, **keep)
        ui.charts_in_row([(mask, "scores.mask"), (scaled(), charts.SCALED_SCORES.key)])
    elif width == ui.HALF and ui.shows("scores") and ui.shows("masking"):  # laptop, short sentence: in a row
        ui.charts_in_row([(raw(), charts.RAW_SCORES.key), (scaled(), charts.SCALED_SCORES.key)])
    else:  # one above the other (presenting: the step's own)
        if ui.shows("scores"):  # drawn as built: a class's students share one rendering (ui.chart_of)
            title = charts.RAW_SCORES.titled(head=_("head {n}", n=h + 1))
            axes = fg.Axes(**keep, width_px=width)
            ui.chart_of(fg.drawn_heatmap, tr.scores[h], lab, lab, title=title, style=sty, axes=axes,
                        key=charts.RAW_SCORES.key)  # fmt: skip
        if ui.shows("masking"):
            ui.chart(scaled(), charts.SCALED_SCORES.key)
    if ui.shows("softmax") and not questions.question_hides(res, h, lab):
        title = charts.WEIGHTS.titled(
            head=_("head {n}", n=h + 1)
        )  # what students care about most: full width
        cells = fg.Cells(weights=True, row_sums=True, masked=blocked)
        ui.chart_of(fg.drawn_heatmap, tr.weights[h], lab, lab, style=sty, title=title, cells=cells,
                    axes=fg.Axes(**keep), key=charts.WEIGHTS.key)  # fmt: skip
    if res.a_row_is_all_masked and ui.shows("masking", "softmax"):
        st.info(_("A query whose keys are all masked gets weights 0 (its row sums to 0) and a zero output."))
    if ui.step() is None:  # presenting: the step ends with its chart
        st.subheader(_("One cell, with its numbers"), anchor=False)
        a, b = st.columns(2)
        with a:
            i = ui.token_picker(_("query (row)"), lab, state.K_QUERY)
        with b:
            j = ui.token_picker(_("key (column)"), lab, state.K_KEY)
        for line in formulas.cell_of(res, h, i, j):
            st.latex(line)
        if ex.rope:
            st.caption(_("With RoPE, q and k above are the rotated vectors."))
