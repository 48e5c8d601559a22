"""/patching: which activations cause the answer? Activation patching of the residual stream and of every head."""

import streamlit as st

from explorer.i18n import _
from explorer.ui import model_ui, patching_ui
from explorer.ui import widgets as ui

RESTORED = (
    r"\text{restored} = \frac{LD_\text{patched} - LD_\text{corrupt}}{LD_\text{clean} - LD_\text{corrupt}}"
)

ui.opening(
    _("What caused the answer?"),
    _(
        "Attention shows where a head looks, not what made the answer. Activation patching asks the model "
        "directly: run a clean sentence (“The capital of France is” → “Paris”) and a corrupt one of as many "
        "tokens (“… Italy is” → “Rome”), then run the corrupt one again with a single activation copied from the "
        "clean run, and see how much of the clean answer's lead comes back. The lead is the logit difference LD "
        "between the answer and the wrong token after the last token. The clean sentence is the sentence above."
    ),
    None if ui.step() else RESTORED,  # presenting: beside the sweep, with the controls
)
got = model_ui.begin(decoder_only=True)
if got is not None:
    key, trace = got
    controls, charts = patching_ui.columns()
    with controls:
        if ui.step():
            st.latex(RESTORED)
        pair = patching_ui.experiment(key, trace, patching_ui.corrupt_box())
        done = patching_ui.sweeps(key, pair) if pair is not None else None
    if pair is not None:
        with charts:
            patching_ui.draw(pair, done)
        patching_ui.four_views(key, pair, done["head"])
