"""/projections: per head, W_Q, W_K, W_V (editable) and the Q, K, V they make."""

import streamlit as st

from explorer.i18n import _
from explorer.ui import editors, layer_choice, state
from explorer.ui import widgets as ui
from explorer.views import chart_specs as charts
from explorer.views import figures as fg
from explorer.views import formulas

ui.opening(
    _("Queries, keys and values"),
    _(
        "Each head has three matrices, which a trained model learns. Multiplying the tokens X by **W_Q** gives each token's *query* "
        "(what it is looking for), by **W_K** its *key* (what it offers to be found by), by **W_V** its *value* "
        "(what it passes on when attended to)."
    ),
    formulas.projections(state.description()),
    edits=_("Edit any weight and every later step follows."),
)
layer_choice.weights_note()
ex, res = ui.result()
if res is not None:
    h = ui.head_picker(ex.n_heads)
    sty, tr = ui.style(), res.attention
    dims = fg.dims("d", ex.d_model)
    # The step: Q, K and V side by side (plots level), on one screen; a following student's laptop draws the
    # same three, not the editors the projector does not show
    presenting = ui.part() is not None
    trio = (("w_q", "W_Q", tr.q), ("w_k", "W_K", tr.k), ("w_v", "W_V", tr.v))
    if presenting:
        ui.charts_in_row_of(
            [
                (
                    fg.drawn_heatmap,
                    (out[h], res.labels, fg.dims(label[-1].lower(), ex.d_k)),
                    {
                        "style": sty,
                        "title": charts.PROJECTION_OF.titled(
                            out=label[-1], weights=label, head=_("head {n}", n=h + 1)
                        ),
                        "axes": fg.Axes(**charts.PROJECTION_OF.axes, width_px=ui.THIRD),
                    },
                    charts.PROJECTION_OF.key.format(name=name),
                )
                for name, label, out in trio
            ]
        )
    for name, label, out in trio if not presenting else ():
        cols_k = fg.dims(label[-1].lower(), ex.d_k)  # q0.., k0.., v0..
        bias = "b_" + name[-1]  # a real layer's b_Q, b_K, b_V (the toy model has none)
        plus = f" + b_{label[-1]}" if state.matrix(bias).size else ""
        st.subheader(
            _("{w} of head {n} and {out} = X {w}{plus}", w=label, n=h + 1, out=label[-1], plus=plus),
            anchor=False,
        )
        left, right = st.columns([2, 3])
        with left:
            editors.matrix_editor(
                name,
                title=_("{w} (head {n})", w=label, n=h + 1),
                row_labels=dims,
                col_labels=cols_k,
                index=(h,),
            )
            editors.bias_editor(
                bias, title=_("b_{letter} (head {n})", letter=label[-1], n=h + 1), col_labels=cols_k, head=h
            )
            keys = (f"projections.rand.{name}", f"projections.reset.{name}")
            editors.draw_buttons((name, *editors.held(bias)), label, keys, short=True)
        with right:
            ui.chart_of(
                fg.drawn_heatmap,
                out[h],
                res.labels,
                cols_k,
                title=charts.PROJECTION.titled(out=label[-1], head=_("head {n}", n=h + 1)),
                style=sty,
                axes=fg.Axes(**charts.PROJECTION.axes, width_px=ui.HALF),
                key=charts.PROJECTION.key.format(name=name),
            )
