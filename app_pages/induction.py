"""/induction: random tokens repeated; every head's induction score, the best head's stripe, the loss."""

import numpy as np
import streamlit as st

from explorer.compute import interp, model_compute, timing
from explorer.i18n import _, ngettext
from explorer.model import models
from explorer.ui import interp_ui, model_ui, questions, state, waiting
from explorer.ui import widgets as ui
from explorer.views import chart_specs as charts
from explorer.views import figures as fg
from explorer.views import interp_figures as lf
from explorer.views.model_figures import show_token, token_labels
from explorer.views.text import literal

ui.opening(
    _("Induction heads"),
    _(
        "Random tokens carry no meaning, so the first time through the model can only guess. Repeat them, and "
        "a few heads look back to the token that came *after* the current one last time and copy it: induction "
        "heads. A head's score is the weight it puts there, averaged over the second copy. They need a "
        "previous-token head in an earlier layer to mark what came before each token."
    ),
    r"\text{score} = \frac{1}{n}\sum_{i=n}^{2n-1} A_{i,\; i-n+1}",
)
EXPERIMENT_PX = 80  # the experiment's row of buttons under the loss chart, presenting

key = model_ui.say_model(
    decoder_only=True,
    why_not=_(
        "MiniLM is an encoder: every token sees every other, the later ones too, so copying what came next is "
        "not a prediction there. Induction heads are a decoder's: here is SmolLM2."
    ),
)
if key is not None:
    sty, (c1, c2, c3) = ui.style(), st.columns(3)
    seed, n = interp_ui.induction_controls(c1, c2)
    off = state.off_heads() if state.model_key() == key else ()  # switched off on this model (/ablation)
    wait = timing.words("induction", 2 * n)  # said from this server's own runs once it has run one
    with waiting.working(
        _("Running {n} random tokens twice and scoring every head: {wait}…", n=n, wait=wait), key
    ):
        ind = interp.induction(key, seed, n, off)
        every_on = interp.induction(key, seed, n).run if off else None
    run = ind.run
    L, H = run.induction.shape
    order = np.argsort(-run.induction.ravel(), kind="stable")[:10]
    # Presenting, the two questions' toggles sit side by side: stacked, they push the step past one screen.
    t1, t2 = c3.columns(2) if sty.present else (c3, c3)
    t1.toggle(_("Predict, then reveal"), key=state.K_ASK_INDUCTION, persist_state="session",
              help=_("Hide the scores behind a question until Reveal (or the clicker's next key). The share "
                     "link carries it (ask=induction)."))  # fmt: skip
    t2.toggle(_("Previous-token?"), key=state.K_ASK_PREV, persist_state="session",
              help=_("Ask whether the head drawn is a previous-token head, its pattern and scores hidden until "
                     "Reveal. The share link carries it (ask=prev)."))  # fmt: skip
    best, prompt = int(order[0]), _("Which head copies the earlier token (the highest induction score)?")
    hidden = questions.model_question_hides(
        "induction", f"{key}:{seed}:{n}:{off}",
        _("Predict: which head copies the earlier token (the highest induction score)?"),
        _("Answer: layer {layer}, head {head}, with an induction score of {score:.2f}: its stripe below.",
          layer=best // H + 1, head=best % H + 1, score=float(run.induction.ravel()[best])),
        questions.head_choices(run.induction, prompt),
    )  # fmt: skip
    ui.keep_among("induction.head", order.tolist(), _("ten best heads"))
    head = None if hidden else c3.selectbox(  # its labels carry the scores: hidden with them
        _("Head to draw"), order.tolist(), key="induction.head", persist_state="session",
        format_func={i: _("layer {layer}, head {head}: {score:.2f}", layer=i // H + 1, head=i % H + 1,
                          score=float(run.induction.ravel()[i])) for i in order.tolist()}.__getitem__,  # this run's words
    )  # fmt: skip
    layer, h = divmod(int(head if head is not None else order[0]), H)
    prev = float(run.previous[layer, h])  # its mean weight on the token just before
    which = {"layer": layer + 1, "head": h + 1}
    yes, no = _("yes"), _("no")
    hidden_prev = questions.model_question_hides(
        "prev", f"{key}:{seed}:{n}:{off}:{layer}.{h}",
        _("Predict: is layer {layer}, head {head} a previous-token head (more than half its weight on the token "
          "just before)?", **which),
        _("Answer: yes: it gives the token just before {weight:.2f} of its weight, on average.", weight=prev)
        if prev > 0.5
        else _("Answer: no: it gives the token just before {weight:.2f} of its weight, on average.", weight=prev),
        (_("Is layer {layer}, head {head} a previous-token head (more than half its weight on the token just "
           "before)?", **which), [yes, no], 0 if prev > 0.5 else 1),
    )  # fmt: skip
    if not sty.present:
        shown = ", ".join(f"“{literal(show_token(t))}”" for t in ind.tokens[:12])
        if n > 12:
            st.caption(_("The {n} tokens: {tokens}, …, then the same {n} again.", n=n, tokens=shown))
        else:
            st.caption(_("The {n} tokens: {tokens}, then the same {n} again.", n=n, tokens=shown))
    rows, cols = [str(layer + 1) for layer in range(L)], [str(h + 1) for h in range(H)]
    # presenting: positions for labels (100 tokens cannot be read from afar; the hover names them)
    labels = [str(i) for i in range(2 * n)] if sty.present else token_labels([*ind.tokens, *ind.tokens])
    weights = np.asarray(run.attentions[layer, h], dtype=np.float64)
    title = charts.INDUCTION_PATTERN.titled(layer=layer + 1, head=h + 1, score=run.induction[layer, h])
    tall = 420 if sty.present else None  # presenting: both charts and the controls on one screen
    fig = fg.drawn_heatmap(
        weights,
        labels,
        labels,
        style=sty,
        title=title,
        cells=fg.Cells(weights=True, masked=model_compute.blocked(key, 2 * n)),
        axes=fg.Axes(width_px=ui.HALF if sty.present else fg.FULL_PX, height_px=tall),
    )
    lf.with_stripe(fig.figure, n, sty)  # the induction stripe framed (changes the figure)
    scores = fg.drawn_heatmap(
        run.induction,
        rows,
        cols,
        style=sty,
        title=charts.INDUCTION_SCORES.titled(),
        cells=fg.Cells(weights=True),
        axes=fg.Axes(**charts.INDUCTION_SCORES.axes, width_px=ui.HALF, height_px=tall),
    )
    if hidden:  # predict, then reveal: no score and no head's stripe until Reveal
        pass
    elif hidden_prev:  # the induction scores only: the pattern and the previous-token scores say it
        ui.chart(scores, charts.INDUCTION_SCORES.key)
    elif sty.present and ui.shows("induction"):  # one screen: the scores beside the best head
        pattern = (fig, charts.INDUCTION_PATTERN.key)
        ui.charts_in_row([(scores, charts.INDUCTION_SCORES.key), pattern])
    elif not sty.present:
        previous = fg.drawn_heatmap(
            run.previous,
            rows,
            cols,
            style=sty,
            title=charts.PREVIOUS_SCORES.titled(),
            cells=fg.Cells(weights=True),
            axes=fg.Axes(**charts.PREVIOUS_SCORES.axes, width_px=ui.HALF),
        )
        ui.charts_in_row([(scores, charts.INDUCTION_SCORES.key), (previous, charts.PREVIOUS_SCORES.key)])
        ui.chart(fig, charts.INDUCTION_PATTERN.key)
    first, second = run.losses[: n - 1].mean(), run.losses[n - 1 :].mean()
    if every_on is None:
        loss_title = _(
            "Loss of each token: {first:.2f} nats on average the first time, {second:.2f} the second",
            first=float(first),
            second=float(second),
        )
    else:
        loss_title = _("Loss of each token: {first:.2f} nats on average the first time, {second:.2f} the second "
                       "({every:.2f} with every head on)", first=float(first), second=float(second),
                       every=float(every_on.losses[n - 1 :].mean()))  # fmt: skip
    passed = np.argwhere(interp.standard_induction(key) >= models.INDUCTION_THRESHOLD)
    if ui.shows("induction-loss"):  # presenting: the loss is the second step
        every = None if every_on is None else every_on.losses
        # presenting: shorter by the experiment's row of buttons below it (the step is one screen)
        short = fg.PRESENT_CHART_PX - EXPERIMENT_PX if sty.present else None
        fig = lf.loss_lines(run.losses, n, style=sty, title=loss_title, every_head_on=every, height_px=short)
        ui.chart(fig, "induction.loss")
        interp_ui.induction_experiment(key, tuple((int(a), int(b)) for a, b in passed), off)
    if ui.shows("induction") and not hidden:
        st.markdown(
            ngettext(
                "On *Every layer and head*, a head is labelled **induction** when it scores at least {threshold} "
                "on the standard run ({length} tokens, seed {seed}): {n} head, {heads} (layer.head). A head that "
                "spreads its weight evenly scores {uniform:.3f} here.",
                "On *Every layer and head*, a head is labelled **induction** when it scores at least {threshold} "
                "on the standard run ({length} tokens, seed {seed}): {n} heads, {heads} (layer.head). A head "
                "that spreads its weight evenly scores {uniform:.3f} here.",
                len(passed),
                threshold=models.INDUCTION_THRESHOLD,
                length=models.INDUCTION_LENGTH,
                seed=models.INDUCTION_SEED,
                heads=", ".join(f"{layer + 1}.{h + 1}" for layer, h in passed),
                uniform=interp.uniform_score(n),
            )  # fmt: skip
        )
