"""/why-scale: why the scores are divided by sqrt(d_k) (seed notebook 003's lesson), measured."""

import pandas as pd
import streamlit as st

from explorer import lessons
from explorer.compute import cached as compute
from explorer.compute import pipeline
from explorer.i18n import N_, _
from explorer.lessons import seed001, seed002
from explorer.sharing.view_params import BY_KEY
from explorer.ui import preset_ui, state
from explorer.ui import widgets as ui
from explorer.views import figures as fg
from explorer.views import formulas

# What the example does with its scores, said whole under the table ({lesson}: a preset's title)
SCALES = {
    "sqrt": N_("This example divides its scores by √d_k, as the paper does."),
    "none": N_(
        "This example does not scale its scores (as “{lesson}”): the “unscaled” columns are the ones it uses."
    ),
    "custom": N_("This example multiplies its scores by a number you chose (“{lesson}” divides them by 1)."),
}
LESSON = {"none": seed001.TITLE, "custom": seed002.TITLE}

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
n_samples = c1.select_slider(_("samples per d_k"), SAMPLES.values, key=SAMPLES.key, persist_state="session")
n_keys = c2.select_slider(_("keys per softmax row"), KEYS.values, key=KEYS.key, persist_state="session")
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
        _(
            "Entropy says how spread out a row of weights is: 0 when one key takes everything, log {n} = {h:.2f} "
            "when all {n} keys get the same weight.",
            n=n_keys,
            h=sat.max_entropy,
        ),
        help=_("H = −Σⱼ aⱼ ln aⱼ, in nats (the natural logarithm)."),
    )
    st.subheader(_("Your sentence"), anchor=False)
ex, res = (None, None) if presenting else ui.result()
if res is not None:
    stats = compute.scale_stats(res)
    table = pipeline.scale_table(stats)
    three_decimals = {
        c: st.column_config.NumberColumn(format="%.3f") for c in table if c != "head"
    }  # not 3 and 4
    st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch", column_config=three_decimals)
    scales = SCALES.get(ex.scale_mode, N_("This example scales its scores."))
    lesson = _(LESSON[ex.scale_mode]) if ex.scale_mode in LESSON else ""
    st.caption(
        _(
            "d_k = {d_k}, {n} keys (flat entropy log n = {h:.3f}), all scores before any mask or bias.",
            d_k=ex.d_k,
            n=res.n,
            h=stats.max_entropy,
        )
        + " "
        + _(scales, lesson=lesson)  # two sentences
    )
    nb = lessons.variance_check(preset_ui.active(), res)
    if nb is not None:
        v = nb.printed.values
        said = (
            N_(
                "This example's source measured it on its own q and k: var(q kᵀ) = {a:.4f}, and {b:.4f} after "
                "dividing by √8; head 1 above: {c:.4f} and {d:.4f} (the same)."
            )
            if nb.agrees
            else N_(
                "This example's source measured it on its own q and k: var(q kᵀ) = {a:.4f}, and {b:.4f} after "
                "dividing by √8; head 1 above: {c:.4f} and {d:.4f}."
            )
        )
        numbers = {"a": v[2], "b": v[3], "c": stats.var_raw[0], "d": stats.var_scaled[0]}
        st.info(_(said, **numbers), icon=":material/menu_book:")
