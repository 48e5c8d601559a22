"""/model: every layer and head of a real model on the sentence, as one grid, each head labelled."""

from collections import Counter

import streamlit as st

from explorer.compute import interp, model_compute, timing
from explorer.i18n import _
from explorer.model import models
from explorer.ui import interp_ui, model_ui, state, waiting
from explorer.ui import widgets as ui
from explorer.views import model_figures
from explorer.views.model_figures import token_labels

GRID_BOX_PX = 610  # presenting: the grid's box, what is left of a 1080 px screen under the controls

ui.opening(
    _("Every layer and head"),
    _(
        "Each small square is one head's attention on your sentence: rows are queries (first token on top), "
        "columns are keys, brighter means more weight. Above each square, what that head does on this sentence, "
        "measured from its weights. Click a head (or pick a layer and a head below) to open it."
    ),
)
got = model_ui.begin()
if got is not None:
    key, trace = got
    L, H = models.shape(key)
    with waiting.working("Measuring what each head does on your sentence…", key):
        labels = model_compute.labels(key, trace.text)
    counts = Counter(labels.labels.ravel().tolist()).most_common()
    presenting = ui.step() is not None  # one screen: the pickers beside the summary, the grid in its own box
    summary, pickers = (
        st.columns([3, 2], vertical_alignment="bottom") if presenting else (st.container(), st.container())
    )
    wait = timing.words("induction", 2 * models.INDUCTION_LENGTH)
    with waiting.working(f"Scoring every head on random tokens repeated (once per server): {wait}…", key):
        induction = interp.standard_induction(key) if models.choice(key).decoder else None
    second = None if induction is None else (
        f"A second line, *induction*: the head scores at least {models.INDUCTION_THRESHOLD} on "
        f"{models.INDUCTION_LENGTH} random tokens repeated (seed {models.INDUCTION_SEED}; see *Induction "
        "heads*), not on your sentence."
    )  # fmt: skip
    summary.markdown(
        f"**{L} layers × {H} heads on {trace.n_tokens} tokens.** "
        + ", ".join(f"{c} {'head' if c == 1 else 'heads'}: *{name}*" for name, c in counts)
        + ".",
        help=second if presenting else None,  # presenting: behind the (?), which keeps the grid's box tall
    )
    if second and not presenting:
        st.caption(second)
    shown = model_figures.grid_tokens(L, H, trace.n_tokens)
    if shown < trace.n_tokens:
        summary.caption(f"The grid shows the first {shown} of the {trace.n_tokens} tokens (rows and columns), so it "
                   "stays quick to draw; *One head* shows them all.")  # fmt: skip
    with pickers:
        layer, head = model_ui.head_pickers(L, H, "model")
    fig = model_figures.drawn_model_grid(
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
        fit_px=GRID_BOX_PX - 40 if presenting else None,
    )
    # Presenting, a grid taller than the screen (SmolLM2's 30 layers) scrolls in its box, layer 1 on top.
    box = st.container(height=GRID_BOX_PX, key="model-grid-box") if presenting else st.container()
    with box:
        picked = model_figures.picked_head(fig, ui.chart(fig, "model.grid", clickable=True))
    if picked is not None:  # a click on a head's panel (or its label) opens it
        state.set_picked(state.K_LAYER, picked[0])
        state.set_picked(state.K_MODEL_HEAD, picked[1])
        model_ui.switch_to("app_pages/head.py")
    below = (
        st.columns([5, 4, 3], vertical_alignment="center")
        if presenting
        else [st.container() for _ in range(3)]
    )
    if below[0].toggle(
        f"Layer {layer + 1} as lines: who attends to whom, every head in its own colour",
        key="model.lines",
        persist_state="session",
    ):
        with st.container() if presenting else below[0]:  # presenting: under the row, at full width
            interp_ui.lines_chart(trace.attentions[layer], token_labels(trace.tokens),
                                  [f"head {h + 1}" for h in range(H)], "model.lines_view",
                                  f"Layer {layer + 1}: a line from each query to each key")  # fmt: skip
    with below[1]:
        model_ui.page_link(
            "app_pages/head.py",
            f"Open layer {layer + 1}, head {head + 1}: {labels.labels[layer, head]} "
            f"(score {labels.scores[layer, head]:.2f})",
        )
    with below[2]:
        model_ui.label_rules()
