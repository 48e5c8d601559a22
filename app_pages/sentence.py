"""/ : the sentence, its tokens, the embeddings, and a map of the pipeline."""

import streamlit as st

from explorer.i18n import _, ngettext
from explorer.ui import class_bar, editors, layer_choice, preset_ui, state
from explorer.ui import widgets as ui
from explorer.ui.frame import pipeline_map
from explorer.views import chart_specs as charts
from explorer.views import figures as fg
from explorer.views import formulas
from explorer.views.text import literal

ui.opening(
    _("Self-attention, step by step"),
    _(
        "A transformer first cuts a sentence into **tokens** and turns each token into a vector, its "
        "**embedding**. Self-attention then lets every token look at every other token and mix in what it "
        "finds useful."
    ),
    formulas.embeddings(state.description()),
    edits=_("Type a sentence above and follow it through every step; every matrix can be edited."),
)
presenting = ui.part() is not None  # the step: the tokens and their embeddings, on one screen (and following)
layer_choice.weights_note()
if not presenting:
    class_bar.join_box()  # a student types the teacher's code here
    preset_ui.panel()
ex, res = ui.result()
if res is not None:
    if not presenting:
        st.subheader(ngettext("{n} token", "{n} tokens", res.n), anchor=False)
    ui.token_table(res.tokens, res.labels, res.ids)
    if res.ids is not None and not presenting:
        st.caption(f"Token ids: {literal(state.description().tokenizer)}.")
    if not presenting:
        ui.setting("emb_source")
    if ex.emb_source == "table" and not presenting:
        editors.matrix_editor(
            "emb", title="Embeddings", row_labels=res.labels, col_labels=fg.dims("d", ex.d_model)
        )
    ui.chart(
        fg.drawn_heatmap(
            res.emb,
            res.labels,
            fg.dims("d", ex.d_model),
            title=charts.INPUT.titled(input=state.description().input_title),
            style=ui.style(),
            axes=fg.Axes(**charts.INPUT.axes, height_px=ui.chart_px()),
        ),
        charts.INPUT.key,
    )
if not presenting:
    st.subheader(_("The pipeline"), anchor=False)
    pipeline_map()
