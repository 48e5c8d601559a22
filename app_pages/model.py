"""/model: every layer and head of a real model on the sentence, as one grid, each head labelled."""

from collections import Counter

import streamlit as st

from explorer.compute import interp, model_compute
from explorer.model import models
from explorer.ui import interp_ui, model_ui, state
from explorer.ui import widgets as ui
from explorer.views import model_figures
from explorer.views.model_figures import token_labels

ui.opening(
    "Every layer and head",
    "Each small square is one head's attention on your sentence: rows are queries (first token on top), "
    "columns are keys, brighter means more weight. Above each square, what that head does on this sentence, "
    "measured from its weights. Click a head (or pick a layer and a head below) to open it.",
)
got = model_ui.begin()
if got is not None:
    key, trace = got
    L, H = models.shape(key)
    with model_ui.working("Measuring what each head does on your sentence…", key):
        labels = model_compute.labels(key, trace.text)
    counts = Counter(labels.labels.ravel().tolist()).most_common()
    st.markdown(
        f"**{L} layers × {H} heads on {trace.n_tokens} tokens.** "
        + ", ".join(f"{c} {'head' if c == 1 else 'heads'}: *{name}*" for name, c in counts)
        + "."
    )
    shown = model_figures.grid_tokens(L, H, trace.n_tokens)
    if shown < trace.n_tokens:
        st.caption(f"The grid shows the first {shown} of the {trace.n_tokens} tokens (rows and columns), so it "
                   "stays quick to draw; *One head* shows them all.")  # fmt: skip
    layer, head = model_ui.head_pickers(L, H, "model")
    with model_ui.working("Scoring every head on random tokens repeated (once per server)…", key):
        induction = interp.standard_induction(key) if models.choice(key).decoder else None
    if induction is not None:
        st.caption(
            f"A second line, *induction*: the head scores at least {models.INDUCTION_THRESHOLD} on "
            f"{models.INDUCTION_LENGTH} random tokens repeated (seed {models.INDUCTION_SEED}; see *Induction "
            "heads*), not on your sentence."
        )
    fig = model_figures.model_grid(
        trace.attentions,
        trace.tokens,
        labels.rules,
        labels.scores,
        style=ui.style(),
        title=f"Attention of every head ({trace.model})",
        selected=(layer, head),
        width_px=1800 if state.present() else 1000,
        induction=induction,
        induction_threshold=models.INDUCTION_THRESHOLD,
    )
    picked = model_figures.picked_head(fig, ui.chart(fig, "model.grid", clickable=True))
    if picked is not None:  # a click on a head's panel (or its label) opens it
        state.set_picked(state.K_LAYER, picked[0])
        state.set_picked(state.K_MODEL_HEAD, picked[1])
        model_ui.switch_to("app_pages/head.py")
    if st.toggle(
        f"Layer {layer + 1} as lines: who attends to whom, every head in its own colour", key="model.lines"
    ):
        interp_ui.lines_chart(trace.attentions[layer], token_labels(trace.tokens), [f"head {h + 1}" for h in range(H)],
                              "model.lines_view", f"Layer {layer + 1}: a line from each query to each key")  # fmt: skip
    model_ui.page_link(
        "app_pages/head.py",
        f"Open layer {layer + 1}, head {head + 1}: {labels.labels[layer, head]} "
        f"(score {labels.scores[layer, head]:.2f})",
    )
    model_ui.label_rules()
