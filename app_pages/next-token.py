"""/next-token: the decoder's top 10 next tokens, a temperature, "add it" to grow the sentence, and which tokens
the top prediction needs (occlusion)."""

import numpy as np
import streamlit as st

from explorer import i18n
from explorer.compute import model_compute
from explorer.i18n import _
from explorer.model import models
from explorer.ui import model_ui, patching_ui, questions, state
from explorer.ui import widgets as ui
from explorer.views import chart_specs as charts
from explorer.views import figures as fg
from explorer.views import model_figures
from explorer.views.model_figures import show_token, token_labels
from explorer.views.text import literal, tail

BARS_PX, MASK_PX = 560, 420  # presenting: the heights that fit each step on a 1080 px screen

ui.opening(
    _("The next word"),
    _(
        "A decoder reads the sentence and gives every token of its vocabulary a score (a logit) for coming "
        "next; a softmax at temperature T turns the scores into probabilities. Add a token and the model runs "
        "again on the longer sentence: each new token may look only at the tokens before it."
    ),
    r"p_i = \frac{e^{z_i / T}}{\sum_j e^{z_j / T}}",
)


def add_buttons(strings: list[str], probs: np.ndarray, per_row: int) -> None:
    """A button per top token that adds it to the sentence (the model runs again on the longer one)."""
    st.markdown(_("**Add a token to the sentence** (the model runs again):"))
    cols = st.columns(per_row)
    for rank, (tok, p) in enumerate(zip(strings, probs, strict=True)):
        why = model_figures.cannot_add(tok)  # white space alone would change nothing: greyed out
        cols[rank % per_row].button(
            f"“{show_token(tok)}” {i18n.decimal(p, 2)}", key=f"next.add.{rank}", on_click=state.append_to_sentence,
            args=(tok,), width="stretch", disabled=why is not None, help=why,
        )  # fmt: skip
    why_not = dict.fromkeys(w for w in map(model_figures.cannot_add, strings) if w)  # once each, in order
    signs = " ".join([model_figures.token_signs(strings), *why_not]).strip()
    if signs:
        st.caption(literal(signs))


got = model_ui.begin(decoder_only=True, needs=ui.shows("next-token-needs"))
if got is not None:
    key, trace = got
    # Presenting: three steps, each one screen: the guesses (the bars beside the buttons that add one), the
    # tokens the top guess needs, then the causal mask beside the same buttons.
    presenting = ui.step() is not None
    top = st.columns(2, vertical_alignment="center") if presenting else (st, st)
    temp = top[0].slider(_("Temperature T"), 0.1, 3.0, key=state.K_TEMPERATURE, step=0.1, persist_state="session",
                         help=_("T < 1 sharpens the distribution, T > 1 flattens it; T = 1 is the model's own."))  # fmt: skip
    top[1].toggle(_("Predict, then reveal"), key=state.K_ASK_NEXT, persist_state="session",
                  help=_("Hide the next tokens behind a question until Reveal (or the clicker's next key). The "
                         "share link carries it (ask=next)."))  # fmt: skip
    ids, strings, probs = model_compute.next_tokens(key, trace.text, float(temp))
    end = tail(trace.text)  # a long sentence: its last words, after "…"
    question = _("Predict: which word comes next after “{after}”?", after=literal(end))
    answer = _("Answer: “{token}”, with probability {p:.2f} (T = {t:g}).", token=literal(show_token(strings[0])),
               p=float(probs[0]), t=float(temp))  # fmt: skip
    hidden = questions.model_question_hides(
        "next",
        f"{key}:{trace.text}",
        question,
        answer,
        questions.next_choices([show_token(s) for s in strings], end),
    )
    beside = ui.step() in ("next-token", "next-token-mask")  # the chart beside the buttons
    chart, side = st.columns([3, 2]) if beside else (st.container(), st.container())
    if not hidden and ui.shows("next-token"):
        title = _("Top {n} next tokens after “{after}” (T = {t:g})", n=len(ids), after=end, t=float(temp))
        own = None if temp == 1 else model_compute.next_tokens(key, trace.text, 1.0)[2]  # the same tokens
        names = (_("T = {t:g}", t=float(temp)), _("T = 1, the model's own"))
        fig = model_figures.drawn_token_bars(strings, probs, style=ui.style(), title=title, after=own, names=names,
                                             height_px=BARS_PX if presenting else None)  # fmt: skip
        with chart:
            ui.chart(fig, "next.bars")
    if not hidden and ui.shows("next-token", "next-token-mask"):
        with side:
            add_buttons(strings, probs, 2 if presenting else 5)
    if not hidden and ui.shows("next-token-needs"):
        patching_ui.occlusion(key, trace, ids[0], strings[0])  # which tokens the top prediction needs
    if ui.shows("next-token-mask"):
        with chart if presenting else st.container():
            cfg = models.model(key).config
            layer, head = model_ui.head_pickers(cfg.n_layers, cfg.n_heads, "next")
            lab = token_labels(trace.tokens)
            n = len(lab)
            w = np.asarray(trace.attentions[layer, head], dtype=np.float64)
            ui.chart(
                fg.drawn_heatmap(
                    w,
                    lab,
                    lab,
                    style=ui.style(),
                    title=charts.NEXT_MASK.titled(layer=layer + 1, head=head + 1),
                    cells=fg.Cells(weights=True, masked=model_compute.blocked(key, n)),
                    axes=fg.Axes(
                        width_px=fg.FULL_PX * 3 // 5 if presenting else fg.FULL_PX,
                        height_px=MASK_PX if presenting else None,
                    ),
                ),
                charts.NEXT_MASK.key,
            )
