"""/encoder: one encoder block, every stage drawn."""

import streamlit as st

from explorer import editors, state, ui
from explorer import figures as fg
from explorer.example import BOUNDS
from explorer.pipeline import encoder_stages

state.init()
ui.opening(
    "The encoder block",
    "Attention is one half of a transformer layer. Its output is **added back** to its input (a residual "
    "connection, so nothing is lost), **normalised** (each token's vector rescaled to mean 0, variance 1), "
    "then every token goes alone through the same small two-layer network, the **feed-forward** part, "
    "again with a residual and a norm. Post-norm is the 2017 paper; pre-norm is what GPT-2 and most modern "
    "models use.",
    r"\text{post-norm: } H = \mathrm{LN}(X + \mathrm{MHA}(X)),\; Y = \mathrm{LN}(H + \mathrm{FFN}(H)),\quad "
    r"\mathrm{FFN}(h) = \max(0,\, h W_1 + b_1)\, W_2 + b_2",
)
sk = state.SETTING_KEYS
c1, c2 = st.columns(2)
lo, hi = BOUNDS["d_ff"]
c1.number_input("d_ff (hidden width of the feed-forward)", lo, hi, key=sk["d_ff"], persist_state="session")
c2.radio(
    "Layer norm",
    [False, True],
    key=sk["norm_first"],
    horizontal=True,
    persist_state="session",
    format_func=lambda b: "pre-norm: x + MHA(LN(x))" if b else "post-norm: LN(x + MHA(x)) (paper)",
)
ex, res = ui.result()
if res is not None:
    if res.encoder is None:
        st.error(f"The encoder block cannot be computed: {res.encoder_error}", icon="⚠️")
    else:
        sty, lab = ui.style(), res.labels
        stages = encoder_stages(res.encoder, ex.norm_first)
        for start in range(0, len(stages), 3):
            for (title, z, is_hidden), col in zip(stages[start : start + 3], st.columns(3), strict=False):
                with col:
                    dims = [f"f{j}" if is_hidden else f"d{j}" for j in range(z.shape[1])]
                    ui.chart(
                        fg.heatmap(
                            z, lab, dims, title=title, style=sty, x_title="dimension", y_title="token"
                        ),
                        f"encoder.{title}",
                    )
    with st.expander("Edit the feed-forward weights W1 and W2"):
        dims = [f"d{j}" for j in range(ex.d_model)]
        hid = [f"f{j}" for j in range(ex.d_ff)]
        st.caption("W1: d_model × d_ff")
        editors.matrix_editor("w1", title="W1", row_labels=dims, col_labels=hid, height=300)
        st.caption("W2: d_ff × d_model")
        editors.matrix_editor("w2", title="W2", row_labels=hid, col_labels=dims, height=300)
        b1, b2 = st.columns(2)
        b1.button(
            "🎲 Re-randomize W1 and W2",
            key="encoder.rand",
            width="stretch",
            on_click=lambda: (state.rerandomize("w1"), state.rerandomize("w2")),
        )
        b2.button(
            "↺ Reset W1 and W2",
            key="encoder.reset",
            width="stretch",
            on_click=lambda: (state.reset_matrix("w1"), state.reset_matrix("w2")),
        )
