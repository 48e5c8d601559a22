"""/learn: a tiny transformer trained in the engine; its loss, its heads forming, its attention at any
checkpoint, and K-composition (the previous-token head switched off in the trained model)."""

from functools import partial

import numpy as np
import streamlit as st

from explorer import i18n
from explorer.compute import learning as lc
from explorer.export import learn_notebook
from explorer.i18n import _
from explorer.ui import learn_ui
from explorer.ui import widgets as ui
from explorer.ui.export_ui import in_language
from explorer.views import learning as lv
from explorer.views.model_figures import drawn_model_grid

ui.opening(
    _("Watch a transformer learn"),
    _(
        "A two-layer transformer made only of attention (4 heads a layer) was trained here, in the same engine, "
        "on random tokens in which a stretch comes back a second time. The first time through, a token cannot be "
        "guessed; the second time, a model that finds where the current token stood before and copies what came "
        "next can predict it. Nothing tells the model so: it finds out, suddenly."
    ),
    r"\text{loss} = -\tfrac{1}{N}\sum_i \log p(t_{i+1} \mid t_1 \ldots t_i)",
)
run, m, sty = lc.shipped(), lc.moments(), ui.style()
(l1, p_head), (l2, i_head) = m.previous_head, m.induction_head
steps = [int(s) for s in run.checkpoints]
if ui.shows("learn"):
    title = _("The loss: flat near {loss:.2f} nats, then a sudden fall around step {step}", loss=m.loss_before,
              step=m.drop_step)  # fmt: skip
    ui.chart(lv.loss_curve(lc.smoothed_loss(run), run.repeat_loss, style=sty, title=title,
                           drop_step=m.drop_step), "learn.loss")  # fmt: skip
    st.markdown(
        _(
            "**The moment both heads form.** Layer 1's head {previous_head} becomes a *previous-token head* (over "
            "half its weight on the token just before) at step {previous_step}, and layer 2's head "
            "{induction_head} an *induction head* (over half on the token after the current token's earlier "
            "copy) at step {induction_step}: together, as the loss falls (steepest at step {drop_step}).",
            previous_head=p_head + 1,
            previous_step=m.previous_step,
            induction_head=i_head + 1,
            induction_step=m.induction_step,
            drop_step=m.drop_step,
        )  # fmt: skip
    )
if ui.shows("learn-heads"):
    curves = [
        (lv.score_curves(run.previous[:, 0], style=sty, title=_("Layer 1: previous-token score of each head"),
                         y_title=_("previous-token score"), drop_step=m.drop_step, width_px=ui.HALF),
         "learn.previous"),
        (lv.score_curves(run.induction[:, 1], style=sty, title=_("Layer 2: induction score of each head"),
                         y_title=_("induction score"), drop_step=m.drop_step, width_px=ui.HALF),
         "learn.induction"),
    ]  # fmt: skip
    ui.charts_in_row(curves)


@st.fragment  # scrubbing redraws the slider's grid alone, not the curves above
def patterns() -> None:
    # the last step unless a link asks (learn_step=); presenting, the first, and the clicker walks the tour
    ui.keep_among("learn.step", steps if sty.present else steps[::-1], _("training steps"))
    if sty.present:
        learn_ui.clicker_walk(lc.tour(steps, m))
    at = st.select_slider(_("Training step (a checkpoint)"), steps, key="learn.step", persist_state="session")
    prev, ind = run.previous[at], run.induction[at]
    rules = np.where(prev >= lc.FORMED, "previous", "").astype(object)
    tokens = [f"t{t}" for t in lc.display_tokens()]
    grid = drawn_model_grid(lc.attention_at(steps.index(at)), tokens, rules, prev, style=sty, induction=ind,
                            induction_threshold=lc.FORMED, width_px=1000,
                            title=_("Every head's attention at step {step}, on 16 random tokens and the same 16 "
                                    "again", step=at))  # fmt: skip
    ui.chart(grid, "learn.patterns")


if ui.shows("learn-patterns"):
    patterns()
if ui.shows("learn-composition"):
    off = lc.switch_off(p_head)
    heads = [_("layer {layer}, head {head}", layer=2, head=h + 1) for h in range(off.induction_on.size)]
    st.markdown(
        _(
            "**Why one needs the other (K-composition).** The induction head's *key* reads what the "
            "previous-token head wrote: “the token before me was …”. Switch layer 1's head {previous_head} off "
            "in the trained model and layer 2's induction head {induction_head} scores {off:.2f} instead of "
            "{on:.2f}; the loss on the copied tokens goes from {loss_on:.2f} back up to {loss_off:.2f} nats.",
            previous_head=p_head + 1,
            induction_head=i_head + 1,
            off=float(off.induction_off[i_head]),
            on=float(off.induction_on[i_head]),
            loss_on=off.loss_on,
            loss_off=off.loss_off,
        )  # fmt: skip
    )
    bars = [
        (lv.switch_off_bars(heads, off.induction_on, off.induction_off, style=sty, y_range=(0, 1.1),
                            title=_("Induction score of layer 2's heads"), y_title=_("induction score"),
                            width_px=ui.HALF), "learn.off.induction"),
        (lv.switch_off_bars([_("copied tokens")], np.array([off.loss_on]), np.array([off.loss_off]), style=sty,
                            title=_("Loss on the copied tokens"), y_title=_("loss (nats)"), width_px=ui.HALF),
         "learn.off.loss"),
    ]  # fmt: skip
    ui.charts_in_row(bars)
if ui.shows("learn-train"):
    learn_ui.train_yourself(sty)
if not sty.present:
    st.download_button(
        _("Train it in a notebook"),
        partial(in_language, i18n.current(), learn_notebook.to_bytes),  # made in the page's language
        "watch-a-transformer-learn.ipynb",
        "application/x-ipynb+json", key="learn.notebook", icon=":material/download:",
        help=_("A Jupyter notebook that trains this same model from the same seed in plain numpy, to run "
               "anywhere"),
    )  # fmt: skip
