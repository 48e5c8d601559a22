"""/heads: every head side by side, the concatenation, W_O and the final output."""

import streamlit as st

from explorer.i18n import _
from explorer.ui import editors, state
from explorer.ui import widgets as ui
from explorer.views import chart_specs as charts
from explorer.views import figures as fg
from explorer.views import formulas

HEADS_PER_ROW = 4  # fg.head_grid draws up to 4 panels a row
HEADS_BOX_PX = (
    660  # presenting, the box of a grid of more rows: what a 1080 px screen has left under the controls
)

ui.opening(
    _("Many heads, one output"),
    _(
        "Each head attends in its own way, with its own W_Q, W_K and W_V. Their outputs are laid side by side "
        "(**concatenated**) and multiplied by **W_O**, which mixes what the heads found back into one "
        "d_model-wide vector per token."
    ),
    formulas.heads(state.description()),
)
ex, res = ui.result()
if res is not None:
    tr, sty, lab = res.attention, ui.style(), res.labels
    # Presenting more heads than one row holds (a real layer's 9 or 12): they scroll in a box of one screen.
    tall = ui.step() is not None and ex.n_heads > HEADS_PER_ROW
    with st.container(height=HEADS_BOX_PX, key="heads-grid-box") if tall else st.container():
        ui.chart(
            fg.drawn_head_grid(
                tr.weights,
                lab,
                style=sty,
                title=charts.HEAD_GRID.titled(),
                masked=res.blocked,
            ),
            charts.HEAD_GRID.key,
        )
    if ui.step() is None:  # presenting: the step is every head's weights, on one screen
        cols_v = [name for h in range(ex.n_heads) for name in fg.dims("v", ex.d_k, head=h)]
        ui.chart(
            fg.drawn_heatmap(
                tr.concat,
                lab,
                cols_v,
                title=charts.CONCAT.titled(),
                style=sty,
                cells=fg.Cells(groups=[_("head {n}", n=h + 1) for h in range(ex.n_heads)]),
                axes=fg.Axes(**charts.CONCAT.axes),
            ),
            charts.CONCAT.key,
        )
        dims = fg.dims("d", ex.d_model)
        # W_O and the output one above the other, each at full width: side by side, the editor hid its last
        # column behind a scroll bar.
        st.subheader("W_O", anchor=False)
        if ex.n_heads * ex.d_k * ex.d_model > 64 * 64 * 8:  # a real layer's W_O (384 x 384): the head's rows
            h = ui.head_picker(ex.n_heads)
            rows = slice(h * ex.d_k, (h + 1) * ex.d_k)
            st.caption(_("W_O is {rows} × {cols}: the editor shows head {n}'s rows ({first}–{last}), the ones its "
                         "output multiplies.", rows=ex.n_heads * ex.d_k, cols=ex.d_model, n=h + 1,
                         first=rows.start, last=rows.stop - 1))  # fmt: skip
            editors.matrix_editor("w_o", title=_("W_O (head {n}'s rows)", n=h + 1), row_labels=cols_v[rows],
                                  col_labels=dims, index=(rows,))  # fmt: skip
        else:
            editors.matrix_editor("w_o", title="W_O", row_labels=cols_v, col_labels=dims)
        editors.bias_editor("b_o", title="b_O", col_labels=dims)  # a real layer's (the toy model has none)
        editors.draw_buttons(("w_o", *editors.held("b_o")), "W_O", ("heads.rand", "heads.reset"))
        ui.chart(
            fg.drawn_heatmap(
                tr.output,
                lab,
                dims,
                title=charts.OUTPUT.titled(),
                style=sty,
                axes=fg.Axes(**charts.OUTPUT.axes),
            ),
            charts.OUTPUT.key,
        )
