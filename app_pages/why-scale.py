"""/why-scale: why the scores are divided by sqrt(d_k) (seed notebook 003's lesson), measured."""

import pandas as pd
import streamlit as st

from explorer import lessons
from explorer.compute import cached as compute
from explorer.compute import pipeline
from explorer.i18n import _
from explorer.lessons import seed001, seed002
from explorer.sharing.view_params import BY_KEY
from explorer.ui import preset_ui, state
from explorer.ui import widgets as ui
from explorer.views import figures as fg
from explorer.views import formulas

SCALES = {
    "sqrt": "divides its scores by √d_k, as the paper does",
    "none": f"does not scale its scores (as “{seed001.TITLE}”): the “unscaled” columns are the ones it uses",
    "custom": f"multiplies its scores by a number you chose (“{seed002.TITLE}” divides them by 1)",
}

ui.opening(
    _("Why divide by √d_k?"),
    _(
        "A score q·k is a sum of d_k products q_i k_i; if each product has variance 1, the sum has variance "
        "**d_k**, so the wider the head, the larger the scores. Large scores make the softmax put almost all "
        "its weight on one key, where its gradient nearly vanishes and learning stalls. Dividing by √d_k brings "
        "the variance back to 1 for every d_k: below, measured on seeded random vectors, then on your sentence."
    ),
    formulas.why_scale(),
)
SAMPLES, KEYS = BY_KEY["why.samples"], BY_KEY["why.keys"]
sty = ui.style()
c1, c2 = st.columns(2)
# The choices and defaults are the link's (explorer.sharing.view_params: samples=, keys=).
n_samples = c1.select_slider("samples per d_k", SAMPLES.values, key=SAMPLES.key, persist_state="session")
n_keys = c2.select_slider("keys per softmax row", KEYS.values, key=KEYS.key, persist_state="session")
d_ks, var, sat = compute.scale_experiment(int(n_samples), int(n_keys), int(state.current().seed))
presenting = ui.step() is not None  # the step: the variance beside the saturation, on one screen
variance, peak, entropy = fg.drawn_scale_experiment(
    d_ks, var, sat, n_keys, style=sty, variance_px=ui.HALF if presenting else fg.FULL_PX
)
if presenting:
    ui.charts_in_row([(variance, "why.variance"), (peak, "why.maxweight")])
else:
    ui.chart(variance, "why.variance")
    ui.charts_in_row([(peak, "why.maxweight"), (entropy, "why.entropy")])
    st.caption(
        f"Entropy says how spread out a row of weights is: 0 when one key takes everything, log {n_keys} = "
        f"{sat.max_entropy:.2f} when all {n_keys} keys get the same weight.",
        help="H = −Σⱼ aⱼ ln aⱼ, in nats (the natural logarithm).",
    )
    st.subheader("Your sentence", anchor=False)
ex, res = (None, None) if presenting else ui.result()
if res is not None:
    stats = compute.scale_stats(res)
    table = pipeline.scale_table(stats)
    three_decimals = {
        c: st.column_config.NumberColumn(format="%.3f") for c in table if c != "head"
    }  # not 3 and 4
    st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch", column_config=three_decimals)
    st.caption(
        f"d_k = {ex.d_k}, {res.n} keys (flat entropy log n = {stats.max_entropy:.3f}), all scores before any "
        f"mask or bias. This example {SCALES.get(ex.scale_mode, 'scales its scores')}."
    )
    nb = lessons.variance_check(preset_ui.active(), res)
    if nb is not None:
        v = nb.printed.values
        st.info(
            f"This example's source measured it on its own q and k: var(q kᵀ) = {v[2]:.4f}, and "
            f"{v[3]:.4f} after dividing by √8; head 1 above: {stats.var_raw[0]:.4f} and "
            f"{stats.var_scaled[0]:.4f}" + (" (the same)." if nb.agrees else "."),
            icon=":material/menu_book:",
        )
