"""/ablation: switch heads off and compare with the untouched model; which heads matter most."""

import streamlit as st

from attention_core import analysis
from explorer import i18n
from explorer.compute import model_compute
from explorer.i18n import N_, _
from explorer.model import models
from explorer.ui import model_ui, pairs_ui, questions, state, waiting
from explorer.ui import widgets as ui
from explorer.views import figures, model_figures

ui.opening(
    _("Switch heads off"),
    _(
        "Switch a head off and its output is removed from its layer (its slice of the input to W_O becomes 0). "
        "Compare the changed model with the untouched one: the next-token probabilities (SmolLM2), the "
        "similarity of two sentences (MiniLM), and how far each layer's hidden states moved."
    ),
)
SHIFT_WORDS = N_("how far each token's vector moved, as a share of its length")
SHIFT_PRECISE = N_("mean over the tokens of ‖h′ − h‖ / ‖h‖ (h untouched, h′ with the heads switched off)")
# Presenting: three steps, each one screen: the switches beside their effect on the output, beside how far each
# layer moved, then the ranking. On a laptop the switches scroll in a box above the charts.
SWITCHES_PX = {True: 520, False: 330}  # the switches' box, presenting or not
CHART_PX = 740  # presenting: a chart beside the switches
RIGHT_PX = int(figures.FULL_PX * 3 / 5) - 16  # presenting: the charts' column (3 of 5), as wide at 1280 px


def effect(key: str, text: str, L: int, H: int, presenting: bool) -> None:
    """The switches (a scrolling box) and what switching heads off changes: the output (the ablation step),
    how far each layer's hidden states moved (the ablation-layers step); presenting, side by side."""
    off, sty, other = state.off_heads(), ui.style(), ""
    left, right = st.columns([2, 3]) if presenting else (st.container(), st.container())
    with left:
        layer, head = model_ui.head_pickers(L, H, "ablation")
        row = st.container(horizontal=True)  # each button as wide as its label, none cut
        row.button(_("All off in layer {layer}", layer=layer + 1), on_click=state.set_off_heads,
                   args=(models.layer_off_pairs((L, H), off, layer),))  # fmt: skip
        row.button(_("Only head {head} in layer {layer}", head=head + 1, layer=layer + 1),
                   on_click=state.set_off_heads, args=(models.only_head_pairs((L, H), off, layer, head),))  # fmt: skip
        row.button(_("All heads on"), on_click=state.set_off_heads, args=((),))
        switches = _("Heads switched on ({on} of {all}): click to switch one off or on", on=L * H - len(off),
                     all=L * H)  # fmt: skip
        with st.expander(switches, True):  # noqa: SIM117 - the box is made inside the expander
            with st.container(height=SWITCHES_PX[presenting], border=False, key="ablation-switches"):
                model_ui.switch_grid(L, H, off)  # a box of their own: 30 layers of switches scroll in it
    if ui.shows("ablation") and not models.choice(key).decoder:
        other = right.text_input(
            _("A second sentence to compare with"), key=state.K_OTHER, max_chars=500, persist_state="session"
        )
    with waiting.working(
        _("Running {model} with the heads switched off…", model=models.choice(key).title), key
    ):
        cmp = model_compute.compare(key, text, off, other)
    tall = CHART_PX if presenting else None
    with right:
        if ui.shows("ablation") and cmp.next_tokens is not None:
            nt = cmp.next_tokens
            ui.chart(model_figures.drawn_token_bars(cmp.next_strings, nt.before, after=nt.after, style=sty, height_px=tall,
                     title=_("Next token: {moved:.3f} of the probability moved", moved=nt.total_variation)), "ablation.next")  # fmt: skip
        elif ui.shows("ablation") and cmp.cosine_before is not None:
            m1, m2 = st.columns(2)
            m1.metric(_("cosine, untouched model"), i18n.decimal(cmp.cosine_before, 4))
            change = f"{cmp.cosine_after - cmp.cosine_before:+.4f}"
            same = change in ("+0.0000", "-0.0000")  # no arrow, no colour, for no change
            shown_change = ("+" if change[0] == "+" else "") + i18n.decimal(
                cmp.cosine_after - cmp.cosine_before, 4
            )
            m2.metric(
                _("cosine, heads off"), i18n.decimal(cmp.cosine_after, 4), None if same else shown_change
            )
            width = RIGHT_PX if presenting else figures.FULL_PX  # its title wraps to its column
            pairs_ui.occlusion(key, text, other, width)  # which tokens make the two sentences alike
        if ui.shows("ablation-layers"):
            names = [_("embeddings")] + [_("after layer {layer}", layer=i + 1) for i in range(L)]
            ui.chart(model_figures.drawn_value_bars(names, cmp.shift, style=sty, x_title=_(SHIFT_WORDS), height_px=tall,
                     title=_("How far each layer's hidden states moved")), "ablation.shift")  # fmt: skip
            st.caption(_("{how}, averaged over the tokens.", how=_(SHIFT_WORDS)), help=_(SHIFT_PRECISE))


got = model_ui.begin()
if got is not None:
    key, trace = got
    L, H = models.shape(key)
    presenting = ui.step() is not None
    text, sty = trace.text, ui.style()
    if ui.shows("ablation", "ablation-layers"):
        effect(key, text, L, H, presenting)
    if ui.shows("ablation-ranking"):
        how, shown = st.columns([2, 3]) if presenting else (st.container(), st.container())
        with how:
            st.subheader(_("Which heads matter?"), anchor=False)
            st.markdown(_(model_ui.RANKING_HOW[models.choice(key).decoder]))
            st.toggle(_("Predict, then reveal"), key=state.K_ASK_HEADS, persist_state="session",
                      help=_("Hide the ranking behind a question until Reveal (or the clicker's next key). The "
                             "share link carries it (ask=heads)."))  # fmt: skip
            done = model_ui.ranking(key, text)
            if done is not None:
                top = analysis.ranked(done.head_effects)[0]
                answer = _(
                    "Answer: layer {layer}, head {head}: removing it alone changes the output most (effect "
                    "{effect:.4f}).", layer=top[0] + 1, head=top[1] + 1, effect=top[2],
                )  # fmt: skip
                question = _("Predict: which head, switched off alone, changes the output most?")
                choices = questions.head_choices(done.head_effects)
                if questions.model_question_hides("heads", f"{key}:{text}", question, answer, choices):
                    done = None
        if done is not None:
            cells = analysis.ranked(done.head_effects)[:15]
            with shown:
                ui.chart(model_figures.drawn_value_bars([_("layer {layer}, head {head}", layer=l + 1, head=h + 1)
                                                         for l, h, _e in cells],
                         [e for _l, _h, e in cells], style=sty, x_title=_("effect of removing it alone"), digits=4,
                         title=_("The 15 heads whose removal changes the output most")), "ablation.ranking")  # fmt: skip
