"""/token: one query's weights over the keys, and its output as a weighted sum of value vectors."""

import numpy as np
import pandas as pd
import streamlit as st

from explorer import figures as fg
from explorer import lessons, preset_ui, state, ui
from explorer.formulas import sub

SHOWN_DIMS = 8  # value dimensions written out in the formulas (the charts show them all)
TERMS_AS_FORMULAS = 16  # up to this many keys the sum is written out as formulas, beyond it as a table


def vec(values: np.ndarray, digits: int) -> str:
    """[a, b, ...] for LaTeX, cut after SHOWN_DIMS entries."""
    parts = [f"{x:.{digits}f}" for x in values[:SHOWN_DIMS]]
    return "[" + ", ".join(parts) + (r", \dots" if len(values) > SHOWN_DIMS else "") + "]"


state.init()
ui.opening(
    "One token's view",
    "Pick a token. Its row of attention weights says how much of each token's **value** vector it takes; "
    "its output is exactly that mix: each weight times its value vector, summed over the keys. This is the "
    "loop notebooks 001 and 002 write by hand, and it is one row of the matrix product A V.",
    r"\mathrm{out}_i = \sum_j a_{i,j}\, v_j = a_{i,0} v_0 + a_{i,1} v_1 + \dots + a_{i,n-1} v_{n-1} = (A V)_i",
)
ex, res = ui.result()
if res is not None:
    tr, sty, lab = res.attention, ui.style(), res.labels
    a, b = st.columns([1, 2])
    with a:
        i = ui.token_picker("query token", lab, state.K_QUERY)
    with b:
        h = ui.head_picker(ex.n_heads)
    w = tr.weights[h, i]  # (n,)
    parts = res.contributions(h, i)  # (n, d_v): row j = a_ij * v_j
    out = parts.sum(axis=0)
    head = f" (head {h + 1})" if ex.n_heads > 1 else ""
    ui.chart(
        fg.bars(
            lab,
            w,
            style=sty,
            title=f"Weights of “{lab[i]}” over the keys{head} (sum {w.sum():.3f})",
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
    st.latex(rf"\sum_j a{sub(i, 'j')}\, v_j = {vec(out, 6)}")
    st.latex(rf"(A V)_{{{i}}} = {vec(row, 6)}")
    if np.allclose(out, row, rtol=1e-12, atol=1e-12):
        diff = float(np.max(np.abs(out - row), initial=0.0))
        st.success(
            f"Equal (largest difference {diff:.1e}): the weighted sum of the value vectors *is* this "
            "token's row of the attention output.",
            icon=":material/check_circle:",
        )
    else:
        st.error("The two differ: this should not happen, please report it.")
    nb = lessons.token_loop_check(preset_ui.active(), i, h, res)
    if nb is not None:
        st.info(
            f"The notebook's own loop printed {nb.label} = "
            f"{lessons.fmt(nb.printed.values, nb.printed.decimals)} ({nb.cell}) for this token: "
            + ("the same, to its printed digits." if nb.agrees else "not what the app computes now."),
            icon=":material/menu_book:",
        )
    if ex.n_heads > 1:
        st.caption(
            "With several heads, each head gives this token its own row; W_O then mixes the heads' rows "
            "into one (page Heads and W_O)."
        )
    with st.expander("The sum, term by term", key=state.K_TERMS, on_change="rerun") as terms_box:
        if terms_box.open:  # typeset only while open
            if res.n <= TERMS_AS_FORMULAS:
                for j in range(res.n):
                    st.latex(
                        rf"a{sub(i, j)}\, v{sub(j)} = {w[j]:.4f} \times {vec(tr.v[h, j], 3)} = {vec(parts[j], 4)}"
                    )
            else:  # one row per key: as many formulas were slow to typeset and long to scroll
                terms = pd.DataFrame(parts, columns=[f"a_{i},j · v_j[v{d}]" for d in range(parts.shape[1])])
                terms.insert(0, f"a_{i},j", w)
                terms.insert(0, "key j", lab)
                st.dataframe(terms, hide_index=True, width="stretch", key="token.terms")
                st.caption(
                    f"Each row is one term a_{i},j v_j of the sum; the columns add up to the output above."
                )
