"""/token: one query's weights over the keys, and its output as a weighted sum of value vectors."""

import pandas as pd
import streamlit as st

from explorer import lessons
from explorer.compute import pipeline
from explorer.i18n import _
from explorer.ui import preset_ui, state
from explorer.ui import widgets as ui
from explorer.views import chart_specs as charts
from explorer.views import figures as fg
from explorer.views import formulas

TERMS_AS_FORMULAS = 16  # up to this many keys the sum is written out as formulas, beyond it as a table

ui.opening(
    _("One token's view"),
    _(
        "Pick a token. Its row of attention weights says how much of each token's **value** vector it takes; "
        "its output is exactly that mix: each weight times its value vector, summed over the keys. Written by "
        "hand it is a loop over the keys; it is also one row of the matrix product A V."
    ),
    formulas.token_view(state.description()),
)
ex, res = ui.result()
if res is not None:
    sty, lab = ui.style(), res.labels
    a, b = st.columns([1, 2])
    with a:
        i = ui.token_picker(_("query token"), lab, state.K_QUERY)
    with b:
        h = ui.head_picker(ex.n_heads)
    view = pipeline.token_view(res, h, i)  # weights (n,), parts (n, d_v): row j = a_ij v_j, their sum out
    title = charts.token_weights_title(lab[i], _("head {n}", n=h + 1), ex.n_heads, view.weight_sum)
    presenting = ui.step() is not None  # the step: the weights beside the sum they make, on one screen
    width = ui.HALF if presenting else fg.FULL_PX
    bars = fg.drawn_bars(  # each key in its colour of the sum below: one colour per token on the page
        lab, view.weights, style=sty, title=title, **charts.TOKEN_WEIGHTS.axes, y_range=(0, 1.15),
        width_px=width, height_px=ui.chart_px(), colours=fg.key_colours(view.parts),
    )  # fmt: skip
    title = charts.TOKEN_STACK.titled(token=lab[i])
    stack = fg.drawn_stacked_contributions(view.parts, lab, view.out, style=sty, title=title, width_px=width,
                                           height_px=ui.chart_px())  # fmt: skip
    if presenting:  # side by side
        ui.charts_in_row([(bars, charts.TOKEN_WEIGHTS.key), (stack, charts.TOKEN_STACK.key)])
    else:
        ui.chart(bars, charts.TOKEN_WEIGHTS.key)
        ui.chart(stack, charts.TOKEN_STACK.key)
    if not presenting:  # the sum written out, the check, the notebook's loop
        for line in formulas.token_sum(i, view.out, view.row):
            st.latex(line)
        if view.equal:
            st.success(
                _(
                    "Equal (largest difference {diff:.1e}): the weighted sum of the value vectors *is* this "
                    "token's row of the attention output.",
                    diff=view.diff,
                ),
                icon=":material/check_circle:",
            )
        else:
            st.error(_("The two differ: this should not happen, please report it."))
        nb = lessons.token_loop_check(preset_ui.active(), i, h, res)
        if nb is not None:
            said = dict(label=nb.label, printed=lessons.fmt(nb.printed.values, nb.printed.decimals))
            st.info(
                _("The example's source computed this token by hand, in a loop: {label} = {printed}: the same, "
                  "to its printed digits.", **said)
                if nb.agrees
                else _("The example's source computed this token by hand, in a loop: {label} = {printed}: not "
                       "what the app computes now.", **said),
                icon=":material/menu_book:",
            )  # fmt: skip
        if ex.n_heads > 1:
            st.caption(
                _(
                    "With several heads, each head gives this token its own row; W_O then mixes the heads' rows "
                    "into one (page Heads and W_O)."
                )
            )
        with st.expander(_("The sum, term by term"), key=state.K_TERMS, on_change="rerun") as terms_box:
            if terms_box.open and res.n <= TERMS_AS_FORMULAS:  # typeset only while open
                for j in range(res.n):
                    st.latex(formulas.token_term(i, j, view.weights[j], res.attention.v[h, j], view.parts[j]))
            elif terms_box.open:  # one row per key: as many formulas were slow to typeset and long to scroll
                terms = pd.DataFrame(
                    view.parts, columns=[f"a_{i},j · v_j[v{d}]" for d in range(view.parts.shape[1])]
                )
                terms.insert(0, f"a_{i},j", view.weights)
                terms.insert(0, "key j", lab)
                st.dataframe(terms, hide_index=True, width="stretch", key="token.terms")
                st.caption(
                    _(
                        "Each row is one term a_{i},j v_j of the sum; the columns add up to the output above.",
                        i=i,
                    )
                )
