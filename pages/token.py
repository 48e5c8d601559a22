"""/token: one query's weights over the keys, and its output as a weighted sum of value vectors."""

import numpy as np
import streamlit as st

from explorer import figures as fg
from explorer import state, ui

state.init()
ui.opening(
    "One token's view",
    "Pick a token. Its row of attention weights says how much of each token's **value** it takes; its "
    "output is exactly that mix: weight × value vector, summed over the keys. This is the loop the "
    "notebooks write by hand, and it is one row of the matrix product A V.",
    r"\mathrm{out}_i = \sum_j a_{ij}\, v_j = a_{i1} v_1 + a_{i2} v_2 + \dots + a_{in} v_n = (A V)_i",
)
ex, res = ui.result()
if res is not None:
    tr, sty, lab = res.attention, ui.style(), res.labels
    a, b = st.columns([1, 2])
    with a:
        i = ui.token_picker("query token", lab, state.K_QUERY)
    with b:
        h = ui.head_picker(ex.n_heads, "token")
    w = tr.weights[h, i]  # (n,)
    parts = res.contributions(h, i)  # (n, d_v): row j = a_ij * v_j
    out = parts.sum(axis=0)
    ui.chart(
        fg.bars(
            lab,
            w,
            style=sty,
            title=f"Weights of “{lab[i]}” over the keys (head {h + 1})",
            x_title="key",
            y_title="weight",
            y_range=(0, 1.15),
        ),
        "token.weights",
    )
    ui.chart(
        fg.stacked_contributions(
            parts, lab, out, style=sty, title=f"Output of “{lab[i]}”: each key's share a_ij · v_j, stacked"
        ),
        "token.stack",
    )
    row = tr.head_outputs[h, i]
    same = bool(np.allclose(out, row, rtol=1e-12, atol=1e-12))
    st.latex(rf"\sum_j a_{{{i}j}} v_j = [{', '.join(f'{x:.6f}' for x in out)}]")
    st.latex(rf"(A V)_{{{i}}} = [{', '.join(f'{x:.6f}' for x in row)}]")
    if same:
        st.success(
            "Equal: the weighted sum of the value vectors *is* this token's row of the attention output."
        )
    else:
        st.error("The two differ: this should not happen, please report it.")
    with st.expander("The sum, term by term"):
        for j in range(res.n):
            st.latex(
                rf"a_{{{i}{j}}} v_{{{j}}} = {w[j]:.4f} \times [{', '.join(f'{x:.3f}' for x in tr.v[h, j])}]"
                rf" = [{', '.join(f'{x:.4f}' for x in parts[j])}]"
            )
