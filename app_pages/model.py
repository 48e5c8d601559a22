"""/model: every layer and head of a real model on the sentence, as one grid, each head labelled."""

from collections import Counter

import streamlit as st

from explorer.compute import interp, model_compute, timing
from explorer.i18n import _, ngettext
from explorer.model import head_rules, models
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
    with waiting.working(_("Measuring what each head does on your sentence…"), key):
        labels = model_compute.labels(key, trace.text)
    counts = Counter(labels.rules.ravel().tolist()).most_common()
    presenting = ui.step() is not None  # one screen: the pickers beside the summary, the grid in its own box
    summary, pickers = (
        st.columns([3, 2], vertical_alignment="bottom") if presenting else (st.container(), st.container())
    )
    wait = timing.words("induction", 2 * models.INDUCTION_LENGTH)
    with waiting.working(
        _("Scoring every head on random tokens repeated (once per server): {wait}…", wait=wait), key
    ):
        induction = interp.standard_induction(key) if models.choice(key).decoder else None
    second = None if induction is None else (
        _("A second line, *induction*: the head scores at least {threshold} on {length} random tokens repeated "
          "(seed {seed}; see *Induction heads*), not on your sentence.", threshold=models.INDUCTION_THRESHOLD,
          length=models.INDUCTION_LENGTH, seed=models.INDUCTION_SEED)
    )  # fmt: skip
    tally = [ngettext("{n} head: *{label}*", "{n} heads: *{label}*", c, label=head_rules.label(rule))
             for rule, c in counts]  # fmt: skip
    summary.markdown(
        _(
            "**{layers} layers × {heads} heads on {tokens} tokens.** {tally}.",
            layers=L,
            heads=H,
            tokens=trace.n_tokens,
            tally=", ".join(tally),
        ),  # fmt: skip
        help=second if presenting else None,  # presenting: behind the (?), which keeps the grid's box tall
    )
    if second and not presenting:
        st.caption(second)
    shown = model_figures.grid_tokens(L, H, trace.n_tokens)
    if shown < trace.n_tokens:
        summary.caption(_("The grid shows the first {shown} of the {n} tokens (rows and columns), so it stays "
                          "quick to draw; *One head* shows them all.", shown=shown, n=trace.n_tokens))  # fmt: skip
    with pickers:
        layer, head = model_ui.head_pickers(L, H, "model")
    fig = model_figures.drawn_model_grid(
        trace.attentions,
        trace.tokens,
        labels.rules,
        labels.scores,
        style=ui.style(),
        title=_("Attention of every head ({model})", model=trace.model),
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
        _("Layer {layer} as lines: who attends to whom, every head in its own colour", layer=layer + 1),
        key="model.lines",
        persist_state="session",
    ):
        with st.container() if presenting else below[0]:  # presenting: under the row, at full width
            interp_ui.lines_chart(trace.attentions[layer], token_labels(trace.tokens),
                                  [_("head {n}", n=h + 1) for h in range(H)], "model.lines_view",
                                  _("Layer {layer}: a line from each query to each key", layer=layer + 1))  # fmt: skip
    with below[1]:
        model_ui.page_link(
            "app_pages/head.py",
            _(
                "Open layer {layer}, head {head}: {label} (score {score:.2f})",
                layer=layer + 1,
                head=head + 1,
                label=head_rules.label(labels.rules[layer, head]),
                score=float(labels.scores[layer, head]),
            ),  # fmt: skip
        )
    with below[2]:
        model_ui.label_rules()
